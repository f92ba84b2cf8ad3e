import { type Point, sloLabelPlace, tickLabelWidth } from './chart-labels';
import type { LatencyPoints } from './latency-points';
import { durationText, scaleText } from './numbers';
import { type Traffic, trafficWhen } from './steady';
import { svgElement } from './svg';

/** What the latency chart shows for the selected entry. */
export interface LatencyChart {
  /** The entry's name, as the page shows it. */
  entry: string;
  points: LatencyPoints;
  /**
   * The entry's latency in the answer (at ×1); `undefined` for an entry over capacity there
   * (its requests never finish): the curve then ends before ×1.
   */
  today?: number;
  /** Over capacity at ×1: the node its requests get stuck at (the answer's `latencyLimit.node`). */
  stuckAt?: string;
  /** Whose traffic ×1 is: today's, or a what-if's (the answer on show is the scenario's). */
  traffic: Traffic;
  slo?: number;
  /**
   * Where the latency reaches the SLO: the answer's `latencyHeadroom.scale` when it names this
   * entry (exact), else the curve's own `sloScale`.
   */
  sloScale?: number;
}

/** The chart's width when its own cannot be read; else as wide as it is drawn (labels keep 11 px). */
const DEFAULT_WIDTH = 360;
const MIN_WIDTH = 280;
const HEIGHT = 200;
const PAD = { left: 54, right: 14, top: 24, bottom: 36 };
/**
 * An entry over capacity today that saturates below this share of the chart's range (×1) would
 * draw its curve in a sliver at the left (×0.02 of ×1: 2% of the width): the x axis is broken
 * instead, the curve's range (to a little past the saturation) spread over `CURVE_SHARE` of the
 * width, and ×1 alone at the right end, past the break.
 */
const BREAK_BELOW = 0.25;
const CURVE_SHARE = 0.78;
/** Room past the saturation in a broken axis's range: its line and label stay clear of the break. */
const PAST_SATURATION = 1.1;

/** Where a broken x axis skips from `from` (the curve's range ends) to `to` (×1). */
interface AxisBreak {
  from: number;
  to: number;
}

/** The x axis's break, when the saturation is too far below the chart's end to draw to scale. */
function axisBreak(points: LatencyPoints): AxisBreak | undefined {
  const { saturation, end } = points;
  if (!(Number.isFinite(saturation) && saturation < BREAK_BELOW * end)) return undefined;
  return { from: saturation * PAST_SATURATION, to: end };
}

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above `value`: the y axis ends on a round time. */
function roundUp(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value * (1 - 1e-12)) return step * power;
  return 10 * power;
}

/**
 * The chart in words, for its `aria-label` and its caption: where it starts, today, the knee,
 * the SLO and the saturation.
 */
function latencyChartSummary(chart: LatencyChart): string {
  const { entry, points, slo, sloScale, traffic } = chart;
  const idle = points.latency[0]!;
  const skipped = axisBreak(points);
  const parts = [
    `Latency of ${entry} as all traffic grows, ×0 to ${scaleText(points.end)} of ${traffic}` +
      (skipped === undefined
        ? ''
        : ` (the axis skips from ${scaleText(skipped.from)} to ${scaleText(skipped.to)})`),
    `${durationText(idle)} with no traffic`,
    todayText(chart),
  ];
  if (points.knee !== undefined)
    parts.push(`knee (twice the no-traffic latency) at ${scaleText(points.knee)}`);
  if (slo !== undefined) {
    parts.push(
      sloScale === undefined
        ? `never reaches its SLO of ${durationText(slo)}`
        : sloScale === 0
          ? idle > slo
            ? `over its SLO of ${durationText(slo)} even with no traffic`
            : `at its SLO of ${durationText(slo)} with no traffic, over it with any`
          : sloReachedWords(chart, slo, sloScale),
    );
  }
  parts.push(
    Number.isFinite(points.saturation)
      ? `saturates at ${scaleText(points.saturation)}`
      : 'nothing on its paths saturates: the latency stays flat',
  );
  return `${parts.join('; ')}.`;
}

/** Today's latency in words, or that the entry is over capacity today. */
function todayText({ today, stuckAt, traffic }: LatencyChart): string {
  if (today !== undefined) return `${durationText(today)} ${trafficWhen(traffic)} (×1)`;
  return `over capacity ${trafficWhen(traffic)} (×1): its requests never finish${stuckAt === undefined ? '' : `, stuck at ${stuckAt}`}`;
}

/**
 * Draws the latency of one entry against the factor of today's traffic (0 to the saturation,
 * dashed, where it grows without bound): the curve, today (dotted, with its point), the SLO as
 * a horizontal line and the point where the curve reaches it, and the knee. The y axis ends at
 * a round time above four times the no-traffic latency, today's and the SLO, so the knee shows
 * and the climb to the saturation leaves the top; the curve is clipped there. An entry over
 * capacity today saturates below ×1: the chart runs on to ×1, today's point (hollow) at the top
 * of the dotted line, where no latency is; far below ×1 (`BREAK_BELOW`), the axis is broken
 * between the curve's range and ×1, so the curve keeps most of the width.
 */
export function drawLatencyChart(svg: SVGSVGElement, chart: LatencyChart): void {
  const { points, today, slo, sloScale } = chart;
  svg.replaceChildren();
  const width = svg.clientWidth > 0 ? Math.max(MIN_WIDTH, svg.clientWidth) : DEFAULT_WIDTH;
  svg.setAttribute('viewBox', `0 0 ${width} ${HEIGHT}`);
  svg.setAttribute('aria-label', latencyChartSummary(chart));
  const idle = points.latency[0]!;
  // Microsecond services keep their own scale: a floor of 1 ms laid their curve on the x axis.
  const highest = Math.max(4 * idle, 1.5 * (today ?? 0), 1.25 * (slo ?? 0));
  const top = roundUp(highest > 0 ? highest : 1e-3);
  // The y axis' labels keep to the view: a time of 10^6 s ("1,000,000 s") was cut at its edge.
  const left = Math.max(
    PAD.left,
    9 + Math.max(tickLabelWidth(durationText(top)), tickLabelWidth(durationText(top / 2))),
  );
  const right = width - PAD.right;
  const bottom = HEIGHT - PAD.bottom;
  const skipped = axisBreak(points);
  // With a break, the curve's range ends at `plotRight`, and ×1 (the only scale past it) at `right`.
  const span = skipped?.from ?? points.end;
  const plotRight = skipped === undefined ? right : left + CURVE_SHARE * (right - left);
  const x = (scale: number) => (scale > span ? right : left + (scale / span) * (plotRight - left));
  const y = (latency: number) => bottom - (latency / top) * (bottom - PAD.top);
  const text = (content: string, attributes: Record<string, string | number>) => {
    const label = svgElement('text', { class: 'tick-label', ...attributes });
    label.textContent = content;
    return label;
  };

  const clip = svgElement('clipPath', { id: 'latency-plot' });
  clip.append(svgElement('rect', { x: left, y: PAD.top, width: plotRight - left, height: bottom - PAD.top }));
  const defs = svgElement('defs', {});
  defs.append(clip);
  svg.append(defs, svgElement('line', { x1: left, y1: PAD.top, x2: left, y2: bottom, class: 'axis' }));
  if (skipped === undefined) {
    svg.append(svgElement('line', { x1: left, y1: bottom, x2: right, y2: bottom, class: 'axis' }));
  } else {
    // The axis in two pieces, with the usual break mark (two slanted strokes) in the gap.
    const gapStart = plotRight + 6;
    const gapEnd = gapStart + 8;
    const slash = (at: number) => `M ${at - 3} ${bottom + 5} L ${at + 3} ${bottom - 5}`;
    svg.append(
      svgElement('line', { x1: left, y1: bottom, x2: gapStart, y2: bottom, class: 'axis' }),
      svgElement('line', { x1: gapEnd, y1: bottom, x2: right, y2: bottom, class: 'axis' }),
      svgElement('path', { d: `${slash(gapStart)} ${slash(gapEnd)}`, class: 'axis axis-break' }),
    );
  }
  for (const value of [0, top / 2, top]) {
    svg.append(
      text(value === 0 ? '0' : durationText(value), {
        x: left - 5,
        y: y(value) + 4,
        'text-anchor': 'end',
        'data-axis': 'y',
      }),
    );
  }
  svg.append(text('×0', { x: x(0), y: bottom + 14, 'text-anchor': 'middle', 'data-axis': 'x' }));
  // ×1 only where it has room between the ends (a saturation at ×100 puts today by the axis): clear
  // of the end's label, which ends at the right edge (×1.11 there took the room a fixed 30 px left).
  const endLabel = scaleText(points.end);
  if (x(1) - x(0) >= 24 && right - x(1) >= tickLabelWidth(endLabel) + tickLabelWidth('×1') / 2 + 4)
    svg.append(text('×1', { x: x(1), y: bottom + 14, 'text-anchor': 'middle', 'data-axis': 'x' }));
  svg.append(
    text(endLabel, { x: right, y: bottom + 14, 'text-anchor': 'end', 'data-axis': 'x' }),
    text(`traffic, × ${chart.traffic}`, {
      x: (left + right) / 2,
      y: HEIGHT - 4,
      'text-anchor': 'middle',
    }),
    text('latency', { x: left - 5, y: PAD.top - 10, 'text-anchor': 'end' }),
  );

  if (Number.isFinite(points.saturation)) {
    const at = x(points.saturation);
    svg.append(
      svgElement('line', { x1: at, y1: PAD.top, x2: at, y2: bottom, class: 'latency-saturation' }),
      text(`saturates ${scaleText(points.saturation)}`, {
        x: at - 3,
        y: PAD.top - 4,
        'text-anchor': 'end',
      }),
    );
  }
  if (slo !== undefined)
    svg.append(svgElement('line', { x1: left, y1: y(slo), x2: right, y2: y(slo), class: 'latency-slo' }));
  svg.append(svgElement('line', { x1: x(1), y1: PAD.top, x2: x(1), y2: bottom, class: 'latency-today' }));

  // Near the saturation the latency runs to millions of times the top: held at ten times it,
  // the clip cuts the line at the same place to a fraction of a pixel, in plain numbers.
  const curve = points.scales.map(
    (scale, i): Point => [
      Number(x(scale).toFixed(1)),
      Number(y(Math.min(points.latency[i]!, 10 * top)).toFixed(1)),
    ],
  );
  svg.append(
    svgElement('polyline', {
      points: curve.map(([px, py]) => `${px},${py}`).join(' '),
      class: 'latency-curve',
      'clip-path': 'url(#latency-plot)',
    }),
  );

  const marks: Point[] = [];
  const mark = (kind: LatencyMark, scale: number, latency: number, title: string) => {
    const group = markShape(kind, x(scale), y(latency), kind === 'today' && today === undefined);
    group.dataset.mark = kind;
    const hover = svgElement('title', {});
    hover.textContent = title;
    group.append(hover);
    svg.append(group);
    marks.push([x(scale), y(latency)]);
  };
  for (const item of latencyLegend(chart)) {
    if (item.mark === 'today') mark('today', 1, today ?? top, item.text);
    if (item.mark === 'knee') mark('knee', points.knee!, 2 * idle, item.text);
    if (item.mark === 'slo' && sloScale! > 0) mark('slo', Math.min(sloScale!, points.end), slo!, item.text);
  }
  if (slo !== undefined) {
    const label = `SLO ${durationText(slo)}`;
    const place = sloLabelPlace(label, y(slo), { left, right: plotRight }, curve, marks);
    // Over the curve and the marks it was kept clear of.
    svg.append(text(label, { x: place.x, y: place.y, 'text-anchor': place.anchor, 'data-label': 'slo' }));
  }
}

/** The answer's own traffic, ×1, in words: `today`, or `the scenario's` after a what-if. */

/** The chart's marks: today's point, the knee, the point where the SLO is reached. */
type LatencyMark = 'today' | 'knee' | 'slo';

/**
 * A mark's shape at (`x`, `y`), each its own so none relies on colour alone: a circle for
 * today (hollow when `over` capacity, with no latency), a diamond for the knee, a square for
 * the SLO.
 */
export function markShape(kind: LatencyMark, x: number, y: number, over = false): SVGGElement {
  const group = svgElement('g', { class: `latency-mark ${kind}${over ? ' over' : ''}` });
  const r = 4;
  group.append(
    kind === 'today'
      ? svgElement('circle', { cx: x, cy: y, r })
      : kind === 'knee'
        ? svgElement('path', {
            d: `M ${x} ${y - r - 1} L ${x + r + 1} ${y} L ${x} ${y + r + 1} L ${x - r - 1} ${y} Z`,
          })
        : svgElement('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r }),
  );
  return group;
}

/**
 * The marks in words, for the legend under the chart (each beside its shape) and their hover:
 * on a chart this small, labels beside the points would run into each other.
 */
export function latencyLegend(chart: LatencyChart): Array<{ mark: LatencyMark; text: string }> {
  const { points, today, slo, sloScale, traffic } = chart;
  const legend: Array<{ mark: LatencyMark; text: string }> = [
    {
      mark: 'today',
      text:
        today === undefined
          ? `${trafficWhen(traffic)} (×1): over capacity, its requests never finish${chart.stuckAt === undefined ? '' : ` (stuck at ${chart.stuckAt})`}; they do below ${scaleText(points.saturation)}`
          : `${trafficWhen(traffic)} (×1): ${durationText(today)}`,
    },
  ];
  if (points.knee !== undefined)
    legend.push({
      mark: 'knee',
      text: `knee at ${scaleText(points.knee)}: ${durationText(2 * points.latency[0]!)}, twice the latency with no traffic (waiting as long as served)`,
    });
  if (slo !== undefined && sloScale !== undefined && sloScale > 0)
    legend.push({ mark: 'slo', text: sloReachedWords(chart, slo, sloScale) });
  return legend;
}

/**
 * Where the entry reaches its SLO, in words. A curve that stays below it up to the saturation
 * (a node at capacity takes no time of its own there: the latency jumps from the flat curve to
 * no end) does not reach it on the way: it misses it from the saturation on, and says so (it
 * read "reaches its SLO of 1 s at ×0.8" above a curve flat at 70 ms).
 */
function sloReachedWords(chart: LatencyChart, slo: number, sloScale: number): string {
  const { points } = chart;
  const last = points.latency[points.latency.length - 1]!;
  const atSaturation =
    Number.isFinite(points.saturation) && sloScale >= points.saturation * (1 - 1e-9) && last < slo;
  return atSaturation
    ? `misses its SLO of ${durationText(slo)} from ${scaleText(sloScale)}, where it saturates (${durationText(last)} just below)`
    : `reaches its SLO of ${durationText(slo)} at ${scaleText(sloScale)}`;
}
