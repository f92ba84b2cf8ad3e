import type { EngineResult, NodeState } from '../../lib/engine/types';

/**
 * The latency reading of an open structure's `analyze` answer, as the page reads it: whether it
 * has one, and a stuck entry's limit in words. The engine writes `responseTime` on nodes with a
 * `serviceTime` below saturation and `latency` (or `latencyLimit`) on entries; snapshots and
 * structures without a `serviceTime` have none of them.
 */
export function hasLatency(result: EngineResult): boolean {
  return result.nodes.some(
    (node) =>
      node.responseTime !== undefined || node.latency !== undefined || node.latencyLimit !== undefined,
  );
}

type LatencyLimit = NonNullable<NodeState['latencyLimit']>;

/** Why an entry's requests never finish, per `latencyLimit.reason`. */
const LIMIT_REASON: Record<LatencyLimit['reason'], string> = {
  saturated: 'saturated',
  unbounded: 'grows without limit',
  down: 'down',
};

/** The words after the node in `latencyLimitText`, for a panel that shows the node as a button. */
export function latencyLimitReason(limit: LatencyLimit): string {
  return `(${LIMIT_REASON[limit.reason]})`;
}

/** An entry's `latencyLimit` in words: `stuck at payments (saturated)`. */
export function latencyLimitText(limit: LatencyLimit, name: (id: string) => string): string {
  return `stuck at ${name(limit.node)} ${latencyLimitReason(limit)}`;
}
