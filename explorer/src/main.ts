import type { EngineEvent, EngineResult, NodeState } from '../../lib/engine/types';
import { drawChart, type Series, timelineSeries } from './chart';
import { colourKeyText, colourMeasure } from './colour-by';
import { EXAMPLES } from './examples';
import { drawGraph, MAX_DRAWN_NODES } from './graph-view';
import type { LargeGraphView } from './large-graph';
import type { RunAnswer } from './protocol';
import { svgElement } from './svg';

/** One described state of the current answer: the analyze result (tick 0) or a snapshot. */
interface State {
  tick: number;
  result: EngineResult;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const bodyInput = $<HTMLTextAreaElement>('body');
const exampleSelect = $<HTMLSelectElement>('example');
const runAs = $<HTMLSelectElement>('run-as');
const tickCount = $<HTMLInputElement>('tick-count');
const onServer = $<HTMLInputElement>('on-server');
const apiKeyInput = $<HTMLInputElement>('api-key');
const statusLine = $('status');
const errorPanel = $('error');
const summary = $('summary');
const graph = document.getElementById('graph') as unknown as SVGSVGElement;
const graphNote = $('graph-note');
const colourKey = $('colour-key');
const timeline = $('timeline');
const tickSlider = $<HTMLInputElement>('tick');
const tickLabel = $('tick-label');
const eventList = $('events');
const details = $('details');
const raw = $('raw');
const largeGraph = $('large-graph');
/** The WebGL view of the current answer's structure (above the SVG view's limit), once loaded. */
let largeView: LargeGraphView | undefined;
let largeViewFor: EngineResult | undefined;
const chartFigure = $('chart-figure');
const chart = document.getElementById('chart') as unknown as SVGSVGElement;
const chartLegend = $('chart-legend');
const allEventsPanel = $<HTMLDetailsElement>('all-events-panel');
const allEvents = $('all-events');
/** Most events listed for a whole timeline; the current tick's are always all shown. */
const MAX_LISTED_EVENTS = 2000;

const KEY_STORAGE = 'sbe-explorer-api-key';
const RAW_SHOWN_CHARS = 1_000_000;
const SHARE_LIMIT_BYTES = 16 * 1024;

let states: State[] = [];
let current = 0;
let selected: string | undefined;
let responseText = '';

const worker = new Worker('/engine-worker.js', { type: 'module' });
let nextRun = 0;
const pending = new Map<number, (answer: RunAnswer) => void>();
worker.onmessage = (event: MessageEvent<RunAnswer>) => {
  pending.get(event.data.id)?.(event.data);
  pending.delete(event.data.id);
};

function runInWorker(body: string, kind: 'run' | 'upstream' = 'run'): Promise<RunAnswer> {
  const id = ++nextRun;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, kind, body });
  });
}

async function runOnServer(body: string): Promise<RunAnswer> {
  const started = performance.now();
  const response = await fetch('/api/engine', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKeyInput.value.trim()}` },
    body,
  });
  return { id: 0, status: response.status, text: await response.text(), ms: performance.now() - started };
}

/** The body to send: as written, or with `mode` (and `ticks`) set at the top level. */
function bodyToRun(): string {
  const text = bodyInput.value;
  if (runAs.value === 'written') return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text; // the engine names the syntax error, as the API does
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
  const body: Record<string, unknown> = { ...(parsed as Record<string, unknown>), mode: runAs.value };
  if (runAs.value === 'ticks') body.ticks = Number(tickCount.value);
  else delete body.ticks;
  return JSON.stringify(body);
}

async function run(): Promise<void> {
  const body = bodyToRun();
  document.body.dataset.state = 'running';
  statusLine.textContent = onServer.checked ? 'Running on the server…' : 'Running in the browser…';
  const answer = onServer.checked ? await runOnServer(body) : await runInWorker(body);
  show(answer);
}

function show(answer: RunAnswer): void {
  responseText = answer.text;
  raw.textContent =
    answer.text.length <= RAW_SHOWN_CHARS
      ? answer.text
      : `(${answer.text.length} characters: use Export JSON)`;
  const where = onServer.checked ? 'on the server' : 'in the browser, same bytes as the API';
  if (answer.status !== 200) {
    states = [];
    showError(answer);
    statusLine.textContent = `HTTP ${answer.status} (${where}, ${answer.ms.toFixed(0)} ms)`;
    document.body.dataset.state = 'error';
    return;
  }
  errorPanel.hidden = true;
  const response = JSON.parse(answer.text) as {
    mode: string;
    engine?: EngineResult;
    snapshot?: State['result'] & { tick: number };
    snapshots?: Array<State['result'] & { tick: number }>;
  };
  states = response.engine
    ? [{ tick: 0, result: response.engine }]
    : (response.snapshots ?? (response.snapshot ? [response.snapshot] : [])).map((s) => ({
        tick: s.tick,
        result: s,
      }));
  current = 0;
  selected = undefined;
  timeline.hidden = states.length < 2;
  tickSlider.min = '0';
  tickSlider.max = String(Math.max(0, states.length - 1));
  tickSlider.value = '0';
  statusLine.textContent = `${response.mode}: ${states.length} state${states.length === 1 ? '' : 's'} (${where}, ${answer.ms.toFixed(0)} ms)`;
  renderAllEvents();
  render();
  document.body.dataset.state = 'done';
}

function showError(answer: RunAnswer): void {
  errorPanel.hidden = false;
  errorPanel.replaceChildren();
  let parsed: {
    error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> };
  };
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    parsed = { error: { code: `HTTP ${answer.status}`, message: answer.text.slice(0, 500) } };
  }
  const heading = document.createElement('strong');
  heading.textContent = parsed.error?.code ?? `HTTP ${answer.status}`;
  const message = document.createElement('p');
  message.className = 'error-message';
  message.textContent = parsed.error?.message ?? '';
  errorPanel.append(heading, message);
  for (const detail of parsed.error?.details ?? []) {
    const item = document.createElement('p');
    const path = document.createElement('code');
    path.textContent = detail.path;
    item.append(path, `: ${detail.message}`);
    errorPanel.append(item);
  }
  summary.replaceChildren();
  graph.replaceChildren();
  eventList.replaceChildren();
  details.replaceChildren();
  timeline.hidden = true;
}

function render(): void {
  const state = states[current];
  if (!state) return;
  const { result } = state;
  tickLabel.textContent = `tick ${state.tick}`;
  renderSummary(result);
  colourKey.textContent = colourKeyText(colourMeasure(result).kind);
  if (result.nodes.length <= MAX_DRAWN_NODES) {
    graphNote.textContent = '';
    largeGraph.hidden = true;
    graph.style.display = '';
    drawGraph(graph, result, { selected, onSelect: select });
    document.body.dataset.graph = 'svg';
  } else {
    graph.replaceChildren();
    graph.style.display = 'none';
    largeGraph.hidden = false;
    graphNote.textContent = `${result.nodes.length.toLocaleString('en')} nodes, drawn with WebGL: drag to pan, scroll to zoom, click a node for its numbers.`;
    void showLargeGraph(result);
  }
  renderEvents(result.events);
  renderDetails(result);
  renderChart();
}

/** Loads the WebGL renderer on first use; one view per answer, recoloured for each state. */
async function showLargeGraph(result: EngineResult): Promise<void> {
  const first = states[0]?.result;
  if (largeView === undefined || largeViewFor !== first) {
    largeView?.kill();
    document.body.dataset.graph = 'loading';
    const started = performance.now();
    const { drawLargeGraph } = await import('./large-graph');
    largeView = drawLargeGraph(largeGraph, result, select);
    largeViewFor = first;
    document.body.dataset.graphMs = (performance.now() - started).toFixed(0);
  } else {
    largeView.update(result, selected);
  }
  document.body.dataset.graph = 'webgl';
}

/** For the benchmark: frame times of camera moves on the WebGL view. */
(globalThis as { explorerFrameTimes?: (frames: number) => Promise<number[]> }).explorerFrameTimes = (
  frames,
) => largeView?.measureFrames(frames) ?? Promise.resolve([]);

function goTo(index: number, node?: string): void {
  current = index;
  tickSlider.value = String(index);
  if (node !== undefined) selected = node;
  render();
}

let chartSeries: { states: State[]; selected: string | undefined; series: Series[] } | undefined;

function renderChart(): void {
  chartFigure.hidden = states.length < 2;
  if (states.length < 2) return;
  // Summing every node of every state is the chart's cost: once per answer and selection, not
  // on every move of the slider.
  if (chartSeries?.states !== states || chartSeries.selected !== selected) {
    chartSeries = { states, selected, series: timelineSeries(states, selected) };
  }
  const { series } = chartSeries;
  drawChart(
    chart,
    states.map((s) => s.tick),
    series,
    current,
    (index) => goTo(index),
  );
  chartLegend.replaceChildren(
    ...series.map((s) => {
      const item = document.createElement('span');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.borderColor = s.colour;
      item.append(swatch, `${s.label}: ${s.values[current]}`);
      return item;
    }),
  );
}

/** Every tick's events, each clickable: the tick jumps there, a node also selects it. */
function renderAllEvents(): void {
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
        node.textContent = event.node;
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
}

function field(label: string, value: string): HTMLElement {
  const row = document.createElement('div');
  const term = document.createElement('dt');
  term.textContent = label;
  const definition = document.createElement('dd');
  definition.textContent = value;
  row.append(term, definition);
  return row;
}

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

function nodeButton(id: string): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'node-link';
  button.textContent = id;
  button.addEventListener('click', () => select(id));
  return button;
}

function renderSummary(result: EngineResult): void {
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
}

function renderEvents(events: readonly EngineEvent[]): void {
  eventList.replaceChildren();
  for (const event of events) {
    const item = document.createElement('li');
    item.dataset.type = event.type;
    item.append(`${event.type} `);
    if ('node' in event) item.append(nodeButton(event.node));
    if (event.type === 'blocked') item.append(` (pressure ${event.pressure})`);
    if (event.type === 'cycle')
      item.append(`${event.closed ? 'closed' : 'with an exit'}: ${event.nodes.join(', ')}`);
    eventList.append(item);
  }
  if (events.length === 0) {
    const item = document.createElement('li');
    item.textContent = 'no events';
    eventList.append(item);
  }
}

function renderDetails(result: EngineResult): void {
  details.replaceChildren();
  const node: NodeState | undefined = result.nodes.find((n) => n.id === selected);
  if (!node) {
    details.textContent = 'Select a node (click, or Tab and Enter) to see its numbers.';
    return;
  }
  const list = document.createElement('dl');
  list.append(field('Node', node.id), field('Role', node.role), field('Load', String(node.load)));
  if (node.capacity !== undefined) list.append(field('Capacity', String(node.capacity)));
  list.append(
    field('Inflow', String(node.inflow)),
    field('Outflow', String(node.outflow)),
    field('Pressure', String(node.pressure)),
    field('Blocked', node.blocked ? 'yes' : 'no'),
  );
  details.append(list);
}

function select(id: string): void {
  selected = id;
  render();
}

function download(name: string, type: string, content: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([content], { type }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replaceAll('-', '+').replaceAll('_', '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function loadExample(index: number): void {
  const example = EXAMPLES[index];
  if (!example) return;
  bodyInput.value = JSON.stringify(example.body(), null, index === EXAMPLES.length - 1 ? 0 : 2);
  $('example-about').textContent = example.about;
}

for (const [index, example] of EXAMPLES.entries()) {
  const option = document.createElement('option');
  option.value = String(index);
  option.textContent = example.name;
  exampleSelect.append(option);
}
exampleSelect.addEventListener('change', () => loadExample(Number(exampleSelect.value)));
// A JSON file dropped on the editor replaces its text (read here; nothing is uploaded).
bodyInput.addEventListener('dragover', (event) => event.preventDefault());
bodyInput.addEventListener('drop', async (event) => {
  const file = event.dataTransfer?.files[0];
  if (!file) return;
  event.preventDefault();
  bodyInput.value = await file.text();
  $('example-about').textContent = `From ${file.name}.`;
});
$('run').addEventListener('click', () => void run());
$('load-worked').addEventListener('click', () => {
  exampleSelect.value = '0';
  loadExample(0);
  void run();
});
tickSlider.addEventListener('input', () => {
  current = Number(tickSlider.value);
  render();
});
apiKeyInput.value = sessionStorage.getItem(KEY_STORAGE) ?? '';
apiKeyInput.addEventListener('change', () => sessionStorage.setItem(KEY_STORAGE, apiKeyInput.value.trim()));
onServer.addEventListener('change', () => {
  $('key-row').hidden = !onServer.checked;
});
$('export-json').addEventListener('click', () => download('result.json', 'application/json', responseText));
/** The graph as a standalone SVG document, its style sheet embedded. */
function graphSvgText(): string {
  const copy = graph.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const box = graph.viewBox.baseVal;
  copy.setAttribute('width', String(box.width));
  copy.setAttribute('height', String(box.height));
  const style = svgElement('style', {});
  style.textContent = $('svg-style').textContent ?? '';
  copy.prepend(style);
  return new XMLSerializer().serializeToString(copy);
}

$('export-svg').addEventListener('click', () => download('structure.svg', 'image/svg+xml', graphSvgText()));
$('export-png').addEventListener('click', () => {
  const url = URL.createObjectURL(new Blob([graphSvgText()], { type: 'image/svg+xml' }));
  const image = new Image();
  image.onload = () => {
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = image.width * scale;
    canvas.height = image.height * scale;
    const context = canvas.getContext('2d')!;
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => {
      if (!blob) return;
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'structure.png';
      link.click();
      URL.revokeObjectURL(link.href);
    }, 'image/png');
  };
  image.src = url;
});
$('share').addEventListener('click', () => {
  const body = bodyInput.value;
  const size = new TextEncoder().encode(body).length;
  if (size > SHARE_LIMIT_BYTES) {
    statusLine.textContent = `A link carries structures up to ${SHARE_LIMIT_BYTES / 1024} KB; this one is ${Math.ceil(size / 1024)} KB.`;
    return;
  }
  // The fragment never leaves the browser: the structure is not sent to any server.
  history.replaceState(null, '', `#body=${toBase64Url(body)}`);
  statusLine.textContent = 'The link in the address bar now carries this structure.';
});

// Stored systems and registering new ones: the connect routes, with a user access token.
const userTokenInput = $<HTMLInputElement>('user-token');
const systemsList = $('systems');
const systemsStatus = $('systems-status');
const TOKEN_STORAGE = 'sbe-explorer-user-token';
userTokenInput.value = sessionStorage.getItem(TOKEN_STORAGE) ?? '';
userTokenInput.addEventListener('change', () =>
  sessionStorage.setItem(TOKEN_STORAGE, userTokenInput.value.trim()),
);

async function withToken(path: string, init: RequestInit = {}): Promise<{ status: number; json: unknown }> {
  const response = await fetch(path, {
    ...init,
    headers: { ...init.headers, authorization: `Bearer ${userTokenInput.value.trim()}` },
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

/** The API's error body in one line: `CODE: message`. */
function errorLine(status: number, json: unknown): string {
  const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
  return error ? `${error.code}: ${error.message}` : `HTTP ${status}`;
}

$('list-systems').addEventListener('click', async () => {
  systemsStatus.textContent = 'Listing…';
  const { status, json } = await withToken('/api/systems?limit=100');
  systemsList.replaceChildren();
  if (status !== 200) {
    systemsStatus.textContent = errorLine(status, json);
    return;
  }
  const systems = (
    json as {
      systems: Array<{ id: string; name: string; nodes: number; dependencies: number; format?: string }>;
    }
  ).systems;
  systemsStatus.textContent = systems.length === 0 ? 'No systems yet: register one below.' : '';
  for (const system of systems) {
    const item = document.createElement('li');
    const open = document.createElement('button');
    open.type = 'button';
    open.textContent = 'Open';
    open.addEventListener('click', () => void openSystem(system.id));
    // The format the system was read in (absent on systems registered before formats).
    const read = system.format === undefined ? '' : `${system.format}, `;
    item.append(`${system.name} (${read}${system.nodes} nodes, ${system.dependencies} dependencies) `, open);
    systemsList.append(item);
  }
});

/** Loads a stored structure into the editor and runs it here (the same bytes as with its systemId). */
async function openSystem(id: string): Promise<void> {
  const { status, json } = await withToken(`/api/systems/${encodeURIComponent(id)}`);
  if (status !== 200) {
    systemsStatus.textContent = errorLine(status, json);
    return;
  }
  const { structure, name } = json as {
    name: string;
    structure: { nodes: unknown[]; dependencies: unknown[] };
  };
  bodyInput.value = JSON.stringify({ mode: 'analyze', ...structure }, null, 2);
  $('example-about').textContent = `Stored system "${name}" (${id}).`;
  await run();
}

/** A dry run's answer in one line: how it was read, its size and entries, the engine's summary. */
function dryRunLine(json: unknown): string {
  const answer = json as {
    format: string;
    nodes: number;
    dependencies: number;
    entryCount: number;
    warnings: string[];
    analysis: { primaryBlockage: string | null; headroom: { scale: number; node: string } | null };
  };
  const entries =
    answer.entryCount === 0
      ? 'no entry points'
      : `${answer.entryCount} entry point${answer.entryCount === 1 ? '' : 's'}`;
  const { primaryBlockage, headroom } = answer.analysis;
  const room =
    headroom === null
      ? 'no headroom (no arrivals or no capacities)'
      : `headroom ×${Number(headroom.scale.toPrecision(3))} before ${headroom.node} saturates`;
  const notes = answer.warnings.length === 0 ? '' : ` Notes: ${answer.warnings.join('; ')}.`;
  return (
    `Read as ${answer.format}: ${answer.nodes} nodes, ${answer.dependencies} dependencies, ${entries}. ` +
    `Primary blockage: ${primaryBlockage ?? 'none'}; ${room}. Nothing was stored.${notes}`
  );
}

$('test-url').addEventListener('click', async () => {
  const url = $<HTMLInputElement>('system-url').value.trim();
  // With a user token the service tests it as connect would (a dry run, server side, so the
  // external API needs no CORS); without one, the browser fetches it and the worker checks it.
  if (userTokenInput.value.trim() !== '') {
    systemsStatus.textContent = 'Testing on the server (a dry run: nothing is stored)…';
    const name = $<HTMLInputElement>('system-name').value.trim() || 'dry run';
    const { status, json } = await withToken('/api/connect', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, url, dryRun: true }),
    });
    systemsStatus.textContent = status === 200 ? dryRunLine(json) : errorLine(status, json);
    return;
  }
  systemsStatus.textContent = 'Fetching in the browser…';
  let text: string;
  try {
    const response = await fetch(url, {
      method: 'GET',
      credentials: 'omit',
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      systemsStatus.textContent = `The URL answered HTTP ${response.status}; connect would refuse it too (UPSTREAM_ERROR).`;
      return;
    }
    text = await response.text();
  } catch {
    // The browser hides why; a refused cross-origin read and an unreachable host look the same.
    systemsStatus.textContent =
      'The browser could not read this URL: it does not allow cross-origin requests (CORS), or it is unreachable. ' +
      'Register may still work, since the service fetches it from the server, where CORS does not apply.';
    return;
  }
  const answer = await runInWorker(text, 'upstream');
  const json = JSON.parse(answer.text) as { nodes?: number; dependencies?: number };
  systemsStatus.textContent =
    answer.status === 200
      ? `It holds a structure the engine accepts: ${json.nodes} nodes, ${json.dependencies} dependencies.`
      : errorLine(answer.status, json);
});

$('register').addEventListener('click', async () => {
  const name = $<HTMLInputElement>('system-name').value.trim();
  const url = $<HTMLInputElement>('system-url').value.trim();
  systemsStatus.textContent = 'Registering…';
  const { status, json } = await withToken('/api/connect', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, url }),
  });
  if (status !== 201) {
    systemsStatus.textContent = errorLine(status, json);
    return;
  }
  const system = json as { id: string; nodes: number; dependencies: number };
  systemsStatus.textContent = `Registered as ${system.id}: ${system.nodes} nodes, ${system.dependencies} dependencies.`;
  $('list-systems').click();
});

const shared = /^#body=([A-Za-z0-9_-]+)$/.exec(location.hash);
if (shared) {
  try {
    bodyInput.value = fromBase64Url(shared[1]!);
    void run();
  } catch {
    statusLine.textContent = 'The link does not carry a readable structure.';
  }
} else {
  loadExample(0);
}
