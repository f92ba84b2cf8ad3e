import type { EngineResult } from '../../lib/engine/types';
import { $ } from './dom';
import { drawLatencyChart, type LatencyChart, latencyLegend, markShape } from './latency-chart';
import type { LatencyPoints } from './latency-points';
import { svgElement } from './svg';
import { nameOf, type View } from './view';

/** Computes the chart's points for an entry of the structure a body describes (in the worker). */
type LatencyPointsOf = (
  body: string,
  entry: string,
  slo: number | undefined,
) => Promise<LatencyPoints | undefined>;

/**
 * Under the selected node's numbers, for an entry with a `latency`, or over capacity today (its
 * `latencyLimit` a saturated node: the curve then ends below ×1): its latency against the
 * factor of today's traffic (latency-chart.ts). The curve is computed again in the engine worker
 * from the body that produced the answer, once per answer and entry; an answer computed on the
 * server has no body in the worker (it is large, or needs the key), so it gets a note instead.
 */
export function createLatencyPanel(view: View, pointsOf: LatencyPointsOf) {
  const figure = $('latency-figure');
  const svg = document.getElementById('latency-chart') as unknown as SVGSVGElement;
  const legend = $('latency-legend');
  const note = $('latency-note');
  /** The curve asked for last: a new answer or entry asks again, and a late reply is dropped. */
  let asked: { result: EngineResult; entry: string; points: Promise<LatencyPoints | undefined> } | undefined;

  function hide(): void {
    figure.hidden = true;
    note.hidden = true;
    drawn = undefined;
    svg.replaceChildren();
    legend.replaceChildren();
  }

  /** The chart on show, drawn again when its width changes (its units are pixels). */
  let drawn: LatencyChart | undefined;
  let drawnWidth = 0;
  new ResizeObserver(() => {
    if (drawn !== undefined && !figure.hidden && svg.clientWidth !== drawnWidth) draw(drawn);
  }).observe(svg);

  function draw(chart: LatencyChart): void {
    // Shown first, so the chart is drawn as wide as it is.
    figure.hidden = false;
    drawn = chart;
    drawnWidth = svg.clientWidth;
    drawLatencyChart(svg, chart);
    legend.replaceChildren(
      ...latencyLegend(chart).map(({ mark, text }) => {
        const item = document.createElement('span');
        item.dataset.mark = mark;
        const swatch = svgElement('svg', {
          class: 'swatch',
          width: 12,
          height: 12,
          viewBox: '0 0 12 12',
          'aria-hidden': 'true',
        });
        swatch.append(markShape(mark, 6, 6, mark === 'today' && chart.today === undefined));
        item.append(swatch, text);
        return item;
      }),
    );
    figure.hidden = false;
    document.body.dataset.latencyChart = 'drawn';
  }

  return {
    render(result: EngineResult, selected: string | undefined): void {
      const node = selected === undefined ? undefined : result.nodes.find((n) => n.id === selected);
      const overCapacity = node?.latencyLimit?.reason === 'saturated';
      if (node === undefined || (node.latency === undefined && !overCapacity)) {
        asked = undefined;
        hide();
        return;
      }
      const slo = typeof node.slo === 'number' ? node.slo : undefined;
      if (view.source?.onServer !== false) {
        hide();
        note.textContent =
          'The latency chart is computed in the browser: this answer came from the server. Run it in the browser to see the curve.';
        note.hidden = false;
        return;
      }
      if (asked?.result !== result || asked.entry !== node.id)
        asked = { result, entry: node.id, points: pointsOf(view.source.body, node.id, slo) };
      const wanted = asked;
      const today = node.latency;
      const stuckAt = node.latencyLimit === undefined ? undefined : nameOf(view, node.latencyLimit.node);
      const { latencyHeadroom } = result;
      document.body.dataset.latencyChart = 'computing';
      void wanted.points.then((points) => {
        if (asked !== wanted) return;
        if (points === undefined) {
          hide();
          document.body.dataset.latencyChart = 'none';
          return;
        }
        note.hidden = true;
        draw({
          entry: nameOf(view, node.id),
          points,
          ...(today === undefined ? {} : { today }),
          ...(stuckAt === undefined ? {} : { stuckAt }),
          traffic: view.traffic,
          ...(slo === undefined ? {} : { slo }),
          // The engine's own scale where it names this entry; the curve's crossing otherwise.
          ...(latencyHeadroom?.node === node.id &&
          latencyHeadroom.scale > 0 &&
          latencyHeadroom.scale < Number.MAX_VALUE
            ? { sloScale: latencyHeadroom.scale }
            : points.sloScale === undefined
              ? {}
              : { sloScale: points.sloScale }),
        });
      });
    },
    clear(): void {
      asked = undefined;
      hide();
    },
  };
}
