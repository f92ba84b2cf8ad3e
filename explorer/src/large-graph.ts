import { MultiDirectedGraph } from 'graphology';
import Sigma from 'sigma';
import type { EngineResult } from '../../lib/engine/types';
import { largest } from './largest';
import { foldedPositions, layeredLayout } from './layout';
import { viridis } from './palette';

/** The WebGL view of a large structure, kept so the next state reuses graph and positions. */
export interface LargeGraphView {
  /** Recolours and resizes for another state of the same structure. */
  update(result: EngineResult, selected: string | undefined): void;
  /** Frame times (ms) of `frames` camera moves, for the benchmark. */
  measureFrames(frames: number): Promise<number[]>;
  kill(): void;
}

const TRACE = '#d95f02';
const ORIGIN = '#1b9e77';
const EDGE = 'rgba(120, 126, 136, 0.25)';

/**
 * Draws a structure of any size with sigma.js (WebGL) on a graphology graph: positions from the
 * same layered layout as the small view, folded into bands; colour is pressure (viridis), size
 * is load; the primary blockage, the origin and the trace are drawn larger and labelled. Loaded
 * only for structures above the SVG view's limit (a separate chunk).
 */
export function drawLargeGraph(
  container: HTMLElement,
  result: EngineResult,
  onSelect: (id: string) => void,
): LargeGraphView {
  const graph = new MultiDirectedGraph();
  const index = new Map(result.nodes.map((node, i) => [node.id, i] as const));
  const edges = result.dependencies.map((d) => [index.get(d.from)!, index.get(d.to)!] as const);
  const { x, y } = foldedPositions(layeredLayout(result.nodes.length, edges));
  result.nodes.forEach((node, i) => {
    graph.addNode(node.id, { x: x[i]!, y: y[i]!, size: 2, color: viridis(0), label: node.id });
  });
  result.dependencies.forEach((d, e) => {
    graph.addEdgeWithKey(String(e), d.from, d.to, { size: 0.5, color: EDGE });
  });
  const renderer = new Sigma(graph, container, {
    hideEdgesOnMove: true,
    labelRenderedSizeThreshold: 14,
    defaultEdgeType: 'line',
    zIndex: true,
    allowInvalidContainer: true,
  });
  renderer.on('clickNode', ({ node }) => onSelect(node));

  const view: LargeGraphView = {
    update(state, selected) {
      const maxPressure = largest(state.nodes, (n) => n.pressure, 0);
      const maxLoad = largest(state.nodes, (n) => n.load, 0);
      const maxFlow = largest(state.dependencies, (d) => d.flow, 0);
      const onTrace = new Set<string>();
      for (let i = 0; i + 1 < state.trace.length; i++)
        onTrace.add(`${state.trace[i]}\u0000${state.trace[i + 1]}`);
      for (const node of state.nodes) {
        const special =
          node.id === state.primaryBlockage || node.id === state.origin?.id || node.id === selected;
        graph.mergeNodeAttributes(node.id, {
          color:
            node.id === state.primaryBlockage
              ? TRACE
              : node.id === state.origin?.id
                ? ORIGIN
                : viridis(maxPressure > 0 ? node.pressure / maxPressure : 0),
          size: special ? 10 : 1.5 + (maxLoad > 0 ? Math.sqrt(node.load / maxLoad) * 5 : 0),
          forceLabel: special,
          zIndex: special ? 2 : 0,
        });
      }
      state.dependencies.forEach((d, e) => {
        const trace = onTrace.has(`${d.from}\u0000${d.to}`);
        graph.mergeEdgeAttributes(String(e), {
          color: trace ? TRACE : EDGE,
          size: trace ? 3 : 0.3 + (maxFlow > 0 ? (d.flow / maxFlow) * 2 : 0),
          zIndex: trace ? 1 : 0,
        });
      });
      renderer.refresh();
    },
    async measureFrames(frames) {
      const camera = renderer.getCamera();
      const times: number[] = [];
      let last = performance.now();
      for (let i = 0; i < frames; i++) {
        camera.setState({ ratio: 1 / (1 + (i % 20) / 10), x: 0.5 + 0.1 * Math.sin(i / 5), y: 0.5 });
        await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      camera.setState({ ratio: 1, x: 0.5, y: 0.5 });
      return times;
    },
    kill() {
      renderer.kill();
    },
  };
  view.update(result, undefined);
  return view;
}
