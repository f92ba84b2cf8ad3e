import { compileForCall } from '../compile';
import { scratch } from '../scratch';
import { solveSteadyState } from '../steady-state';
import type { Structure } from '../types';
import { expectedCalls } from './expected-calls';
import { firstSaturations, LatencyAt, sloEntry, stuckWhateverTheTraffic } from './slo';

/** An entry's latency as all traffic grows: what the explorer draws for the selected entry. */
export interface LatencyCurve {
  /**
   * The entry's latency at each requested scale: `Infinity` past `saturation`, and at it where
   * the node that saturates there queues (M/M/c).
   */
  latency: number[];
  /** The scale at which the first node on the entry's paths saturates (`Infinity` for none). */
  saturation: number;
}

/**
 * Entry `entry`'s end-to-end latency at each factor of today's traffic in `scales`, by the SLO
 * search's own pass (`slo.ts`): its expected calls are solved once, and each scale costs one
 * pass over the nodes it calls. An entry over capacity today (its `latencyLimit` a saturated
 * node) has its curve too, below the scale where that node saturates (under ×1): how far the
 * traffic must fall for its requests to finish, and how fast they are then. `undefined` when the
 * structure is not open, `entry` is not one of its nodes or takes no arrival, or its requests
 * finish at no traffic at all (a node down or a loop unbounded on their way).
 */
export function latencyCurve(
  structure: Structure,
  entry: string,
  scales: readonly number[],
): LatencyCurve | undefined {
  return scratch.run(() => {
    const compiled = compileForCall(structure);
    const e = compiled.ids.indexOf(entry);
    // Also an unknown id (index −1) or a closed structure (no arrivals at all): undefined > 0 is false.
    if (!(compiled.arrival[e]! > 0)) return undefined;
    const steady = solveSteadyState(compiled);
    const throughput = new Float64Array(steady.throughput);
    // Requests that reach a node down (a what-if's) or a loop that never lets them go finish at
    // no traffic at all: the SLO search's own test, by reachability.
    if (stuckWhateverTheTraffic(compiled, throughput)[e]! >= 0) return undefined;
    const line = sloEntry(
      compiled,
      e,
      expectedCalls(compiled, [e])[0]!,
      firstSaturations(compiled, throughput),
    );
    const latency = new LatencyAt(compiled, throughput, [line]);
    // None either when even with no traffic the latency is past the largest double (calls that
    // multiply along the paths, times long service times: analyze refuses such a structure).
    if (!(latency.of(line, 0) < Number.POSITIVE_INFINITY)) return undefined;
    return {
      // Past its capacity a node's queue grows without end, even one without a service time
      // (whose own time is 0): at exactly its capacity it is not over it, as in analyze. A
      // queueing node's latency is infinite from its saturation on, which `latency.of` says itself.
      latency: scales.map((s) => (s > line.saturation ? Number.POSITIVE_INFINITY : latency.of(line, s))),
      saturation: line.saturation,
    };
  });
}
