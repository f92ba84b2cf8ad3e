import type { Bottleneck, EngineResult, Headroom } from '../../lib/engine/types';
import { $, field } from './dom';
import { latencyLimitText } from './latency';
import { durationText, scaleText, shortNumber } from './numbers';
import { arrivalsOf, hasSteadyState, headroomPhrase, TODAY, type Traffic, trafficWhen } from './steady';
import { nameOf, type View } from './view';

/**
 * The capacity-planning answer of an open structure, in words: how far today's arrivals (under a
 * scenario that changes traffic, the scenario's) can grow before the first node saturates, rounded for reading (the exact number is in the raw answer).
 */
function headroomText(result: EngineResult, name: (id: string) => string, traffic: Traffic): string {
  const { headroom } = result;
  if (headroom === null || headroom === undefined) {
    return result.events.some((event) => event.type === 'unbounded')
      ? 'none: value grows without limit somewhere (see the unbounded event)'
      : withoutCapacities(result)
        ? 'none: no node has a capacity'
        : 'none: nothing arrives, or no node on the way has a capacity';
  }
  // While traffic is lost the engine answers ×0 at the node losing most (down, or cut off).
  if (headroom.scale === 0) return `none: ${headroomPhrase(headroom, name, traffic)}`;
  const scale = Number(headroom.scale.toPrecision(3));
  return headroom.scale < 1
    ? `over capacity: ${name(headroom.node)} saturates at ×${scale} of ${arrivalsOf(traffic)}`
    : `×${scale} of ${arrivalsOf(traffic)} before ${name(headroom.node)} saturates`;
}

/**
 * A steady state without a capacity anywhere (a Kiali, Jaeger or X-Ray graph as registered: the
 * sources measure traffic, never what a service can take): no utilization, no headroom.
 */
function withoutCapacities(result: EngineResult): boolean {
  return (
    hasSteadyState(result) && result.nodes.length > 0 && result.nodes.every((n) => n.capacity === undefined)
  );
}

/** The capacities editor of the registered system on show, for the empty state's button. */
export interface CapacitiesOnShow {
  /** The system's name, for the button's spoken label. */
  name: string;
  open(): void;
}

/**
 * The empty state of a steady state without capacities: what to set, and, for a registered
 * system, its **Capacities** button inline (a pasted structure takes a `capacity` per node).
 */
function noCapacitiesNote(capacities: CapacitiesOnShow | undefined): HTMLElement {
  const note = document.createElement('p');
  note.className = 'empty-state';
  note.dataset.field = 'no-capacities';
  note.append('Set capacities to see utilization and headroom');
  if (capacities === undefined) {
    note.append(': give nodes a ');
    const code = document.createElement('code');
    code.textContent = 'capacity';
    note.append(code, ' (calls a step they can take) in the structure.');
    return note;
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Capacities';
  button.setAttribute('aria-label', `Capacities of ${capacities.name}`);
  button.addEventListener('click', () => capacities.open());
  note.append(' ', button);
  return note;
}

/**
 * The state's answer in words: primary blockage, origin, headroom, and the trace as buttons; for
 * a steady state without capacities, first what to set. `capacitiesOnShow` says which registered
 * system the answer is of, if any.
 */
export function createSummaryPanel(
  view: View,
  nodeButton: (id: string) => HTMLButtonElement,
  capacitiesOnShow: () => CapacitiesOnShow | undefined,
) {
  const summary = $('summary');
  return {
    render(result: EngineResult): void {
      summary.replaceChildren();
      if (withoutCapacities(result)) summary.append(noCapacitiesNote(capacitiesOnShow()));
      const name = (id: string) => nameOf(view, id);
      const list = document.createElement('dl');
      list.append(
        field('Primary blockage', result.primaryBlockage === null ? 'none' : name(result.primaryBlockage)),
      );
      list.lastElementChild!.setAttribute('data-field', 'primary-blockage');
      if (result.origin) {
        const { load, arrival, contribution, share } = result.origin;
        // An open structure's arrival counts with the load: without it, a contribution of 20
        // beside a load of 0 read as unexplained.
        const arriving = arrival === undefined ? '' : `, arrival ${shortNumber(arrival)}`;
        const origin = field(
          'Origin',
          `${name(result.origin.id)}: load ${shortNumber(load)}${arriving}, contribution ${shortNumber(contribution)}, share ${shortNumber(share)}`,
        );
        origin.lastElementChild!.setAttribute(
          'title',
          `${result.origin.id}: load ${load}${arrival === undefined ? '' : `, arrival ${arrival}`}, contribution ${contribution}, share ${share}`,
        );
        origin.dataset.field = 'origin';
        list.append(origin);
      } else {
        list.append(field('Origin', 'none'));
      }
      if (result.headroom !== undefined) {
        const headroom = field('Headroom', headroomText(result, name, view.traffic));
        headroom.dataset.field = 'headroom';
        list.append(headroom);
      }
      if (result.latencyHeadroom !== undefined)
        list.append(latencyHeadroomField(result, result.latencyHeadroom, name, nodeButton, view.traffic));
      if (result.lost !== undefined) {
        const lost = field('Lost', `${shortNumber(result.lost)} per step, at nodes that are down or cut off`);
        lost.lastElementChild!.setAttribute('title', String(result.lost));
        lost.dataset.field = 'lost';
        list.append(lost);
      }
      if (result.bottlenecks !== undefined)
        list.append(bottlenecksField(result.bottlenecks, nodeButton, view.traffic));
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

/**
 * The nodes in the order they saturate as all arrivals grow, each a button with the factor of
 * today's arrivals at which it does (`E ×0.5, B ×0.8`; below 1 it already has), and its response
 * time where it has one (`inventory ×1.67 (25 ms)`); exact on hover.
 */
function bottlenecksField(
  bottlenecks: readonly Bottleneck[],
  nodeButton: (id: string) => HTMLButtonElement,
  traffic: Traffic,
): HTMLElement {
  const row = field('Bottlenecks', bottlenecks.length === 0 ? 'none' : '');
  row.dataset.field = 'bottlenecks';
  const definition = row.lastElementChild!;
  bottlenecks.forEach((bottleneck, i) => {
    const scale = document.createElement('span');
    scale.textContent = ` ${scaleText(bottleneck.scale)}`;
    const when = traffic === TODAY ? 'today' : 'in the scenario';
    scale.title = `saturates at ×${bottleneck.scale} of ${arrivalsOf(traffic)}; utilization ${when} ${bottleneck.utilization}`;
    // How slow the wall already is, where it has a service time: `×1.67 (25 ms)`.
    if (bottleneck.responseTime !== undefined) {
      scale.textContent += ` (${durationText(bottleneck.responseTime)})`;
      scale.title += `; response time ${when} ${bottleneck.responseTime}`;
    }
    definition.append(i === 0 ? '' : ', ', nodeButton(bottleneck.node), scale);
  });
  return row;
}

/**
 * How far today's traffic can grow before the first entry misses its `slo`, in words, the entry
 * a button: `×1.42 of today's traffic before checkout misses its 300 ms`, rounded for reading
 * (the exact numbers on hover). The engine's `×0` means the entry misses at any traffic (its
 * service times alone take that long: with none it misses, or meets its SLO exactly) or never finishes at any traffic (its `latencyLimit` says where it is stuck: a node down or
 * unbounded); a factor below 1 beside a `latencyLimit`, that a node over capacity today stops
 * it and that much less traffic lets it through; `Number.MAX_VALUE`
 * that nothing on the way queues (service times without servers), or that the first queue
 * saturates past the largest number (arrivals of 1e-320), so no growth a number holds breaks an SLO.
 */
function latencyHeadroomField(
  result: EngineResult,
  latencyHeadroom: Headroom | null,
  name: (id: string) => string,
  nodeButton: (id: string) => HTMLButtonElement,
  traffic: Traffic,
): HTMLElement {
  const row = field('Latency headroom', '');
  row.dataset.field = 'latency-headroom';
  const definition = row.lastElementChild as HTMLElement;
  if (latencyHeadroom === null) {
    definition.textContent = 'none: no entry has an SLO';
    return row;
  }
  const { scale, node } = latencyHeadroom;
  if (scale >= Number.MAX_VALUE) {
    definition.textContent = 'no traffic growth makes an entry miss its SLO';
    return row;
  }
  const entry = result.nodes.find((n) => n.id === node);
  const slo = typeof entry?.slo === 'number' ? entry.slo : undefined;
  const target = slo === undefined ? 'its SLO' : `its ${durationText(slo)}`;
  definition.title = `scale ${scale} of ${traffic} traffic; ${node}: slo ${slo ?? 'none'}, latency ${trafficWhen(traffic)} ${entry?.latency ?? 'none'}`;
  if (scale === 0) {
    const limit = entry?.latencyLimit;
    // Stuck only at a node over capacity, an entry is searched below that node's saturation (less
    // traffic frees it): a scale of 0 then says it misses its SLO at any traffic, its service times
    // alone as long as it or longer (exactly as long: met with no traffic, missed with any). Down or
    // unbounded, it never finishes whatever the traffic.
    if (limit === undefined || limit.reason === 'saturated') {
      definition.append(
        'none: ',
        nodeButton(node),
        ` misses ${target} at any traffic: its service times alone take that long`,
      );
      if (limit !== undefined)
        definition.append(`; it never finishes ${trafficWhen(traffic)}: ${latencyLimitText(limit, name)}`);
    } else {
      definition.append(
        'none: ',
        nodeButton(node),
        ` never finishes ${trafficWhen(traffic)}: ${latencyLimitText(limit, name)}`,
      );
    }
    return row;
  }
  const times = scaleText(scale);
  if (scale < 1) {
    definition.append(
      'over its SLO: ',
      nodeButton(node),
      ` meets ${target} only up to ${times} of ${traffic} traffic`,
    );
    // Over capacity at ×1: its requests never finish there, which the lower factor cures.
    const limit = entry?.latencyLimit;
    if (limit !== undefined)
      definition.append(`; it never finishes ${trafficWhen(traffic)}: ${latencyLimitText(limit, name)}`);
  } else definition.append(`${times} of ${traffic} traffic before `, nodeButton(node), ` misses ${target}`);
  return row;
}
