/**
 * What the steady state of an open structure says about it, read once per `analyze`: each
 * node's utilization, the nodes that saturate (over capacity, or losing traffic: down, or with no
 * way out), the primary blockage they make, the headroom and the order in which nodes saturate as
 * traffic grows. docs/engine.md, "The steady state leads".
 */
import { compareIds } from './compare-ids';
import type { CompiledStructure } from './compile';
import { nodeResponseTime, saturates, saturationScale } from './open/node-latency';
import { keepRanked } from './ranked';
import { boundedRatio, keepsWhatReaches, type SteadyState } from './steady-state';
import type { Bottleneck, Headroom, SaturatedEvent } from './types';

/** How many nodes `bottlenecks` lists. */
const BOTTLENECKS = 10;

/** Why the steady state chose the primary blockage it did. */
export type SteadyBlockage = 'lost' | 'unbounded' | 'saturated';

export interface SteadyReading {
  steady: SteadyState;
  /** Per node, `throughput / capacity` for a node with a capacity, a way out and a throughput; NaN elsewhere. */
  utilization: Float64Array;
  /** Per node, 1 where it is saturated (over capacity, or losing traffic: `keepsWhatReaches`) or unbounded. */
  saturated: Uint8Array;
  /** The `saturated` events, in id order. */
  events: SaturatedEvent[];
  /** The primary blockage the steady state names, −1 when it names none. */
  primary: number;
  /** Why it is the primary blockage; `undefined` when the steady state names none. */
  primaryKind: SteadyBlockage | undefined;
  headroom: Headroom | null;
  bottlenecks: Bottleneck[];
}

export function readSteadyState(structure: CompiledStructure, steady: SteadyState): SteadyReading {
  const { nodeCount, capacity, ids } = structure;
  const { throughput, lost } = steady;
  const utilization = new Float64Array(nodeCount).fill(Number.NaN);
  const saturated = new Uint8Array(nodeCount);
  const saturatedNodes: number[] = [];
  let mostLost = -1;
  let mostUtilized = -1;
  const ranked: { v: number; scale: number }[] = [];
  // The order nodes saturate in: lowest scale first, ties by id.
  const lowestScale = (a: { v: number; scale: number }, b: { v: number; scale: number }) =>
    // Stryker disable next-line EqualityOperator: ids are unique, so `<` and `<=` agree on them (the twins on the scales are killed)
    a.scale < b.scale || (a.scale === b.scale && ids[a.v]! < ids[b.v]!);
  // Stryker disable next-line EqualityOperator: one past the end: node n has no capacity and no way out, so it is skipped (the `>=` twin is killed)
  for (let v = 0; v < nodeCount; v++) {
    const x = throughput[v]!;
    if (x === Number.POSITIVE_INFINITY) {
      saturated[v] = 1;
      continue;
    }
    if (keepsWhatReaches(structure, v)) {
      if (lost[v]! > 0) {
        saturated[v] = 1;
        saturatedNodes.push(v);
        if (
          mostLost < 0 ||
          lost[v]! > lost[mostLost]! ||
          // Stryker disable next-line EqualityOperator: ids are unique, so `<` and `<=` agree on them (the `>=` and `!==` twins are killed)
          (lost[v] === lost[mostLost] && ids[v]! < ids[mostLost]!)
        ) {
          mostLost = v;
        }
      }
      continue;
    }
    const cap = capacity[v]!;
    if (cap === Number.POSITIVE_INFINITY || !structure.hasWayOut(v)) continue;
    const u = boundedRatio(x, cap);
    utilization[v] = u;
    if (saturates(structure, v, x, u)) {
      saturated[v] = 1;
      saturatedNodes.push(v);
      if (
        mostUtilized < 0 ||
        u > utilization[mostUtilized]! ||
        // Stryker disable next-line EqualityOperator: ids are unique, so `<` and `<=` agree on them (the `>=` and `!==` twins are killed)
        (u === utilization[mostUtilized] && ids[v]! < ids[mostUtilized]!)
      ) {
        mostUtilized = v;
      }
    }
    if (x > 0) {
      const scale = Math.min(saturationScale(structure, v, x), Number.MAX_VALUE);
      keepRanked(ranked, { v, scale }, BOTTLENECKS, lowestScale);
    }
  }

  saturatedNodes.sort((a, b) => compareIds(ids[a]!, ids[b]!));
  const events = saturatedNodes.map(
    (v): SaturatedEvent =>
      keepsWhatReaches(structure, v)
        ? { tick: 0, type: 'saturated', node: ids[v]!, lost: lost[v]! }
        : { tick: 0, type: 'saturated', node: ids[v]!, utilization: utilization[v]! },
  );

  let primary = -1;
  let primaryKind: SteadyBlockage | undefined;
  if (mostLost >= 0) {
    primary = mostLost;
    primaryKind = 'lost';
  } else if (steady.unboundedLoops.length > 0) {
    // Stryker disable next-line EqualityOperator: ids are unique, so `<` and `<=` agree on them (the `>=` twin is killed)
    primary = steady.unboundedLoops.reduce((best, v) => (ids[v]! < ids[best]! ? v : best));
    primaryKind = 'unbounded';
  } else if (mostUtilized >= 0) {
    primary = mostUtilized;
    primaryKind = 'saturated';
  }

  const bottlenecks = ranked.map(({ v, scale }): Bottleneck => {
    const bottleneck: Bottleneck = { node: ids[v]!, scale, utilization: utilization[v]! };
    // How slow the wall is today, where it has a service time and answers (below saturation).
    const responseTime = nodeResponseTime(structure, v, steady.throughput[v]!, utilization[v]!);
    if (responseTime !== undefined) bottleneck.responseTime = responseTime;
    return bottleneck;
  });
  let headroom: Headroom | null = null;
  if (steady.unbounded.length > 0) headroom = null;
  else if (mostLost >= 0) headroom = { scale: 0, node: ids[mostLost]! };
  else if (ranked.length > 0) headroom = { scale: ranked[0]!.scale, node: ids[ranked[0]!.v]! };
  return { steady, utilization, saturated, events, primary, primaryKind, headroom, bottlenecks };
}
