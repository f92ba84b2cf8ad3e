import type { EngineResult } from '../../lib/engine/types';
import { largest } from './largest';
import { shortNumber } from './numbers';
import { svgElement } from './svg';

/** One line of the timeline chart. */
export interface Series {
  label: string;
  colour: string;
  /** `stroke-dasharray`, so no series relies on colour alone. */
  dash: string;
  values: readonly number[];
}

/** The chart's width when its own cannot be read (hidden); else as wide as it is drawn, so 11 px text stays 11 px. */
const DEFAULT_WIDTH = 640;
const MIN_WIDTH = 280;
const HEIGHT = 180;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

/**
 * Okabe–Ito colours: distinguishable with the common forms of colour blindness. The series
 * also differ in dash pattern, so none relies on colour alone.
 */
const SERIES_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7'] as const;
const DASHES = ['', '6 3', '2 3', '8 3 2 3'] as const;

/** Per state: value at sinks, value in flight, the primary blockage's pressure. */
export function timelineSeries(
  states: ReadonlyArray<{ result: EngineResult }>,
  selected: string | undefined,
  selectedName = selected,
): Series[] {
  const atSinks: number[] = [];
  const inFlight: number[] = [];
  const blockage: number[] = [];
  const selectedLoad: number[] = [];
  for (const { result } of states) {
    let sinks = 0;
    let flight = 0;
    let pressure = 0;
    let chosen = 0;
    for (const node of result.nodes) {
      if (node.role === 'sink') sinks += node.load;
      else flight += node.load;
      if (node.id === result.primaryBlockage) pressure = node.pressure;
      if (node.id === selected) chosen = node.load;
    }
    atSinks.push(sinks);
    inFlight.push(flight);
    blockage.push(pressure);
    selectedLoad.push(chosen);
  }
  const series: Series[] = [
    { label: 'load at sinks', colour: SERIES_COLOURS[0], dash: DASHES[0], values: atSinks },
    { label: 'load in flight', colour: SERIES_COLOURS[1], dash: DASHES[1], values: inFlight },
    { label: "primary blockage's pressure", colour: SERIES_COLOURS[2], dash: DASHES[2], values: blockage },
  ];
  if (selected !== undefined)
    series.push({
      label: `load of ${selectedName}`,
      colour: SERIES_COLOURS[3],
      dash: DASHES[3],
      values: selectedLoad,
    });
  return series;
}

/** A legend's sample of a series: a short line in its colour and dash pattern. */
export function seriesSwatch(series: Series): SVGSVGElement {
  const swatch = svgElement('svg', {
    class: 'swatch',
    width: 28,
    height: 10,
    viewBox: '0 0 28 10',
    'aria-hidden': 'true',
  });
  swatch.append(
    svgElement('line', {
      x1: 1,
      y1: 5,
      x2: 27,
      y2: 5,
      stroke: series.colour,
      'stroke-width': 2.5,
      'stroke-dasharray': series.dash,
    }),
  );
  return swatch;
}

/**
 * A line chart of the series over the states (x: tick), one polyline each (a thousand points
 * per line is nothing for SVG), a cursor at the current state; clicking picks a state. Its units
 * are the svg's pixels (as wide as it is drawn), so its labels keep their size on a phone.
 * Returns a function that moves the cursor to another state (all a timeline's step changes).
 */
export function drawChart(
  svg: SVGSVGElement,
  ticks: readonly number[],
  series: readonly Series[],
  current: number,
  onPick: (index: number) => void,
): (current: number) => void {
  svg.replaceChildren();
  const width = svg.clientWidth > 0 ? Math.max(MIN_WIDTH, svg.clientWidth) : DEFAULT_WIDTH;
  svg.setAttribute('viewBox', `0 0 ${width} ${HEIGHT}`);
  const count = ticks.length;
  const max = largest(
    series.flatMap((s) => s.values),
    (v) => v,
    1e-300,
  );
  const x = (i: number) => PAD.left + (count <= 1 ? 0 : (i / (count - 1)) * (width - PAD.left - PAD.right));
  const y = (v: number) => HEIGHT - PAD.bottom - (v / max) * (HEIGHT - PAD.top - PAD.bottom);
  svg.append(
    svgElement('line', { x1: PAD.left, y1: y(0), x2: width - PAD.right, y2: y(0), class: 'axis' }),
    svgElement('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: y(0), class: 'axis' }),
  );
  const top = svgElement('text', {
    x: PAD.left - 6,
    y: PAD.top + 4,
    'text-anchor': 'end',
    class: 'tick-label',
  });
  top.textContent = shortNumber(max);
  const zero = svgElement('text', { x: PAD.left - 6, y: y(0), 'text-anchor': 'end', class: 'tick-label' });
  zero.textContent = '0';
  const first = svgElement('text', { x: x(0), y: HEIGHT - 8, 'text-anchor': 'start', class: 'tick-label' });
  first.textContent = `tick ${ticks[0] ?? 0}`;
  const last = svgElement('text', {
    x: x(count - 1),
    y: HEIGHT - 8,
    'text-anchor': 'end',
    class: 'tick-label',
  });
  last.textContent = `tick ${ticks[count - 1] ?? 0}`;
  svg.append(top, zero, first, last);
  series.forEach((s) => {
    const points = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    const line = svgElement('polyline', {
      points,
      fill: 'none',
      stroke: s.colour,
      'stroke-width': 2,
      'stroke-dasharray': s.dash,
      'data-series': s.label,
    });
    const title = svgElement('title', {});
    title.textContent = s.label;
    line.append(title);
    svg.append(line);
  });
  const cursor = svgElement('line', {
    x1: x(current),
    y1: PAD.top,
    x2: x(current),
    y2: y(0),
    class: 'cursor',
  });
  svg.append(cursor);
  svg.onclick = (event: MouseEvent) => {
    const box = svg.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * width;
    const fraction = (at - PAD.left) / (width - PAD.left - PAD.right);
    onPick(Math.min(count - 1, Math.max(0, Math.round(fraction * (count - 1)))));
  };
  return (index) => {
    cursor.setAttribute('x1', String(x(index)));
    cursor.setAttribute('x2', String(x(index)));
  };
}
