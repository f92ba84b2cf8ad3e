import { compileForCall } from '../compile';
import { scratch } from '../scratch';
import { solveSteadyState } from '../steady-state';
import type { Structure } from '../types';
import { expectedCalls } from './expected-calls';
import { LatencyAt, sloEntry } from './slo';

/** An entry's latency as all traffic grows: what the explorer draws for the selected entry. */
export interface LatencyCurve {
  /** The entry's latency at each requested scale (`Infinity` at or past `saturation`). */
  latency: number[];
  /** The scale at which the first node on the entry's paths saturates (`Infinity` for none). */
  saturation: number;
}

/**
 * Entry `entry`'s end-to-end latency at each factor of today's traffic in `scales`, by the SLO
 * search's own pass (`slo.ts`): its expected calls are solved once, and each scale costs one
 * pass over the nodes it calls. `undefined` when the structure is not open, `entry` is not one
 * of its nodes or takes no arrival, or its requests do not finish today (its `latencyLimit`).
 */
export function latencyCurve(
  structure: Structure,
  entry: string,
  scales: readonly number[],
): LatencyCurve | undefined {
  return scratch.run(() => {
    const compiled = compileForCall(structure);
    const e = compiled.ids.indexOf(entry);
    if (!compiled.open || e < 0 || !(compiled.arrival[e]! > 0)) return undefined;
    const steady = solveSteadyState(compiled);
    const throughput = new Float64Array(steady.throughput);
    if (!(throughput[e]! < Number.POSITIVE_INFINITY)) return undefined;
    const line = sloEntry(compiled, throughput, e, expectedCalls(compiled, [e])[0]!);
    const latency = new LatencyAt(compiled, throughput, [line]);
    if (!(line.saturation > 1 && latency.of(line, 1) < Number.POSITIVE_INFINITY)) return undefined;
    return {
      latency: scales.map((s) => (s < line.saturation ? latency.of(line, s) : Number.POSITIVE_INFINITY)),
      saturation: line.saturation,
    };
  });
}
