import type { EngineResult } from '../../lib/engine/types';
import { type Colouring, openFacts } from './colour-by';
import { largest } from './largest';
import { layoutResult } from './layout';
import { viridis } from './palette';
import { svgElement } from './svg';

/** A node without a value on the colour scale (no capacity, when colouring by utilization). */
const NO_MEASURE_FILL = '#b8b8b8';

/** Largest structure drawn as a layered SVG graph. */
export const MAX_DRAWN_NODES = 2000;

const LAYER_GAP = 150;
const ROW_GAP = 56;
const MARGIN = 60;

export interface GraphViewOptions {
  selected: string | undefined;
  colouring: Colouring;
  onSelect: (id: string) => void;
}

/**
 * Draws one described state: nodes coloured by pressure (viridis, 0 to the largest pressure), or
 * by utilization for an open structure's `analyze` (see `colourMeasure`), exits and fan-out
 * marked beside the node, sized by load, the primary blockage and the origin ringed, the trace drawn thick, each
 * dependency as wide as its share of the largest flow. Hover shows a node's numbers; nodes
 * are buttons for the keyboard (Tab, Enter).
 */
export function drawGraph(svg: SVGSVGElement, result: EngineResult, options: GraphViewOptions): void {
  svg.replaceChildren();
  const { edges, layout } = layoutResult(result);
  const width = MARGIN * 2 + Math.max(0, layout.layerCount - 1) * LAYER_GAP;
  const height = MARGIN * 2 + Math.max(0, layout.rowCount - 1) * ROW_GAP;
  svg.setAttribute('viewBox', `0 0 ${Math.max(width, 200)} ${Math.max(height, 120)}`);
  const x = (i: number) => MARGIN + layout.layer[i]! * LAYER_GAP;
  const y = (i: number) => MARGIN + layout.row[i]! * ROW_GAP;

  const maxLoad = largest(result.nodes, (n) => n.load, 0);
  const maxFlow = largest(result.dependencies, (d) => d.flow, 0);
  const traceEdges = new Set<string>();
  for (let i = 0; i + 1 < result.trace.length; i++)
    traceEdges.add(`${result.trace[i]}\u0000${result.trace[i + 1]}`);

  svg.append(
    svgElement('defs', {}),
    (() => {
      const marker = svgElement('marker', {
        id: 'arrow',
        viewBox: '0 0 10 10',
        refX: 10,
        refY: 5,
        markerWidth: 9,
        markerHeight: 9,
        markerUnits: 'userSpaceOnUse',
        orient: 'auto-start-reverse',
      });
      marker.append(svgElement('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }));
      return marker;
    })(),
  );

  const edgeLayer = svgElement('g', { class: 'edges' });
  result.dependencies.forEach((d, e) => {
    const [from, to] = edges[e]!;
    const onTrace = traceEdges.has(`${d.from}\u0000${d.to}`);
    const widthPx = 1 + (maxFlow > 0 ? (d.flow / maxFlow) * 7 : 0);
    const x1 = x(from);
    const y1 = y(from);
    const x2 = x(to);
    const y2 = y(to);
    const span = layout.layer[to]! - layout.layer[from]!;
    const back = span <= 0;
    // Edges that skip layers arc above the row so they do not hide the edges they pass.
    const lift = span > 1 ? 30 + 12 * span : 0;
    const path =
      from === to
        ? `M ${x1 - 8} ${y1 - 14} C ${x1 - 30} ${y1 - 50}, ${x1 + 30} ${y1 - 50}, ${x1 + 8} ${y1 - 14}`
        : back
          ? `M ${x1} ${y1} C ${x1 + 60} ${y1 + 70}, ${x2 - 60} ${y2 + 70}, ${x2} ${y2}`
          : `M ${x1} ${y1} C ${(x1 + x2) / 2} ${y1 - lift}, ${(x1 + x2) / 2} ${y2 - lift}, ${x2} ${y2}`;
    const line = svgElement('path', {
      d: path,
      class: onTrace ? 'edge trace' : back ? 'edge back' : 'edge',
      'stroke-width': onTrace ? Math.max(widthPx, 4) : widthPx,
      'marker-end': 'url(#arrow)',
      'data-from': d.from,
      'data-to': d.to,
    });
    const title = svgElement('title', {});
    title.textContent = `${d.from} → ${d.to}: flow ${d.flow}${d.weight === undefined ? '' : `, weight ${d.weight}`}`;
    line.append(title);
    edgeLayer.append(line);
  });
  svg.append(edgeLayer);

  const nodeLayer = svgElement('g', { class: 'nodes' });
  result.nodes.forEach((node, i) => {
    const group = svgElement('g', {
      class: 'node',
      transform: `translate(${x(i)} ${y(i)})`,
      tabindex: 0,
      role: 'button',
      'aria-label': `${node.id}: load ${node.load}, pressure ${node.pressure}, ${node.role}${node.id === result.primaryBlockage ? ', primary blockage' : ''}`,
      'data-id': node.id,
    });
    const radius = 9 + (maxLoad > 0 ? Math.sqrt(node.load / maxLoad) * 13 : 0);
    if (node.id === result.primaryBlockage) {
      group.append(svgElement('circle', { r: radius + 7, class: 'ring blockage' }));
    }
    if (node.id === result.origin?.id)
      group.append(svgElement('circle', { r: radius + 4, class: 'ring origin' }));
    if (node.id === options.selected)
      group.append(svgElement('circle', { r: radius + 10, class: 'ring selected' }));
    const fraction = options.colouring.fraction(node);
    group.append(
      svgElement('circle', {
        r: radius,
        fill: fraction === undefined ? NO_MEASURE_FILL : viridis(fraction),
        class: node.capacity === undefined ? 'body' : 'body throttled',
      }),
    );
    // Where value leaves the system (an exit) or multiplies (fan-out): a glyph at the node's side.
    const mark = node.fanout === true ? 'fanout' : (node.exit ?? 0) > 0 ? 'exit' : undefined;
    if (mark !== undefined) {
      group.dataset.mark = mark;
      const glyph = svgElement('text', { x: radius + 3, y: -radius + 4, class: `mark ${mark}` });
      glyph.textContent = mark === 'fanout' ? '⋔' : '⇥';
      group.append(glyph);
    }
    const label = svgElement('text', { y: radius + 14, 'text-anchor': 'middle', class: 'label' });
    label.textContent = node.id.length > 18 ? `${node.id.slice(0, 17)}…` : node.id;
    const title = svgElement('title', {});
    title.textContent =
      `${node.id} (${node.role}${node.capacity === undefined ? '' : `, capacity ${node.capacity}`})\n` +
      `load ${node.load}, pressure ${node.pressure}\ninflow ${node.inflow}, outflow ${node.outflow}` +
      (openFacts(node) === '' ? '' : `\n${openFacts(node)}`);
    group.append(label, title);
    const select = () => options.onSelect(node.id);
    group.addEventListener('click', select);
    group.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        select();
      }
    });
    nodeLayer.append(group);
  });
  svg.append(nodeLayer);
}
