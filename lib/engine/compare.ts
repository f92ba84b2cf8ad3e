/**
 * What a scenario changes: one described state of the baseline against the same state of the
 * scenario (analyze: the input state; a timeline: its last snapshot). Both structures have the
 * same nodes in the same order (a scenario never adds or removes one), so nodes are compared
 * index by index.
 */
import { compareIds } from './compare-ids';
import type { CompiledStructure } from './compile';
import { roleOf, type StateSummary, type StateToDescribe } from './describe';
import { readLatencyLimits } from './open/latency-reading';
import { nodeResponseTime } from './open/node-latency';
import { keepRanked } from './ranked';
import type { Headroom, Origin, Role } from './types';

/** How many pressure increases, and utilization and throughput changes, `changes` lists, largest first. */
const TOP_CHANGES = 20;

/** What a comparison keeps of one described state once its buffers move on. */
export interface StateDigest {
  structure: CompiledStructure;
  tick: number;
  pressure: Float64Array;
  blocked: Uint8Array;
  /** `analyze` of an open structure: what the steady state said. */
  steady: SteadyDigest | undefined;
  summary: StateSummary;
}

interface SteadyDigest {
  /** Per node, its utilization, NaN where it has none. */
  utilization: Float64Array;
  /** Per node, its throughput, Infinity where unbounded. */
  throughput: Float64Array;
  /** Per node, 1 where it is saturated (over capacity, or losing traffic: down, or stranded by a cut). */
  saturated: Uint8Array;
  lost: number;
  /**
   * With latency fields: per node its response time and its end-to-end latency (an entry's),
   * NaN where it has none, Infinity where it never answers.
   */
  responseTime?: Float64Array;
  latency?: Float64Array;
}

/**
 * Copies what `compareStates` reads from a state while the state is being written.
 * `entryLimits`: the other side of the comparison has latency fields; this one, without them,
 * still says which entries are stuck (their requests reach a node that never answers), so that
 * `latencyLimit` names none as newly stuck that was stuck already.
 */
export function digestState(
  described: StateToDescribe,
  summary: StateSummary,
  { entryLimits }: { entryLimits: boolean },
): StateDigest {
  const { structure, measured, options } = described;
  const { steady } = options;
  let digest: SteadyDigest | undefined;
  if (steady !== undefined) {
    // An unbounded node has its own event, and no utilization or throughput to compare:
    // it is not counted saturated, and Infinity leaves it out of the lists.
    const saturated = new Uint8Array(structure.nodeCount);
    const utilization = new Float64Array(steady.utilization);
    const { throughput } = steady.steady;
    // Stryker disable next-line EqualityOperator: one past the end: node n reads undefined, never 1 nor Infinity, and the writes past the end are dropped (the `>=` twin is killed)
    for (let v = 0; v < structure.nodeCount; v++) {
      if (throughput[v] === Number.POSITIVE_INFINITY) utilization[v] = Number.POSITIVE_INFINITY;
      else if (steady.saturated[v] === 1) saturated[v] = 1;
    }
    digest = {
      utilization,
      throughput: new Float64Array(steady.steady.throughput),
      saturated,
      lost: steady.steady.totalLost,
      ...(options.latency === undefined && entryLimits ? stuckEntries(described) : latencyDigest(described)),
    };
  }
  return {
    structure,
    tick: options.tick,
    pressure: new Float64Array(measured.pressure),
    blocked: new Uint8Array(measured.blocked),
    steady: digest,
    summary,
  };
}

export interface NodeStatus {
  blocked: boolean;
  role: Role;
}

export interface NodeChangeEntry {
  id: string;
  before: NodeStatus;
  after: NodeStatus;
}

export interface Increase {
  id: string;
  before: number;
  after: number;
  increase: number;
}

export interface Change {
  id: string;
  /** `null` where the node has no such number (a utilization without a capacity). */
  before: number | null;
  after: number | null;
  /** `after − before`, a missing number counting as 0: negative for a decrease. */
  change: number;
}

export interface BeforeAfter<T> {
  before: T;
  after: T;
}

/** The `changes` of a comparison, in the key order it is written. */
export interface Changes {
  /** The state compared: 0 in `analyze`, the last snapshot's tick in `tick` and `ticks`. */
  tick: number;
  /** Nodes whose `blocked` or `role` differ, in input order. */
  nodes: NodeChangeEntry[];
  /** The largest pressure increases, largest first (ties: smallest id). */
  pressure: Increase[];
  /** `analyze` when either structure is open: the largest utilization changes, either way. */
  utilization?: Change[];
  /** The same for throughputs. */
  throughput?: Change[];
  /**
   * Nodes saturated in the scenario and not in the baseline (`newly`), and the other way (`cleared`),
   * in id order; a node unbounded on the other side is in `unbounded`, never here (an overload
   * that turned into a flood is no relief).
   */
  saturated?: { newly: string[]; cleared: string[] };
  /** Nodes unbounded (a loop that keeps what enters it) in the scenario and not in the baseline, and the other way, in id order. */
  unbounded?: { newly: string[]; cleared: string[] };
  /** The traffic lost per step by nodes down or stranded by a cut, before and after (0 when none). */
  lost?: BeforeAfter<number>;
  /** With latency fields: the largest response time changes, either way. */
  responseTime?: Change[];
  /** With latency fields: the largest changes of an entry's end-to-end latency, either way. */
  latency?: Change[];
  /**
   * With latency fields: entries whose requests reach a node that never answers (a `latencyLimit`)
   * under the scenario and not in the baseline (`newly`), and the other way (`cleared`), in id order.
   */
  latencyLimit?: { newly: string[]; cleared: string[] };
  primaryBlockage: BeforeAfter<string | null>;
  origin: BeforeAfter<Origin | null>;
  trace: BeforeAfter<string[]>;
  /** `analyze` when either structure is open. */
  headroom?: BeforeAfter<Headroom | null>;
  /** With latency fields on either side. */
  latencyHeadroom?: BeforeAfter<Headroom | null>;
}

/** Whether node `v` is unbounded on this side: its throughput grows without limit. */
const unbounded = (side: SteadyDigest, v: number) => side.throughput[v] === Number.POSITIVE_INFINITY;

/** What changed from `before` (the baseline) to `after` (the scenario). */
export function compareStates(before: StateDigest, after: StateDigest): Changes {
  const { ids, nodeCount } = after.structure;
  const nodes: NodeChangeEntry[] = [];
  for (let v = 0; v < nodeCount; v++) {
    const roleBefore = roleOf(before.structure, v);
    const roleAfter = roleOf(after.structure, v);
    if (before.blocked[v] === after.blocked[v] && roleBefore === roleAfter) continue;
    nodes.push({
      id: ids[v]!,
      before: { blocked: before.blocked[v] === 1, role: roleBefore },
      after: { blocked: after.blocked[v] === 1, role: roleAfter },
    });
  }
  const pressure = largestChanges(ids, before.pressure, after.pressure, true).map(
    ({ id, before, after, change }) => ({ id, before: before!, after: after!, increase: change }),
  );
  const primaryBlockage = { before: before.summary.primaryBlockage, after: after.summary.primaryBlockage };
  const origin = { before: before.summary.origin, after: after.summary.origin };
  const trace = { before: before.summary.trace, after: after.summary.trace };
  // Utilization, throughput, saturation and headroom come from the steady state: analyze of an open structure.
  // Stryker disable next-line ConditionalExpression: a scenario never closes an open structure (it sets arrivals, never removes them) and both digests come from the same call, so `after` has a steady state whenever `before` has: `before.steady === undefined` may read true (the other twins are killed)
  if (before.steady === undefined && after.steady === undefined) {
    return { tick: after.tick, nodes, pressure, primaryBlockage, origin, trace };
  }
  const none = emptySteadyDigest(nodeCount);
  const was = before.steady ?? none;
  const is = after.steady ?? none;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a scenario adds latency fields, never removes them, so `is` has them whenever `was` does: `was.latency !== undefined` may read false (the other twins are killed)
  const withLatency = was.latency !== undefined || is.latency !== undefined;
  return {
    tick: after.tick,
    nodes,
    pressure,
    utilization: largestChanges(ids, was.utilization, is.utilization, false),
    throughput: largestChanges(ids, was.throughput, is.throughput, false),
    // Overloaded either way, saturated or unbounded: a move between the two is said by `unbounded`.
    saturated: newlyAndCleared(
      ids,
      (v) => was.saturated[v] === 1 || (is.saturated[v] === 1 && unbounded(was, v)),
      (v) => is.saturated[v] === 1 || (was.saturated[v] === 1 && unbounded(is, v)),
    ),
    unbounded: newlyAndCleared(
      ids,
      (v) => unbounded(was, v),
      (v) => unbounded(is, v),
    ),
    lost: { before: was.lost, after: is.lost },
    ...(withLatency ? latencyChanges(ids, was, is) : {}),
    primaryBlockage,
    origin,
    trace,
    headroom: { before: before.summary.headroom ?? null, after: after.summary.headroom ?? null },
    ...(!withLatency
      ? {}
      : {
          latencyHeadroom: {
            before: before.summary.latencyHeadroom ?? null,
            after: after.summary.latencyHeadroom ?? null,
          },
        }),
  };
}

/**
 * A structure without latency fields, compared with one that has them: its entries' latency is
 * Infinity where stuck (left out of the `latency` changes, and not newly stuck on the other side),
 * NaN elsewhere (none, as a side without the entry has).
 */
function stuckEntries(described: StateToDescribe): Pick<SteadyDigest, 'latency'> {
  const { structure, options } = described;
  const limitedBy = readLatencyLimits(structure, options.steady!);
  const latency = new Float64Array(structure.nodeCount).fill(Number.NaN);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < structure.nodeCount; v++) {
    if (structure.arrival[v]! > 0 && limitedBy[v]! >= 0) latency[v] = Number.POSITIVE_INFINITY;
  }
  return { latency };
}

/** Each node's response time and each entry's latency, when the structure has latency fields. */
function latencyDigest(described: StateToDescribe): Pick<SteadyDigest, 'responseTime' | 'latency'> {
  const { structure, options } = described;
  const { latency: reading, steady } = options;
  // Stryker disable next-line ConditionalExpression: same answer, other work (a latency reading is made from a steady state, never without one)
  if (reading === undefined || steady === undefined) return {};
  const { nodeCount, arrival } = structure;
  const responseTime = new Float64Array(nodeCount).fill(Number.NaN);
  const latency = new Float64Array(nodeCount).fill(Number.NaN);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) {
    const x = steady.steady.throughput[v]!;
    const response = nodeResponseTime(structure, v, x, steady.utilization[v]!);
    if (response !== undefined) responseTime[v] = response;
    else if (structure.latency.serviceTime[v]! > 0) responseTime[v] = Number.POSITIVE_INFINITY;
    if (arrival[v]! > 0)
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (a stuck entry's solved latency is Infinity too)
      latency[v] = reading.limitedBy[v]! >= 0 ? Number.POSITIVE_INFINITY : reading.latency[v]!;
  }
  return { responseTime, latency };
}

/**
 * `responseTime` and `latency` changes, either way, for a comparison where either side has latency
 * fields. A node that never answers on either side is left out, as an unbounded one is from
 * throughput; an entry that gets stuck (or unstuck) is named in `latencyLimit`, so a scenario
 * never hides it.
 */
function latencyChanges(
  ids: readonly string[],
  was: SteadyDigest,
  is: SteadyDigest,
): Pick<Changes, 'responseTime' | 'latency' | 'latencyLimit'> {
  const none = new Float64Array(ids.length).fill(Number.NaN);
  const before = was.latency ?? none;
  const after = is.latency ?? none;
  return {
    responseTime: largestChanges(ids, was.responseTime ?? none, is.responseTime ?? none, false),
    latency: largestChanges(ids, before, after, false),
    latencyLimit: newlyAndCleared(
      ids,
      (v) => before[v] === Number.POSITIVE_INFINITY,
      (v) => after[v] === Number.POSITIVE_INFINITY,
    ),
  };
}

/**
 * The nodes that hold under the scenario (`inAfter`) and not in the baseline (`inBefore`):
 * `newly`; and the other way: `cleared`; each in id order.
 */
function newlyAndCleared(
  ids: readonly string[],
  inBefore: (v: number) => boolean,
  inAfter: (v: number) => boolean,
): { newly: string[]; cleared: string[] } {
  const newly: number[] = [];
  const cleared: number[] = [];
  // Stryker disable next-line EqualityOperator: one past the end: node n holds on neither side (its arrays read undefined)
  for (let v = 0; v < ids.length; v++) {
    const was = inBefore(v);
    const is = inAfter(v);
    if (is && !was) newly.push(v);
    else if (was && !is) cleared.push(v);
  }
  const byId = (a: number, b: number) => compareIds(ids[a]!, ids[b]!);
  return { newly: newly.sort(byId).map((v) => ids[v]!), cleared: cleared.sort(byId).map((v) => ids[v]!) };
}

/** A side with no steady state (a closed structure): no utilization, throughput or saturation. */
function emptySteadyDigest(nodeCount: number): SteadyDigest {
  return {
    utilization: new Float64Array(nodeCount).fill(Number.NaN),
    throughput: new Float64Array(nodeCount).fill(Number.NaN),
    saturated: new Uint8Array(nodeCount),
    lost: 0,
  };
}

/**
 * The `TOP_CHANGES` nodes whose number changed most (`increasesOnly`: grew most), largest `|change|`
 * first, ties to the smallest id. NaN, a number the node does not have, counts as 0 and shows
 * `null`; a node unbounded on either side (Infinity) has no change to measure and is left out.
 * One pass keeping a short sorted list, so a 200,000-node state costs one comparison per node in
 * the usual case.
 */
function largestChanges(
  ids: readonly string[],
  before: Float64Array,
  after: Float64Array,
  increasesOnly: boolean,
): Change[] {
  const top: Ranked[] = [];
  // Largest |change| first; ids are unique, so compareIds is never 0 between two entries.
  const order = (a: Ranked, b: Ranked) => {
    const size = Math.abs(a.change);
    const otherSize = Math.abs(b.change);
    // Stryker disable next-line EqualityOperator: ids are unique and `a` is not yet in the list, so compareIds is never 0 here and `< 0` and `<= 0` agree (the twins on the sizes are killed)
    return size > otherSize || (size === otherSize && compareIds(ids[a.v]!, ids[b.v]!) < 0);
  };
  for (let v = 0; v < ids.length; v++) {
    const was = before[v]!;
    const is = after[v]!;
    if (was === Number.POSITIVE_INFINITY || is === Number.POSITIVE_INFINITY) continue;
    const change = (Number.isNaN(is) ? 0 : is) - (Number.isNaN(was) ? 0 : was);
    if (increasesOnly ? !(change > 0) : change === 0) continue;
    keepRanked(top, { v, change }, TOP_CHANGES, order);
  }
  return top.map(({ v, change }) => ({
    id: ids[v]!,
    before: Number.isNaN(before[v]!) ? null : before[v]!,
    after: Number.isNaN(after[v]!) ? null : after[v]!,
    change,
  }));
}

interface Ranked {
  v: number;
  change: number;
}
