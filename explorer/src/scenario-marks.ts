import type { DependencyState, EngineResult } from '../../lib/engine/types';
import { shortNumber } from './numbers';
import { hasSteadyState } from './steady';

/** A capacity the scenario changed: before and after (`undefined`: none, as `capacity: null` leaves it). */
export interface CapacityChange {
  before: number | undefined;
  after: number | undefined;
}

/**
 * What a comparison marks on the graph, besides its colours: the nodes the scenario takes down
 * (hatched), the capacities it changes (a tag), and the dependencies it cuts (dashed red). The
 * scenario's answer has no cut dependency at all, so they are drawn from the baseline's.
 */
export interface ScenarioMarks {
  down: ReadonlySet<string>;
  capacity: ReadonlyMap<string, CapacityChange>;
  cut: readonly DependencyState[];
}

/** The scenario's changes to nodes, as the request sent them (only `down` is read here). */
type SentNodes = Readonly<Record<string, { down?: true }>> | undefined;

const pairKey = (d: { from: string; to: string }) => `${d.from}\u0000${d.to}`;

/**
 * The marks of a comparison: `down` from the scenario sent (a down node is not always told by its
 * numbers: a closed structure keeps no field for it), capacities and cuts from the answer itself,
 * the baseline's state against the scenario's (the same nodes in the same order; every copy of a
 * cut pair is gone from the scenario's).
 */
export function scenarioMarks(
  sent: SentNodes,
  baseline: EngineResult,
  scenario: EngineResult,
): ScenarioMarks {
  const down = new Set(Object.keys(sent ?? {}).filter((id) => sent?.[id]?.down === true));
  const capacity = new Map<string, CapacityChange>();
  const after = new Map(scenario.nodes.map((node) => [node.id, node.capacity]));
  for (const node of baseline.nodes) {
    if (!after.has(node.id)) continue;
    const now = after.get(node.id);
    if (now !== node.capacity) capacity.set(node.id, { before: node.capacity, after: now });
  }
  const kept = new Set(scenario.dependencies.map(pairKey));
  const cut = baseline.dependencies.filter((d) => !kept.has(pairKey(d)));
  return { down, capacity, cut };
}

/** Whether a comparison marks anything at all (a scale alone marks nothing). */
export function marksAnything(marks: ScenarioMarks | undefined): marks is ScenarioMarks {
  return marks !== undefined && (marks.down.size > 0 || marks.capacity.size > 0 || marks.cut.length > 0);
}

/**
 * The state to draw: with the cut dependencies put back, carrying nothing, so they can be drawn
 * dashed red where they were (and the layout stays the baseline's). `cutBy` tells them apart.
 */
export function withCutDependencies(result: EngineResult, marks: ScenarioMarks | undefined): EngineResult {
  if (marks === undefined || marks.cut.length === 0) return result;
  const steady = hasSteadyState(result);
  const ghosts = marks.cut.map(
    (d): DependencyState => ({ from: d.from, to: d.to, flow: 0, ...(steady ? { throughput: 0 } : {}) }),
  );
  return { ...result, dependencies: [...result.dependencies, ...ghosts] };
}

/**
 * Whether a drawn dependency is one the scenario cut: the scenario's state has no copy of a cut
 * pair, so any the drawing holds was put back by `withCutDependencies`.
 */
export function cutBy(marks: ScenarioMarks | undefined): (d: DependencyState) => boolean {
  if (marks === undefined || marks.cut.length === 0) return () => false;
  const cut = new Set(marks.cut.map(pairKey));
  return (d) => cut.has(pairKey(d));
}

/**
 * A changed capacity's tag, short: an arrow and the new capacity (`↑30`, `↓2`; `∅` removed; a
 * capacity where there was none is a limit, so it reads as lowered).
 */
export function capacityTag({ before, after }: CapacityChange): string {
  if (after === undefined) return '∅';
  return `${before === undefined || after < before ? '↓' : '↑'}${shortNumber(after)}`;
}

/** The same in words, for hover and the spoken label: `capacity 15 → 30 in the scenario`. */
export function capacityChangeText({ before, after }: CapacityChange): string {
  const text = (value: number | undefined) => (value === undefined ? 'none' : String(value));
  return `capacity ${text(before)} → ${text(after)} in the scenario`;
}
