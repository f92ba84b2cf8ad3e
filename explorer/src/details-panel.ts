import type { EngineEvent, EngineResult, NodeState } from '../../lib/engine/types';
import { $, field } from './dom';
import { latencyLimitReason } from './latency';
import { durationText, shortNumber } from './numbers';
import { sourceNumbers } from './source-numbers';
import { hasSteadyState, saturationByNode, saturationText } from './steady';
import { nameOf, type View } from './view';

/** The state's events (their nodes as buttons) and the selected node's numbers. */
export function createDetailsPanel(view: View, nodeButton: (id: string) => HTMLButtonElement) {
  const eventList = $('events');
  const details = $('details');

  function renderEvents(events: readonly EngineEvent[]): void {
    eventList.replaceChildren();
    for (const event of events) {
      const item = document.createElement('li');
      item.dataset.type = event.type;
      item.append(`${event.type} `);
      if ('node' in event) item.append(nodeButton(event.node));
      if (event.type === 'blocked')
        item.append(exactAside(`pressure ${shortNumber(event.pressure)}`, event.pressure));
      if (event.type === 'saturated') {
        item.append(
          'lost' in event
            ? exactAside(saturationText({ kind: 'lost', lost: event.lost }), event.lost)
            : exactAside(`utilization ${shortNumber(event.utilization)} of capacity`, event.utilization),
        );
      }
      if (event.type === 'cycle')
        item.append(
          `${event.closed ? 'closed' : 'with an exit'}: ${event.nodes.map((id) => nameOf(view, id)).join(', ')}`,
        );
      if (event.type === 'unbounded')
        item.append(`(grows without limit): ${event.nodes.map((id) => nameOf(view, id)).join(', ')}`);
      eventList.append(item);
    }
    if (events.length === 0) {
      const item = document.createElement('li');
      item.textContent = 'no events';
      eventList.append(item);
    }
  }

  function renderDetails(result: EngineResult, selected: string | undefined): void {
    details.replaceChildren();
    const node: NodeState | undefined = result.nodes.find((n) => n.id === selected);
    if (!node) {
      details.textContent =
        'Select a node (click or tap it; or Tab to the graph, arrow keys and Enter; or its name in the table) to see its numbers.';
      return;
    }
    const list = document.createElement('dl');
    list.append(field('Node', nameOf(view, node.id)));
    if (view.names.has(node.id)) list.append(field('Id', node.id));
    list.append(field('Role', node.role), field('Load', node.load));
    if (node.capacity !== undefined) list.append(field('Capacity', node.capacity));
    if (node.throughput !== undefined) list.append(field('Throughput', node.throughput));
    if (node.utilization !== undefined) list.append(field('Utilization', node.utilization));
    if (node.lost !== undefined) list.append(field('Lost per step', node.lost));
    if (hasSteadyState(result)) {
      const saturation = saturationByNode(result).get(node.id);
      // The engine gives `lost: 0` to a node that loses what reaches it, down or stranded by a
      // cut, when nothing does; the answer does not say which of the two (a stranded node was
      // called "down"): with nothing to lose, it does not keep up either.
      const steady = field(
        'Steady state',
        saturation !== undefined
          ? saturationText(saturation)
          : node.lost === 0
            ? 'nothing reaches it (down, or its way out cut)'
            : 'keeps up',
      );
      steady.dataset.field = 'steady-state';
      list.append(steady);
    }
    appendLatency(list, node);
    // What the source itself measured (Kiali's rates, Grafana's mainStat, …), as it wrote it.
    const measured = sourceNumbers(node);
    if (measured.length > 0) {
      const row = field('From the source', measured.join('; '));
      row.dataset.field = 'source';
      list.append(row);
    }
    list.append(
      field('Inflow', node.inflow),
      field('Outflow', node.outflow),
      field('Pressure', node.pressure),
      field('Blocked', node.blocked ? 'yes' : 'no'),
    );
    details.append(list);
  }

  /**
   * The node's service and latency fields: times with their unit, rounded for reading (a step read
   * as a second), exact on hover; an entry stuck today says where, that node a button.
   */
  function appendLatency(list: HTMLElement, node: NodeState): void {
    const time = (label: string, steps: unknown, data: string) => {
      if (typeof steps !== 'number') return;
      const row = field(label, durationText(steps));
      row.lastElementChild!.setAttribute('title', String(steps));
      row.dataset.field = data;
      list.append(row);
    };
    time('Service time', node.serviceTime, 'service-time');
    if (typeof node.servers === 'number') list.append(field('Servers', node.servers));
    time('Response time', node.responseTime, 'response-time');
    time('Waiting', node.waiting, 'waiting');
    if (node.inFlight !== undefined) list.append(field('In flight', node.inFlight));
    time('p99', node.p99, 'p99');
    time('Latency', node.latency, 'latency');
    if (node.latencyLimit !== undefined) {
      const row = field('Latency', '');
      row.dataset.field = 'latency';
      const limit = node.latencyLimit;
      row.lastElementChild!.append('stuck at ', nodeButton(limit.node), ` ${latencyLimitReason(limit)}`);
      list.append(row);
    }
    time('SLO', node.slo, 'slo');
  }

  /** ` (text)`, the rounded number's exact value on hover. */
  function exactAside(text: string, exact: number): HTMLSpanElement {
    const aside = document.createElement('span');
    aside.textContent = ` (${text})`;
    aside.title = String(exact);
    return aside;
  }

  return {
    render(result: EngineResult, selected: string | undefined): void {
      renderEvents(result.events);
      renderDetails(result, selected);
    },
    /** Nothing to show; `note` in place of the details, when given. */
    clear(note = ''): void {
      eventList.replaceChildren();
      details.textContent = note;
    },
  };
}
