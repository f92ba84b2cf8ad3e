import { drawChart, type Series, seriesSwatch, timelineSeries } from './chart';
import { $ } from './dom';
import { shortNumber } from './numbers';
import { nameOf, type State, type View } from './view';

/** Most events listed for a whole timeline; the current tick's are always all shown. */
const MAX_LISTED_EVENTS = 2000;

/**
 * A `ticks` answer's states: the slider, the chart of the timeline (click picks a tick) and every
 * tick's events, each a button that jumps there.
 */
export function createTimelinePanel(view: View, goTo: (index: number, node?: string) => void) {
  const timeline = $('timeline');
  const tickSlider = $<HTMLInputElement>('tick');
  const tickLabel = $('tick-label');
  const chartFigure = $('chart-figure');
  const chart = document.getElementById('chart') as unknown as SVGSVGElement;
  const chartLegend = $('chart-legend');
  const allEventsPanel = $<HTMLDetailsElement>('all-events-panel');
  const allEvents = $('all-events');
  let chartSeries: { states: State[]; selected: string | undefined; series: Series[] } | undefined;
  /** The chart as drawn: for a step along the same series only its cursor moves. */
  let drawnChart: { series: Series[]; moveTo: (index: number) => void } | undefined;

  tickSlider.addEventListener('input', () => goTo(Number(tickSlider.value)));
  // The chart's units are pixels (chart.ts): drawn again when its width changes.
  let chartWidth = 0;
  new ResizeObserver(() => {
    if (!chartFigure.hidden && chart.clientWidth !== chartWidth) renderChart(true);
  }).observe(chart);

  /** The chart for the state on show; `resized`, drawn again to its new width. */
  function renderChart(resized = false): void {
    const { states, selected, current } = view;
    chartFigure.hidden = states.length < 2;
    if (states.length < 2) return;
    // Summing every node of every state is the chart's cost: once per answer and selection, not
    // on every move of the slider.
    if (chartSeries?.states !== states || chartSeries.selected !== selected) {
      chartSeries = {
        states,
        selected,
        series: timelineSeries(states, selected, selected === undefined ? undefined : nameOf(view, selected)),
      };
    }
    const { series } = chartSeries;
    // A step along the same series moves the cursor, with no width to read (which would force
    // the page's layout right after the graph was drawn): the resize observer redraws on a resize.
    if (!resized && drawnChart?.series === series) drawnChart.moveTo(current);
    else {
      chartWidth = chart.clientWidth;
      drawnChart = {
        series,
        moveTo: drawChart(
          chart,
          states.map((s) => s.tick),
          series,
          current,
          (index) => goTo(index),
        ),
      };
    }
    chartLegend.replaceChildren(
      ...series.map((s) => {
        const item = document.createElement('span');
        const value = s.values[current]!;
        item.dataset.series = s.label;
        item.append(seriesSwatch(s), `${s.label}: ${shortNumber(value)}`);
        item.title = String(value);
        return item;
      }),
    );
  }

  return {
    /** A new answer: the slider's range and every tick's events. */
    load(): void {
      const { states } = view;
      timeline.hidden = states.length < 2;
      tickSlider.min = '0';
      tickSlider.max = String(Math.max(0, states.length - 1));
      tickSlider.value = '0';
      allEvents.replaceChildren();
      allEventsPanel.hidden = states.length < 2;
      let listed = 0;
      for (const [index, state] of states.entries()) {
        for (const event of state.result.events) {
          if (listed++ >= MAX_LISTED_EVENTS) break;
          const item = document.createElement('li');
          const jump = document.createElement('button');
          jump.type = 'button';
          jump.className = 'node-link';
          jump.textContent = `tick ${state.tick}`;
          jump.addEventListener('click', () => goTo(index));
          item.append(jump, ` ${event.type}`);
          if ('node' in event) {
            const node = document.createElement('button');
            node.type = 'button';
            node.className = 'node-link';
            node.textContent = nameOf(view, event.node);
            node.addEventListener('click', () => goTo(index, event.node));
            item.append(' ', node);
          }
          allEvents.append(item);
        }
      }
      if (listed > MAX_LISTED_EVENTS) {
        const more = document.createElement('li');
        more.textContent = `… ${listed - MAX_LISTED_EVENTS} more (use Export JSON)`;
        allEvents.append(more);
      }
    },
    render(): void {
      const state = view.states[view.current];
      if (!state) return;
      tickSlider.value = String(view.current);
      tickLabel.textContent = `tick ${state.tick}`;
      // Spoken for the slider instead of its index among the states.
      tickSlider.setAttribute('aria-valuetext', `tick ${state.tick} of ${view.states.at(-1)!.tick}`);
      renderChart();
    },
    /** An error: nothing of the previous answer's timeline stays. */
    clear(): void {
      timeline.hidden = true;
      chartFigure.hidden = true;
      chart.replaceChildren();
      chartLegend.replaceChildren();
      chartSeries = undefined;
      drawnChart = undefined;
      allEventsPanel.hidden = true;
      allEvents.replaceChildren();
    },
  };
}
