import type { Settings } from '../../lib/api/connect-request';
import { applySettings } from '../../lib/api/system-settings';
import { $ } from './dom';
import { scaleText } from './numbers';
import type { RunOutcome } from './page';
import { NoConnection, RunStopped, requestFailureLine } from './run-failure';
import { runInWorker } from './runner';
import { SERVER_TIMEOUT_MS } from './runs';
import { createSettingsEditor } from './settings-editor';
import type { CapacitiesOnShow } from './summary-panel';
import { whileBusy } from './while-busy';

/** What the systems panel needs of the page: to load a stored structure and run it. */
export interface SystemsPanelHost {
  setBody(text: string, about: string): void;
  run(): Promise<RunOutcome>;
  /** How many runs the page has started so far (any run: Run, Compare, an open). */
  runsSoFar(): number;
}

const TOKEN_STORAGE = 'sbe-explorer-user-token';

/** The API's error body (`{ error: { code, message } }`) in one line, `CODE: message`; else `HTTP 502`. */
function errorLine(status: number, json: unknown): string {
  const error = (json as { error?: unknown } | null | undefined)?.error;
  if (error !== null && typeof error === 'object') {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof message === 'string') return typeof code === 'string' ? `${code}: ${message}` : message;
  }
  return `HTTP ${status}`;
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
      : `headroom ${scaleText(headroom.scale)} before ${headroom.node} saturates`;
  const notes = answer.warnings.length === 0 ? '' : ` Notes: ${answer.warnings.join('; ')}.`;
  return (
    `Read as ${answer.format}: ${sizeOf(answer)}, ${entries}. ` +
    `Primary blockage: ${primaryBlockage ?? 'none'}; ${room}. Nothing was stored.${notes}`
  );
}

/**
 * Stored systems and registering new ones: the connect routes, with a user access token (kept
 * in `sessionStorage`, this tab only).
 */
export function createSystemsPanel(host: SystemsPanelHost): {
  /**
   * The capacities editor of the registered system the structure editor holds (as opened, not
   * edited since), for the page's empty state; `undefined` for any other structure.
   */
  capacitiesOnShow(): CapacitiesOnShow | undefined;
} {
  const userTokenInput = $<HTMLInputElement>('user-token');
  const systemsList = $('systems');
  const systemsStatus = $('systems-status');
  /** The system last opened, and the text it put in the editor. */
  let opened: { id: string; name: string; text: string } | undefined;
  /** Counts the opens: only the latest one loads its system. */
  let opens = 0;
  /** The runs the opens started themselves: not the user's clicks, so no later click than the open's. */
  let ownRuns = 0;
  /** The runs the user started (Run, Compare, an example, a link). */
  const userRuns = () => host.runsSoFar() - ownRuns;
  /** Both counts only grow, so their sum changes exactly when an open or a user's run begins. */
  const startsSoFar = () => opens + userRuns();
  userTokenInput.value = sessionStorage.getItem(TOKEN_STORAGE) ?? '';
  userTokenInput.addEventListener('change', () =>
    sessionStorage.setItem(TOKEN_STORAGE, userTokenInput.value.trim()),
  );

  /**
   * A request with the user's token; any answer resolves (4xx and 5xx included). No answer at
   * all rejects with `NoConnection`, none within `SERVER_TIMEOUT_MS` with `RunStopped('timeout')`.
   */
  async function withToken(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; json: unknown; etag: string | undefined }> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new RunStopped('timeout')), SERVER_TIMEOUT_MS);
    let response: Response;
    let text: string;
    try {
      response = await fetch(path, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${userTokenInput.value.trim()}` },
        signal: timeout.signal,
      });
      text = await response.text();
    } catch (thrown) {
      if (timeout.signal.aborted) throw timeout.signal.reason;
      throw new NoConnection(thrown instanceof Error ? thrown.message : String(thrown));
    } finally {
      clearTimeout(timer);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, etag: response.headers.get('etag') ?? undefined };
  }

  const listButton = $<HTMLButtonElement>('list-systems');
  listButton.addEventListener('click', () => void whileBusy(listButton, systemsStatus, listSystems));

  async function listSystems(): Promise<void> {
    systemsStatus.textContent = 'Listing…';
    const { status, json } = await withToken('/api/systems?limit=100');
    systemsList.replaceChildren();
    if (status !== 200) throw new Error(errorLine(status, json));
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
      // Every system has one: its name tells them apart (as the Capacities buttons').
      open.setAttribute('aria-label', `Open ${system.name}`);
      open.addEventListener(
        'click',
        () =>
          void whileBusy(open, systemsStatus, async () => {
            systemsStatus.textContent = `Opening "${system.name}"…`;
            const outcome = await openSystem(system.id);
            // Loaded but not run: the answer on show is still the structure's before it.
            systemsStatus.textContent =
              outcome === 'unsent'
                ? `Opened "${system.name}" in the editor; not run: a field under Run holds a bad number (said under it).`
                : '';
          }),
      );
      const capacities = document.createElement('button');
      capacities.type = 'button';
      capacities.textContent = 'Capacities';
      capacities.setAttribute('aria-label', `Capacities of ${system.name}`);
      capacities.addEventListener('click', () => void settingsEditor.open(system.id, capacities));
      // The format the system was read in (absent on systems registered before formats).
      const read = system.format === undefined ? '' : `${system.format}, `;
      item.append(`${system.name} (${read}${sizeOf(system)}) `, open, capacities);
      systemsList.append(item);
    }
  }

  /**
   * Loads a stored structure into the editor, its settings applied as the server applies them,
   * and runs it here: the same bytes as `{ mode, systemId }` on the server. How the run ended;
   * rejects when the system could not be read (its error in words). Of two opens in flight, the
   * one begun last wins: an earlier one whose answer comes later is `superseded`, and loads nothing.
   * A run the user starts while the system is read wins too: the open loads nothing. With `asOf`
   * (an earlier `startsSoFar()`), nothing is opened if another open or a run of the user's began
   * since that mark either: a save's run never replaces what the user ran after pressing Save.
   * (An open's own run is not the user's: an Open pressed before Save whose answer comes after it
   * does not stop the save's run.)
   */
  async function openSystem(id: string, asOf?: number): Promise<RunOutcome> {
    if (asOf !== undefined && asOf !== startsSoFar()) return 'superseded';
    const mine = ++opens;
    const runsAt = userRuns();
    const { status, json } = await withToken(`/api/systems/${encodeURIComponent(id)}`);
    if (mine !== opens || userRuns() !== runsAt) return 'superseded';
    if (status !== 200) throw new Error(errorLine(status, json));
    const { structure, name, settings, format } = json as {
      name: string;
      format?: string;
      settings?: Settings;
      structure: { nodes: unknown[]; dependencies: unknown[] };
    };
    const withSettings = settings === undefined ? structure : applySettings(structure, settings);
    const text = JSON.stringify({ mode: 'analyze', ...withSettings }, null, 2);
    host.setBody(
      text,
      `Stored system "${name}" (${id})${format === undefined ? '' : `, read as ${format}`}${settings === undefined ? '' : ', with its capacities'}.`,
    );
    opened = { id, name, text };
    // A run takes its number before its first wait, so the count has moved once run() returns.
    const runsBefore = host.runsSoFar();
    const running = host.run();
    ownRuns += host.runsSoFar() - runsBefore;
    return running;
  }

  const settingsEditor = createSettingsEditor({
    withToken,
    openSystem,
    startsSoFar,
    errorLine,
    notice(text) {
      systemsStatus.classList.remove('request-failed');
      systemsStatus.textContent = text;
    },
  });

  const testButton = $<HTMLButtonElement>('test-url');
  testButton.addEventListener('click', () => void whileBusy(testButton, systemsStatus, testUrl));

  async function testUrl(): Promise<void> {
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
      if (status !== 200) throw new Error(errorLine(status, json));
      systemsStatus.textContent = dryRunLine(json);
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
    if (answer.status !== 200) throw new Error(errorLine(answer.status, json));
    systemsStatus.textContent = `It holds a structure the engine accepts: ${sizeOf({ nodes: json.nodes ?? 0, dependencies: json.dependencies ?? 0 })}.`;
  }

  const registerButton = $<HTMLButtonElement>('register');
  registerButton.addEventListener('click', () => void whileBusy(registerButton, systemsStatus, register));

  async function register(): Promise<void> {
    const name = $<HTMLInputElement>('system-name').value.trim();
    const url = $<HTMLInputElement>('system-url').value.trim();
    systemsStatus.textContent = 'Registering…';
    const { status, json } = await withToken('/api/connect', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, url }),
    });
    if (status !== 201) throw new Error(errorLine(status, json));
    const system = json as { id: string; nodes: number; dependencies: number };
    const registered = `Registered as ${system.id}: ${sizeOf(system)}.`;
    systemsStatus.textContent = registered;
    // The list with it; a list that fails says so, after the registration.
    await listSystems().then(
      () => {
        systemsStatus.textContent = registered;
      },
      (thrown: unknown) => {
        throw new Error(
          `${registered} The list could not be read: ${requestFailureLine(thrown, SERVER_TIMEOUT_MS)}`,
        );
      },
    );
  }

  return {
    capacitiesOnShow() {
      const system = opened;
      if (system === undefined || $<HTMLTextAreaElement>('body').value !== system.text) return undefined;
      return {
        name: system.name,
        open() {
          $<HTMLDetailsElement>('systems-panel').open = true;
          void settingsEditor.open(system.id);
        },
      };
    },
  };
}

/** `1 node, 0 dependencies`: a structure's size in words, each count with its own number. */
function sizeOf({ nodes, dependencies }: { nodes: number; dependencies: number }): string {
  const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  return `${counted(nodes, 'node', 'nodes')}, ${counted(dependencies, 'dependency', 'dependencies')}`;
}
