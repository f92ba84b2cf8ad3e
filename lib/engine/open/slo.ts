import { type CompiledStructure, withNodeValues } from '../compile';
import type { SteadyReading } from '../steady-reading';
import { solveSteadyState } from '../steady-state';
import type { Headroom } from '../types';
import type { LatencyReading } from './latency-reading';
import { queueTimes } from './mmc';

/** Bisection steps at most: from a bracket of the first saturation down to 1e-9 of it takes 30. */
const BISECTIONS = 64;

/**
 * The largest factor of today's traffic at which every entry with an `slo` still answers within
 * it, and the entry that breaks first (ties: smallest id); `null` when no entry has an `slo`.
 *
 * Each SLO entry's expected calls on every node — the visits one request there makes, the steady
 * state of a single unit arriving at the entry — do not depend on the traffic, so they are
 * solved once per entry. At a scale `s` every throughput is `s` times today's, so the entry's
 * latency is `Σ calls(v) · R_v(s · x_v)`: one pass over the nodes it calls. It grows with `s`
 * and has no finite value once a node on the entry's paths saturates, so the scale is found by
 * bisection below that first saturation, to 1e-9 of it. An entry that misses its SLO with no
 * traffic at all (its service times alone add up to more), or whose requests already get stuck
 * today, gives a scale of 0.
 */
export function latencyHeadroom(
  structure: CompiledStructure,
  steady: SteadyReading,
  latencies: LatencyReading,
): Headroom | null {
  const { nodeCount, ids, arrival } = structure;
  const { slo } = structure.latency;
  let best: Headroom | null = null;
  for (let e = 0; e < nodeCount; e++) {
    if (!(slo[e]! > 0 && arrival[e]! > 0)) continue;
    const scale = latencies.limitedBy[e]! >= 0 ? 0 : entryScale(structure, steady, e);
    if (best === null || scale < best.scale || (scale === best.scale && ids[e]! < best.node)) {
      best = { scale, node: ids[e]! };
    }
  }
  return best;
}

/** The scale at which entry `e` reaches its SLO (see `latencyHeadroom`). */
function entryScale(structure: CompiledStructure, steady: SteadyReading, e: number): number {
  const calls = expectedCalls(structure, e);
  const { capacity } = structure;
  const { serviceTime, servers, slo } = structure.latency;
  const { throughput } = steady.steady;
  // The nodes the entry calls, and the scale at which the first of them saturates.
  const called: number[] = [];
  let saturation = Number.POSITIVE_INFINITY;
  for (let v = 0; v < structure.nodeCount; v++) {
    if (!(calls[v]! > 0)) continue;
    called.push(v);
    const x = throughput[v]!;
    if (x > 0 && capacity[v]! < Number.POSITIVE_INFINITY) saturation = Math.min(saturation, capacity[v]! / x);
  }
  const target = slo[e]!;
  /** The entry's latency at scale `s` below saturation. */
  const latencyAt = (s: number): number => {
    let sum = 0;
    for (const v of called) {
      const service = serviceTime[v]!;
      if (!(service > 0)) continue;
      const count = servers[v]!;
      const response = count === 0 ? service : queueTimes(s * throughput[v]!, service, count)?.responseTime;
      if (response === undefined) return Number.POSITIVE_INFINITY;
      sum += calls[v]! * response;
    }
    return sum;
  };
  if (!(latencyAt(0) <= target)) return 0;
  if (saturation === Number.POSITIVE_INFINITY) {
    // Nothing on the way saturates: find a scale past the SLO by doubling, if there is one.
    let high = 1;
    while (latencyAt(high) <= target) {
      high *= 2;
      if (!(high < Number.MAX_VALUE)) return Number.MAX_VALUE;
    }
    saturation = high;
  } else if (latencyAt(saturation * (1 - 1e-12)) <= target) {
    // The SLO holds right up to the first saturation (a node without a service time, say).
    return saturation;
  }
  let low = 0;
  let high = saturation;
  for (let i = 0; i < BISECTIONS && high - low > 1e-9 * high; i++) {
    const middle = (low + high) / 2;
    if (latencyAt(middle) <= target) low = middle;
    else high = middle;
  }
  return low;
}

/** Per node, the visits one request arriving at `e` makes there: the steady state of a unit arrival at `e`. */
function expectedCalls(structure: CompiledStructure, e: number): Float64Array {
  const unit = new Float64Array(structure.nodeCount);
  unit[e] = 1;
  const single = withNodeValues(structure, {
    initialLoads: structure.initialLoads,
    capacity: structure.capacity,
    open: {
      arrival: unit,
      exit: structure.exit,
      fields: structure.openFields,
      hasFanout: structure.hasFanout,
      latency: structure.latency,
    },
  });
  return new Float64Array(solveSteadyState(single).throughput);
}
