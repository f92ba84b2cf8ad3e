import type { CompiledStructure } from '../compile';
import { PayloadError } from '../errors';
import { keepsWhatReaches } from '../steady-state';
import { queueTimes, responseTimeQuantile } from './mmc';

/** What `analyze` says of a node with a `serviceTime`, in the step's unit of time. */
export interface NodeLatency {
  responseTime: number;
  waiting: number;
  inFlight: number;
  p99: number;
}

/**
 * Node `v`'s response time at a steady `throughput`, or `undefined` when it has no `serviceTime`,
 * is down, or is at or above saturation (no mean time exists there: over its `capacity`, the
 * steady state's `utilization` above 1, or an M/M/c queue at its servers). With `servers` it queues as
 * M/M/c (`mmc.ts`); with a `serviceTime` alone no capacity is assumed, so no request waits: the
 * response time is the service time, and its 99th percentile that of an exponential service,
 * `serviceTime × ln 100`.
 */
export function nodeLatency(
  structure: CompiledStructure,
  v: number,
  throughput: number,
  utilization: number,
): NodeLatency | undefined {
  const queue = queueOf(structure, v, throughput, utilization);
  if (queue === undefined) return undefined;
  const { service, count } = queue;
  if (count === 0) {
    return representable(v, {
      responseTime: service,
      waiting: 0,
      inFlight: throughput * service,
      p99: service * Math.log(100),
    });
  }
  const times = queueTimes(throughput, service, count);
  if (times === undefined) return undefined;
  return representable(v, {
    responseTime: times.responseTime,
    waiting: times.waiting,
    inFlight: times.inFlight,
    p99: responseTimeQuantile(0.99, throughput, service, count, times)!,
  });
}

/**
 * `latency` when each of its numbers is a finite double. A service time near the largest double
 * (1e308 steps) has a 99th percentile past it, and a huge one times a huge throughput has more
 * requests in flight than a double holds: JSON would print them as `null`, so the structure is
 * refused instead, naming the service time, as a total load past the bound is.
 */
function representable(v: number, latency: NodeLatency): NodeLatency {
  for (const field of ['responseTime', 'waiting', 'inFlight', 'p99'] as const) {
    if (!Number.isFinite(latency[field])) {
      throw new PayloadError(
        `nodes[${v}].serviceTime`,
        `makes the node's ${field} larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit`,
      );
    }
  }
  return latency;
}

/**
 * Node `v`'s mean response time alone, as `nodeLatency` gives it (`undefined` in the same
 * cases), without the percentile's root find: what the end-to-end latency sums.
 */
export function nodeResponseTime(
  structure: CompiledStructure,
  v: number,
  throughput: number,
  utilization: number,
): number | undefined {
  const queue = queueOf(structure, v, throughput, utilization);
  if (queue === undefined) return undefined;
  const { service, count } = queue;
  return count === 0 ? service : queueTimes(throughput, service, count)?.responseTime;
}

/**
 * Whether node `v` saturates at a steady `throughput` with this `utilization` (NaN: none): over
 * its capacity, or, for a queue (`servers`), at it as well. An M/M/c queue at ρ = 1 has no finite
 * mean time, so the steady state's events and the latency's limits both call it saturated; its
 * offered load `throughput × serviceTime` is compared with its servers too, as the queue's own
 * times compare it, since the two roundings can part in the last digit (a utilization of
 * 0.9999999999999999 with a load that rounds to its 3 servers, or a utilization of exactly 1 with
 * a load of 2.9999999999999996, which gave a response time of 1.6e15).
 */
export function saturates(
  structure: CompiledStructure,
  v: number,
  throughput: number,
  utilization: number,
): boolean {
  if (utilization > 1) return true;
  const { serviceTime, servers } = structure.latency;
  // Stryker disable next-line ConditionalExpression: same answer, other work (servers[v] is then undefined, and undefined > 0 is false)
  if (servers.length === 0) return false;
  const count = servers[v]!;
  return count > 0 && (utilization >= 1 || !(throughput * serviceTime[v]! < count));
}

/**
 * The factor of today's traffic at which node `v`, taking `throughput` against its `capacity`,
 * saturates: `capacity / throughput`, but at most 1 where it saturates today (`saturates`: a queue
 * whose load rounds to its servers while that quotient rounds to 1.0000000000000002), so that
 * `headroom`, `bottlenecks` and the SLO search never call a saturated node free below ×1.
 */
export function saturationScale(structure: CompiledStructure, v: number, throughput: number): number {
  const capacity = structure.capacity[v]!;
  const scale = capacity / throughput;
  // Stryker disable next-line EqualityOperator: same answer (a scale of exactly 1 is 1 either way)
  return scale > 1 && saturates(structure, v, throughput, Math.min(throughput / capacity, Number.MAX_VALUE))
    ? 1
    : scale;
}

/** Node `v`'s service time and servers (0: none given), or `undefined` where no time is said. */
function queueOf(
  structure: CompiledStructure,
  v: number,
  throughput: number,
  utilization: number,
): { service: number; count: number } | undefined {
  const { serviceTime, servers } = structure.latency;
  // Stryker disable next-line ConditionalExpression: same answer, other work (serviceTime[v] is then undefined, and undefined > 0 is false)
  if (serviceTime.length === 0) return undefined;
  const service = serviceTime[v]!;
  if (!(service > 0) || !(throughput < Number.POSITIVE_INFINITY)) return undefined;
  // A capacity given beside a service time alone saturates the node as any capacity does.
  if (saturates(structure, v, throughput, utilization)) return undefined;
  // Down, or stranded by a scenario's cut: what reaches it is lost, never answered.
  if (keepsWhatReaches(structure, v)) return undefined;
  return { service, count: servers[v]! };
}
