import type { Colouring } from './colour-by';
import { paletteColour } from './palette';
import { svgElement } from './svg';

/** Height of the legend added below an exported graph, in the graph's units. */
const LEGEND_HEIGHT = 70;
/** Colour samples along the bar: enough for a smooth gradient in any viewer. */
const STOPS = 11;

/**
 * What the colours of an exported graph mean, drawn below it in the SVG itself (and so in the
 * PNG made from it): the key's words, the palette as a bar, and the first row of its numbers. An
 * export shared on its own had colours no one could read.
 */
export function appendExportLegend(copy: SVGSVGElement, colouring: Colouring): void {
  const box = copy.viewBox.baseVal;
  const top = box.y + box.height + 10;
  const width = Math.max(200, Math.min(box.width - 20, 480));
  const left = box.x + 10;
  const legend = svgElement('g', { class: 'export-legend', 'font-family': 'system-ui, sans-serif' });
  const gradient = svgElement('linearGradient', { id: 'export-legend-gradient', x1: 0, x2: 1, y1: 0, y2: 0 });
  for (let i = 0; i < STOPS; i++) {
    const at = i / (STOPS - 1);
    gradient.append(
      svgElement('stop', { offset: at, 'stop-color': paletteColour(at, colouring.palette ?? 'viridis') }),
    );
  }
  const defs = svgElement('defs', {});
  defs.append(gradient);
  const key = svgElement('text', { x: left, y: top + 12, 'font-size': 12, fill: '#1d1f23' });
  key.textContent = colouring.key;
  const bar = svgElement('rect', {
    x: left,
    y: top + 20,
    width,
    height: 12,
    fill: 'url(#export-legend-gradient)',
    stroke: '#555',
    'stroke-width': 0.5,
  });
  legend.append(defs, key, bar);
  const row = colouring.bar?.[0];
  for (const { at, text } of row?.ticks ?? []) {
    const anchor = at <= 0 ? 'start' : at >= 1 ? 'end' : 'middle';
    const tick = svgElement('text', {
      x: left + at * width,
      y: top + 48,
      'font-size': 11,
      fill: '#1d1f23',
      'text-anchor': anchor,
    });
    tick.textContent = text;
    legend.append(tick);
  }
  if (row !== undefined) {
    const label = svgElement('text', { x: left + width + 8, y: top + 31, 'font-size': 11, fill: '#1d1f23' });
    label.textContent = row.label;
    legend.append(label);
  }
  copy.append(legend);
  copy.setAttribute('viewBox', `${box.x} ${box.y} ${box.width} ${box.height + LEGEND_HEIGHT}`);
  copy.setAttribute('height', String(Math.ceil(box.height + LEGEND_HEIGHT)));
}
