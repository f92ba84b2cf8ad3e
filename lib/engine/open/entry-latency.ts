import type { CompiledStructure } from '../compile';
import { gainBounds } from '../gain-bounds';
import { RESTARTS, solveLocalSystem } from '../large-cycle';
import { leakingSystemOf } from '../leaking-system';
import { factorLeakingSystem, factorMMatrix, solveFactored, solveLeaking } from '../linear-system';
import { type ArrayMemory, scratch } from '../scratch';
import { anyFanout, DENSE_FALLBACK_LIMIT, GAIN_MARGIN, leaks, STEADY_DENSE_LIMIT } from '../steady-state';
import { checkpoint } from '../stop-check';

/** Where no finite latency exists, why: the node that makes it so. */
export type LatencyLimit = 'saturated' | 'unbounded' | 'down' | 'stranded';

export interface EntryLatencies {
  /**
   * Per node, the expected time a request arriving there spends in the system, in steps:
   * `L(u) = R(u) + Σ coef(e) · L(to(e))` over `u`'s dependencies, with `R(u)` the node's own
   * response time. `Infinity` where its requests reach a node that never answers.
   */
  latency: Float64Array;
  /** Per node with an infinite latency, the node its requests get stuck at; −1 elsewhere. */
  limitedBy: Int32Array;
}

/** The sweeps' stopping tolerance: a change of at most this fraction of the largest latency. */
const LATENCY_TOLERANCE = 1e-13;

/**
 * The end-to-end latency of every node at once: the adjoint of the throughput equations. A
 * request at `u` spends `R(u)` there, then makes `coef(e)` calls along each dependency (a
 * fan-out node's weights are calls per request, a router's shares the probability of each
 * route; an exit ends it), each taking `L(to(e))`, one after the other. `own[u]` is `R(u)`:
 * 0 for a node without a service time, `Infinity` for one that never answers (saturated,
 * unbounded or down: `ownLimit` says which). Solved one strongly connected component at a
 * time, successors first (the order Tarjan emits them), so each needs only solved values: a
 * closed form for a single node, elimination without pivoting up to `STEADY_DENSE_LIMIT` nodes,
 * accelerated sweeps beyond. A node whose requests can reach an infinite one is infinite by
 * reachability, never by arithmetic on `Infinity`.
 */
export function solveEntryLatency(structure: CompiledStructure, own: Float64Array): EntryLatencies {
  const { nodeCount } = structure;
  const latency = new Float64Array(nodeCount);
  const limitedBy = new Int32Array(nodeCount).fill(-1);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) if (own[v] === Number.POSITIVE_INFINITY) limitedBy[v] = v;
  const { count, start, members } = structure.components();
  const localIndex = new Int32Array(nodeCount).fill(-1);
  const shared = new Int32Array(nodeCount).fill(-1);
  const solving: LoopSolving = { structure, own, latency, limitedBy, shared, localIndex };
  // Stryker disable next-line EqualityOperator: one past the end (an empty component)
  for (let c = 0; c < count; c++) {
    // Stryker disable next-line ConditionalExpression,ArithmeticOperator: same answer, other work (solveComponent solves a single node the same way, with scratch)
    if (start[c + 1]! - start[c]! === 1) solveSingle(solving, members[start[c]!]!);
    else solveComponent(solving, members.subarray(start[c]!, start[c + 1]!), c);
  }
  return { latency, limitedBy };
}

/** What the solve of each loop reads and writes (`solveEntryLatency`'s arrays). */
interface LoopSolving {
  structure: CompiledStructure;
  own: Float64Array;
  latency: Float64Array;
  limitedBy: Int32Array;
  /**
   * Per member of a loop that never answers, the limit the loop's members share, which a caller
   * of any member takes (`calleeLimit`); −1 elsewhere. A member that never answers itself keeps
   * its own id in `limitedBy`: an entry stuck itself names itself.
   */
  shared: Int32Array;
  /** −1 for every node between two loops' solves. */
  localIndex: Int32Array;
}

/**
 * What a caller of `w` is limited by, once `w` is solved and never answers: the limit a loop's
 * members share when `w` is one (two entries calling two members of one unbounded loop name the
 * same node), else `w`'s own.
 */
function calleeLimit(solving: LoopSolving, w: number): number {
  const loop = solving.shared[w]!;
  return loop >= 0 ? loop : solving.limitedBy[w]!;
}

/**
 * A node that is its own component, as `solveComponent` solves it, without its scratch (most
 * nodes of a service graph): its own time, what its calls out take, over 1 − its self share.
 */
function solveSingle(solving: LoopSolving, u: number): void {
  const { structure, own, latency, limitedBy } = solving;
  const { outStart, outTarget, outShare, selfShare, ids } = structure;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (a node that never answers has an infinite own time, so the sum below is infinite too, and its limit is already set)
  if (limitedBy[u]! >= 0) {
    latency[u] = Number.POSITIVE_INFINITY;
    return;
  }
  let stuck = -1;
  let sum = own[u]!;
  for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
    const w = outTarget[k]!;
    // Stryker disable next-line ConditionalExpression: u's own latency is still 0 here, so adding its share of it changes nothing
    if (w === u) continue;
    const value = latency[w]!;
    // A node that never answers has an infinite latency (solved before u, successors first), so
    // only then is its limit read: one random read per call, not two, on a graph of 1M calls.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (the limit read for every call)
    if (value < Number.POSITIVE_INFINITY) {
      sum += outShare[k]! * value;
      continue;
    }
    const limit = calleeLimit(solving, w);
    // A latency past a double, not stuck: infinite either way (+ or −), refused where an entry reads it.
    // Stryker disable next-line AssignmentOperator
    if (limit < 0) sum += outShare[k]! * value;
    else stuck = smallerLimit(ids, stuck, limit);
  }
  if (stuck < 0) {
    const stay = selfShare[u]!;
    if (stay < 1) {
      latency[u] = sum / structure.shareNotKept(u);
      return;
    }
    stuck = u;
  }
  latency[u] = Number.POSITIVE_INFINITY;
  limitedBy[u] = stuck;
}

/**
 * A loop of several nodes. Its members reach one another, so they share where they get stuck:
 * the smallest id among the members that never answer themselves and the nodes the loop's calls
 * out get stuck at (the successors of a member that never answers are not reached through it).
 */
function solveComponent(solving: LoopSolving, component: Int32Array, c: number): void {
  // A loop of up to 128 nodes is factored directly: the caller may be out of time between two.
  checkpoint();
  const n = component.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (elimination and the sweeps agree to the tolerance)
  if (n > STEADY_DENSE_LIMIT) {
    solveLargeComponent(solving, component, c);
    return;
  }
  const { structure, own, latency, limitedBy, localIndex } = solving;
  const { outStart, outTarget, outShare, ids } = structure;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < n; i++) localIndex[component[i]!] = i;
  try {
    // What each member spends before calls inside the component: its own time and the calls
    // that leave it, whose latencies are solved.
    const b = new Float64Array(n);
    let stuck = -1;
    // Stryker disable next-line EqualityOperator: one past the end
    for (let i = 0; i < n; i++) {
      const u = component[i]!;
      const ownLimit = limitedBy[u]!;
      if (ownLimit >= 0) {
        stuck = smallerLimit(ids, stuck, ownLimit);
        continue;
      }
      let sum = own[u]!;
      for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
        const w = outTarget[k]!;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (a member's latency is still 0, and a member's limit is already one of the loop's)
        if (localIndex[w]! >= 0) continue;
        const limit = calleeLimit(solving, w);
        if (limit < 0) sum += outShare[k]! * latency[w]!;
        else stuck = smallerLimit(ids, stuck, limit);
      }
      b[i] = sum;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (a stuck loop's solved values are overwritten below)
    if (stuck < 0) {
      if (solveDenseCycle(structure, component, b, localIndex)) {
        // Stryker disable next-line EqualityOperator: one past the end
        for (let i = 0; i < n; i++) latency[component[i]!] = b[i]!;
      } else stuck = smallestId(structure, component);
    }
    if (stuck >= 0) markStuck(solving, component, stuck);
  } finally {
    // Stryker disable next-line EqualityOperator: one past the end (the `>=` twin, no reset, is killed)
    for (let i = 0; i < n; i++) localIndex[component[i]!] = -1;
  }
}

/** Every member of a stuck loop: an infinite latency, stuck where its own limit or the loop's says. */
function markStuck(solving: LoopSolving, component: Int32Array, stuck: number): void {
  const { latency, limitedBy, shared } = solving;
  // Stryker disable next-line EqualityOperator: one past the end (it sets a property named "undefined" on the typed array, which nothing reads)
  for (let i = 0; i < component.length; i++) {
    const u = component[i]!;
    latency[u] = Number.POSITIVE_INFINITY;
    if (limitedBy[u]! < 0) limitedBy[u] = stuck;
    shared[u] = stuck;
  }
}

/**
 * A loop past `STEADY_DENSE_LIMIT` nodes, by accelerated sweeps (`solveLocalSystem`) in its
 * feedback order (sweep-order.ts), as reach.ts sweeps the same kind of equations (each node's
 * value from its successors'): on mostly-forward loops a sweep then reads fresh values
 * everywhere but on the few edges pointing back. In Tarjan's order instead, the deep family's
 * tangle took several times the sweeps. Where the loops are solved again (an SLO search), their
 * systems are kept (`LatencyLoopSystem`): only what each member spends before its calls inside
 * the loop changes from one solve to the next.
 */
function solveLargeComponent(solving: LoopSolving, component: Int32Array, c: number): void {
  const { structure, own, latency, limitedBy, localIndex } = solving;
  const { ids } = structure;
  const n = component.length;
  let stuck = -1;
  for (const u of component) {
    const ownLimit = limitedBy[u]!;
    // Stryker disable next-line ConditionalExpression: same answer (smallerLimit with −1 keeps the limit found so far)
    if (ownLimit >= 0) stuck = smallerLimit(ids, stuck, ownLimit);
  }
  // Kept before the phase below begins, so that it is not given back with the phase's memory.
  const kept = structure.repeatsLoopSolves
    ? // Stryker disable next-line ArrowFunction: same answer, other work (nothing kept: each solve builds its own)
      structure.keptLoopSystem(`latency:${c}`, (memory) =>
        latencyLoopSystem(structure, component, localIndex, c, memory),
      )
    : undefined;
  const mark = scratch.mark();
  try {
    const system = kept ?? latencyLoopSystem(structure, component, localIndex, c, scratch);
    const { ordered, leaveStart, leaveTarget, leaveShare } = system;
    // What each member spends before calls inside the component: its own time and the calls
    // that leave it, whose latencies are solved.
    const constant = scratch.float64(n);
    // Stryker disable next-line EqualityOperator: one past the end
    for (let q = 0; q < n; q++) {
      const u = ordered[q]!;
      // A member that never answers is stuck already (above); its calls out are not reached.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (a stuck loop's constants are never read)
      if (limitedBy[u]! >= 0) continue;
      let sum = own[u]!;
      for (let k = leaveStart[q]!; k < leaveStart[q + 1]!; k++) {
        const w = leaveTarget[k]!;
        const limit = calleeLimit(solving, w);
        if (limit < 0) sum += leaveShare[k]! * latency[w]!;
        else stuck = smallerLimit(ids, stuck, limit);
      }
      constant[q] = sum;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (a stuck loop's solved values are overwritten below)
    if (stuck < 0 && !(system.solvable && settleLoop(solving, component, c, system, constant))) {
      stuck = smallestId(structure, component);
    }
    if (stuck >= 0) markStuck(solving, component, stuck);
  } finally /* Stryker disable next-line BlockStatement: same answer, other memory */ {
    scratch.release(mark);
  }
}

/**
 * A large loop's equations, `L = constant + share · L` scaled by each member's self share, in
 * local numbering by its sweep order, and each row's calls that leave the loop.
 */
interface LatencyLoopSystem {
  /** The members in their sweep order: row `q` is member `ordered[q]`. */
  ordered: Int32Array;
  rowStart: Int32Array;
  target: Int32Array;
  share: Float64Array;
  scale: Float64Array;
  /** Row `q`'s calls out of the loop: `leaveStart[q] .. leaveStart[q + 1]`, in input order. */
  leaveStart: Int32Array;
  leaveTarget: Int32Array;
  leaveShare: Float64Array;
  /** False when a member calls itself with a share of 1 or more: no finite latency. */
  solvable: boolean;
}

/** Component `c`'s `LatencyLoopSystem`, from `memory`; `localIndex` is all −1 on entry and on exit. */
function latencyLoopSystem(
  structure: CompiledStructure,
  component: Int32Array,
  localIndex: Int32Array,
  c: number,
  memory: ArrayMemory,
  preferred: Int32Array = structure.sweepOrder(),
): LatencyLoopSystem {
  const { outStart, outTarget, outShare, selfShare } = structure;
  const n = component.length;
  const first = structure.components().start[c]!;
  const ordered = preferred.subarray(first, first + n);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let q = 0; q < n; q++) localIndex[ordered[q]!] = q;
  // The counts only size the edge arrays: counting more leaves room that is never read.
  let inside = 0;
  let leaving = 0;
  for (const u of component) {
    // Stryker disable next-line EqualityOperator: same answer, other memory
    for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
      const w = outTarget[k]!;
      // (Self-calls counted as inside too: room that is never read.)
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other memory
      if (localIndex[w]! < 0) leaving++;
      else inside++;
    }
  }
  const rowStart = memory.int32(n + 1);
  const target = memory.int32(inside);
  const share = memory.float64(inside);
  const scale = memory.float64(n);
  const leaveStart = memory.int32(n + 1);
  const leaveTarget = memory.int32(leaving);
  const leaveShare = memory.float64(leaving);
  let solvable = true;
  let edge = 0;
  let out = 0;
  // Stryker disable next-line EqualityOperator: one past the end (a row past the end writes only past the typed arrays' ends, which is dropped)
  for (let q = 0; q < n; q++) {
    const u = ordered[q]!;
    // A self share of 1 or more: a request that keeps coming back never leaves.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: same answer, other work (its scale is then infinite or negative, and sweepLoop refuses the values that gives)
    if (!(selfShare[u]! < 1)) solvable = false;
    scale[q] = 1 / structure.shareNotKept(u);
    for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
      const w = outTarget[k]!;
      const local = localIndex[w]!;
      if (local < 0) {
        leaveTarget[out] = w;
        leaveShare[out++] = outShare[k]!;
      } else if (w !== u) {
        target[edge] = local;
        share[edge++] = outShare[k]!;
      }
    }
    rowStart[q + 1] = edge;
    leaveStart[q + 1] = out;
  }
  // Stryker disable next-line EqualityOperator: one past the end (the `>=` twin, no reset, is killed)
  for (let q = 0; q < n; q++) localIndex[ordered[q]!] = -1;
  return { ordered, rowStart, target, share, scale, leaveStart, leaveTarget, leaveShare, solvable };
}

/**
 * Writes the loop's latencies for these constants into `latency`; false where it has none finite
 * (a request that keeps coming back never leaves).
 *
 * The accelerated sweeps can stall short of the tolerance on a loop that keeps most of what it
 * calls: a ring of 129 fan-out nodes each calling on 0.99 times a request stood within 1e-8 of
 * its latency after the 500 sweeps and came no nearer, and was reported unbounded. Started again
 * from where they stopped (the acceleration's history cleared), they settle in a few hundred
 * more. So, where the sweeps stop unsettled, a loop that is certainly bounded (`certainlyBounded`)
 * is swept again, up to `RESTARTS` rounds (from the second on in the other order; a round that
 * went negative or infinite is followed by one from zeros); then, still unsettled or settled only
 * in a later round (slowly, so perhaps further from the answer than the last sweep moved), a loop
 * of up to `DENSE_FALLBACK_LIMIT` nodes is solved by elimination, which decides, and a larger
 * loop certainly bounded keeps its last round's estimate, as the steady state does
 * (steady-state.ts). A loop not known to be bounded whose sweeps go negative or infinite is
 * unbounded at once (its gain is 1 or more), as is a larger one whose sweeps did not settle, and
 * a larger one certainly bounded whose last round went negative or infinite (no estimate left).
 */
function settleLoop(
  solving: LoopSolving,
  component: Int32Array,
  c: number,
  system: LatencyLoopSystem,
  constant: Float64Array,
): boolean {
  const { structure, latency, localIndex } = solving;
  const n = system.ordered.length;
  let swept = sweepLoop(system, constant, undefined);
  let bounded: boolean | undefined;
  let sweeping = system;
  let rounds = 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,UpdateOperator: same answer, other work (one round more or rounds until it settles: each starts where the last stopped; an unsettled round of an invalid solve is refused below all the same)
  for (; swept?.converged !== true && rounds < RESTARTS; rounds++) {
    bounded ??= certainlyBounded(structure, component, localIndex);
    // Stryker disable next-line ConditionalExpression: same answer, other work (rounds of a loop not known to be bounded: its estimate is never kept, elimination or the unbounded verdict follows as without them)
    if (!bounded) break;
    // Sweeps of a loop certainly bounded that went negative or infinite were thrown off by the
    // acceleration (a ring of 129 with dependencies across it, restarted where it stalled), not
    // by the loop: the next round starts from zeros.
    let start = swept?.values;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (the other order taken at another round, or built again: it settles the same loops)
    if (rounds === 1) {
      // Two rounds unsettled in the first order: the rest in the other (as the steady state's
      // sweeps, steady-state.ts), from where the first stopped.
      const other = latencyLoopSystem(
        structure,
        component,
        localIndex,
        c,
        scratch,
        structure.freedFirstSweepOrder(),
      );
      ({ constant, values: start } = reordered(sweeping, other, constant, start, localIndex));
      sweeping = other;
    }
    swept = sweepLoop(sweeping, constant, start);
  }
  // Values no finite nonnegative solution has, from a loop not known to be bounded: its gain is
  // 1 or more.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: same answer, other work (without it, elimination up to 1,024 nodes finds no finite solution and a larger loop not known to be bounded is refused below; a loop certainly bounded whose every round went negative, which no structure of the tests or the oracle reaches, is the defensive case)
  if (swept === undefined && bounded !== true) return false;
  // Sweeps that settled at once are kept; a loop that took rounds more settled slowly, and its
  // sweeps stopped where a round moves little, which may be further than that from the answer:
  // elimination where it is affordable. A larger loop certainly bounded keeps the estimate.
  // Stryker disable all: same answer, other work (a settled loop of up to 1,024 nodes eliminated instead, to the same tolerance; a loop certainly bounded whose sweeps settle in none of their rounds, which nothing the tests or the oracle build reaches, as for the steady state)
  if (
    swept !== undefined &&
    ((swept.converged && rounds === 0) || (n > DENSE_FALLBACK_LIMIT && bounded === true))
  ) {
    // Stryker restore all
    // Stryker disable next-line EqualityOperator: one past the end
    for (let q = 0; q < n; q++) latency[sweeping.ordered[q]!] = swept.values[q]!;
    return true;
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (elimination of a larger loop answers the same, slower)
  if (n > DENSE_FALLBACK_LIMIT) return false;
  // Elimination takes the constants in the component's order, not the sweep order.
  const b = new Float64Array(n);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let q = 0; q < n; q++) localIndex[sweeping.ordered[q]!] = q;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < n; i++) b[i] = constant[localIndex[component[i]!]!]!;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < n; i++) localIndex[component[i]!] = i;
  try {
    // Stryker disable next-line BooleanLiteral: defensive: the sweeps of a loop whose gain is 1 or more go negative or infinite before their rounds end (refused above), so elimination is asked only of loops it solves
    if (!solveDenseCycle(structure, component, b, localIndex)) return false;
  } finally {
    // Stryker disable next-line EqualityOperator: one past the end
    for (let i = 0; i < n; i++) localIndex[component[i]!] = -1;
  }
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < n; i++) latency[component[i]!] = b[i]!;
  return true;
}

/** The constants and values of `from`'s rows in the rows of `to` (the same loop in another order). */
function reordered(
  from: LatencyLoopSystem,
  to: LatencyLoopSystem,
  constant: Float64Array,
  values: Float64Array | undefined,
  localIndex: Int32Array,
): { constant: Float64Array; values: Float64Array | undefined } {
  const n = from.ordered.length;
  const movedConstant = scratch.float64(n);
  // Stryker disable next-line ConditionalExpression: same answer, other work (a round in the other order from zeros rather than from where the last stopped)
  const movedValues = values === undefined ? undefined : scratch.float64(n);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let q = 0; q < n; q++) localIndex[from.ordered[q]!] = q;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let q = 0; q < n; q++) {
    const at = localIndex[to.ordered[q]!]!;
    movedConstant[q] = constant[at]!;
    // Stryker disable next-line ConditionalExpression: same answer, other work (the values carried or left at 0: a round from zeros)
    if (movedValues !== undefined) movedValues[q] = values![at]!;
  }
  // Stryker disable next-line EqualityOperator: one past the end
  for (let q = 0; q < n; q++) localIndex[from.ordered[q]!] = -1;
  return { constant: movedConstant, values: movedValues };
}

/**
 * Whether the loop's gain is certainly below 1 by `GAIN_MARGIN`, as the steady state judges it: a
 * routing loop (no fan-out) that lets anything out, or one whose gain bounds (`gainBounds`, the
 * same coefficients: the latencies' equations are the throughputs' transposed, whose gain is the
 * same) fall below it.
 */
function certainlyBounded(
  structure: CompiledStructure,
  component: Int32Array,
  localIndex: Int32Array,
): boolean {
  const n = component.length;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < n; i++) localIndex[component[i]!] = i;
  try {
    // Stryker disable next-line ConditionalExpression: same answer, other work (gain bounds for a routing loop too: only how many rounds its sweeps may take changes, and they settle in the first)
    if (!anyFanout(structure, component)) return leaks(structure, component, localIndex);
    const decided = 1 - GAIN_MARGIN;
    // Stryker disable next-line EqualityOperator: a bound exactly on the line is no certainty either way: the rounds it allows only bring the estimate nearer
    return gainBounds(structure, component, localIndex, decided).high < decided;
  } finally {
    // Stryker disable next-line EqualityOperator: one past the end
    for (let i = 0; i < n; i++) localIndex[component[i]!] = -1;
  }
}

/**
 * The loop's latencies for these constants (in scratch memory) and whether the sweeps settled,
 * starting from `initial` (zeros when absent); `undefined` when they reached a negative or
 * infinite value (no nonnegative finite solution).
 */
function sweepLoop(
  system: LatencyLoopSystem,
  constant: Float64Array,
  initial: Float64Array | undefined,
): { values: Float64Array; converged: boolean } | undefined {
  const { rowStart, target, share, scale } = system;
  const m = system.ordered.length;
  const { values, converged } = solveLocalSystem({
    m,
    rowStart,
    target,
    share,
    constant,
    scale,
    tolerance: LATENCY_TOLERANCE,
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ObjectLiteral: same answer, other work (a round from zeros takes the first sweeps again; the other order or elimination settles the loop)
    ...(initial === undefined ? {} : { initial }),
  });
  // Stryker disable next-line EqualityOperator: one past the end
  for (let q = 0; q < m; q++) {
    const value = values[q]!;
    // A loop whose gain is above 1 has a negative solution; the sweeps of the tests' ring of gain 2
    // do not settle on it (not converged), so the sign is checked here for any that would.
    // Stryker disable next-line ConditionalExpression: see above
    if (!(value >= 0 && value < Number.POSITIVE_INFINITY)) return undefined;
  }
  return { values, converged };
}

/** Of the limit found so far (−1: none yet) and another, the one whose node has the smaller id. */
function smallerLimit(ids: readonly string[], stuck: number, limit: number): number {
  return stuck < 0 ||
    // Stryker disable next-line EqualityOperator: equal replaces equal (two calls to nodes stuck at the same one)
    ids[limit]! < ids[stuck]!
    ? limit
    : stuck;
}

function smallestId(structure: CompiledStructure, component: Int32Array): number {
  let best = component[0]!;
  // Stryker disable next-line EqualityOperator: ids are unique
  for (const u of component) if (structure.ids[u]! < structure.ids[best]!) best = u;
  return best;
}

/**
 * `(I − T_C) L = b` on a loop of up to `STEADY_DENSE_LIMIT` nodes, by elimination, `b`
 * receiving `L`; false when there is no nonnegative finite solution (a loop whose gain is 1 or
 * more: a request that keeps coming back never leaves).
 */
function solveDenseCycle(
  structure: CompiledStructure,
  component: Int32Array,
  b: Float64Array,
  localIndex: Int32Array,
): boolean {
  const { outStart, outTarget, outShare } = structure;
  const n = component.length;
  // A routing loop keeps its digits by the leaking system's elimination (pivots that are sums of
  // what each member passes on, never `1 −` what it keeps), as its throughputs do.
  if (!anyFanout(structure, component)) {
    const { offDiagonal: factors, leak } = leakingSystemOf(structure, component, n, localIndex);
    const pivot = factorLeakingSystem(factors, leak, n);
    return pivot !== undefined && solveLeaking(factors, pivot, b, n);
  }
  const a = new Float64Array(n * n);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < n; i++) {
    const u = component[i]!;
    a[i * n + i] = 1;
    for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
      const local = localIndex[outTarget[k]!]!;
      if (local >= 0) a[i * n + local]! -= outShare[k]!;
    }
  }
  if (!factorMMatrix(a, n) || !solveFactored(a, b, n)) return false;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: defensive: an M-matrix that factors has a nonnegative inverse, and b ≥ 0
  for (let i = 0; i < n; i++) if (!(b[i]! >= 0)) return false;
  return true;
}
