import type { CompiledStructure } from './compile';
import { solveLinearSystem } from './linear-system';
import { scratch } from './scratch';
import { checkpoint } from './stop-check';

/** Largest number of accelerated sweeps on one cycle. */
const MAX_ITERATIONS = 500;
/** Stop once a sweep moves no probability by more than this fraction of the largest one. */
const RELATIVE_TOLERANCE = 1e-13;
/** How many past sweeps the acceleration combines (the fused passes below are written for three). */
const HISTORY = 3;

/**
 * The scratch arrays of `solveLargeCycle`, passed in so that this file needs nothing from the
 * workspace beyond plain arrays: `reach` holds solved values (read) and receives the answer,
 * `localIndex` is all −1 on entry and on exit, `unknowns[0..n)` are the nodes to solve and
 * `order` is scratch of at least `n` entries.
 */
export interface LargeCycleInput {
  reach: Float64Array;
  localIndex: Int32Array;
  unknowns: Int32Array;
  order: Int32Array;
  /**
   * Whether the component's gain is certainly below 1 (a routing loop, whose reach is a
   * probability, or a fan-out loop its gain bounds put below): sweeps that stop short of settling
   * are then started again from where they stopped (`RESTARTS`).
   */
  bounded: boolean;
}

/**
 * Rounds of sweeps started again from where the last stopped, the acceleration's history cleared,
 * for a component certainly bounded (the origin's reach here, the entry latencies' loops). On a
 * loop that keeps most of what passes (a ring of 129 services passing 99% on, 1% to the blockage)
 * the accelerated sweeps stall within 1e-8 of the answer and come no nearer in their 500: the
 * origin was then a node picked by that error among nodes that all contribute the same. Started
 * again, they settle in a few hundred more.
 */
export const RESTARTS = 8;

/**
 * Solves `r(u) = Σ share(e)·r(to(e))` for the `n` unknowns of one large strongly connected
 * component, values outside it being known.
 *
 * Plain Gauss–Seidel is too slow here: when value wanders around a big cycle for many steps
 * before it leaves, each sweep removes only a few percent of the error (hundreds of sweeps on
 * a random graph with 2% sinks). So the sweeps are accelerated with Anderson mixing (the
 * fixed-point form of GMRES): each new iterate is the combination of the last few sweeps that
 * best cancels their residuals, which removes the slow modes in a few dozen sweeps.
 *
 * The unknowns are swept in the component's feedback order (successors first), so one sweep
 * carries value all the way back along forward chains, and the sweep reads a compact local
 * copy of the component's edges.
 *
 * Returns the sweeps it took and whether they settled. Sweeps that do not settle in the
 * component's feedback order within two rounds (one, for a component not known to be bounded,
 * which gets no restarts) go on in the other order (`freedFirstSweepOrder`, as the steady
 * state's do) for a round, and the restarts left if certainly bounded, from where they stopped: the first order can run against a ring (a
 * ring of 65 with a dependency back to its second node swept half of it forwards, and the
 * accelerated sweeps stalled at a reach of 0.45 where every node's is 1; the other order settles
 * it in six). The caller decides what an unsettled answer is worth (reach.ts eliminates a small
 * component instead), and one that settled only after its first round (`slow`): sweeps that
 * settle slowly stop where a sweep moves little, which can be far more than that from the answer
 * (a ring of 66 with fifteen dependencies across it settled after 876 sweeps, 1e-9 from it).
 */
export function solveLargeCycle(
  structure: CompiledStructure,
  input: LargeCycleInput,
  n: number,
  /** Start from the unknowns' values in `reach` rather than from zeros. */
  // Stryker disable next-line BooleanLiteral: same answer: reach.ts clears the unknowns' reach to 0 before their first solve, so starting from it is starting from zeros
  fromReach = false,
): { sweeps: number; converged: boolean; slow: boolean } {
  // The sweep orders last as long as the structure: each computed before its phase begins.
  const preferred = structure.sweepOrder();
  const first = inPhase(() => solveComponent(structure, input, n, preferred, FIRST_ORDER_ROUNDS, fromReach));
  // Stryker disable next-line EqualityOperator,ConditionalExpression: a solve that settled at its very last sweep is slow or not alike (reach.ts then checks it from above, or eliminates it: the same answer); one that settled, swept again in the other order from where it stopped, settles there at once (same answer, other work)
  if (first.converged) return { ...first, slow: first.sweeps > MAX_ITERATIONS };
  const other = structure.freedFirstSweepOrder();
  const more = inPhase(() =>
    // Stryker disable next-line ArithmeticOperator,BooleanLiteral: same answer, other work (more or fewer rounds in the other order: the rings past elimination settle in its first; from zeros rather than from where the first order stopped)
    solveComponent(structure, input, n, other, 1 + RESTARTS - FIRST_ORDER_ROUNDS, true),
  );
  return { sweeps: first.sweeps + more.sweeps, converged: more.converged, slow: true };
}

/** Rounds of sweeps in the first order (the first and one restart) before the other order takes over. */
const FIRST_ORDER_ROUNDS = 2;

/** Runs `solve` in a scratch phase of its own: the local copy and the iteration's vectors are dead once it returns. */
function inPhase<T>(solve: () => T): T {
  const mark = scratch.mark();
  try {
    return solve();
  } finally /* Stryker disable next-line BlockStatement: releasing only lets later phases of the call reuse the memory */ {
    scratch.release(mark);
  }
}

/**
 * Up to `rounds` rounds of accelerated sweeps (the later ones only for a component certainly
 * bounded) in the order `preferred`, from 0 or, with `fromReach`, from the values in `reach`.
 */
function solveComponent(
  structure: CompiledStructure,
  input: LargeCycleInput,
  n: number,
  preferred: Int32Array,
  rounds: number,
  fromReach: boolean,
): { sweeps: number; converged: boolean } {
  const { reach, localIndex, unknowns, order } = input;
  const { outStart, outTarget, outShare } = structure;

  // Sweep order: the component's feedback order (sweep-order.ts), so that on mostly-forward
  // structures a sweep reads fresh values everywhere but on the few edges pointing back.
  for (const u of unknowns.subarray(0, n)) localIndex[u] = -2;
  const { start, componentOf } = structure.components();
  const component = componentOf[unknowns[0]!]!;
  let ordered = 0;
  // Every unknown lies in its component's range, so the scan ends with the same order whichever
  // bound stops it (the count only saves reading the rest of the range).
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: see above
  for (let i = start[component]!; i < start[component + 1]! && ordered < n; i++) {
    const u = preferred[i]!;
    if (localIndex[u] === -2) {
      localIndex[u] = ordered;
      order[ordered++] = u;
    }
  }
  const m = ordered;

  // The component's own edges, in local numbering; what leaves it is folded into `constant`.
  // Counting them only sizes the edge arrays: counting more (a row too many, an edge past the
  // row, edges leaving the component) leaves room that is never read.
  let localEdges = 0;
  // Stryker disable next-line EqualityOperator: see above
  for (let q = 0; q < m; q++) {
    const u = order[q]!;
    const end = outStart[u + 1]!;
    // Stryker disable next-line EqualityOperator: see above
    for (let k = outStart[u]!; k < end; k++) {
      const t = outTarget[k]!;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: see above
      if (t !== u && localIndex[t]! >= 0) localEdges++;
    }
  }
  const rowStart = scratch.int32(m + 1);
  const target = scratch.int32(localEdges);
  const share = scratch.float64(localEdges);
  const constant = scratch.float64(m);
  const scale = scratch.float64(m);
  let edge = 0;
  // Stryker disable next-line EqualityOperator: a row past the end writes only past the typed arrays' ends, which is dropped
  for (let q = 0; q < m; q++) {
    const u = order[q]!;
    // A node whose every dependency points to itself has no edge into the rest of a cycle, so it
    // is never in one: what it does not keep is above 0 here (summed from its other shares: a
    // self share of 1e16 in 1e16 + 1 rounds to 1, and 1 − it to 0).
    const notKept = structure.shareNotKept(u);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
    scale[q] = notKept > 0 ? 1 / notKept : 0;
    let fixed = 0;
    const end = outStart[u + 1]!;
    for (let k = outStart[u]!; k < end; k++) {
      const t = outTarget[k]!;
      if (t === u) continue;
      const local = localIndex[t]!;
      if (local >= 0) {
        target[edge] = local;
        share[edge++] = outShare[k]!;
      } else {
        fixed += outShare[k]! * reach[t]!;
      }
    }
    constant[q] = fixed;
    rowStart[q + 1] = edge;
  }

  let initial: Float64Array | undefined;
  // Stryker disable next-line ConditionalExpression: same answer: the unknowns' reach is 0 before their first solve, so starting from it is starting from zeros
  if (fromReach) {
    initial = scratch.float64(m);
    // Stryker disable next-line EqualityOperator: one past the end: a typed array keeps no such index
    for (let q = 0; q < m; q++) initial[q] = reach[order[q]!]!;
  }
  let solved = solveLocalSystem({ m, rowStart, target, share, constant, scale, initial });
  let sweeps = solved.sweeps;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,UpdateOperator: same answer, other work (rounds for a loop not known to be bounded, one round more, or rounds until it settles: each starts where the last stopped and only brings the estimate nearer)
  for (let round = 1; input.bounded && !solved.converged && round < rounds; round++) {
    solved = solveLocalSystem({ m, rowStart, target, share, constant, scale, initial: solved.values });
    sweeps += solved.sweeps;
  }
  const g = solved.values;

  // With fan-out, reach counts expected visits: no clamp; reach.ts checks the values instead.
  const visits = structure.hasFanout;
  for (let q = 0; q < m; q++) {
    const value = g[q]!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a probability past 1 here is 1 and a rounding of the sweeps (settled to 1e-13 of the largest), inside the origin's tie
    reach[order[q]!] = visits ? value : value > 1 ? 1 : Math.max(value, 0);
    localIndex[order[q]!] = -1;
  }
  return { sweeps, converged: solved.converged };
}

/**
 * One component's equations in local numbering: `x[q] = (constant[q] + Σ share[e]·x[target[e]])
 * · scale[q]` over the edges `rowStart[q] .. rowStart[q + 1]`, swept in index order.
 */
export interface LocalSystem {
  m: number;
  rowStart: Int32Array;
  target: Int32Array;
  share: Float64Array;
  constant: Float64Array;
  scale: Float64Array;
  /** Stop once a sweep moves no value by more than this fraction of the largest. Default 1e-13. */
  tolerance?: number;
  /** Where the sweeps start (a solve to a looser tolerance); zeros when absent. */
  initial?: Float64Array;
}

/**
 * Solves a component's local system by Gauss–Seidel sweeps accelerated with Anderson mixing
 * (see `solveLargeCycle`), until a sweep moves no value by more than `RELATIVE_TOLERANCE` of the
 * largest or after `MAX_ITERATIONS` sweeps. The values live in scratch memory: read them before
 * the caller's scratch phase ends. `converged` is false when the cap stopped it.
 */
export function solveLocalSystem(system: LocalSystem): {
  values: Float64Array;
  sweeps: number;
  converged: boolean;
} {
  const { m, rowStart, target, share, constant, scale } = system;
  const tolerance = system.tolerance ?? RELATIVE_TOLERANCE;
  const x = scratch.float64(m);
  if (system.initial !== undefined) x.set(system.initial);
  // `g` (the sweep's output) and `previousG` trade places after every sweep: the mixing pass
  // writes the next iterate into `previousG`, whose values (the sweep before) `measureSweep` has
  // just used and no longer needs, so the next sweep starts there without a copy and no pass
  // copies `g` into `previousG`.
  let g = scratch.float64(m);
  g.set(x);
  let previousG = scratch.float64(m);
  const previousF = scratch.float64(m);
  const deltaG = [scratch.float64(m), scratch.float64(m), scratch.float64(m)] as const;
  const deltaF = [scratch.float64(m), scratch.float64(m), scratch.float64(m)] as const;
  // Inner products of the stored residual differences, kept up to date one column at a time.
  const inner = new Float64Array(HISTORY * HISTORY);
  const measured = new Float64Array(MEASURED_LENGTH);
  const weights = new Float64Array(HISTORY);
  let stored = 0;
  let next = 0;

  let sweeps = 0;
  let converged = false;
  // The last sweep's values: the answer, converged or stopped by the cap.
  let values = g;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    checkpoint();
    gaussSeidelSweep(m, rowStart, target, share, constant, scale, g);
    values = g;
    // Columns are refreshed from the second sweep on; the products use the refreshed ones.
    const recording = iteration > 0;
    const column = next;
    measureSweep(
      m,
      x,
      g,
      previousG,
      previousF,
      deltaG[column]!,
      deltaF[column]!,
      recording,
      deltaF,
      measured,
    );
    sweeps = iteration + 1;
    const residual = measured[RESIDUAL]!;
    const size = measured[SIZE]!;
    // `size` is the largest |g|, never negative, so a residual of 0 always stops here. The two
    // sides are equal only then, with g all 0, which unknowns that reach the target never are.
    // Stryker disable next-line EqualityOperator: see above
    if (residual <= tolerance * size) {
      converged = true;
      break;
    }

    if (recording) {
      if (stored < HISTORY) stored++;
      for (let c = 0; c < stored; c++) {
        const product = measured[INNER + c]!;
        inner[column * HISTORY + c] = product;
        inner[c * HISTORY + column] = product;
      }
      next = (next + 1) % HISTORY;
    }

    weights.fill(0);
    // With no history yet (the first sweep) there is nothing to combine: solveSmall says so.
    const gamma = solveSmall(inner, HISTORY, stored, measured.subarray(RHS, RHS + stored));
    if (gamma !== undefined) weights.set(gamma);
    mixIterate(m, x, g, previousG, weights, deltaG);
    const swept = g;
    g = previousG;
    previousG = swept;
  }

  return { values, sweeps, converged };
}

/**
 * One Gauss–Seidel sweep of `r = constant + share·r` (scaled for self-dependencies) in place over
 * `into`, which holds the iterate: rows before `q` read their fresh values, rows after it the
 * previous ones.
 */
function gaussSeidelSweep(
  m: number,
  rowStart: Int32Array,
  target: Int32Array,
  share: Float64Array,
  constant: Float64Array,
  scale: Float64Array,
  into: Float64Array,
): void {
  // Stryker disable next-line EqualityOperator: a row past the end writes only past the typed array's end, which is dropped
  for (let q = 0; q < m; q++) {
    let sum = constant[q]!;
    const end = rowStart[q + 1]!;
    for (let e = rowStart[q]!; e < end; e++) sum += share[e]! * into[target[e]!]!;
    into[q] = sum * scale[q]!;
  }
}

/** Slots of `measureSweep`'s output. */
const RESIDUAL = 0;
const SIZE = 1;
/** `INNER + c`: the new residual difference · stored difference `c`. */
const INNER = 2;
/** `RHS + c`: stored difference `c` · the residual. */
const RHS = INNER + HISTORY;
const MEASURED_LENGTH = RHS + HISTORY;

/**
 * Everything the acceleration needs from a sweep, in one pass over the vectors: the residual
 * `f = g − x` and the largest |f| and |g|; when `recording`, the newest differences of `g` and
 * `f` into their ring-buffer columns; the remembered `f` (the remembered `g` is the buffer the
 * sweep did not write: `solveLocalSystem` swaps them); and the inner products of the
 * refreshed columns. Each sum runs over `q` in ascending order, as separate passes would, so
 * the numbers are bit-identical to computing them one vector operation at a time (they were,
 * before these passes were fused: the pinned-output test holds it).
 */
function measureSweep(
  m: number,
  x: Float64Array,
  g: Float64Array,
  previousG: Float64Array,
  previousF: Float64Array,
  newDeltaG: Float64Array,
  newDeltaF: Float64Array,
  recording: boolean,
  deltaF: readonly [Float64Array, Float64Array, Float64Array],
  into: Float64Array,
): void {
  const [f0, f1, f2] = deltaF;
  let residual = 0;
  let size = 0;
  let inner0 = 0;
  let inner1 = 0;
  let inner2 = 0;
  let rhs0 = 0;
  let rhs1 = 0;
  let rhs2 = 0;
  for (let q = 0; q < m; q++) {
    const gq = g[q]!;
    const d = gq - x[q]!;
    // (Whether 0 turns into -0 and whether an equal value replaces the largest change nothing.)
    // Stryker disable next-line EqualityOperator: see above
    const ad = d < 0 ? -d : d;
    // Stryker disable next-line EqualityOperator: see above
    if (ad > residual) residual = ad;
    // Stryker disable next-line EqualityOperator: see above
    const ag = gq < 0 ? -gq : gq;
    // Stryker disable next-line EqualityOperator: see above
    if (ag > size) size = ag;
    // Recording on the first sweep too would only fill the column the second sweep overwrites:
    // `next` moves on only once a column is recorded (solveComponent).
    // Stryker disable next-line ConditionalExpression: see above
    if (recording) {
      const df = d - previousF[q]!;
      newDeltaG[q] = gq - previousG[q]!;
      newDeltaF[q] = df;
      const c0 = f0[q]!;
      const c1 = f1[q]!;
      const c2 = f2[q]!;
      inner0 += df * c0;
      inner1 += df * c1;
      inner2 += df * c2;
      rhs0 += c0 * d;
      rhs1 += c1 * d;
      rhs2 += c2 * d;
    }
    previousF[q] = d;
  }
  into[RESIDUAL] = residual;
  into[SIZE] = size;
  into[INNER] = inner0;
  into[INNER + 1] = inner1;
  into[INNER + 2] = inner2;
  into[RHS] = rhs0;
  into[RHS + 1] = rhs1;
  into[RHS + 2] = rhs2;
}

/**
 * The next iterate: `x = g − Σ weight_c · ΔG_c`, terms in column order, zero weights skipped,
 * written to `x` and to `next`, where the next sweep starts from it.
 */
function mixIterate(
  m: number,
  x: Float64Array,
  g: Float64Array,
  next: Float64Array,
  weights: Float64Array,
  deltaG: readonly [Float64Array, Float64Array, Float64Array],
): void {
  const [g0, g1, g2] = deltaG;
  const w0 = weights[0]!;
  const w1 = weights[1]!;
  const w2 = weights[2]!;
  // Stryker disable next-line EqualityOperator: a row past the end writes only past the typed array's end, which is dropped
  for (let q = 0; q < m; q++) {
    let value = g[q]!;
    // A zero weight times a finite column subtracts 0: skipping it only saves the work.
    // Stryker disable next-line ConditionalExpression: see above
    if (w0 !== 0) value -= w0 * g0[q]!;
    // Stryker disable next-line ConditionalExpression: see above
    if (w1 !== 0) value -= w1 * g1[q]!;
    // Stryker disable next-line ConditionalExpression: see above
    if (w2 !== 0) value -= w2 * g2[q]!;
    x[q] = value;
    next[q] = value;
  }
}

/**
 * The coefficients γ minimising ‖f − Σ γ_c·ΔF_c‖, from the normal equations (`inner` holds
 * ΔF_a·ΔF_b with row stride `stride`, `rhs` holds ΔF_a·f), lightly regularised; `undefined`
 * when they are too ill-conditioned to trust (the iteration then takes a plain sweep).
 */
function solveSmall(
  inner: Float64Array,
  stride: number,
  n: number,
  rhs: Float64Array,
): Float64Array | undefined {
  const a = new Float64Array(n * n);
  let trace = 0;
  for (let r = 0; r < n; r++) {
    // Stryker disable next-line EqualityOperator: a column past the row's end is overwritten by the next row or lands past the array's end
    for (let c = 0; c < n; c++) a[r * n + c] = inner[r * stride + c]!;
    trace += a[r * n + r]!;
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer (a trace of 0 is every difference 0: the regularised system is all zero, which solveLinearSystem refuses too)
  if (!(trace > 0)) return undefined;
  // Stryker disable next-line EqualityOperator: a row past the end lands past the array's end
  for (let r = 0; r < n; r++) a[r * n + r]! += 1e-12 * trace;
  // A copy, so the solve does not overwrite `measured`; the next sweep rewrites it anyway.
  // Stryker disable next-line MethodExpression: see above
  const solution = rhs.slice(0, n);
  return solveLinearSystem(a, solution, n) ? solution : undefined;
}
