import type { EngineResult, NodeState } from '../../lib/engine/types';
import { $ } from './dom';
import { durationText, showNumber } from './numbers';
import { nameOf, type View } from './view';

/** Rows drawn at once; "Show more" draws as many again (a table of 20,000 rows is slow to lay out). */
const ROWS_AT_ONCE = 500;

interface Column {
  key: string;
  heading: string;
  /** The value sorted by; `undefined` sorts last either way. */
  value: (node: NodeState) => number | string | undefined;
  /** Its text in a cell (numbers rounded, their exact value on hover). */
  cell: (cell: HTMLTableCellElement, node: NodeState) => void;
}

const numberColumn = (
  key: string,
  heading: string,
  value: (node: NodeState) => number | undefined,
): Column => ({
  key,
  heading,
  value,
  cell(cell, node) {
    const number = value(node);
    if (number === undefined) cell.textContent = '–';
    else showNumber(cell, number);
  },
});

const COLUMNS: readonly Column[] = [
  numberColumn('utilization', 'Utilization', (node) => node.utilization),
  numberColumn('pressure', 'Pressure', (node) => node.pressure),
  numberColumn('throughput', 'Throughput', (node) => node.throughput),
  numberColumn('load', 'Load', (node) => node.load),
];

const RESPONSE_TIME: Column = {
  key: 'response-time',
  heading: 'Response time',
  value: (node) => node.responseTime,
  cell(cell, node) {
    cell.textContent = node.responseTime === undefined ? '–' : durationText(node.responseTime);
    if (node.responseTime !== undefined) cell.title = String(node.responseTime);
  },
};

/**
 * The graph's nodes as a table, the accessible alternative to the drawing (and a quicker way to
 * find the busiest node): a row per node with its utilization, pressure, throughput, load and,
 * when the answer has latency, response time; a column's heading sorts by it (the largest first,
 * again for the smallest; `aria-sort` says which), and a node's name selects it, as a click on the
 * graph does. It is drawn only while open, and then `ROWS_AT_ONCE` rows at a time.
 */
export function createNodeTable(view: View, select: (id: string) => void) {
  const panel = $<HTMLDetailsElement>('node-table-panel');
  const table = $<HTMLTableElement>('node-table');
  const more = $<HTMLButtonElement>('node-table-more');
  let sort: { key: string; descending: boolean } | undefined;
  let shownRows = ROWS_AT_ONCE;
  /** What the rows on show were drawn for: redrawn only when one of these changes. */
  let drawnFor: { result: EngineResult; sort: typeof sort; rows: number } | undefined;

  const state = () => view.states[view.current]?.result;

  function columnsOf(result: EngineResult): Column[] {
    const name: Column = {
      key: 'node',
      heading: 'Node',
      value: (node) => nameOf(view, node.id),
      cell(cell, node) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'node-link';
        button.dataset.id = node.id;
        const shown = nameOf(view, node.id);
        button.textContent = shown === node.id ? shown : `${shown} (${node.id})`;
        cell.append(button);
      },
    };
    const latency = result.nodes.some((node) => node.responseTime !== undefined);
    return [name, ...COLUMNS, ...(latency ? [RESPONSE_TIME] : [])];
  }

  function sorted(result: EngineResult, columns: Column[]): NodeState[] {
    const nodes = [...result.nodes];
    const column = columns.find((c) => c.key === sort?.key);
    if (sort === undefined || column === undefined) return nodes;
    const sign = sort.descending ? -1 : 1;
    return nodes.sort((a, b) => {
      const [x, y] = [column.value(a), column.value(b)];
      if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
      return sign * (typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number));
    });
  }

  function draw(): void {
    const result = state();
    if (!panel.open || result === undefined) return;
    if (drawnFor?.result === result && drawnFor.sort === sort && drawnFor.rows === shownRows) {
      markSelected();
      return;
    }
    // The focus, on a name or a heading, comes back to the same one after the redraw.
    const focused = document.activeElement;
    const focusedId = table.contains(focused) ? (focused as HTMLElement).dataset.id : undefined;
    const focusedSort = table.contains(focused) ? (focused as HTMLElement).dataset.sort : undefined;
    const columns = columnsOf(result);
    const head = document.createElement('tr');
    for (const column of columns) {
      const th = document.createElement('th');
      th.scope = 'col';
      if (sort?.key === column.key)
        th.setAttribute('aria-sort', sort.descending ? 'descending' : 'ascending');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.dataset.sort = column.key;
      button.textContent = column.heading;
      button.addEventListener('click', () => {
        // Numbers the largest first, names from A; again for the other way.
        const first = column.key !== 'node';
        sort = { key: column.key, descending: sort?.key === column.key ? !sort.descending : first };
        draw();
      });
      th.append(button);
      head.append(th);
    }
    const rows = sorted(result, columns).slice(0, shownRows);
    const body = document.createElement('tbody');
    for (const node of rows) {
      const row = document.createElement('tr');
      row.dataset.id = node.id;
      for (const column of columns) {
        const cell = document.createElement(column.key === 'node' ? 'th' : 'td');
        if (column.key === 'node') cell.setAttribute('scope', 'row');
        column.cell(cell, node);
        row.append(cell);
      }
      body.append(row);
    }
    table.tHead?.remove();
    for (const old of table.tBodies) old.remove();
    table.createTHead().append(head);
    table.append(body);
    more.hidden = result.nodes.length <= shownRows;
    more.textContent = `Show ${Math.min(ROWS_AT_ONCE, result.nodes.length - shownRows).toLocaleString('en')} more (of ${result.nodes.length.toLocaleString('en')})`;
    drawnFor = { result, sort, rows: shownRows };
    markSelected();
    const again =
      focusedId !== undefined
        ? table.querySelector<HTMLElement>(`button[data-id="${CSS.escape(focusedId)}"]`)
        : focusedSort !== undefined
          ? table.querySelector<HTMLElement>(`button[data-sort="${CSS.escape(focusedSort)}"]`)
          : null;
    again?.focus({ preventScroll: true });
  }

  /** The selected node's row and name say so (`aria-current`). */
  function markSelected(): void {
    for (const row of table.querySelectorAll<HTMLTableRowElement>('tbody tr')) {
      const selected = row.dataset.id === view.selected;
      row.classList.toggle('selected', selected);
      const button = row.querySelector('button')!;
      if (selected) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
  }

  table.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button.node-link');
    if (button?.dataset.id !== undefined) select(button.dataset.id);
  });
  panel.addEventListener('toggle', draw);
  more.addEventListener('click', () => {
    shownRows += ROWS_AT_ONCE;
    draw();
  });

  return {
    /** The state on show or the selection changed: redrawn if open, else when opened. */
    render(): void {
      panel.hidden = false;
      if (drawnFor?.result !== state()) shownRows = ROWS_AT_ONCE;
      draw();
    },
    /** No answer: nothing to list. */
    clear(): void {
      panel.hidden = true;
      drawnFor = undefined;
      table.tHead?.remove();
      for (const old of table.tBodies) old.remove();
      more.hidden = true;
    },
  };
}
