import type { EngineResult, NodeState } from '../../lib/engine/types';

/**
 * The latency reading of an open structure's `analyze` answer, as the page reads it: whether it
 * has one, and a stuck entry's limit in words. The engine writes `responseTime` on nodes with a
 * `serviceTime` below saturation and `latency` (or `latencyLimit`) on entries; snapshots and
 * structures without a latency field have none of them (a caller's fields of those names are
 * then its own, carried as sent).
 */
export function hasLatency(result: EngineResult): boolean {
  // Read off `latencyHeadroom`, which an answer has exactly when the engine has a latency model
  // (`null` without an SLO): without one, a caller's own fields named `responseTime` or
  // `latencyLimit` come back as sent, and were taken for the engine's ("stuck at undefined").
  return result.latencyHeadroom !== undefined;
}

/** The node fields the engine writes with a latency model. */
const LATENCY_FIELDS = ['responseTime', 'waiting', 'inFlight', 'p99', 'latency', 'latencyLimit'] as const;

/**
 * `result` as the page reads it: without a latency model, a caller's own fields named like the
 * latency ones (carried as sent: `responseTime: "fast"`) are left out of what the page shows and
 * colours by, which read them as the engine's (the run failed on a string, or drew a number as a
 * response time). The answer's text is shown as it came.
 */
export function withEngineLatencyOnly(result: EngineResult): EngineResult {
  if (hasLatency(result)) return result;
  const own = (node: NodeState) => LATENCY_FIELDS.some((field) => Object.hasOwn(node, field));
  if (!result.nodes.some(own)) return result;
  return {
    ...result,
    nodes: result.nodes.map((node) => {
      if (!own(node)) return node;
      const copy: Record<string, unknown> = { ...node };
      for (const field of LATENCY_FIELDS) delete copy[field];
      return copy as unknown as NodeState;
    }),
  };
}

type LatencyLimit = NonNullable<NodeState['latencyLimit']>;

/** Why an entry's requests never finish, per `latencyLimit.reason`. */
const LIMIT_REASON: Record<LatencyLimit['reason'], string> = {
  saturated: 'saturated',
  unbounded: 'grows without limit',
  down: 'down',
  stranded: 'its way out cut',
};

/** The words after the node in `latencyLimitText`, for a panel that shows the node as a button. */
export function latencyLimitReason(limit: LatencyLimit): string {
  return `(${LIMIT_REASON[limit.reason]})`;
}

/** An entry's `latencyLimit` in words: `stuck at payments (saturated)`. */
export function latencyLimitText(limit: LatencyLimit, name: (id: string) => string): string {
  return `stuck at ${name(limit.node)} ${latencyLimitReason(limit)}`;
}
