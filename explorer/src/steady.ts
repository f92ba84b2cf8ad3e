import type { DependencyState, EngineResult, Headroom } from '../../lib/engine/types';
import { largest } from './largest';
import { scaleText, shortNumber } from './numbers';

/**
 * The steady state the `analyze` answer of an open structure leads with, as the page reads it:
 * which nodes it saturates, what dependencies carry, what is lost. The engine says which answer
 * has one by writing `headroom` (even `null`); snapshots and closed structures have none.
 */
export function hasSteadyState(result: EngineResult): boolean {
  return result.headroom !== undefined;
}

/**
 * Why a node cannot keep up in the steady state: over its capacity (`over`), losing the traffic
 * that reaches it (`lost`, per step: it is down, or a scenario cut its last way out; the answer
 * does not say which, since a down node is described without its exit and fan-out), or in a loop
 * that grows without limit (`unbounded`, which has its own event rather than a `saturated` one).
 */
export type Saturation =
  | { kind: 'over'; utilization: number }
  | { kind: 'lost'; lost: number }
  | { kind: 'unbounded' };

/** The saturated and unbounded nodes of a state, read from its events (empty without a steady state). */
export function saturationByNode(result: EngineResult): Map<string, Saturation> {
  const byNode = new Map<string, Saturation>();
  for (const event of result.events) {
    if (event.type === 'unbounded') {
      for (const node of event.nodes) byNode.set(node, { kind: 'unbounded' });
    } else if (event.type === 'saturated') {
      byNode.set(
        event.node,
        'lost' in event
          ? { kind: 'lost', lost: event.lost }
          : { kind: 'over', utilization: event.utilization },
      );
    }
  }
  return byNode;
}

/** A saturation in words, rounded for reading: `saturated: utilization 1.333`, `losing 10 per step (down, or its way out cut)`. */
export function saturationText(saturation: Saturation): string {
  switch (saturation.kind) {
    case 'over':
      return `saturated: utilization ${shortNumber(saturation.utilization)}`;
    case 'lost':
      return `losing ${shortNumber(saturation.lost)} per step (down, or its way out cut)`;
    case 'unbounded':
      return 'unbounded: grows without limit';
  }
}

/**
 * Whose traffic a factor multiplies: today's, or, for an answer computed under a scenario, the
 * scenario's (in a ×2 scenario, "×1 of today's arrivals" would mean half of what it says).
 */
export type Traffic = "today's" | "the scenario's";
export const TODAY: Traffic = "today's";

/** When ×1 is, in a sentence: "today", or "at the scenario's traffic" after a what-if. */
export function trafficWhen(traffic: Traffic): string {
  return traffic === TODAY ? 'today' : `at ${traffic} traffic`;
}
const SCENARIO: Traffic = "the scenario's";

/**
 * Whose traffic an answer's factors multiply, from the body that produced it: the scenario's when
 * it holds a `scenario` that changes traffic (the scenario panel's Compare, or one written in the
 * editor); one that only takes nodes down, changes capacities or cuts dependencies leaves today's.
 */
export function trafficOf(body: string | undefined): Traffic {
  // Most bodies have none: parsed again only when the word is there (a body can be megabytes).
  if (body === undefined || !body.includes('"scenario"')) return TODAY;
  try {
    return scenarioTraffic((JSON.parse(body) as { scenario?: unknown }).scenario);
  } catch {
    return TODAY;
  }
}

/** A scenario's traffic: its own when it scales traffic or sets a node's load or arrival. */
function scenarioTraffic(scenario: unknown): Traffic {
  if (typeof scenario !== 'object' || scenario === null) return TODAY;
  const { scale, nodes } = scenario as { scale?: unknown; nodes?: unknown };
  if (scale !== undefined && scale !== 1) return SCENARIO;
  const changes = typeof nodes === 'object' && nodes !== null ? Object.values(nodes) : [];
  return changes.some(
    (change) => typeof change === 'object' && change !== null && ('load' in change || 'arrival' in change),
  )
    ? SCENARIO
    : TODAY;
}

/** What a headroom's factor multiplies, in words: `today's arrivals`, or `the scenario's traffic`. */
export const arrivalsOf = (traffic: Traffic): string =>
  traffic === TODAY ? "today's arrivals" : "the scenario's traffic";

/**
 * The headroom in words where a comparison shows it beside the blockage. A scale of 0 is the
 * engine's way of saying traffic is being lost (at a node that is down, or whose way out was cut):
 * no growth is possible, and "×0" alone would read as a number rather than as that.
 */
export function headroomPhrase(
  headroom: Headroom,
  name: (id: string) => string,
  traffic: Traffic = TODAY,
): string {
  return headroom.scale === 0
    ? `cannot serve ${traffic} traffic: it is lost at ${name(headroom.node)}`
    : `headroom ${scaleText(headroom.scale)} at ${name(headroom.node)}`;
}

/** Widest a dependency is drawn, in the drawing's units, over the 1 every dependency has. */
const EXTRA_WIDTH = 7;

/** How wide each dependency is drawn, and what the width stands for. */
export interface EdgeWidths {
  /** `throughput`: the steady calls per step; `flow`: what moved in the state. */
  measure: 'throughput' | 'flow';
  /** Its place from 0 (carries nothing) to 1 (carries the most, or is unbounded). */
  share(dependency: DependencyState): number;
  /** Width in the drawing's units: 1 for nothing, 1 + `EXTRA_WIDTH` for the most. */
  width(dependency: DependencyState): number;
  /**
   * A dependency leaving a node that grows without limit: the steady state has no throughput for
   * it (the engine leaves the field out), so it is drawn apart rather than as carrying nothing.
   */
  unbounded(dependency: DependencyState): boolean;
}

/**
 * Widths for one state. With a steady state, by throughput on a square-root scale of the largest
 * (fan-out multiplies calls, so throughputs span orders of magnitude and a linear scale would
 * leave most dependencies hairlines); otherwise by flow, linearly, as before. One pass over the
 * dependencies, so a large graph pays nothing more.
 */
export function edgeWidths(result: EngineResult): EdgeWidths {
  const steady = hasSteadyState(result);
  const most = steady
    ? largest(result.dependencies, (d) => d.throughput ?? 0, 0)
    : largest(result.dependencies, (d) => d.flow, 0);
  const unbounded = (d: DependencyState) => steady && d.throughput === undefined;
  const share = (d: DependencyState): number => {
    if (unbounded(d)) return 1;
    if (most === 0) return 0;
    return steady ? Math.sqrt(d.throughput! / most) : d.flow / most;
  };
  return {
    measure: steady ? 'throughput' : 'flow',
    share,
    width: (d) => 1 + share(d) * EXTRA_WIDTH,
    unbounded,
  };
}

/** The key under the graph for dependency widths (`large`: the WebGL view, whose thin lines show it by shade). */
export function edgeKeyText(measure: EdgeWidths['measure'], large: boolean): string {
  if (measure === 'flow') return large ? '' : 'Width: flow.';
  return large
    ? 'Shade of a dependency: its steady throughput (darker carries more); red: from a node that grows without limit.'
    : 'Width and number: steady throughput (calls per step; the width the square root of its share of the largest). Dotted red: from a node that grows without limit.';
}
