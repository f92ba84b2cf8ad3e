import type { Changes } from '../../lib/engine/compare';
import { isServerCount, MAX_SERVERS } from '../../lib/engine/open/server-count';
import type { EngineResult, Headroom } from '../../lib/engine/types';
import type { EngineAnswer } from './behaviour';
import { changeColouring } from './change-colouring';
import { $ } from './dom';
import { CAPACITY, checkedNumberField } from './number-field';
import { durationText, scaleText, shortNumber } from './numbers';
import type { ExplorerPage, RunOutcome } from './page';
import { scenarioMarks } from './scenario-marks';
import { headroomPhrase, TODAY, type Traffic } from './steady';

/** One node's change: a capacity, or servers where the node's capacity is servers / serviceTime. */
interface NodeChange {
  capacity?: number | null;
  servers?: number;
  down?: true;
}

/** The scenario being built: what the request's `scenario` field will hold. */
interface Draft {
  scale: number;
  nodes: Map<string, NodeChange>;
  cut: Map<string, { from: string; to: string }>;
}

/** The servers' upper bound as the page writes numbers (10,000). */
const SERVERS_AT_MOST = MAX_SERVERS.toLocaleString('en-US');

/**
 * Numbers for reading, as the rest of the page writes them (`shortNumber`: 4 significant digits,
 * whole numbers grouped from 1,000 on; the exact ones are in the raw answer and on hover). Four
 * digits alone read 10,773 as 10770 beside a change of +810.
 */
const shown = (value: number | null | undefined, format = shortNumber): string =>
  value === null || value === undefined ? '–' : format(value);

/**
 * A latency headroom in a comparison's line, of `traffic` (each side's own, as the blockage's):
 * `×1.42 of today's traffic (checkout)`; below 1 the entry is over its SLO already (`over its SLO
 * from ×0.95 of today's traffic (checkout)`); `none (checkout)` for the engine's 0 (an entry
 * misses its SLO with no traffic, or is stuck); `unlimited` where no growth makes an entry miss;
 * `–` without an SLO.
 */
function sloHeadroomText(headroom: Headroom | null, traffic: Traffic): string {
  if (headroom === null) return '–';
  const { scale, node } = headroom;
  if (scale >= Number.MAX_VALUE) return 'unlimited';
  if (scale === 0) return `none (${node})`;
  // scaleText never rounds a factor below 1 up to ×1 (that would read as meeting it today).
  const times = scaleText(scale);
  return scale < 1
    ? `over its SLO from ${times} of ${traffic} traffic (${node})`
    : `${times} of ${traffic} traffic (${node})`;
}

/** A change with its sign, so a decrease reads as one: `+1.333`, `−2` (a real minus sign). */
const signed = (change: number, format?: (v: number) => string): string =>
  change < 0 ? `−${shown(-change, format)}` : `+${shown(change, format)}`;

/**
 * What if: a scale slider for all traffic, a node's capacity (its servers, where it has them) or
 * taking it down (click the node),
 * cutting a dependency (click it), then **Compare** runs the editor's structure with that
 * `scenario` and `compare: true`. The graph is coloured by the change in pressure (or
 * utilization) against the baseline, and the `changes` are listed: the blockage and its headroom
 * before and after, traffic lost, nodes newly saturated, blocked or cleared, the largest pressure
 * increases and the largest utilization and throughput changes, signed.
 */
export function createScenarioPanel(page: ExplorerPage): void {
  const scaleInput = $<HTMLInputElement>('scenario-scale');
  const scaleLabel = $('scenario-scale-label');
  const nodeSelect = $<HTMLSelectElement>('scenario-node');
  const capacityInput = $<HTMLInputElement>('scenario-capacity');
  const downInput = $<HTMLInputElement>('scenario-down');
  const draftList = $('scenario-draft');
  const changesList = $('scenario-changes');
  const status = $('scenario-status');
  const draft: Draft = { scale: 1, nodes: new Map(), cut: new Map() };
  // `abc` once became NaN, then null in the request: "remove the capacity". Checked as typed now.
  const capacity = checkedNumberField(
    capacityInput,
    { ...CAPACITY('A capacity is a number above 0 (or none, to remove it).'), words: { none: null } },
    $('scenario-capacity-problem'),
  );
  // A node with servers has the capacity servers / serviceTime (the engine refuses another):
  // its control is the number of servers.
  const serversInput = $<HTMLInputElement>('scenario-servers');
  const servers = checkedNumberField(
    serversInput,
    {
      accepts: isServerCount,
      takes: `Servers are a whole number from 1 to ${SERVERS_AT_MOST}.`,
    },
    $('scenario-servers-problem'),
  );
  /** The nodes of the latest answer that have servers. */
  const queued = new Set<string>();
  /** The field the picked node takes: servers where it has them, else its capacity. */
  const nodeField = () => (queued.has(nodeSelect.value) ? servers : capacity);
  let comparing = false;
  /** The scenario the latest Compare sent: its down nodes are marked on the graph. */
  let sent: Record<string, unknown> = {};
  /** Which Compare is the latest: only its outcome is said (a newer one says its own). */
  let compares = 0;

  function scenario(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    if (draft.scale !== 1) result.scale = draft.scale;
    if (draft.nodes.size > 0) result.nodes = Object.fromEntries(draft.nodes);
    if (draft.cut.size > 0)
      result.dependencies = [...draft.cut.values()].map((pair) => ({ ...pair, cut: true }));
    return result;
  }

  function renderDraft(): void {
    draftList.replaceChildren();
    const item = (text: string, remove?: () => void) => {
      const li = document.createElement('li');
      li.textContent = text;
      if (remove) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = '×';
        button.setAttribute('aria-label', `Remove: ${text}`);
        button.addEventListener('click', () => {
          remove();
          renderDraft();
        });
        li.append(' ', button);
      }
      draftList.append(li);
    };
    if (draft.scale !== 1) item(`all traffic ×${draft.scale}`);
    for (const [id, change] of draft.nodes) {
      const parts = [];
      if (change.capacity !== undefined)
        parts.push(change.capacity === null ? 'no capacity' : `capacity ${change.capacity}`);
      if (change.servers !== undefined)
        parts.push(`${change.servers} server${change.servers === 1 ? '' : 's'}`);
      if (change.down) parts.push('down');
      item(`${id}: ${parts.join(', ')}`, () => draft.nodes.delete(id));
    }
    for (const [key, { from, to }] of draft.cut) item(`cut ${from} → ${to}`, () => draft.cut.delete(key));
    if (draftList.childElementCount === 0)
      item('no change yet: move the slider, click a node or a dependency');
  }

  function pickNode(id: string): void {
    // A structure drawn without a result (the run failed) may hold nodes no answer listed.
    if (![...nodeSelect.options].some((option) => option.value === id)) nodeSelect.append(new Option(id, id));
    nodeSelect.value = id;
    const change = draft.nodes.get(id);
    capacityInput.value =
      change?.capacity === undefined ? '' : change.capacity === null ? 'none' : String(change.capacity);
    capacity.check();
    serversInput.value = change?.servers === undefined ? '' : String(change.servers);
    servers.check();
    showNodeField();
    downInput.checked = change?.down === true;
  }

  /** Shows the picked node's field (servers or capacity), the other hidden and emptied of problems. */
  function showNodeField(): void {
    const byServers = queued.has(nodeSelect.value);
    $('scenario-servers-label').hidden = !byServers;
    $('scenario-capacity-label').hidden = byServers;
    if (byServers) {
      capacityInput.value = '';
      capacity.check();
    } else {
      serversInput.value = '';
      servers.check();
    }
  }

  // A node picked from the list, as one clicked on the graph: its field and its draft change.
  nodeSelect.addEventListener('change', () => pickNode(nodeSelect.value));

  scaleInput.addEventListener('input', () => {
    draft.scale = Number(scaleInput.value);
    scaleLabel.textContent = `×${draft.scale}`;
    renderDraft();
  });

  $('scenario-set-node').addEventListener('click', () => {
    const id = nodeSelect.value;
    if (id === '') return;
    const field = nodeField();
    const typed = field.check();
    if (!typed.valid) {
      field.input.focus();
      return;
    }
    const change: NodeChange = {};
    if (typed.value !== undefined) {
      // Only the capacity takes a word (`none`: null); servers are always a number.
      if (field === capacity) change.capacity = typed.value;
      else if (typed.value !== null) change.servers = typed.value;
    }
    if (downInput.checked) change.down = true;
    if (Object.keys(change).length === 0) draft.nodes.delete(id);
    else draft.nodes.set(id, change);
    renderDraft();
  });

  // Clicks on the graph: a node picks it for the controls (the page selects it too); a dependency
  // is cut, or restored when it is cut already.
  const graph = document.getElementById('graph') as unknown as SVGSVGElement;
  graph.addEventListener('click', (event) => {
    const target = event.target as Element;
    const node = target.closest('.node') as SVGGElement | null;
    if (node?.dataset.id !== undefined) {
      pickNode(node.dataset.id);
      return;
    }
    const edge = target.closest('.edge') as SVGPathElement | null;
    const from = edge?.dataset.from;
    const to = edge?.dataset.to;
    if (from === undefined || to === undefined) return;
    const key = JSON.stringify([from, to]);
    if (draft.cut.has(key)) draft.cut.delete(key);
    else draft.cut.set(key, { from, to });
    renderDraft();
  });

  const said: Record<Exclude<RunOutcome, 'answered'>, string> = {
    failed: 'Not compared: the run failed (the error is under Run).',
    unsent: 'Not compared: a field under Run holds a bad number (said under it). Fix it, then compare.',
    cancelled: 'Not compared: cancelled.',
    superseded: '',
  };

  $('scenario-run').addEventListener('click', async () => {
    // The field is not in the scenario until Set, but a bad number in it is never what was meant.
    const field = nodeField();
    if (!field.check().valid) {
      status.textContent =
        field === servers
          ? `Not compared: the servers are not a whole number from 1 to ${SERVERS_AT_MOST}. Fix them or empty the field first.`
          : 'Not compared: the capacity is not a number above 0. Fix it or empty it first.';
      field.input.focus();
      return;
    }
    const fields = scenario();
    if (Object.keys(fields).length === 0) {
      status.textContent = 'Nothing to compare yet: change something first.';
      return;
    }
    const compare = ++compares;
    const before = { comparing, sent };
    comparing = true;
    sent = fields;
    status.textContent = 'Comparing…';
    const outcome = await page.rerun({ scenario: fields, compare: true });
    if (compare !== compares) return;
    if (outcome === 'unsent') {
      // Nothing was sent, and a compare sent before goes on: its answer is still to be read as
      // the scenario it sent.
      compares = compare - 1;
      ({ comparing, sent } = before);
      status.textContent = said.unsent;
      return;
    }
    comparing = false;
    sent = {};
    // An answer says its own (`Compared at tick …`), from onAnswer.
    if (outcome !== 'answered') status.textContent = said[outcome];
    if (outcome === 'failed') changesList.replaceChildren();
  });

  $('scenario-clear').addEventListener('click', () => {
    draft.scale = 1;
    scaleInput.value = '1';
    scaleLabel.textContent = '×1';
    draft.nodes.clear();
    draft.cut.clear();
    capacityInput.value = '';
    capacity.check();
    serversInput.value = '';
    servers.check();
    downInput.checked = false;
    changesList.replaceChildren();
    status.textContent = '';
    renderDraft();
  });

  page.onAnswer((answer, traffic) => {
    fillNodes(answer);
    const changes = answer.changes as Changes | undefined;
    if (changes === undefined) {
      if (!comparing) changesList.replaceChildren();
      return;
    }
    // A body run with its own `scenario` and `compare` (written or pasted in the editor) is not
    // the draft above: said so, rather than beside "no change yet".
    status.textContent = comparing
      ? `Compared at tick ${changes.tick} with the structure as it is.`
      : `Compared at tick ${changes.tick}: the scenario in the request body with the structure as it is.`;
    showChanges(changes, traffic);
    const scenarioState = firstState(answer);
    // `baseline` is the answer without the scenario: a state, or a timeline's states.
    const baselineState = ([] as EngineResult[]).concat((answer.baseline as EngineResult) ?? [])[0];
    if (scenarioState === undefined || baselineState === undefined) return;
    const marks = scenarioMarks(
      sent.nodes as Parameters<typeof scenarioMarks>[0],
      baselineState,
      scenarioState,
    );
    page.setColouring(changeColouring(answer, changes, marks));
  });

  /** The node picker lists the answer's nodes (the first 5,000; the graph click reaches any). */
  function fillNodes(answer: EngineAnswer): void {
    const result = firstState(answer);
    if (result === undefined) return;
    const previous = nodeSelect.value;
    nodeSelect.replaceChildren(new Option('(click a node)', ''));
    queued.clear();
    for (const node of result.nodes.slice(0, 5000)) {
      nodeSelect.append(new Option(node.id, node.id));
      if (typeof (node as { servers?: unknown }).servers === 'number') queued.add(node.id);
    }
    nodeSelect.value = result.nodes.some((node) => node.id === previous) ? previous : '';
    showNodeField();
  }

  function showChanges(changes: Changes, traffic: Traffic): void {
    changesList.replaceChildren();
    const line = (field: string, text: string) => {
      const li = document.createElement('li');
      li.dataset.field = field;
      li.textContent = text;
      changesList.append(li);
    };
    const { before, after } = changes.primaryBlockage;
    // The headroom belongs to the blockage: how far traffic can grow before it saturates. The
    // baseline's is a factor of today's traffic, the scenario's of its own (×2 of it, say).
    const headroom = (value: Headroom | null | undefined, traffic: Traffic) =>
      value === null || value === undefined ? '' : ` (${headroomPhrase(value, (id) => id, traffic)})`;
    line(
      'blockage',
      `Primary blockage: ${before ?? 'none'}${headroom(changes.headroom?.before, TODAY)} → ${after ?? 'none'}${headroom(changes.headroom?.after, traffic)}`,
    );
    // Lost traffic first: a down node is the worst the steady state can say.
    const { lost } = changes;
    if (lost !== undefined && (lost.before > 0 || lost.after > 0))
      line('lost', `Lost: ${shown(lost.before)} → ${shown(lost.after)} per step`);
    if (changes.saturated !== undefined && changes.saturated.newly.length > 0)
      line('saturated-newly', `Newly saturated: ${changes.saturated.newly.join(', ')}`);
    if (changes.saturated !== undefined && changes.saturated.cleared.length > 0)
      line('saturated-cleared', `No longer saturated: ${changes.saturated.cleared.join(', ')}`);
    // A flood (a loop that keeps what enters it) is worse than any overload: said as such.
    if (changes.unbounded !== undefined && changes.unbounded.newly.length > 0)
      line(
        'unbounded-newly',
        `Newly unbounded (traffic grows without limit): ${changes.unbounded.newly.join(', ')}`,
      );
    if (changes.unbounded !== undefined && changes.unbounded.cleared.length > 0)
      line('unbounded-cleared', `No longer unbounded: ${changes.unbounded.cleared.join(', ')}`);
    // An entry stuck behind a node that never answers has no latency to compare: said here.
    if (changes.latencyLimit !== undefined && changes.latencyLimit.newly.length > 0)
      line(
        'stuck-newly',
        `Requests stuck (they reach a node that never answers): ${changes.latencyLimit.newly.join(', ')}`,
      );
    if (changes.latencyLimit !== undefined && changes.latencyLimit.cleared.length > 0)
      line('stuck-cleared', `No longer stuck: ${changes.latencyLimit.cleared.join(', ')}`);
    const latencyHeadroom = changes.latencyHeadroom;
    if (latencyHeadroom !== undefined && (latencyHeadroom.before !== null || latencyHeadroom.after !== null))
      line(
        'latency-headroom',
        `Latency headroom: ${sloHeadroomText(latencyHeadroom.before, TODAY)} → ${sloHeadroomText(latencyHeadroom.after, traffic)}`,
      );
    for (const node of changes.nodes) {
      const was = `${node.before.blocked ? 'blocked' : 'free'} ${node.before.role}`;
      const is = `${node.after.blocked ? 'blocked' : 'free'} ${node.after.role}`;
      line('node', `${node.id}: ${was} → ${is}`);
    }
    for (const row of changes.pressure) {
      line(
        'pressure',
        `${row.id}: pressure ${shown(row.before)} → ${shown(row.after)} (+${shown(row.increase)})`,
      );
    }
    // Utilization, throughput and times change either way: a decrease (traffic cut off, say)
    // shows its minus sign. Times in the step's unit, as the summary says them (`1.05 s`, `212 ms`).
    for (const [measure, words, format] of [
      ['utilization', 'utilization', undefined],
      ['throughput', 'throughput', undefined],
      ['responseTime', 'response time', durationText],
      ['latency', 'latency', durationText],
    ] as const) {
      for (const row of changes[measure] ?? []) {
        line(
          measure,
          `${row.id}: ${words} ${shown(row.before, format)} → ${shown(row.after, format)} (${signed(row.change, format)})`,
        );
      }
    }
    // Only the lines that say where things stand (the blockage, the latency headroom): nothing changed.
    if (
      changesList.querySelector('li:not([data-field="blockage"], [data-field="latency-headroom"])') === null
    ) {
      line(
        'none',
        changes.utilization === undefined
          ? 'No node is newly blocked or cleared, and no pressure grew.'
          : 'No node is newly blocked, saturated, stuck or cleared, no pressure grew, and no utilization, throughput or time changed.',
      );
    }
  }

  renderDraft();
}

function firstState(answer: EngineAnswer): EngineResult | undefined {
  return answer.engine ?? answer.snapshot ?? answer.snapshots?.[0];
}
