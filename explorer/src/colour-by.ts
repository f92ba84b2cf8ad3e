import type { EngineResult, NodeState } from '../../lib/engine/types';
import { largest } from './largest';
import { hasSteadyState } from './steady';

/** What the graph's colour shows for one described state, and where each node sits on the scale. */
interface ColourMeasure {
  kind: 'utilization' | 'pressure';
  /** 0..1 on the palette; `undefined` for a node the measure does not apply to (drawn grey). */
  fraction(node: NodeState): number | undefined;
}

/**
 * The `analyze` answer of an open structure carries a steady state (`headroom` is there, even
 * when null): its nodes are coloured by utilization of their capacity, 0 to 1 (over capacity
 * is the top of the scale), nodes without a capacity grey. Any other state by pressure, 0 to
 * the state's largest, as before.
 */
function colourMeasure(result: EngineResult): ColourMeasure {
  if (hasSteadyState(result)) {
    return {
      kind: 'utilization',
      fraction: (node) => (node.utilization === undefined ? undefined : Math.min(node.utilization, 1)),
    };
  }
  const maxPressure = largest(result.nodes, (n) => n.pressure, 0);
  return { kind: 'pressure', fraction: (node) => (maxPressure > 0 ? node.pressure / maxPressure : 0) };
}

/**
 * What the graph's colour shows, as the page's other panels may set it (a change between two
 * answers, say): a place on the palette per node (0..1; `undefined` draws it grey) and the key
 * under the graph that says what it means.
 */
export interface Colouring {
  key: string;
  fraction(node: NodeState): number | undefined;
}

/** The colouring of a state when no panel sets one: pressure, or utilization (see `colourMeasure`). */
export function defaultColouring(result: EngineResult): Colouring {
  const measure = colourMeasure(result);
  return { key: colourKeyText(measure.kind), fraction: measure.fraction };
}

/** The colour key under the graph, for the measure in use. */
function colourKeyText(kind: ColourMeasure['kind']): string {
  return kind === 'utilization'
    ? 'Colour: utilization of capacity (throughput / capacity), from 0 (dark) to 1 or more (yellow); grey: no capacity.'
    : "Colour: pressure, from 0 (dark) to the state's largest (yellow).";
}

/** A node's open fields and steady state, for hover text; empty for a closed structure. */
export function openFacts(node: NodeState): string {
  const parts: string[] = [];
  if (node.arrival !== undefined) parts.push(`arrival ${node.arrival}`);
  if (node.exit !== undefined) parts.push(`exit ${node.exit}`);
  if (node.fanout === true) parts.push('fan-out');
  if (node.exited !== undefined) parts.push(`exited ${node.exited}`);
  if (node.throughput !== undefined) parts.push(`throughput ${node.throughput}`);
  if (node.utilization !== undefined) parts.push(`utilization ${node.utilization}`);
  return parts.join(', ');
}
