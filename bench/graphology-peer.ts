import { MultiDirectedGraph } from 'graphology';
import { stronglyConnectedComponents } from 'graphology-components';
import type { Structure } from '../lib/engine';

/**
 * The peer: what a general-purpose graph library needs to do the structural part of our work
 * on the same input. graphology builds the graph (a multi graph with self loops, because
 * repeated pairs and self-dependencies are legal input) and graphology-components finds the
 * strongly connected components. That is strictly less than `analyze` does (no flows,
 * pressures, origin, trace, nor result objects), so it is a generous baseline.
 */
export interface PeerTiming {
  buildMs: number;
  /** `undefined` when the recursive search overflowed the call stack. */
  sccMs: number | undefined;
  components: number | undefined;
}

export function runGraphologyPeer(structure: Structure): PeerTiming {
  const started = performance.now();
  const graph = new MultiDirectedGraph({ allowSelfLoops: true });
  for (const node of structure.nodes) graph.addNode(node.id, { load: node.load, capacity: node.capacity });
  for (const dependency of structure.dependencies) {
    graph.addEdge(dependency.from, dependency.to, { weight: dependency.weight ?? 1 });
  }
  const built = performance.now();
  const buildMs = built - started;
  try {
    const components = stronglyConnectedComponents(graph);
    return { buildMs, sccMs: performance.now() - built, components: components.length };
  } catch (error) {
    // graphology-components runs Tarjan recursively: a path longer than the call stack allows
    // ends in a RangeError. That is the finding, not a bench failure.
    if (error instanceof RangeError) return { buildMs, sccMs: undefined, components: undefined };
    throw error;
  }
}
