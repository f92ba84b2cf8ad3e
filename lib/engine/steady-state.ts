import type { CompiledStructure } from './compile';
import { gainBounds } from './gain-bounds';
import { solveLocalSystem } from './large-cycle';
import { solveLinearSystem } from './linear-system';
import { type ScratchMemory, scratch } from './scratch';

/**
 * A larger cycle's sweeps stop once a sweep changes no throughput by more than this fraction of
 * the largest. What is left is about that change over `1 − gain` (a loop that keeps its value
 * longer settles more slowly): well within 1e-9 of the largest throughput, the engine's
 * tolerance for every other number, on the tangled 400-node cycle a test checks against exact
 * elimination (5e-12 there; 1e-10 left 2e-9). Each decade looser saves about three sweeps of
 * the whole cycle. A loop whose gain is closer to 1 sweeps to `1e-9 · (1 − gain)`, and to
 * `SWEEP_FLOOR` at the least.
 */
const STEADY_TOLERANCE = 1e-11;

/** The tightest stopping tolerance sweeps are asked for: a few doubles' rounding of the largest. */
const SWEEP_FLOOR = 1e-14;

/**
 * Cycles with at most this many nodes are solved exactly by Gaussian elimination.
 * @internal tests build a cycle past it to reach the sweeps.
 */
export const STEADY_DENSE_LIMIT = 128;

/**
 * A loop whose gain (the spectral radius of its coefficients) is within this of 1 is reported
 * unbounded. Its throughputs would be at least a billion times what enters it, and a solve in
 * doubles carries errors of about 1e-16 / (1 − gain) of them: near 1 no double can tell a
 * gain of 1 (no steady state) from one just below. docs/engine.md, "How close to 1".
 */
export const GAIN_MARGIN = 1e-9;

/** The steady state of an open structure: what `analyze` reports as throughput and headroom. */
export interface SteadyState {
  /**
   * Per node, the steady throughput `x` of `x = arrival + x·T` (capacities ignored): the value
   * that passes through the node per step once the system has settled into its rhythm.
   * `Infinity` where no steady state exists (value grows without limit there).
   */
  throughput: Float64Array;
  /** The nodes whose throughput is unbounded, in index order. */
  unbounded: number[];
  /**
   * The nodes of the loops that have no steady state themselves (not the nodes they flood
   * downstream), in index order.
   */
  unboundedLoops: number[];
  /** Per down node with a throughput, what it loses per step (its throughput); empty when none is down. */
  lost: Float64Array;
  /** The sum of `lost`, 0 when nothing is lost. */
  totalLost: number;
  /** Sweeps spent on larger cycles: a figure for tests and benchmarks. */
  sweeps: number;
}

/**
 * Solves `x(v) = arrival(v) + Σ coef(e)·x(from(e))` over the dependencies into `v`, where
 * `coef(e)` is what one unit processed at `from` sends along `e`: `weight / (W + exit)`, or the
 * weight itself for a fan-out node. A node with no way out (a down node included) sends nothing
 * on.
 *
 * One strongly connected component at a time, sources first, so each only needs the solved
 * throughputs of the components before it. Whether a component that value reaches has a steady
 * state is decided before any solve where the structure says it: without fan-out, a loop that
 * no exit and no dependency leaves keeps all it gets; otherwise its gain is bounded
 * (`gainBounds`) and a gain within `GAIN_MARGIN` of 1 or more is unbounded. Then a closed form
 * for a single node, Gaussian elimination for cycles of up to `STEADY_DENSE_LIMIT` nodes, the
 * origin's accelerated Gauss–Seidel sweeps (large-cycle.ts) for larger ones; a gain the bounds
 * left undecided is decided by a second solve (`gapBound`). Every node an unbounded node
 * reaches is unbounded, by reachability, never by arithmetic on infinity.
 */
export function solveSteadyState(structure: CompiledStructure, memory: ScratchMemory = scratch): SteadyState {
  const { nodeCount, arrival, down } = structure;
  const throughput = memory.float64(nodeCount);
  const state: SteadyState = {
    throughput,
    unbounded: [],
    unboundedLoops: [],
    lost: down.length > 0 ? memory.float64(nodeCount) : new Float64Array(0),
    totalLost: 0,
    sweeps: 0,
  };
  let anyArrival = false;
  for (let v = 0; v < nodeCount; v++) if (arrival[v]! > 0) anyArrival = true;
  if (!anyArrival) return state;

  const { count, start, members } = structure.components();
  const localIndex = scratch.int32(nodeCount, -1);
  const carried = new CarriedValue(structure);
  for (let c = count - 1; c >= 0; c--) {
    const first = start[c]!;
    const end = start[c + 1]!;
    const component = members.subarray(first, end);
    const verdict =
      end - first === 1
        ? solveSingle(structure, component[0]!, throughput, carried)
        : solveCycle(structure, c, component, throughput, localIndex, carried);
    if (verdict === LOOP_UNBOUNDED) for (const v of component) state.unboundedLoops.push(v);
    else if (verdict > 0) state.sweeps += verdict;
  }
  state.unboundedLoops.sort((a, b) => a - b);

  for (let v = 0; v < nodeCount; v++) {
    const x = throughput[v]!;
    if (x === Number.POSITIVE_INFINITY) state.unbounded.push(v);
    else if (down.length > 0 && down[v] === 1 && x > 0) {
      state.lost[v] = x;
      state.totalLost += x;
    }
  }
  return state;
}

/** A component's own verdict: no steady state (its nodes are the loop to fix). */
const LOOP_UNBOUNDED = -1;

/**
 * `a / b` for positive finite numbers, kept finite: a capacity of 1e300 over a throughput of 1e-300
 * is beyond the largest double, and JSON would print Infinity as null. Such a ratio is reported as
 * `Number.MAX_VALUE` ("more than any double"), which still orders correctly against every other.
 */
export function boundedRatio(a: number, b: number): number {
  return Math.min(a / b, Number.MAX_VALUE);
}

/**
 * What arrives at `v` per step from outside and from nodes outside its component (`localIndex` −1);
 * `Infinity` when an unbounded node sends it anything.
 */
function inflowFromOutside(
  structure: CompiledStructure,
  v: number,
  throughput: Float64Array,
  localIndex: Int32Array | undefined,
  carried: CarriedValue,
): number {
  const { inStart, inSource, arrival } = structure;
  let sum = arrival[v]!;
  const end = inStart[v + 1]!;
  for (let j = inStart[v]!; j < end; j++) {
    const u = inSource[j]!;
    if (u === v || (localIndex !== undefined && localIndex[u]! >= 0)) continue;
    const x = throughput[u]!;
    // Reached from an unbounded node: unbounded too, whatever the share (0 × Infinity is NaN).
    if (x === Number.POSITIVE_INFINITY) return x;
    if (x > 0) sum += carried.along(j, x);
  }
  return sum;
}

/** Returns `LOOP_UNBOUNDED` when the node is a loop with no steady state, else 0. */
function solveSingle(
  structure: CompiledStructure,
  v: number,
  throughput: Float64Array,
  carried: CarriedValue,
): number {
  const inflow = inflowFromOutside(structure, v, throughput, undefined, carried);
  if (inflow === 0) return 0;
  if (inflow === Number.POSITIVE_INFINITY) {
    throughput[v] = inflow;
    return 0;
  }
  // A node with no way out sends nothing on, so its self-dependencies (it has none) add nothing.
  const stay = structure.selfShare[v]!;
  if (keepsAll(structure, v) || !(1 - stay >= GAIN_MARGIN)) {
    throughput[v] = Number.POSITIVE_INFINITY;
    return LOOP_UNBOUNDED;
  }
  throughput[v] = inflow / (1 - stay);
  return 0;
}

/**
 * Whether `v`, not fan-out, sends all it processes back to itself: every dependency a
 * self-dependency and no exit. Decided by the structure, since shares such as 0.1 + 0.2 + 0.7
 * need not add up to exactly 1 in doubles.
 */
function keepsAll(structure: CompiledStructure, v: number): boolean {
  const { outStart, outTarget } = structure;
  if (structure.isFanout(v) || outStart[v + 1] === outStart[v]) return false;
  if (structure.open && structure.exit[v]! > 0) return false;
  for (let k = outStart[v]!; k < outStart[v + 1]!; k++) if (outTarget[k] !== v) return false;
  return true;
}

/**
 * Solves one cycle of `members`. Returns `LOOP_UNBOUNDED` when the cycle itself has no steady
 * state, else the sweeps it took (0 when solved exactly or not at all).
 */
function solveCycle(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  throughput: Float64Array,
  localIndex: Int32Array,
  carried: CarriedValue,
): number {
  const n = members.length;
  for (let i = 0; i < n; i++) localIndex[members[i]!] = i;
  try {
    const b = new Float64Array(n);
    let anyInflow = false;
    let fedUnbounded = false;
    for (let i = 0; i < n; i++) {
      const inflow = inflowFromOutside(structure, members[i]!, throughput, localIndex, carried);
      b[i] = inflow;
      if (inflow > 0) anyInflow = true;
      if (inflow === Number.POSITIVE_INFINITY) fedUnbounded = true;
    }
    // Nothing reaches the cycle: it keeps a throughput of 0 (closed or not).
    if (!anyInflow) return 0;
    if (fedUnbounded) {
      for (let i = 0; i < n; i++) throughput[members[i]!] = Number.POSITIVE_INFINITY;
      return 0;
    }
    const verdict = solveReachedCycle(structure, component, members, b, localIndex);
    for (let i = 0; i < n; i++) {
      throughput[members[i]!] = verdict === LOOP_UNBOUNDED ? Number.POSITIVE_INFINITY : b[i]!;
    }
    return verdict;
  } finally {
    for (let i = 0; i < n; i++) localIndex[members[i]!] = -1;
  }
}

/**
 * A cycle that value reaches: `b` receives its throughputs; see `solveCycle` for the answer.
 *
 * Without fan-out a cycle's shares are a routing: one that leaks has a gain below 1 exactly, so
 * a large one is swept as before, and a small one is checked against `GAIN_MARGIN` by a second
 * elimination (cheap at 128 nodes or fewer). With fan-out the gain is bounded first; only a gain
 * the bounds leave undecided costs a second solve.
 */
function solveReachedCycle(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
): number {
  const fanout = anyFanout(structure, members);
  if (!fanout && !leaks(structure, members, localIndex)) return LOOP_UNBOUNDED;
  const decided = 1 - GAIN_MARGIN;
  // A certain lower bound on 1 − gain, or 0 while unknown.
  let gap = 0;
  if (fanout) {
    const gain = gainBounds(structure, members, localIndex, decided);
    if (gain.low >= decided) return LOOP_UNBOUNDED;
    if (gain.high < decided) gap = 1 - gain.high;
  } else if (members.length > STEADY_DENSE_LIMIT) {
    // A leaking routing: bounded by its structure; its sweeps' best estimate stands.
    const { sweeps, valid } = solveBySweeps(structure, component, members, b, localIndex, STEADY_TOLERANCE);
    return valid ? sweeps : LOOP_UNBOUNDED;
  }
  const sweeps = solveComponent(structure, component, members, b, localIndex, gap);
  if (sweeps < 0) return LOOP_UNBOUNDED;
  if (gap === 0 && !(gapBound(structure, component, members, localIndex) >= GAIN_MARGIN)) {
    return LOOP_UNBOUNDED;
  }
  return sweeps;
}

function anyFanout(structure: CompiledStructure, members: Int32Array): boolean {
  for (const v of members) if (structure.isFanout(v)) return true;
  return false;
}

/** Whether anything leaves the cycle: an exit, or a dependency to a node outside it. */
function leaks(structure: CompiledStructure, members: Int32Array, localIndex: Int32Array): boolean {
  const { outStart, outTarget, exitShare } = structure;
  for (const v of members) {
    if (structure.open && exitShare[v]! > 0) return true;
    for (let k = outStart[v]!; k < outStart[v + 1]!; k++) if (localIndex[outTarget[k]!]! < 0) return true;
  }
  return false;
}

/**
 * Solves `(I − Tᵀ) x = b` on the cycle, `b` receiving `x`: Gaussian elimination up to
 * `STEADY_DENSE_LIMIT` nodes, sweeps beyond. `gap` is a certain lower bound on `1 − gain`, 0
 * when unknown. Returns the sweeps taken (0 for elimination), or `LOOP_UNBOUNDED` when there is
 * no nonnegative finite solution, or sweeps of a loop not known to be bounded did not settle.
 */
function solveComponent(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
  gap: number,
): number {
  if (members.length <= STEADY_DENSE_LIMIT)
    return solveDense(structure, members, b, localIndex) ? 0 : LOOP_UNBOUNDED;
  const tolerance = Math.max(Math.min(STEADY_TOLERANCE, 1e-9 * gap), SWEEP_FLOOR);
  const { sweeps, valid, converged } = solveBySweeps(structure, component, members, b, localIndex, tolerance);
  // Sweeps that hit their cap still bound a loop known to be bounded: they are its best estimate.
  return valid && (converged || gap > 0) ? sweeps : LOOP_UNBOUNDED;
}

/**
 * A lower bound on `1 − gain`: `1 / max y` for `y = (I − Tᵀ)⁻¹ 1`, since `Tᵀy = y − 1` makes
 * `max (Tᵀy)ᵢ / yᵢ = 1 − 1 / max y` a Collatz–Wielandt bound. 0 when `y` is not positive and
 * finite (the gain is 1 or more).
 */
function gapBound(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  localIndex: Int32Array,
): number {
  const y = new Float64Array(members.length).fill(1);
  if (solveComponent(structure, component, members, y, localIndex, 0) === LOOP_UNBOUNDED) return 0;
  let largest = 0;
  for (const value of y) if (value > largest) largest = value;
  return 1 / largest;
}

/**
 * What a dependency carries per step from a node processing `x`: `x · coef`. Where a share is
 * below the smallest normal double (a weight of 1e-300 beside one of 1e300) the compiled share
 * has lost its digits or underflowed to 0, so the value is worked out from the weights instead:
 * `x / W · weight`, which keeps 1e300 × 1e-300 / 1e300 from reading 0.
 */
export class CarriedValue {
  #exact: { perDependency: Float64Array; inDependency: Int32Array } | undefined;
  readonly #structure: CompiledStructure;

  constructor(structure: CompiledStructure) {
    this.#structure = structure;
  }

  /** What in-slot `j` carries from its source processing `x` (finite, > 0). */
  along(j: number, x: number): number {
    const share = this.#structure.inShare[j]!;
    if (share >= MIN_NORMAL) return x * share;
    this.#exact ??= exactWeights(this.#structure);
    return this.#carried(this.#exact.inDependency[j]!, x);
  }

  /**
   * What dependency `e` carries per step in the steady state: 0 from a down node (it has no
   * slot), `undefined` from an unbounded one.
   */
  ofDependency(e: number, throughput: Float64Array): number | undefined {
    const structure = this.#structure;
    const slot = structure.slotOfDependency[e]!;
    if (slot < 0) return 0;
    const x = throughput[structure.dependencyFrom[e]!]!;
    if (x === Number.POSITIVE_INFINITY) return undefined;
    if (x === 0) return 0;
    const share = structure.outShare[slot]!;
    if (share >= MIN_NORMAL) return x * share;
    this.#exact ??= exactWeights(structure);
    return this.#carried(e, x);
  }

  #carried(e: number, x: number): number {
    const { perDependency } = this.#exact!;
    return carriedExactly(x, perDependency[3 * e]!, perDependency[3 * e + 1]!, perDependency[3 * e + 2]!);
  }
}

const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * `x · weight / (scale · total)` in an order that neither overflows nor underflows when the
 * answer is a normal double: the source's total is `scale · total`, `scale` 1 unless the sum of
 * its weights overflows.
 */
export function carriedExactly(x: number, weight: number, scale: number, total: number): number {
  const product = x * weight;
  if (product >= MIN_NORMAL && product < Number.POSITIVE_INFINITY) return product / scale / total;
  return (x / scale / total) * weight;
}

/**
 * Per dependency, the weight it carries, its source's scale and total (`W + exit` = scale ·
 * total, scaled by the largest weight only where the sum overflows, as compile.ts does; 1 and 1
 * for a fan-out source, whose weight is what it carries per unit); per in slot, its dependency.
 * Built only when some share is tiny.
 */
function exactWeights(structure: CompiledStructure): {
  perDependency: Float64Array;
  inDependency: Int32Array;
} {
  const { nodeCount, dependencyCount, dependencyFrom, dependencyTo, slotOfDependency, givenWeight, inStart } =
    structure;
  const weightOf = (e: number) => (Number.isNaN(givenWeight[e]!) ? 1 : givenWeight[e]!);
  const exitOf = (v: number) => (structure.open ? structure.exit[v]! : 0);
  const total = new Float64Array(nodeCount);
  const largest = new Float64Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    total[v] = exitOf(v);
    largest[v] = exitOf(v);
  }
  for (let e = 0; e < dependencyCount; e++) {
    if (slotOfDependency[e]! < 0) continue;
    const u = dependencyFrom[e]!;
    total[u]! += weightOf(e);
    largest[u] = Math.max(largest[u]!, weightOf(e));
  }
  const scale = new Float64Array(nodeCount).fill(1);
  for (let v = 0; v < nodeCount; v++) {
    if (total[v] !== Number.POSITIVE_INFINITY) continue;
    scale[v] = largest[v]!;
    total[v] = exitOf(v) / scale[v]!;
  }
  for (let e = 0; e < dependencyCount; e++) {
    const u = dependencyFrom[e]!;
    if (slotOfDependency[e]! >= 0 && scale[u] !== 1) total[u]! += weightOf(e) / scale[u]!;
  }
  const perDependency = new Float64Array(3 * dependencyCount);
  const inDependency = new Int32Array(inStart[nodeCount]!);
  const fill = new Int32Array(nodeCount);
  // A node's in slots hold the dependencies that carry into it, in input order.
  for (let e = 0; e < dependencyCount; e++) {
    if (slotOfDependency[e]! < 0) continue;
    const u = dependencyFrom[e]!;
    const v = dependencyTo[e]!;
    inDependency[inStart[v]! + fill[v]!++] = e;
    const fanout = structure.isFanout(u);
    perDependency[3 * e] = weightOf(e);
    perDependency[3 * e + 1] = fanout ? 1 : scale[u]!;
    perDependency[3 * e + 2] = fanout ? 1 : total[u]!;
  }
  return { perDependency, inDependency };
}

/**
 * `(I − Tᵀ) x = b` on the cycle by Gaussian elimination; `b` receives `x`. False when it has no
 * nonnegative finite solution: for a nonnegative irreducible `T`, `(I − T)⁻¹` exists and is
 * nonnegative exactly when its spectral radius is below 1, so a singular system or a negative
 * value means value is not leaving the cycle as fast as it arrives.
 */
function solveDense(
  structure: CompiledStructure,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
): boolean {
  const { inStart, inSource, inShare } = structure;
  const n = members.length;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const v = members[i]!;
    a[i * n + i] = 1;
    const end = inStart[v + 1]!;
    for (let j = inStart[v]!; j < end; j++) {
      const local = localIndex[inSource[j]!]!;
      if (local >= 0) a[i * n + local]! -= inShare[j]!;
    }
  }
  if (!solveLinearSystem(a, b, n)) return false;
  for (let i = 0; i < n; i++) if (!(b[i]! >= 0)) return false;
  return true;
}

/**
 * A larger cycle by accelerated Gauss–Seidel sweeps (the origin's large-cycle solver, on the
 * transposed equations: each row reads its predecessors' throughputs); `b` receives `x`. On entry
 * and exit `localIndex[members[i]] = i`. `valid` is false when the answer is no steady state: a
 * self-dependency that keeps it all, a negative or infinite solution (spectral radius 1 or more);
 * `converged` false when the sweeps did not settle within their cap.
 */
function solveBySweeps(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
  tolerance: number,
): { sweeps: number; valid: boolean; converged: boolean } {
  const { inStart, inSource, inShare, selfShare } = structure;
  const n = members.length;
  for (let i = 0; i < n; i++) {
    if (!(selfShare[members[i]!]! < 1)) return { sweeps: 0, valid: false, converged: false };
  }
  // The sweep order lasts as long as the structure: computed before the phase below begins.
  const preferred = structure.sweepOrder();
  const first = structure.components().start[component]!;
  const mark = scratch.mark();
  try {
    // Predecessors first: the reverse of the order the origin's sweeps use.
    const order = scratch.int32(n);
    const memberOf = scratch.int32(n);
    for (let q = 0; q < n; q++) {
      const v = preferred[first + n - 1 - q]!;
      order[q] = v;
      memberOf[q] = localIndex[v]!;
    }
    for (let q = 0; q < n; q++) localIndex[order[q]!] = q;
    let edges = 0;
    for (let q = 0; q < n; q++) {
      const v = order[q]!;
      for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
        const u = inSource[j]!;
        if (u !== v && localIndex[u]! >= 0) edges++;
      }
    }
    const rowStart = scratch.int32(n + 1);
    const target = scratch.int32(edges);
    const share = scratch.float64(edges);
    const constant = scratch.float64(n);
    const scale = scratch.float64(n);
    let edge = 0;
    for (let q = 0; q < n; q++) {
      const v = order[q]!;
      constant[q] = b[memberOf[q]!]!;
      scale[q] = 1 / (1 - selfShare[v]!);
      for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
        const u = inSource[j]!;
        const local = localIndex[u]!;
        if (u === v || local < 0) continue;
        target[edge] = local;
        share[edge++] = inShare[j]!;
      }
      rowStart[q + 1] = edge;
    }
    const { values, sweeps, converged } = solveLocalSystem({
      m: n,
      rowStart,
      target,
      share,
      constant,
      scale,
      tolerance,
    });
    let valid = true;
    for (let q = 0; q < n; q++) {
      const x = values[q]!;
      if (!(x >= 0 && x < Number.POSITIVE_INFINITY)) valid = false;
      b[memberOf[q]!] = x;
      localIndex[order[q]!] = memberOf[q]!;
    }
    return { sweeps, valid, converged };
  } finally {
    scratch.release(mark);
  }
}
