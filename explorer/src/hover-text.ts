import type { EngineResult, NodeState } from '../../lib/engine/types';
import { openFacts } from './colour-by';
import { dependencyName } from './names';
import { type CapacityChange, capacityChangeText } from './scenario-marks';
import { sourceLine } from './source-numbers';
import { type Saturation, saturationText } from './steady';

/** What a node's hover text says beside its own numbers. */
export interface NodeHoverFacts {
  /** The name to show for a node id (its readable name, else the id). */
  name: (id: string) => string;
  saturated: Saturation | undefined;
  /** Down in a comparison's scenario. */
  down: boolean;
  capacityChange: CapacityChange | undefined;
  /** A bare structure (a run without a result): names alone, its numbers mean nothing. */
  withoutResult: boolean;
}

/**
 * A node's numbers in full precision, one fact a line: its name, role and capacity, its id when
 * the name is another, load, pressure, flows, the open facts (arrival, throughput, latency…), how
 * the steady state overloads it, a comparison's change, and the source's own numbers. The same
 * text in the SVG view (its `<desc>`), the WebGL view and the shared tooltip (graph-tooltip.ts).
 */
export function nodeHoverText(node: NodeState, facts: NodeHoverFacts): string {
  const name = facts.name(node.id);
  if (facts.withoutResult) return `${name}${name === node.id ? '' : `\nid ${node.id}`}\nno result`;
  const open = openFacts(node, facts.name);
  return (
    `${name} (${node.role}${node.capacity === undefined ? '' : `, capacity ${node.capacity}`})\n` +
    (name === node.id ? '' : `id ${node.id}\n`) +
    `load ${node.load}, pressure ${node.pressure}\ninflow ${node.inflow}, outflow ${node.outflow}` +
    (open === '' ? '' : `\n${open}`) +
    (facts.saturated === undefined ? '' : `\n${saturationText(facts.saturated)}`) +
    (facts.down ? '\ndown in the scenario' : '') +
    (facts.capacityChange === undefined ? '' : `\n${capacityChangeText(facts.capacityChange)}`) +
    sourceLine(node)
  );
}

type Dependency = EngineResult['dependencies'][number];

/**
 * A dependency's hover text: its ends (and its own name, where its format keeps one), its flow
 * and weight, its steady throughput when the widths show it, or that a comparison cut it.
 */
export function dependencyHoverText(
  dependency: Dependency,
  name: (id: string) => string,
  how: { withoutResult: boolean; cut: boolean; measure: 'throughput' | 'flow' },
): string {
  const called = dependencyName(dependency);
  const ends = `${name(dependency.from)} → ${name(dependency.to)}${called === undefined ? '' : ` (${called})`}`;
  if (how.withoutResult) return ends;
  if (how.cut) return `${ends}: cut in the scenario`;
  return `${ends}: flow ${dependency.flow}${dependency.weight === undefined ? '' : `, weight ${dependency.weight}`}${steadyFacts(how.measure, dependency)}${sourceLine(dependency)}`;
}

/** A dependency's steady throughput for its hover text, when the widths show it. */
function steadyFacts(measure: 'throughput' | 'flow', dependency: Dependency): string {
  if (measure === 'flow') return '';
  return dependency.throughput === undefined
    ? ', throughput unbounded (its source grows without limit)'
    : `, throughput ${dependency.throughput} per step`;
}
