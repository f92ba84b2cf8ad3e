import type { CompiledStructure } from './compile';
import { solveLinearSystem } from './linear-system';
import { scratch } from './scratch';

/** Largest number of accelerated sweeps on one cycle. */
const MAX_ITERATIONS = 500;
/** Stop once a sweep moves no probability by more than this fraction of the largest one. */
const RELATIVE_TOLERANCE = 1e-13;
/** How many past sweeps the acceleration combines. */
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
}

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
 */
/** Returns the number of sweeps it took (at most `MAX_ITERATIONS`). */
export function solveLargeCycle(structure: CompiledStructure, input: LargeCycleInput, n: number): number {
  // The sweep order lasts as long as the structure: computed before the phase below begins.
  structure.sweepOrder();
  // The local copy of the component and the iteration's vectors are dead once it is solved.
  const mark = scratch.mark();
  try {
    return solveComponent(structure, input, n);
  } finally {
    scratch.release(mark);
  }
}

function solveComponent(structure: CompiledStructure, input: LargeCycleInput, n: number): number {
  const { reach, localIndex, unknowns, order } = input;
  const { outStart, outTarget, outShare, selfShare } = structure;

  // Sweep order: the component's feedback order (sweep-order.ts), so that on mostly-forward
  // structures a sweep reads fresh values everywhere but on the few edges pointing back.
  for (let i = 0; i < n; i++) localIndex[unknowns[i]!] = -2;
  const { start, componentOf } = structure.components();
  const component = componentOf[unknowns[0]!]!;
  const preferred = structure.sweepOrder();
  let ordered = 0;
  for (let i = start[component]!; i < start[component + 1]! && ordered < n; i++) {
    const u = preferred[i]!;
    if (localIndex[u] === -2) {
      localIndex[u] = ordered;
      order[ordered++] = u;
    }
  }
  const m = ordered;

  // The component's own edges, in local numbering; what leaves it is folded into `constant`.
  let localEdges = 0;
  for (let q = 0; q < m; q++) {
    const u = order[q]!;
    const end = outStart[u + 1]!;
    for (let k = outStart[u]!; k < end; k++) {
      const t = outTarget[k]!;
      if (t !== u && localIndex[t]! >= 0) localEdges++;
    }
  }
  const rowStart = scratch.int32(m + 1);
  const target = scratch.int32(localEdges);
  const share = scratch.float64(localEdges);
  const constant = scratch.float64(m);
  const scale = scratch.float64(m);
  let edge = 0;
  for (let q = 0; q < m; q++) {
    const u = order[q]!;
    const stay = selfShare[u]!;
    scale[q] = stay < 1 ? 1 / (1 - stay) : 0;
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

  const sweep = (from: Float64Array, into: Float64Array): void => {
    into.set(from);
    for (let q = 0; q < m; q++) {
      let sum = constant[q]!;
      const end = rowStart[q + 1]!;
      for (let e = rowStart[q]!; e < end; e++) sum += share[e]! * into[target[e]!]!;
      into[q] = sum * scale[q]!;
    }
  };

  const x = scratch.float64(m);
  const g = scratch.float64(m);
  const f = scratch.float64(m);
  const previousG = scratch.float64(m);
  const previousF = scratch.float64(m);
  const deltaG = Array.from({ length: HISTORY }, () => scratch.float64(m));
  const deltaF = Array.from({ length: HISTORY }, () => scratch.float64(m));
  // Inner products of the stored residual differences, kept up to date one column at a time.
  const inner = new Float64Array(HISTORY * HISTORY);
  const rhs = new Float64Array(HISTORY);
  let stored = 0;
  let next = 0;

  let sweeps = 0;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    sweep(x, g);
    let residual = 0;
    let size = 0;
    for (let q = 0; q < m; q++) {
      const d = g[q]! - x[q]!;
      f[q] = d;
      const ad = d < 0 ? -d : d;
      if (ad > residual) residual = ad;
      const ag = g[q]! < 0 ? -g[q]! : g[q]!;
      if (ag > size) size = ag;
    }
    sweeps = iteration + 1;
    if (residual <= RELATIVE_TOLERANCE * size || residual === 0) break;

    if (iteration > 0) {
      const dg = deltaG[next]!;
      const df = deltaF[next]!;
      for (let q = 0; q < m; q++) {
        dg[q] = g[q]! - previousG[q]!;
        df[q] = f[q]! - previousF[q]!;
      }
      if (stored < HISTORY) stored++;
      for (let c = 0; c < stored; c++) {
        const product = dot(df, deltaF[c]!);
        inner[next * HISTORY + c] = product;
        inner[c * HISTORY + next] = product;
      }
      next = (next + 1) % HISTORY;
    }
    previousG.set(g);
    previousF.set(f);

    x.set(g);
    if (stored === 0) continue;
    for (let c = 0; c < stored; c++) rhs[c] = dot(deltaF[c]!, f);
    const gamma = solveSmall(inner, HISTORY, stored, rhs);
    if (gamma === undefined) continue;
    for (let c = 0; c < stored; c++) {
      const weight = gamma[c]!;
      if (weight === 0) continue;
      const dg = deltaG[c]!;
      for (let q = 0; q < m; q++) x[q]! -= weight * dg[q]!;
    }
  }

  for (let q = 0; q < m; q++) {
    const value = g[q]!;
    reach[order[q]!] = value > 1 ? 1 : Math.max(value, 0);
    localIndex[order[q]!] = -1;
  }
  return sweeps;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let q = 0; q < a.length; q++) sum += a[q]! * b[q]!;
  return sum;
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
    for (let c = 0; c < n; c++) a[r * n + c] = inner[r * stride + c]!;
    trace += a[r * n + r]!;
  }
  if (!(trace > 0)) return undefined;
  for (let r = 0; r < n; r++) a[r * n + r]! += 1e-12 * trace;
  const solution = rhs.slice(0, n);
  return solveLinearSystem(a, solution, n) ? solution : undefined;
}
