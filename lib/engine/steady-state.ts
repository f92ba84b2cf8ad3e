import type { CompiledStructure } from './compile';
import { solveLocalSystem } from './large-cycle';
import { solveLinearSystem } from './linear-system';
import { type ScratchMemory, scratch } from './scratch';

/**
 * A larger cycle's sweeps stop once a sweep changes no throughput by more than this fraction of
 * the largest. What is left is a small multiple of that change (more where a cycle keeps its
 * value longer): well within 1e-9 of the largest throughput, the engine's tolerance for every
 * other number, on the tangled 400-node cycle a test checks against exact elimination (5e-12
 * there; 1e-10 left 2e-9). Each decade looser saves about three sweeps of the whole cycle.
 */
const STEADY_TOLERANCE = 1e-11;

/**
 * Cycles with at most this many nodes are solved exactly by Gaussian elimination.
 * @internal tests build a cycle past it to reach the sweeps.
 */
export const STEADY_DENSE_LIMIT = 128;

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
  /** The first node to saturate as arrivals grow, and by how many times; `undefined` when none. */
  headroom: { scale: number; node: number } | undefined;
  /** Sweeps spent on larger cycles: a figure for tests and benchmarks. */
  sweeps: number;
}

/**
 * Solves `x(v) = arrival(v) + Σ coef(e)·x(from(e))` over the dependencies into `v`, where
 * `coef(e)` is what one unit processed at `from` sends along `e`: `weight / (W + exit)`, or the
 * weight itself for a fan-out node. A node with no way out sends nothing on.
 *
 * One strongly connected component at a time, sources first, so each only needs the solved
 * throughputs of the components before it: a closed form for a single node, Gaussian
 * elimination for cycles of up to `STEADY_DENSE_LIMIT` nodes, the origin's accelerated
 * Gauss–Seidel sweeps (large-cycle.ts: to a relative change of 1e-13, at most 500) for larger ones. A component
 * that value reaches but cannot leave at the rate it arrives (a cycle without an exit or a
 * dependency out of it, or fan-out whose gain around the cycle is 1 or more) has no steady
 * state: its nodes, and every node downstream, are unbounded.
 */
export function solveSteadyState(structure: CompiledStructure, memory: ScratchMemory = scratch): SteadyState {
  const { nodeCount, arrival, capacity, ids } = structure;
  const throughput = memory.float64(nodeCount);
  const state: SteadyState = { throughput, unbounded: [], headroom: undefined, sweeps: 0 };
  let anyArrival = false;
  for (let v = 0; v < nodeCount; v++) if (arrival[v]! > 0) anyArrival = true;
  if (!anyArrival) return state;

  const { count, start, members } = structure.components();
  const localIndex = scratch.int32(nodeCount, -1);
  for (let c = count - 1; c >= 0; c--) {
    const first = start[c]!;
    const end = start[c + 1]!;
    if (end - first === 1) solveSingle(structure, members[first]!, throughput);
    else state.sweeps += solveCycle(structure, c, members.subarray(first, end), throughput, localIndex);
  }

  let best = -1;
  let bestScale = Number.POSITIVE_INFINITY;
  for (let v = 0; v < nodeCount; v++) {
    const x = throughput[v]!;
    if (x === Number.POSITIVE_INFINITY) {
      state.unbounded.push(v);
      continue;
    }
    const cap = capacity[v]!;
    if (!(x > 0) || cap === Number.POSITIVE_INFINITY || !structure.hasWayOut(v)) continue;
    const scale = boundedRatio(cap, x);
    if (scale < bestScale || (scale === bestScale && ids[v]! < ids[best]!)) {
      bestScale = scale;
      best = v;
    }
  }
  if (state.unbounded.length === 0 && best >= 0) state.headroom = { scale: bestScale, node: best };
  return state;
}

/**
 * `a / b` for positive finite numbers, kept finite: a capacity of 1e300 over a throughput of 1e-300
 * is beyond the largest double, and JSON would print Infinity as null. Such a ratio is reported as
 * `Number.MAX_VALUE` ("more than any double"), which still orders correctly against every other.
 */
export function boundedRatio(a: number, b: number): number {
  return Math.min(a / b, Number.MAX_VALUE);
}

/** What arrives at `v` per step from outside and from nodes outside its component (`localIndex` −1). */
function inflowFromOutside(
  structure: CompiledStructure,
  v: number,
  throughput: Float64Array,
  localIndex: Int32Array | undefined,
): number {
  const { inStart, inSource, inShare, arrival } = structure;
  let sum = arrival[v]!;
  const end = inStart[v + 1]!;
  for (let j = inStart[v]!; j < end; j++) {
    const u = inSource[j]!;
    if (u === v || (localIndex !== undefined && localIndex[u]! >= 0)) continue;
    const x = throughput[u]!;
    // An unbounded predecessor makes this node unbounded too; 0 × Infinity would be NaN.
    if (x > 0) sum += inShare[j]! * x;
  }
  return sum;
}

function solveSingle(structure: CompiledStructure, v: number, throughput: Float64Array): void {
  const inflow = inflowFromOutside(structure, v, throughput, undefined);
  if (inflow === 0) return;
  // A node with no way out sends nothing on, so its self-dependencies (it has none) add nothing.
  const stay = structure.selfShare[v]!;
  throughput[v] = stay < 1 ? inflow / (1 - stay) : Number.POSITIVE_INFINITY;
}

/** Solves one cycle of `members`; returns the sweeps it took (0 when solved exactly). */
function solveCycle(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  throughput: Float64Array,
  localIndex: Int32Array,
): number {
  const n = members.length;
  for (let i = 0; i < n; i++) localIndex[members[i]!] = i;
  const b = new Float64Array(n);
  let anyInflow = false;
  let unbounded = false;
  for (let i = 0; i < n; i++) {
    const inflow = inflowFromOutside(structure, members[i]!, throughput, localIndex);
    b[i] = inflow;
    if (inflow > 0) anyInflow = true;
    if (inflow === Number.POSITIVE_INFINITY) unbounded = true;
  }
  let sweeps = 0;
  // Nothing reaches the cycle: it keeps a throughput of 0 (closed or not).
  if (anyInflow) {
    if (unbounded) {
      // Fed by an unbounded node: nothing to solve.
    } else if (n <= STEADY_DENSE_LIMIT) {
      unbounded = !solveDense(structure, members, b, localIndex);
    } else {
      const taken = solveBySweeps(structure, component, members, b, localIndex);
      unbounded = taken < 0;
      sweeps = Math.abs(taken);
    }
    for (let i = 0; i < n; i++) throughput[members[i]!] = unbounded ? Number.POSITIVE_INFINITY : b[i]!;
  }
  for (let i = 0; i < n; i++) localIndex[members[i]!] = -1;
  return sweeps;
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
 * and exit `localIndex[members[i]] = i`. Returns the sweeps taken, negated when the cycle has no
 * steady state: a cycle nothing leaves, a self-dependency that keeps it all, a negative or
 * infinite solution (spectral radius 1 or more), or fan-out sweeps that did not settle.
 */
function solveBySweeps(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
): number {
  const { inStart, inSource, inShare, selfShare, outStart, outTarget, exitShare } = structure;
  const n = members.length;
  // Without fan-out, every coefficient is a share: the cycle is leak-free (radius 1) exactly
  // when no member has an exit and no dependency leaves it.
  if (!structure.hasFanout) {
    let leaks = false;
    for (let i = 0; i < n && !leaks; i++) {
      const v = members[i]!;
      if (exitShare[v]! > 0) leaks = true;
      for (let k = outStart[v]!; k < outStart[v + 1]! && !leaks; k++) {
        if (localIndex[outTarget[k]!]! < 0) leaks = true;
      }
    }
    if (!leaks) return -1;
  }
  for (let i = 0; i < n; i++) if (!(selfShare[members[i]!]! < 1)) return -1;
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
      tolerance: STEADY_TOLERANCE,
    });
    let bounded = converged || !structure.hasFanout;
    for (let q = 0; q < n; q++) {
      const x = values[q]!;
      if (!(x >= 0 && x < Number.POSITIVE_INFINITY)) bounded = false;
      b[memberOf[q]!] = x;
      localIndex[order[q]!] = memberOf[q]!;
    }
    return bounded ? sweeps : -sweeps;
  } finally {
    scratch.release(mark);
  }
}
