import type { NodeState } from '../../lib/engine/types';
import { largest } from './largest';

/**
 * What a node's size shows: its load, or, where no node holds any (an open structure's
 * `analyze`, whose loads are all 0), its steady throughput, so that a service graph's busy
 * services stand out rather than every point drawn at the least size. `fraction` is the square
 * root of the node's share of the largest (areas in proportion), 0 to 1.
 */
export interface NodeSizing {
  measure: 'load' | 'throughput';
  fraction(node: NodeState): number;
}

export function nodeSizing(nodes: readonly NodeState[]): NodeSizing {
  const maxLoad = largest(nodes, (node) => node.load, 0);
  if (maxLoad > 0) return { measure: 'load', fraction: (node) => Math.sqrt(node.load / maxLoad) };
  const maxThroughput = largest(nodes, finiteThroughput, 0);
  if (maxThroughput > 0)
    return { measure: 'throughput', fraction: (node) => Math.sqrt(finiteThroughput(node) / maxThroughput) };
  return { measure: 'load', fraction: () => 0 };
}

/** A node's steady throughput, 0 where it has none to show (none at all, or an unbounded loop's). */
function finiteThroughput(node: NodeState): number {
  const { throughput } = node as { throughput?: unknown };
  return typeof throughput === 'number' && Number.isFinite(throughput) ? throughput : 0;
}
