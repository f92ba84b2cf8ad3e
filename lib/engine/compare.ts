/**
 * What a scenario changes: one described state of the baseline against the same state of the
 * scenario (analyze: the input state; a timeline: its last snapshot). Both structures have the
 * same nodes in the same order (a scenario never adds or removes one), so nodes are compared
 * index by index.
 */
import { compareIds } from './compare-ids';
import type { CompiledStructure } from './compile';
import { roleOf, type StateSummary, type StateToDescribe } from './describe';
import { boundedRatio } from './steady-state';
import type { Headroom, Origin, Role } from './types';

/** How many pressure and utilization increases `changes` lists, largest first. */
const TOP_INCREASES = 20;

/** What a comparison keeps of one described state once its buffers move on. */
export interface StateDigest {
  structure: CompiledStructure;
  tick: number;
  pressure: Float64Array;
  blocked: Uint8Array;
  /** `analyze` of an open structure: per node, its utilization, NaN where it has none. */
  utilization: Float64Array | undefined;
  summary: StateSummary;
}

/** Copies what `compareStates` reads from a state while the state is being written. */
export function digestState(described: StateToDescribe, summary: StateSummary): StateDigest {
  const { structure, measured, options } = described;
  const { steady } = options;
  let utilization: Float64Array | undefined;
  if (steady !== undefined) {
    utilization = new Float64Array(structure.nodeCount).fill(Number.NaN);
    const { capacity } = structure;
    for (let v = 0; v < structure.nodeCount; v++) {
      const x = steady.throughput[v]!;
      const cap = capacity[v]!;
      if (x !== Number.POSITIVE_INFINITY && cap !== Number.POSITIVE_INFINITY && structure.hasWayOut(v)) {
        utilization[v] = boundedRatio(x, cap);
      }
    }
  }
  return {
    structure,
    tick: options.tick,
    pressure: new Float64Array(measured.pressure),
    blocked: new Uint8Array(measured.blocked),
    utilization,
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
  /** `null` where the node has no such number (a utilization without a capacity). */
  before: number | null;
  after: number | null;
  increase: number;
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
  /** `analyze` when either structure is open: the largest utilization increases. */
  utilization?: Increase[];
  primaryBlockage: BeforeAfter<string | null>;
  origin: BeforeAfter<Origin | null>;
  trace: BeforeAfter<string[]>;
  /** `analyze` when either structure is open. */
  headroom?: BeforeAfter<Headroom | null>;
}

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
  // Utilization and headroom come from the steady state: analyze of an open structure.
  const steady = before.utilization !== undefined || after.utilization !== undefined;
  const none = steady ? new Float64Array(nodeCount).fill(Number.NaN) : undefined;
  return {
    tick: after.tick,
    nodes,
    pressure: largestIncreases(ids, before.pressure, after.pressure),
    ...(none === undefined
      ? {}
      : { utilization: largestIncreases(ids, before.utilization ?? none, after.utilization ?? none) }),
    primaryBlockage: { before: before.summary.primaryBlockage, after: after.summary.primaryBlockage },
    origin: { before: before.summary.origin, after: after.summary.origin },
    trace: { before: before.summary.trace, after: after.summary.trace },
    ...(steady
      ? { headroom: { before: before.summary.headroom ?? null, after: after.summary.headroom ?? null } }
      : {}),
  };
}

/**
 * The `TOP_INCREASES` nodes whose number grew most (NaN, a number the node does not have,
 * counts as 0), largest increase first, ties to the smallest id. One pass keeping a short
 * sorted list, so a 200,000-node state costs one comparison per node in the usual case.
 */
function largestIncreases(ids: readonly string[], before: Float64Array, after: Float64Array): Increase[] {
  const top: { v: number; increase: number }[] = [];
  for (let v = 0; v < ids.length; v++) {
    const was = before[v]!;
    const is = after[v]!;
    const increase = (Number.isNaN(is) ? 0 : is) - (Number.isNaN(was) ? 0 : was);
    if (!(increase > 0)) continue;
    if (top.length === TOP_INCREASES && !ranksBefore(ids, v, increase, top[top.length - 1]!)) continue;
    let at = top.length;
    while (at > 0 && ranksBefore(ids, v, increase, top[at - 1]!)) at--;
    top.splice(at, 0, { v, increase });
    if (top.length > TOP_INCREASES) top.pop();
  }
  return top.map(({ v, increase }) => ({
    id: ids[v]!,
    before: Number.isNaN(before[v]!) ? null : before[v]!,
    after: Number.isNaN(after[v]!) ? null : after[v]!,
    increase,
  }));
}

function ranksBefore(
  ids: readonly string[],
  v: number,
  increase: number,
  other: { v: number; increase: number },
): boolean {
  return increase > other.increase || (increase === other.increase && compareIds(ids[v]!, ids[other.v]!) < 0);
}
