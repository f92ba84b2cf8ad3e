import type { CompiledStructure } from './compile';
import { gainBounds } from './gain-bounds';
import { solveLocalSystem } from './large-cycle';
import { leakingSystemOf } from './leaking-system';
import { factorLeakingSystem, factorMMatrix, solveFactored, solveLeakingTransposed } from './linear-system';
import { type ArrayMemory, FRESH_ARRAYS, type ScratchMemory, scratch } from './scratch';
import { checkpoint } from './stop-check';

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
 * gain of 1 (no steady state) from one just below. docs/engine.md, "When is a loop unbounded".
 * @internal tests draw the line with it.
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
   * The nodes of the loops where a storm starts: loops with no steady state that no unbounded
   * node floods (not the nodes and loops they flood downstream, even a loop that would have no
   * steady state of its own either), in index order.
   */
  unboundedLoops: number[];
  /**
   * Per node that keeps what reaches it (down, or stranded by a scenario's cut), what it loses per
   * step: its throughput, which never leaves. Empty when no node keeps anything
   * (`keepsWhatReaches`).
   */
  lost: Float64Array;
  /** The sum of `lost`, 0 when nothing is lost. */
  totalLost: number;
  /** Sweeps spent on larger cycles: a figure for tests and benchmarks. */
  sweeps: number;
}

/**
 * The steady state of `structure`, in `memory`: solved, or copied from the one kept for a
 * structure with the same flows (a scenario that changes only capacities, loads or service
 * times, and its base). The copy is the very numbers a solve gives, since the solve reads nothing
 * the two differ in. Only a structure that shares its flows keeps what it solves.
 */
export function steadyStateOf(structure: CompiledStructure, memory: ScratchMemory = scratch): SteadyState {
  const kept = structure.keptSteadyState();
  // Stryker disable next-line ConditionalExpression: same answer, other work (solving again gives the very numbers kept)
  if (kept !== undefined) return copySteadyState(kept, memory);
  const state = solveSteadyState(structure, memory);
  // Stryker disable next-line ConditionalExpression: same answer; keeping a copy for every structure would only cost memory that outlives the call
  if (structure.sharesFlows) structure.keepSteadyState(copySteadyState(state, FRESH_ARRAYS));
  return state;
}

function copySteadyState(state: SteadyState, memory: ArrayMemory): SteadyState {
  const throughput = memory.float64(state.throughput.length);
  throughput.set(state.throughput);
  const lost = memory.float64(state.lost.length);
  lost.set(state.lost);
  return {
    throughput,
    unbounded: [...state.unbounded],
    unboundedLoops: [...state.unboundedLoops],
    lost,
    totalLost: state.totalLost,
    sweeps: state.sweeps,
  };
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
 * left undecided is decided by inverse iteration (`clearsMargin`). Every node an unbounded node
 * reaches is unbounded, by reachability, never by arithmetic on infinity.
 */
export function solveSteadyState(structure: CompiledStructure, memory: ScratchMemory = scratch): SteadyState {
  const { nodeCount, arrival } = structure;
  const throughput = memory.float64(nodeCount);
  const state: SteadyState = {
    throughput,
    unbounded: [],
    unboundedLoops: [],
    lost: anyKeeps(structure) ? memory.float64(nodeCount) : new Float64Array(0),
    totalLost: 0,
    sweeps: 0,
  };
  // Without arrivals every component's inflow is 0 and it keeps a throughput of 0 (solveSingle,
  // solveCycle): the next three lines only skip that work.
  // Stryker disable next-line BooleanLiteral: same answer, other work (see above)
  let anyArrival = false;
  // Stryker disable next-line EqualityOperator,ConditionalExpression: same answer, other work (see above; one past the end, arrival[n] is undefined; the twins that find no arrival are killed)
  for (let v = 0; v < nodeCount; v++) if (arrival[v]! > 0) anyArrival = true;
  // Stryker disable next-line ConditionalExpression: same answer, other work (see above; the `true` twin is killed)
  if (!anyArrival) return state;

  const { count, start, members } = structure.components();
  const localIndex = scratch.int32(nodeCount, -1);
  const carried = new CarriedValue(structure);
  const reached = new Reached(structure);
  for (let c = count - 1; c >= 0; c--) {
    const first = start[c]!;
    const end = start[c + 1]!;
    const component = members.subarray(first, end);
    const verdict =
      end - first === 1
        ? solveSingle(structure, component[0]!, throughput, carried, reached)
        : solveCycle(structure, c, component, throughput, localIndex, carried, reached);
    if (verdict === LOOP_UNBOUNDED) for (const v of component) state.unboundedLoops.push(v);
    else if (
      // Stryker disable next-line ConditionalExpression,EqualityOperator: adding a verdict of 0 sweeps changes nothing (the `false` and `<=` twins are killed)
      verdict > 0
    )
      state.sweeps += verdict;
  }
  state.unboundedLoops.sort((a, b) => a - b);

  // Stryker disable next-line EqualityOperator: one past the end: throughput[n] is undefined, neither Infinity nor a down node's (the `>=` twin is killed)
  for (let v = 0; v < nodeCount; v++) {
    const x = throughput[v]!;
    if (x === Number.POSITIVE_INFINITY) state.unbounded.push(v);
    else if (
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work: a node with a throughput of 0 would write the 0 `lost` already holds (the twins are killed)
      x > 0 &&
      keepsWhatReaches(structure, v)
    ) {
      state.lost[v] = x;
      state.totalLost += x;
    }
  }
  return state;
}

/**
 * Whether node `v` keeps what reaches it, so that its steady traffic is lost to the system: it is
 * down, or a scenario cut its last way out (`stranded`). Such a node, and only such a node, is
 * described with its `lost`, 0 when nothing reaches it (docs/engine.md "Down"). The step keeps the value on such a node
 * (its load grows by it every step, docs/engine.md "Down"), so a what-if that cuts a node's last
 * way out loses its traffic as switching it off does. A node without a way out in the structure
 * as sent is a sink where value piles up, as the seed's are: never counted lost.
 */
export function keepsWhatReaches(structure: CompiledStructure, v: number): boolean {
  const { down, stranded } = structure;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (an empty array reads undefined, never 1)
  return (down.length > 0 && down[v] === 1) || (stranded.length > 0 && stranded[v] === 1);
}

/** Whether any node keeps what reaches it (`keepsWhatReaches`): only then is `lost` kept per node. */
function anyKeeps(structure: CompiledStructure): boolean {
  return structure.down.length > 0 || structure.stranded.length > 0;
}

/**
 * The nodes value reaches by the structure: those with an arrival, and every node a dependency
 * from one of them leads to (a down node's lead nowhere: they have no slots). Worked out once,
 * the first time a component's inflow reads 0, since a share or an arrival can round to 0 on its
 * way there. Iterative, over the dependencies: chains can be a million nodes deep.
 */
class Reached {
  #reached: Uint8Array | undefined;
  readonly #structure: CompiledStructure;

  constructor(structure: CompiledStructure) {
    this.#structure = structure;
  }

  has(v: number): boolean {
    this.#reached ??= reachedFromArrivals(this.#structure);
    return this.#reached[v] === 1;
  }
}

function reachedFromArrivals(structure: CompiledStructure): Uint8Array {
  const { nodeCount, arrival, outStart, outTarget } = structure;
  const reached = new Uint8Array(nodeCount);
  const stack = new Int32Array(nodeCount);
  let size = 0;
  // Stryker disable next-line EqualityOperator: one past the end: arrival[n] is undefined, not above 0 (the `>=` twin is killed)
  for (let v = 0; v < nodeCount; v++) {
    if (arrival[v]! > 0) {
      reached[v] = 1;
      stack[size++] = v;
    }
  }
  // Stryker disable next-line EqualityOperator: same answer: at 0 the pop reads stack[-1], undefined, whose dependencies are none, and the loop ends at -1
  while (size > 0) {
    const u = stack[--size]!;
    for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
      const w = outTarget[k]!;
      if (reached[w] === 1) continue;
      reached[w] = 1;
      stack[size++] = w;
    }
  }
  return reached;
}

/** Below this largest inflow a cycle is solved scaled up (`upScale`): 2^-500, about 3e-151. */
const SMALL_INFLOW = 2 ** -500;

/** A power of two that brings the largest of `b` to within [0.5, 1) when it is below `SMALL_INFLOW`, else 1. */
function upScale(b: Float64Array): number {
  let largest = 0;
  for (const value of b) if (value > largest) largest = value;
  if (!(largest < SMALL_INFLOW)) return 1;
  // Doubled step by step (no logarithm: its last bit may differ between platforms), at most
  // 2^1000 so that the scale itself stays finite beside a subnormal inflow.
  let scale = 1;
  while (largest * scale < 0.5 && scale < 2 ** 1000) scale *= 2;
  return scale;
}

/** Whether value enters the cycle at `v`: an arrival, or a dependency from a reached node outside it. */
function entersAt(
  structure: CompiledStructure,
  v: number,
  localIndex: Int32Array,
  reached: Reached,
): boolean {
  const { inStart, inSource, arrival } = structure;
  if (arrival[v]! > 0) return true;
  for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
    const u = inSource[j]!;
    if (localIndex[u]! < 0 && reached.has(u)) return true;
  }
  return false;
}

/** A component's own verdict: no steady state (its nodes are the loop to fix). */
// Stryker disable next-line UnaryOperator: no cycle is solved in exactly one sweep (the first sweep, from 0, moves every value it reaches, so a swept cycle reports two or more), so +1 marks the same verdicts
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
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: same answer, other work: a source in v's own component (v itself included) is not solved yet, so its throughput reads 0 and adds nothing (the twins that skip every source, or read `localIndex` of undefined, are killed)
    if (u === v || (localIndex !== undefined && localIndex[u]! >= 0)) continue;
    const x = throughput[u]!;
    // Reached from an unbounded node: unbounded too, whatever the share (0 × Infinity is NaN).
    // Stryker disable next-line ConditionalExpression: same answer, other work: carried.along(j, Infinity) is Infinity for every share (a share of at least 2.2e-308, or Infinity × weight on the exact path), and so is the sum (the `true` twin is killed)
    if (x === Number.POSITIVE_INFINITY) return x;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work: a source processing 0 carries 0, on either path (the twins that add nothing are killed)
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
  reached: Reached,
): number {
  const inflow = inflowFromOutside(structure, v, throughput, undefined, carried);
  // What reaches it may round to 0 (an arrival of 5e-324 split 2 : 3, a share of 1e-600): a loop
  // it closes on itself is unbounded all the same, by the structure.
  // Stryker disable next-line ConditionalExpression: same answer: a node with any inflow is reached (the `false` twin is killed)
  if (inflow === 0 && !reached.has(v)) return 0;
  if (inflow === Number.POSITIVE_INFINITY) {
    throughput[v] = inflow;
    return 0;
  }
  // A node with no way out sends nothing on, so its self-dependencies (it has none) add nothing.
  const stay = structure.selfShare[v]!;
  // Stryker disable next-line EqualityOperator: 1 − stay is never GAIN_MARGIN exactly: for stay ≥ 1/2 it is a multiple of 2^-53, which 1e-9 as a double is not, and for stay < 1/2 it is over 1/2 (the `<` twin is killed)
  if (keepsAll(structure, v) || !(1 - stay >= GAIN_MARGIN)) {
    throughput[v] = Number.POSITIVE_INFINITY;
    return LOOP_UNBOUNDED;
  }
  throughput[v] = inflow / structure.shareNotKept(v);
  return 0;
}

/**
 * Whether `v`, not fan-out, sends all it processes back to itself: every dependency a
 * self-dependency and no exit. Decided by the structure, since shares such as 0.1 + 0.2 + 0.7
 * need not add up to exactly 1 in doubles.
 *
 * (Mutation testing: every mutant of this function only makes it answer false more often, and
 * where it should answer true the margin check in solveSingle answers the same. Such a node's
 * selfShare sums w / W over its own weights, W itself a rounded sum: within n × 1.7e-16 of 1 for
 * n self-dependencies, under GAIN_MARGIN below six million of them, more than MAX_DEPENDENCIES
 * lets into a call (five million at most; measured there: 1e-10 at most).)
 */
// Stryker disable next-line BlockStatement: same answer (see above)
function keepsAll(structure: CompiledStructure, v: number): boolean {
  const { outStart, outTarget } = structure;
  // Stryker disable next-line ConditionalExpression: same answer (see above; the twins that answer true for a fan-out node or one without dependencies are killed)
  if (structure.isFanout(v) || outStart[v + 1] === outStart[v]) return false;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: same answer (see above; the twins that answer true for a node with an exit are killed)
  if (structure.open && structure.exit[v]! > 0) return false;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,UpdateOperator: same answer (see above; the twin that answers true for a node with other dependencies is killed)
  for (let k = outStart[v]!; k < outStart[v + 1]!; k++) if (outTarget[k] !== v) return false;
  // Stryker disable next-line BooleanLiteral: same answer (see above)
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
  reached: Reached,
): number {
  // A loop is solved directly up to 128 nodes (some 2 million steps) and up to 1,024 when its
  // sweeps do not settle: between two such solves the caller may be out of time.
  checkpoint();
  const n = members.length;
  // (In this function's loops, member n is one past the end: members[n] is undefined, which no
  // array holds as an element, and b[n] is past b's end, so its reads and writes change nothing.)
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let i = 0; i < n; i++) localIndex[members[i]!] = i;
  try {
    const b = new Float64Array(n);
    let anyInflow = false;
    let fedUnbounded = false;
    // Stryker disable next-line EqualityOperator: see above (its inflow reads undefined, neither above 0 nor Infinity; the `>=` twin is killed)
    for (let i = 0; i < n; i++) {
      const inflow = inflowFromOutside(structure, members[i]!, throughput, localIndex, carried);
      b[i] = inflow;
      if (inflow > 0) anyInflow = true;
      if (inflow === Number.POSITIVE_INFINITY) fedUnbounded = true;
    }
    if (!anyInflow) {
      // Nothing reaches the cycle: it keeps a throughput of 0 (closed or not).
      if (!reached.has(members[0]!)) return 0;
      // Value reaches it, too little for a double: its throughputs are 0 where it has a steady
      // state, and it is unbounded where it has none, judged with a unit entering where value
      // enters it (a routing loop is judged by the visits a unit makes from there).
      for (let i = 0; i < n; i++) b[i] = entersAt(structure, members[i]!, localIndex, reached) ? 1 : 0;
      if (solveReachedCycle(structure, component, members, b, localIndex) !== LOOP_UNBOUNDED) return 0;
      // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
      for (let i = 0; i < n; i++) throughput[members[i]!] = Number.POSITIVE_INFINITY;
      return LOOP_UNBOUNDED;
    }
    if (fedUnbounded) {
      // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
      for (let i = 0; i < n; i++) throughput[members[i]!] = Number.POSITIVE_INFINITY;
      return 0;
    }
    // Inflows far below 1 are solved scaled up by a power of two (exact both ways), then scaled
    // back: sweeps over subnormal numbers lose their digits, and a loop fed 1e-300 a step was
    // judged unbounded where the same loop fed 1 was not.
    const scale = upScale(b);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work: a scale of 1 multiplies by 1
    if (scale !== 1) for (let i = 0; i < n; i++) b[i] = b[i]! * scale;
    const verdict = solveReachedCycle(structure, component, members, b, localIndex);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work: a scale of 1 divides by 1
    if (scale !== 1) for (let i = 0; i < n; i++) b[i] = b[i]! / scale;
    // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
    for (let i = 0; i < n; i++) {
      throughput[members[i]!] = verdict === LOOP_UNBOUNDED ? Number.POSITIVE_INFINITY : b[i]!;
    }
    return verdict;
  } finally {
    // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
    for (let i = 0; i < n; i++) localIndex[members[i]!] = -1;
  }
}

/**
 * A cycle that value reaches: `b` receives its throughputs; see `solveCycle` for the answer.
 *
 * Without fan-out a cycle's shares are a routing: one that leaks has a gain below 1 exactly. With
 * fan-out the gain is bounded first (`gainBounds`). A gain still undecided is decided against
 * `GAIN_MARGIN` by inverse iteration (`clearsMargin`): cheap for elimination, which factors once;
 * a large routing loop is not checked (its structure bounds it), so its sweeps cost what they did.
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
  }
  const n = members.length;
  if (n <= STEADY_DENSE_LIMIT)
    return solveDense(structure, members, b, localIndex, gap === 0) ? 0 : LOOP_UNBOUNDED;

  const inflow = new Float64Array(b);
  const tolerance = fanout ? Math.max(Math.min(STEADY_TOLERANCE, 1e-9 * gap), SWEEP_FLOOR) : STEADY_TOLERANCE;
  let order = structure.sweepOrder();
  let { sweeps, valid, converged } = solveBySweeps(
    structure,
    component,
    members,
    b,
    localIndex,
    tolerance,
    order,
  );
  // A loop whose gain is certainly below 1: sweeps that went negative or infinite on it were
  // thrown off by the acceleration (a ring of 137 with dependencies across it, in the first
  // order), not by the loop, whose throughputs are finite.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work where it takes more loops for bounded (the other order, then elimination, decide as the verdict below would); the twin that takes none is killed by the oracle's rings with dependencies across them
  const bounded = !fanout || gap > 0;
  // Stryker disable next-line ConditionalExpression: same answer, other work (the other order for sweeps that settled is the same estimate within tolerance)
  if (!converged && (valid || bounded)) {
    // The first order can run against a ring (sweep-order.ts): the other one follows it.
    order = structure.freedFirstSweepOrder();
    b.set(inflow);
    const other = solveBySweeps(structure, component, members, b, localIndex, tolerance, order);
    sweeps += other.sweeps;
    valid = other.valid;
    converged = other.converged;
  }
  // Stryker disable all: defensive: sweeps of a loop certainly bounded that went negative in both orders, which none of the tests' or the oracle's structures reach (the other order settles them), are eliminated where affordable, and the loop is unbounded only where not
  if (!valid) {
    if (!bounded || n > DENSE_FALLBACK_LIMIT) return LOOP_UNBOUNDED;
    b.set(inflow);
    return solveDense(structure, members, b, localIndex, gap === 0) ? sweeps : LOOP_UNBOUNDED;
  }
  // Stryker restore all
  if (converged && !fanout) {
    // A routing loop has no bound on its gain: the visits a unit makes in it stand in for
    // 1 / (1 − gain), and a loop that keeps value long sweeps on, from where it stopped, to
    // 1e-9 of the largest over them.
    const visits = visitsPerUnit(inflow, b);
    // `GAIN_MARGIN` for a routing loop, judged by its visits: 1 / (1 − gain) lies between the
    // fewest and the most visits a unit makes from any node, as their average does.
    if (!(visits * GAIN_MARGIN < 1)) return LOOP_UNBOUNDED;
    const tighter = Math.max(1e-9 / visits, SWEEP_FLOOR);
    if (tighter < STEADY_TOLERANCE) {
      const start = new Float64Array(b);
      b.set(inflow);
      const more = solveBySweeps(structure, component, members, b, localIndex, tighter, order, start);
      sweeps += more.sweeps;
      valid = more.valid;
      converged = more.converged;
      if (!valid) return LOOP_UNBOUNDED;
    }
  }
  if (!converged) {
    // Sweeps that did not settle: elimination where it is affordable; else their estimate stands
    // for a loop known to be bounded, and a loop not known to be is unbounded.
    if (n <= DENSE_FALLBACK_LIMIT) {
      b.set(inflow);
      return solveDense(structure, members, b, localIndex, gap === 0) ? sweeps : LOOP_UNBOUNDED;
    }
    return !fanout || gap > 0 ? sweeps : LOOP_UNBOUNDED;
  }
  if (fanout && gap === 0) {
    const solve = (w: Float64Array) => {
      const taken = solveBySweeps(structure, component, members, w, localIndex, SWEEP_FLOOR, order);
      return taken.valid && taken.converged;
    };
    if (!clearsMargin(n, solve)) return LOOP_UNBOUNDED;
  }
  return sweeps;
}

/**
 * Cycles of up to this many nodes whose sweeps did not settle within their cap are solved by
 * elimination after all: about 0.4 s at 1,024 nodes, paid only where sweeps failed (routing
 * tangles that let little out).
 */
export const DENSE_FALLBACK_LIMIT = 1024;

/** `Σ x / Σ inflow`: how many times a unit entering the loop passes a node of it, on average. */
function visitsPerUnit(inflow: Float64Array, x: Float64Array): number {
  let entering = 0;
  let passing = 0;
  for (let i = 0; i < x.length; i++) {
    entering += inflow[i]!;
    passing += x[i]!;
  }
  return passing / entering;
}

/** Inverse iterations `clearsMargin` spends at most. */
const INVERSE_ITERATIONS = 4;

/**
 * Whether the loop's `1 − gain` is certainly at least `GAIN_MARGIN`, by inverse iteration:
 * `solve` applies `R = (I − Tᵀ)⁻¹` in place, and for a positive `w`, `z = Rw` is positive exactly
 * when the gain is below 1, with `Tᵀz = z − w`, so `1 − gain ≥ min wᵢ / zᵢ` (Collatz–Wielandt).
 * Starting from `w = 1` and repeating with `w ← z` tightens the bound towards `1 − gain` (the
 * first step alone is loose by the spread of `z`: a ring whose calls range over 1e±5).
 */
function clearsMargin(n: number, solve: (w: Float64Array) => boolean): boolean {
  let w = new Float64Array(n).fill(1);
  for (let iteration = 0; iteration < INVERSE_ITERATIONS; iteration++) {
    const z = new Float64Array(w);
    if (!solve(z)) return false;
    let bound = Number.POSITIVE_INFINITY;
    let size = 0;
    for (let i = 0; i < n; i++) {
      const value = z[i]!;
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,BooleanLiteral: a defensive check no solve that succeeded reaches: z = Rw with R = I + Tᵀ + (Tᵀ)² + … is at least w > 0, which elimination keeps (it only adds nonnegative terms and divides by pivots in (0, 1]) and so do sweeps that end valid, and both refuse non-finite answers
      if (!(value > 0 && value < Number.POSITIVE_INFINITY)) return false;
      bound = Math.min(bound, w[i]! / value);
      size = Math.max(size, value);
    }
    if (bound >= GAIN_MARGIN) return true;
    for (let i = 0; i < n; i++) z[i] = z[i]! / size;
    w = z;
  }
  return false;
}

export function anyFanout(structure: CompiledStructure, members: Int32Array): boolean {
  for (const v of members) if (structure.isFanout(v)) return true;
  return false;
}

/** Whether anything leaves the cycle: an exit, or a dependency to a node outside it. */
export function leaks(structure: CompiledStructure, members: Int32Array, localIndex: Int32Array): boolean {
  const { outStart, outTarget, exitShare } = structure;
  for (const v of members) {
    if (structure.open && exitShare[v]! > 0) return true;
    for (let k = outStart[v]!; k < outStart[v + 1]!; k++) if (localIndex[outTarget[k]!]! < 0) return true;
  }
  return false;
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
   * slot), `undefined` from an unbounded one or where it carries more than any double.
   */
  ofDependency(e: number, throughput: Float64Array): number | undefined {
    const structure = this.#structure;
    const slot = structure.slotOfDependency[e]!;
    if (slot < 0) return 0;
    const x = throughput[structure.dependencyFrom[e]!]!;
    if (x === Number.POSITIVE_INFINITY) return undefined;
    // Stryker disable next-line ConditionalExpression: same answer, other work: 0 × share is 0, and so is the exact path's (the `true` twin is killed)
    if (x === 0) return 0;
    const share = structure.outShare[slot]!;
    let carried: number;
    if (share >= MIN_NORMAL) {
      carried = x * share;
    } else {
      this.#exact ??= exactWeights(structure);
      carried = this.#carried(e, x);
    }
    // Past the largest double, like a throughput: its target is unbounded, and so is this.
    return carried < Number.POSITIVE_INFINITY ? carried : undefined;
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
function carriedExactly(x: number, weight: number, scale: number, total: number): number {
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
  // (In this function's loops, node n and dependency dependencyCount are one past the end: they
  // read undefined, which no array holds as an element, and write past the arrays' ends, which is
  // dropped. A dependency without a slot is a down node's, whose total nothing reads: it
  // carries nothing.)
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let v = 0; v < nodeCount; v++) {
    total[v] = exitOf(v);
    largest[v] = exitOf(v);
  }
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let e = 0; e < dependencyCount; e++) {
    // Stryker disable next-line ConditionalExpression: see above: counting a down node's dependencies changes only its own total, which nothing reads (the `true` twin is killed)
    if (slotOfDependency[e]! < 0) continue;
    const u = dependencyFrom[e]!;
    total[u]! += weightOf(e);
    largest[u] = Math.max(largest[u]!, weightOf(e));
  }
  const scale = new Float64Array(nodeCount).fill(1);
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let v = 0; v < nodeCount; v++) {
    if (total[v] !== Number.POSITIVE_INFINITY) continue;
    scale[v] = largest[v]!;
    total[v] = exitOf(v) / scale[v]!;
  }
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let e = 0; e < dependencyCount; e++) {
    const u = dependencyFrom[e]!;
    // Stryker disable next-line ConditionalExpression: see above: `slotOfDependency[e] >= 0` read as true counts only down nodes' dependencies in addition (the other twins are killed)
    if (slotOfDependency[e]! >= 0 && scale[u] !== 1) total[u]! += weightOf(e) / scale[u]!;
  }
  const perDependency = new Float64Array(3 * dependencyCount);
  const inDependency = new Int32Array(inStart[nodeCount]!);
  const fill = new Int32Array(nodeCount);
  // A node's in slots hold the dependencies that carry into it, in input order.
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
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
 * `(I − Tᵀ) x = b` on the cycle by Gaussian elimination without pivoting (`factorMMatrix`); `b`
 * receives `x`. False when it has no nonnegative finite solution: for a nonnegative irreducible
 * `T`, `(I − T)⁻¹` exists and is nonnegative exactly when its spectral radius is below 1, which
 * is when every pivot is positive, so a pivot that is not or a negative value means value is not
 * leaving the cycle as fast as it arrives. `checkMargin`: false too
 * when the gain is not certainly `GAIN_MARGIN` below 1 (`clearsMargin`, on the same factors).
 */
function solveDense(
  structure: CompiledStructure,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
  checkMargin: boolean,
): boolean {
  const n = members.length;
  // A routing loop's throughputs keep their digits by the leaking system's elimination
  // (`factorLeakingSystem`): pivots that are sums, never differences.
  if (!anyFanout(structure, members))
    return solveRoutingDense(structure, members, b, localIndex, checkMargin);
  const { inStart, inSource, inShare } = structure;
  const a = new Float64Array(n * n);
  // Stryker disable next-line EqualityOperator: one past the end: members[n] is undefined, a[n·n + n] is past a's end and no dependency is read (the `>=` twin is killed)
  for (let i = 0; i < n; i++) {
    const v = members[i]!;
    a[i * n + i] = 1;
    const end = inStart[v + 1]!;
    for (let j = inStart[v]!; j < end; j++) {
      const local = localIndex[inSource[j]!]!;
      if (local >= 0) a[i * n + local]! -= inShare[j]!;
    }
  }
  if (!factorMMatrix(a, n) || !solveFactored(a, b, n)) return false;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: a defensive check no elimination that succeeded reaches: with positive pivots it only adds nonnegative terms to the nonnegative inflows and divides by pivots in (0, 1], so x ≥ 0 (and solveFactored refuses non-finite answers; the `<=` twin, reading b[n], is killed)
  for (let i = 0; i < n; i++) if (!(b[i]! >= 0)) return false;
  return !checkMargin || clearsMargin(n, (w) => solveFactored(a, w, n));
}

/**
 * `solveDense` for a routing loop: `(D − N)ᵀ x = b` with `N` the shares between members and each
 * diagonal what its member passes on to the others or out of the loop (its exit, its
 * dependencies leaving the component), so a member that keeps most of what it processes
 * (a heavy self-dependency, weights over 1e-2…1e2) does not cancel its pivot to 0.
 */
function solveRoutingDense(
  structure: CompiledStructure,
  members: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
  checkMargin: boolean,
): boolean {
  const n = members.length;
  const { offDiagonal: factors, leak } = leakingSystemOf(structure, members, n, localIndex);
  const pivot = factorLeakingSystem(factors, leak, n);
  if (pivot === undefined || !solveLeakingTransposed(factors, pivot, b, n)) return false;
  return !checkMargin || clearsMargin(n, (w) => solveLeakingTransposed(factors, pivot, w, n));
}

/** A loop's equations for the sweeps, in local numbering (`LocalSystem`), and where each row's member is. */
interface SteadyLoopSystem {
  /** The members in the order swept: predecessors first, the reverse of the sweep order. */
  order: Int32Array;
  /** Each row's index in the component's `members`. */
  memberOf: Int32Array;
  rowStart: Int32Array;
  target: Int32Array;
  share: Float64Array;
  scale: Float64Array;
}

/**
 * The local system `solveBySweeps` sweeps for component `component` in the reverse of
 * `preferred`, from `memory`. On entry and exit `localIndex[members[i]] = i`.
 */
function steadyLoopSystem(
  structure: CompiledStructure,
  component: number,
  members: Int32Array,
  localIndex: Int32Array,
  preferred: Int32Array,
  memory: ArrayMemory,
): SteadyLoopSystem {
  const { inStart, inSource, inShare } = structure;
  const n = members.length;
  const first = structure.components().start[component]!;
  // Predecessors first: the reverse of the order the origin's sweeps use.
  const order = memory.int32(n);
  const memberOf = memory.int32(n);
  // (In these loops, q = n is one past the end: it reads undefined from the views, which no
  // array holds as an element, and writes past their ends, which is dropped.)
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let q = 0; q < n; q++) {
    const v = preferred[first + n - 1 - q]!;
    order[q] = v;
    memberOf[q] = localIndex[v]!;
  }
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let q = 0; q < n; q++) localIndex[order[q]!] = q;
  // `edges` only sizes `target` and `share`: counting more than the rows below fill is the same
  // answer with other memory.
  let edges = 0;
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let q = 0; q < n; q++) {
    const v = order[q]!;
    // Stryker disable next-line EqualityOperator: same answer, other memory (see above: one more in slot may be counted; the `>=` twin is killed)
    for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
      const u = inSource[j]!;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: same answer, other memory (see above: self-dependencies or sources outside counted too; the twins that count fewer are killed)
      if (u !== v && localIndex[u]! >= 0) edges++;
    }
  }
  const rowStart = memory.int32(n + 1);
  const target = memory.int32(edges);
  const share = memory.float64(edges);
  const scale = memory.float64(n);
  let edge = 0;
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let q = 0; q < n; q++) {
    const v = order[q]!;
    scale[q] = 1 / structure.shareNotKept(v);
    for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
      const u = inSource[j]!;
      const local = localIndex[u]!;
      if (u === v || local < 0) continue;
      target[edge] = local;
      share[edge++] = inShare[j]!;
    }
    rowStart[q + 1] = edge;
  }
  // Stryker disable next-line EqualityOperator: see above (the `>=` twin is killed)
  for (let q = 0; q < n; q++) localIndex[order[q]!] = memberOf[q]!;
  return { order, memberOf, rowStart, target, share, scale };
}

/**
 * A larger cycle by accelerated Gauss–Seidel sweeps (the origin's large-cycle solver, on the
 * transposed equations: each row reads its predecessors' throughputs), in the reverse of `preferred`
 * (a sweep order of the structure); `b` receives `x`. On entry
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
  preferred: Int32Array,
  initial?: Float64Array,
): { sweeps: number; valid: boolean; converged: boolean } {
  const { selfShare } = structure;
  const n = members.length;
  // A fast path: a member that keeps all it processes (selfShare ≥ 1: a fan-out self-call of 1
  // or more, or a share rounded to 1) has a scale 1 / (1 − selfShare) that is infinite or
  // negative, so the sweeps end infinite, NaN or negative (for a gain above 1 the fixed point
  // itself has a negative entry), which `valid` reports the same, and elimination refuses the
  // pivot 1 − selfShare ≤ 0; returned here, `converged` is never read and `{}` reads as not valid.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (see above)
  for (let i = 0; i < n; i++) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ObjectLiteral,BooleanLiteral: same answer, other work (see above; the `valid: true` twin is killed)
    if (!(selfShare[members[i]!]! < 1)) return { sweeps: 0, valid: false, converged: false };
  }
  // Kept before the phase below begins, so that it is not given back with the phase's memory.
  const kept = structure.repeatsLoopSolves
    ? structure.keptLoopSystem(
        // Stryker disable next-line EqualityOperator: same answer, other work (the two orders' keys swapped)
        `steady:${component}:${preferred === structure.sweepOrder() ? 0 : 1}`,
        // Stryker disable next-line ArrowFunction: same answer, other work (nothing kept: each solve builds its own)
        (memory) => steadyLoopSystem(structure, component, members, localIndex, preferred, memory),
      )
    : undefined;
  const mark = scratch.mark();
  try {
    const system = kept ?? steadyLoopSystem(structure, component, members, localIndex, preferred, scratch);
    const { memberOf, rowStart, target, share, scale } = system;
    const constant = scratch.float64(n);
    const start = initial === undefined ? undefined : scratch.float64(n);
    // Stryker disable next-line EqualityOperator: see steadyLoopSystem (the `>=` twin is killed)
    for (let q = 0; q < n; q++) {
      constant[q] = b[memberOf[q]!]!;
      if (start !== undefined) start[q] = initial![memberOf[q]!]!;
    }
    const { values, sweeps, converged } = solveLocalSystem({
      m: n,
      rowStart,
      target,
      share,
      constant,
      scale,
      tolerance,
      // Stryker disable next-line ConditionalExpression: `initial: undefined` is no initial (solveLocalSystem asks `!== undefined`), so the `false` mutant passes the same (the `true` twin is killed)
      ...(start === undefined ? {} : { initial: start }),
    });
    let valid = true;
    for (let q = 0; q < n; q++) {
      const x = values[q]!;
      if (!(x >= 0 && x < Number.POSITIVE_INFINITY)) valid = false;
      b[memberOf[q]!] = x;
    }
    return { sweeps, valid, converged };
  } finally /* Stryker disable next-line BlockStatement: same answer, other memory: the views go back when the call's scratch run ends */ {
    scratch.release(mark);
  }
}
