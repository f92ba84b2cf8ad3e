import { keyStep } from '../../lib/text/describe-value';
import { $ } from './dom';
import { displayNamesOf } from './names';
import { CAPACITY, type CheckedNumberField, checkedNumberField, type NumberRule } from './number-field';
import type { RunOutcome } from './page';
import { requestFailureLine } from './run-failure';
import { SERVER_TIMEOUT_MS } from './runs';
import { whileBusy } from './while-busy';

/** What the editor needs of the systems panel: the token's requests, and opening a system. */
export interface SettingsEditorHost {
  withToken(
    path: string,
    init?: RequestInit,
  ): Promise<{ status: number; json: unknown; etag: string | undefined }>;
  /**
   * Loads the system (its settings applied) into the editor and runs it: how the run ended.
   * Rejects when the system could not be read. With `asOf` (a mark from `startsSoFar`), only if
   * no system was opened and no run started since: else `superseded`, and nothing is loaded.
   */
  openSystem(id: string, asOf?: number): Promise<RunOutcome>;
  /** How many systems were opened and runs started so far: a mark for `openSystem`'s `asOf`. */
  startsSoFar(): number;
  errorLine(status: number, json: unknown): string;
  /** Says `text` outside the editor (the systems panel's status): for a save the editor no longer shows. */
  notice(text: string): void;
}

interface NodeSettings {
  capacity?: unknown;
  arrival?: unknown;
  /** Fields the editor has no column for (`serviceTime`, `servers`, `slo`): kept as they are. */
  [field: string]: unknown;
}

interface Settings {
  defaultCapacity?: unknown;
  nodes?: Record<string, NodeSettings>;
}

/** Most node ids offered as suggestions (the settings themselves hold at most 500 entries). */
const MAX_SUGGESTED_IDS = 5000;

/**
 * The settings' rules (connect.md): a capacity above 0, an arrival from 0 up. A row's fields sit
 * in narrow columns under their heading: their messages are short.
 */
const RULES: Record<'capacity' | 'arrival', NumberRule> = {
  capacity: CAPACITY('A number above 0.'),
  arrival: { accepts: (value) => value >= 0, takes: 'A number from 0 up.' },
};
const DEFAULT_CAPACITY = CAPACITY('A capacity is a number above 0.');

function shown(value: unknown): string {
  return value === undefined ? '' : String(value);
}

/**
 * The capacities of a registered system: `defaultCapacity` and per-node `capacity` / `arrival`,
 * saved with `PATCH /api/systems/{id}` `{ settings }` (which replaces them; a node's other
 * settings, such as its service time, are sent again as they were read), then the system run
 * again with them. A 400 shows the server's message and marks the field it names; no answer (no
 * connection, none in time) is said in the editor's status, and Save can be pressed again.
 */
export function createSettingsEditor(host: SettingsEditorHost) {
  const editor = $<HTMLFormElement>('settings-editor');
  const heading = $('settings-heading');
  const defaultCapacity = $<HTMLInputElement>('default-capacity');
  const rows = $('settings-nodes');
  const suggestions = $('settings-node-ids');
  const status = $('settings-status');
  const saveButton = $<HTMLButtonElement>('save-settings');
  let systemId: string | undefined;
  /** The name of the system shown, for what a save says once the editor shows another. */
  let systemName = '';
  /** The ETag of the settings the editor shows: a save applies only while they are still those. */
  let settingsTag: string | undefined;
  /**
   * Counts what the editor shows (each open, and Close): a request answers into the editor only
   * while the count is the one it started with, so a late answer never lands on another system.
   */
  let opening = 0;
  /** An open's settings are still being read. */
  let loading = false;
  /** The button that opened the editor: Close gives it the focus back. */
  let openedBy: HTMLButtonElement | undefined;
  /** Each number field, checked as it is typed; a save sends none that holds a bad number. */
  const numbers = new Map<HTMLInputElement, CheckedNumberField>();
  numbers.set(
    defaultCapacity,
    checkedNumberField(defaultCapacity, DEFAULT_CAPACITY, $('default-capacity-problem')),
  );

  /**
   * Per row read from the stored settings, its node id then and the fields the editor shows no
   * column for (`serviceTime`, `servers`, `slo`, set with the API): a save keeps them while the
   * row names the same node, since `PATCH` replaces the settings whole.
   */
  const keptFields = new WeakMap<HTMLTableRowElement, { id: string; fields: Record<string, unknown> }>();

  function addRow(id = '', settings: NodeSettings = {}): HTMLTableRowElement {
    const row = document.createElement('tr');
    const { capacity: _capacity, arrival: _arrival, ...others } = settings;
    const kept = Object.entries(others);
    if (kept.length > 0) keptFields.set(row, { id, fields: Object.fromEntries(kept) });
    const cell = (field: string, value: string, label: string) => {
      const input = document.createElement('input');
      input.type = 'text';
      input.dataset.field = field;
      input.value = value;
      input.autocomplete = 'off';
      input.setAttribute('aria-label', label);
      const td = document.createElement('td');
      td.append(input);
      if (field === 'node') input.setAttribute('list', 'settings-node-ids');
      else {
        input.inputMode = 'decimal';
        const problem = document.createElement('span');
        td.append(problem);
        numbers.set(input, checkedNumberField(input, RULES[field as keyof typeof RULES], problem));
      }
      return td;
    };
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = '×';
    remove.title = 'Remove this node';
    remove.addEventListener('click', () => {
      for (const field of row.querySelectorAll('input')) numbers.delete(field);
      row.remove();
    });
    const removeCell = document.createElement('td');
    removeCell.append(remove);
    const nodeCell = cell('node', id, 'Node id');
    // Said under the id, so a save that keeps them, and a × that removes them, are no surprise;
    // once the id is changed they stay with the node they were read for, and the note says so.
    let sayKept = () => {};
    if (kept.length > 0) {
      const note = document.createElement('span');
      note.className = 'settings-kept';
      const listed = kept.map(([field, value]) => `${field} ${String(value)}`).join(', ');
      sayKept = () => {
        note.textContent =
          input(row, 'node').value.trim() === id ? `keeps ${listed}` : `drops ${listed} (set for ${id})`;
      };
      nodeCell.append(note);
    }
    row.append(
      nodeCell,
      cell('capacity', shown(settings.capacity), 'Capacity'),
      cell('arrival', shown(settings.arrival), 'Arrival'),
      removeCell,
    );
    // Each row's button named after its node, so the buttons' names tell them apart.
    const nodeField = input(row, 'node');
    const name = () => remove.setAttribute('aria-label', `Remove ${nodeField.value.trim() || 'this node'}`);
    nodeField.addEventListener('input', () => {
      name();
      sayKept();
    });
    name();
    sayKept();
    rows.append(row);
    return row;
  }

  function input(row: Element, field: string): HTMLInputElement {
    return row.querySelector(`input[data-field="${field}"]`) as HTMLInputElement;
  }

  /** A checked field's number; `undefined` when empty (checked before anything is sent). */
  function fieldValue(field: HTMLInputElement): number | undefined {
    const reading = numbers.get(field)?.read();
    return reading?.valid === true && typeof reading.value === 'number' ? reading.value : undefined;
  }

  function settingsToSend(): Settings {
    const settings: Settings = {};
    const fallback = fieldValue(defaultCapacity);
    if (fallback !== undefined) settings.defaultCapacity = fallback;
    const nodes: [string, NodeSettings][] = [];
    for (const row of rows.querySelectorAll('tr')) {
      const id = input(row, 'node').value.trim();
      if (id === '') continue;
      const kept = keptFields.get(row);
      const entry: NodeSettings = kept !== undefined && kept.id === id ? { ...kept.fields } : {};
      const capacity = fieldValue(input(row, 'capacity'));
      const arrival = fieldValue(input(row, 'arrival'));
      if (capacity !== undefined) entry.capacity = capacity;
      if (arrival !== undefined) entry.arrival = arrival;
      nodes.push([id, entry]);
    }
    // Object.fromEntries defines each id as data: a node named `__proto__` keeps its entry.
    if (nodes.length > 0) settings.nodes = Object.fromEntries(nodes);
    return settings;
  }

  /**
   * The node field of the first row whose id an earlier row has: the settings hold one entry per
   * node, so one of the two rows would be lost on save.
   */
  function repeatedNodeField(): HTMLInputElement | undefined {
    const seen = new Set<string>();
    for (const row of rows.querySelectorAll('tr')) {
      const field = input(row, 'node');
      const id = field.value.trim();
      if (id === '') continue;
      if (seen.has(id)) return field;
      seen.add(id);
    }
    return undefined;
  }

  /** Marks the input a server error's path names (`settings.nodes.<id>.capacity`, …). */
  function markInvalid(path: string | undefined): void {
    for (const field of editor.querySelectorAll('input[aria-invalid]')) field.removeAttribute('aria-invalid');
    if (path === undefined) return;
    if (path === 'settings.defaultCapacity') {
      defaultCapacity.setAttribute('aria-invalid', 'true');
      return;
    }
    // The server names a node's setting as `settings.nodes.db.capacity`, or with the id bracketed
    // and cut where it is not plain (`settings.nodes["a.b"].capacity`): the same helper spells it here.
    for (const row of rows.querySelectorAll('tr')) {
      const id = input(row, 'node').value.trim();
      const at = `settings.nodes${keyStep(id)}`;
      if (path === at) input(row, 'node').setAttribute('aria-invalid', 'true');
      for (const field of ['capacity', 'arrival'])
        if (path === `${at}.${field}`) input(row, field).setAttribute('aria-invalid', 'true');
    }
  }

  $('add-setting').addEventListener('click', () => input(addRow(), 'node').focus());
  /**
   * The editor moves on (an open, or Close): a new count, so no earlier request answers into it,
   * and Save free again, as a save still in flight is no longer this editor's.
   */
  function moveOn(): number {
    saveButton.disabled = false;
    return ++opening;
  }

  $('close-settings').addEventListener('click', () => {
    moveOn();
    loading = false;
    editor.hidden = true;
    // The focus was in the editor, now hidden: back where the user opened it from.
    if (openedBy?.isConnected) openedBy.focus();
  });
  editor.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (loading) {
      status.className = 'settings-error';
      status.textContent = 'Not saved: these capacities are still being read.';
      return;
    }
    if (systemId === undefined) {
      status.className = 'settings-error';
      status.textContent = 'Nothing to save: these capacities could not be read. Open them again.';
      return;
    }
    const id = systemId;
    const twice = repeatedNodeField();
    if (twice !== undefined) {
      markInvalid(undefined);
      twice.setAttribute('aria-invalid', 'true');
      status.className = 'settings-error';
      status.textContent = `Nothing was saved: ${JSON.stringify(twice.value.trim())} is in two rows (marked): keep one.`;
      twice.focus();
      return;
    }
    const bad = [...numbers.values()].filter((field) => !field.check().valid);
    if (bad.length > 0) {
      status.className = 'settings-error';
      status.textContent = `Nothing was saved: ${bad.length === 1 ? '1 field holds no number it accepts' : `${bad.length} fields hold no number they accept`} (marked).`;
      bad[0]!.input.focus();
      return;
    }
    status.className = '';
    const ticket = opening;
    const name = systemName;
    const asOf = host.startsSoFar();
    await whileBusy(saveButton, status, () => saving(id, name, ticket, asOf), {
      owns: () => ticket === opening,
    });
  });

  /**
   * `save`, its outcome said in the editor while it shows this system, and once it shows another
   * (or is closed) in the systems panel, named: a save is never lost from view.
   */
  async function saving(id: string, name: string, ticket: number, asOf: number): Promise<void> {
    try {
      const said = await save(id, ticket, asOf);
      if (ticket !== opening) host.notice(`Capacities of "${name}": ${said}`);
    } catch (thrown) {
      if (ticket === opening) throw thrown;
      host.notice(`Capacities of "${name}": ${requestFailureLine(thrown, SERVER_TIMEOUT_MS)}`);
    }
  }

  /** Runs `work`; what it throws once the editor shows something else is not this editor's to say. */
  async function whileShown(ticket: number, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (thrown) {
      if (ticket === opening) throw thrown;
    }
  }

  /**
   * Saves the settings as shown, then runs the system with them, unless another system was opened
   * or another run started since Save was pressed (`asOf`: the later click wins); rejects when
   * either gets no answer, and returns what it said. Once the editor shows another system (or is
   * closed), nothing of the answer lands in it: neither its status nor, above all, the new ETag,
   * which would then guard another system's settings.
   */
  async function save(id: string, ticket: number, asOf: number): Promise<string> {
    const shown = () => ticket === opening;
    status.textContent = 'Saving…';
    const {
      status: code,
      json,
      etag,
    } = await host.withToken(`/api/systems/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        ...(settingsTag === undefined ? {} : { 'if-match': settingsTag }),
      },
      body: JSON.stringify({ settings: settingsToSend() }),
    });
    if (code !== 200) {
      const line =
        code === 412
          ? 'Nothing was saved: these capacities were changed elsewhere since you opened them. Close and open them again to see the new ones, then save.'
          : host.errorLine(code, json);
      if (shown()) {
        const details = (json as { error?: { details?: Array<{ path: string }> } } | undefined)?.error
          ?.details;
        markInvalid(details?.[0]?.path);
        status.className = 'settings-error';
        status.textContent = line;
      }
      return line;
    }
    if (shown()) {
      settingsTag = etag;
      markInvalid(undefined);
      status.textContent = 'Saved. Running the system with them…';
    }
    let outcome: RunOutcome;
    try {
      outcome = await host.openSystem(id, asOf);
    } catch (thrown) {
      throw new Error(
        `Saved, but the system could not be read again to run it: ${requestFailureLine(thrown, SERVER_TIMEOUT_MS)}`,
      );
    }
    const line =
      outcome === 'answered'
        ? 'Saved; the answer below runs with them.'
        : outcome === 'unsent'
          ? 'Saved; not run: a field under Run holds a bad number (said under it).'
          : outcome === 'superseded'
            ? 'Saved; not run, as another system was opened or another run started since.'
            : 'Saved; the run with them gave no answer (see under Run).';
    if (shown()) status.textContent = line;
    return line;
  }

  /**
   * Reads a system's settings into the editor; rejects when they cannot be read. Does nothing
   * once a later open has begun: an answer that comes late never replaces the system clicked last.
   */
  async function load(id: string, ticket: number): Promise<void> {
    const { status: code, json, etag } = await host.withToken(`/api/systems/${encodeURIComponent(id)}`);
    if (ticket !== opening) return;
    if (code !== 200) throw new Error(host.errorLine(code, json));
    settingsTag = etag;
    const record = json as {
      name: string;
      settings?: Settings;
      structure: { nodes: Array<{ id: string }>; dependencies: unknown[] };
    };
    systemId = id;
    systemName = record.name;
    heading.textContent = `Capacities of "${record.name}"`;
    defaultCapacity.value = shown(record.settings?.defaultCapacity);
    for (const field of rows.querySelectorAll('input')) numbers.delete(field);
    rows.replaceChildren();
    for (const [node, settings] of Object.entries(record.settings?.nodes ?? {})) addRow(node, settings);
    if (rows.childElementCount === 0) addRow();
    const names = displayNamesOf(record.structure.nodes);
    suggestions.replaceChildren(
      ...record.structure.nodes.slice(0, MAX_SUGGESTED_IDS).map((node) => {
        const option = document.createElement('option');
        option.value = node.id;
        const name = names.get(node.id);
        if (name !== undefined) option.label = name;
        return option;
      }),
    );
    markInvalid(undefined);
    for (const field of numbers.values()) field.check();
    status.textContent = '';
  }

  return {
    /**
     * Opens the editor on a system, once read: its current settings, its node ids as suggestions.
     * `button` (the one clicked) is disabled meanwhile; a failure is said in the editor's status.
     */
    async open(id: string, button?: HTMLButtonElement): Promise<void> {
      // Nothing of the system shown before stays while this one is read, or if it cannot be.
      systemId = undefined;
      settingsTag = undefined;
      heading.textContent = 'Capacities';
      defaultCapacity.value = '';
      for (const field of rows.querySelectorAll('input')) numbers.delete(field);
      rows.replaceChildren();
      for (const field of numbers.values()) field.check();
      status.className = '';
      status.textContent = 'Loading…';
      const ticket = moveOn();
      loading = true;
      openedBy = button;
      await whileBusy(button, status, () => whileShown(ticket, () => load(id, ticket)), {
        refocus: () => ticket === opening,
      });
      if (ticket !== opening) return;
      loading = false;
      // Shown once read (or not): its heading then names the system, or its status says why not.
      editor.hidden = false;
      if (systemId === id) defaultCapacity.focus();
    },
  };
}
