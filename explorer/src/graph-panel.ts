import type { EngineResult } from '../../lib/engine/types';
import { type Colouring, defaultColouring } from './colour-by';
import { $, download } from './dom';
import { drawGraph, MAX_DRAWN_NODES } from './graph-view';
import type { LargeGraphView } from './large-graph';
import { svgElement } from './svg';
import type { View } from './view';

/**
 * The structure on show: the SVG view up to `MAX_DRAWN_NODES`, the WebGL view above (loaded on
 * first use; one view per answer, recoloured for each state), and its SVG and PNG exports.
 */
export function createGraphPanel(view: View, select: (id: string) => void) {
  const graph = document.getElementById('graph') as unknown as SVGSVGElement;
  const graphNote = $('graph-note');
  const colourKey = $('colour-key');
  const largeGraph = $('large-graph');
  let largeView: LargeGraphView | undefined;
  let largeViewFor: EngineResult | undefined;
  /** A colouring another panel set for this answer (see `ExplorerPage.setColouring`). */
  let colouringSet: Colouring | undefined;
  const colouringOf = (result: EngineResult) => colouringSet ?? defaultColouring(result);

  async function showLargeGraph(result: EngineResult): Promise<void> {
    const first = view.states[0]?.result;
    if (largeView === undefined || largeViewFor !== first) {
      largeView?.kill();
      document.body.dataset.graph = 'loading';
      const started = performance.now();
      const { drawLargeGraph } = await import('./large-graph');
      largeView = drawLargeGraph(largeGraph, result, colouringOf(result), select);
      largeViewFor = first;
      document.body.dataset.graphMs = (performance.now() - started).toFixed(0);
    } else {
      largeView.update(result, view.selected, colouringOf(result));
    }
    document.body.dataset.graph = 'webgl';
  }

  /** For the benchmark: frame times of camera moves on the WebGL view. */
  (globalThis as { explorerFrameTimes?: (frames: number) => Promise<number[]> }).explorerFrameTimes = (
    frames,
  ) => largeView?.measureFrames(frames) ?? Promise.resolve([]);

  /** The graph as a standalone SVG document, its style sheet embedded. */
  function graphSvgText(): string {
    const copy = graph.cloneNode(true) as SVGSVGElement;
    copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    const box = graph.viewBox.baseVal;
    copy.setAttribute('width', String(box.width));
    copy.setAttribute('height', String(box.height));
    const style = svgElement('style', {});
    style.textContent = $('svg-style').textContent ?? '';
    copy.prepend(style);
    return new XMLSerializer().serializeToString(copy);
  }

  $('export-svg').addEventListener('click', () => download('structure.svg', 'image/svg+xml', graphSvgText()));
  $('export-png').addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([graphSvgText()], { type: 'image/svg+xml' }));
    const image = new Image();
    image.onload = () => {
      const scale = 2;
      const canvas = document.createElement('canvas');
      canvas.width = image.width * scale;
      canvas.height = image.height * scale;
      const context = canvas.getContext('2d')!;
      context.fillStyle = '#fff';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        if (blob) download('structure.png', 'image/png', blob);
      }, 'image/png');
    };
    image.src = url;
  });

  return {
    render(result: EngineResult): void {
      const colouring = colouringOf(result);
      colourKey.textContent = colouring.key;
      if (result.nodes.length <= MAX_DRAWN_NODES) {
        graphNote.textContent = '';
        largeGraph.hidden = true;
        graph.style.display = '';
        drawGraph(graph, result, { selected: view.selected, colouring, onSelect: select });
        document.body.dataset.graph = 'svg';
      } else {
        graph.replaceChildren();
        graph.style.display = 'none';
        largeGraph.hidden = false;
        graphNote.textContent = `${result.nodes.length.toLocaleString('en')} nodes, drawn with WebGL: drag to pan, scroll to zoom, click a node for its numbers.`;
        void showLargeGraph(result);
      }
    },
    /** Sets (or, with `undefined`, drops) the colouring for the answer on show; a new answer drops it. */
    setColouring(colouring: Colouring | undefined): void {
      colouringSet = colouring;
    },
    clear(): void {
      graph.replaceChildren();
    },
  };
}
