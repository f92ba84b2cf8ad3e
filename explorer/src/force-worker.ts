import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { type ForceAnswer, type ForceRequest, forceIterations, forceSettings } from './force-placement';
import { layeredLayout } from './layout';
import { placeInView, type Spacing } from './placement';

/**
 * The force layout off the page's thread: the layered layout as the views draw it (layout.ts,
 * placement.ts, in the view's shape), then a fixed number of ForceAtlas2 iterations for the size
 * from there (force-placement.ts). No randomness anywhere, so a structure always gets the same
 * positions. Loaded only for a structure drawn with the force layout.
 */

/** The start: the layered placement, one unit between rows, as the WebGL view spaces it. */
const START_SPACING: Spacing = { row: 1, column: 1, layer: 2, band: 3 };

/** The worker's global scope, typed without the WebWorker library (it clashes with DOM's). */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<ForceRequest>) => void) | null;
  postMessage(message: ForceAnswer, transfer: Transferable[]): void;
};

scope.onmessage = (event) => {
  const started = performance.now();
  const { id, nodeCount, from, to, aspect } = event.data;
  const edges = Array.from(from, (a, e) => [a, to[e]!] as const);
  const start = placeInView(layeredLayout(nodeCount, edges), { aspect }, START_SPACING);
  // Undirected: a call pulls its two ends together whichever way it goes.
  const graph = new Graph({ type: 'undirected', multi: true, allowSelfLoops: false });
  for (let v = 0; v < nodeCount; v++) graph.addNode(String(v), { x: start.x[v], y: start.y[v] });
  for (const [a, b] of edges) if (a !== b) graph.addEdge(String(a), String(b));
  const positions = forceAtlas2(graph, {
    iterations: forceIterations(nodeCount),
    settings: forceSettings(nodeCount),
  });
  const x = new Float32Array(nodeCount);
  const y = new Float32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    const at = positions[String(v)]!;
    x[v] = at.x;
    y[v] = at.y;
  }
  scope.postMessage({ id, x, y, ms: performance.now() - started }, [x.buffer, y.buffer]);
};
