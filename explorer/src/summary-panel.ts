import type { EngineResult } from '../../lib/engine/types';
import { $, field } from './dom';

/**
 * The capacity-planning answer of an open structure, in words: how far today's arrivals can grow
 * before the first node saturates, rounded for reading (the exact number is in the raw answer).
 */
function headroomText(result: EngineResult): string {
  const { headroom } = result;
  if (headroom === null || headroom === undefined) {
    return result.events.some((event) => event.type === 'unbounded')
      ? 'none: value grows without limit somewhere (see the unbounded event)'
      : 'none: nothing arrives, or no node on the way has a capacity';
  }
  const scale = Number(headroom.scale.toPrecision(3));
  return headroom.scale < 1
    ? `over capacity: ${headroom.node} saturates at ×${scale} of today's arrivals`
    : `×${scale} of today's arrivals before ${headroom.node} saturates`;
}

/** The state's answer in words: primary blockage, origin, headroom, and the trace as buttons. */
export function createSummaryPanel(nodeButton: (id: string) => HTMLButtonElement) {
  const summary = $('summary');
  return {
    render(result: EngineResult): void {
      summary.replaceChildren();
      const list = document.createElement('dl');
      list.append(field('Primary blockage', result.primaryBlockage ?? 'none'));
      list.lastElementChild!.setAttribute('data-field', 'primary-blockage');
      if (result.origin) {
        const origin = field(
          'Origin',
          `${result.origin.id}: load ${result.origin.load}, contribution ${result.origin.contribution}, share ${result.origin.share}`,
        );
        origin.dataset.field = 'origin';
        list.append(origin);
      } else {
        list.append(field('Origin', 'none'));
      }
      if (result.headroom !== undefined) {
        const headroom = field('Headroom', headroomText(result));
        headroom.dataset.field = 'headroom';
        list.append(headroom);
      }
      summary.append(list);
      const trace = document.createElement('ol');
      trace.className = 'trace';
      trace.dataset.field = 'trace';
      trace.setAttribute('aria-label', 'Trace, from origin to blockage');
      for (const id of result.trace) {
        const item = document.createElement('li');
        item.append(nodeButton(id));
        trace.append(item);
      }
      const traceHeading = document.createElement('h3');
      traceHeading.textContent = result.trace.length ? 'Trace' : 'Trace: none';
      summary.append(traceHeading, trace);
    },
    clear(): void {
      summary.replaceChildren();
    },
  };
}
