import type { EngineResult } from '../../lib/engine/types';
import { type BareStructure, emptyResult } from './bare-structure';
import { createDetailsPanel } from './details-panel';
import { $, download } from './dom';
import { createErrorPanel, type ShownError } from './error-panel';
import { createGraphPanel } from './graph-panel';
import { withEngineLatencyOnly } from './latency';
import { createLatencyPanel } from './latency-panel';
import { createNodeTable } from './node-table';
import type { RunAnswer } from './protocol';
import { latencyPointsInWorker } from './runner';
import { type Traffic, trafficOf } from './steady';
import { type CapacitiesOnShow, createSummaryPanel } from './summary-panel';
import { createTimelinePanel } from './timeline-panel';
import { createView, nameOf, type State, type View } from './view';

/** A 200 answer of the engine route, as the page reads it. */
export interface EngineAnswer {
  mode: string;
  engine?: EngineResult;
  snapshot?: State['result'] & { tick: number };
  snapshots?: Array<State['result'] & { tick: number }>;
  [field: string]: unknown;
}

const RAW_SHOWN_CHARS = 1_000_000;

/**
 * The Behaviour section: takes an answer and shows it through its panels (summary, graph,
 * timeline, events and details), or the error; keeps the state on show and the selection.
 */
export function createBehaviour() {
  const view = createView();
  const raw = $('raw');
  const nodeButton = (id: string): HTMLButtonElement => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'node-link';
    button.textContent = nameOf(view, id);
    if (button.textContent !== id) button.title = id;
    button.addEventListener('click', () => {
      // Selecting redraws the summary and the details, which replaces this very button: the
      // focus goes to its place in the redrawn panel, so the keyboard (and a screen reader)
      // stays where the user was instead of falling back to the page.
      const place = placeOf(button);
      select(id);
      if (!button.isConnected && place !== undefined) focusPlace(place);
    });
    return button;
  };
  const errorPanel = createErrorPanel();
  /** Which registered system the editor's structure is of (see `setCapacitiesOnShow`). */
  let capacitiesOnShow: () => CapacitiesOnShow | undefined = () => undefined;
  /**
   * Which registered system the answer on show is of: asked when the answer is shown, and kept
   * with it (the editor may hold another structure by the time the summary is drawn again).
   */
  let capacitiesOfAnswer: CapacitiesOnShow | undefined;
  const summary = createSummaryPanel(view, nodeButton, () => capacitiesOfAnswer);
  const graph = createGraphPanel(view, (id) => select(id));
  const timeline = createTimelinePanel(view, (index, node) => goTo(index, node));
  const details = createDetailsPanel(view, nodeButton);
  const latency = createLatencyPanel(view, latencyPointsInWorker);
  const nodeTable = createNodeTable(view, (id) => select(id));
  const answerListeners: Array<(answer: EngineAnswer, traffic: Traffic) => void> = [];
  /** After a run without a result: the structure as written, drawn bare (see `showError`). */
  let bare: EngineResult | undefined;

  function render(): void {
    const state = view.states[view.current];
    if (!state) {
      if (bare === undefined) return;
      graph.renderWithoutResult(bare);
      details.clear(
        view.selected === undefined
          ? 'No result: select a node of the structure to pick it (for a scenario, say).'
          : `${nameOf(view, view.selected)}: no numbers, the run gave no result.`,
      );
      return;
    }
    summary.render(state.result);
    graph.render(state.result);
    nodeTable.render();
    details.render(state.result, view.selected);
    latency.render(state.result, view.selected);
    timeline.render();
  }

  function select(id: string): void {
    view.selected = id;
    render();
  }

  function goTo(index: number, node?: string): void {
    view.current = index;
    if (node !== undefined) view.selected = node;
    render();
  }

  /** The answer's text, for Export JSON and the raw view (a long one is only exported). */
  function showText(text: string): void {
    view.responseText = text;
    raw.textContent = text.length <= RAW_SHOWN_CHARS ? text : `(${text.length} characters: use Export JSON)`;
  }

  $('export-json').addEventListener('click', () =>
    download('result.json', 'application/json', view.responseText),
  );

  return {
    view,
    graph,
    render,
    select,
    /**
     * Shows a 200 answer; `where` says where it ran, for the status line, and `source` what ran
     * (the body, and whether on the server). Returns that line.
     */
    show(answer: RunAnswer, where: string, source: View['source']): string {
      showText(answer.text);
      view.source = source;
      view.traffic = trafficOf(source?.body);
      graph.setColouring(undefined);
      bare = undefined;
      errorPanel.hide();
      const response = JSON.parse(answer.text) as EngineAnswer;
      view.states = response.engine
        ? [{ tick: 0, result: withEngineLatencyOnly(response.engine) }]
        : (response.snapshots ?? (response.snapshot ? [response.snapshot] : [])).map((s) => ({
            tick: s.tick,
            result: s,
          }));
      view.current = 0;
      view.selected = undefined;
      view.names = new Map(answer.names ?? []);
      capacitiesOfAnswer = capacitiesOnShow();
      timeline.load();
      const { states } = view;
      const line = `${response.mode}: ${states.length} state${states.length === 1 ? '' : 's'} (${where}, ${answer.ms.toFixed(0)} ms)`;
      render();
      for (const listener of answerListeners) listener(response, view.traffic);
      return line;
    },
    /**
     * A run without a result: `error` in the error panel, nothing of the previous answer left
     * (summary, colours, events, chart, details), and `written`, the structure the body holds,
     * drawn bare so a node can still be selected. `responseText` is the error answer's, if any.
     */
    showError(
      error: ShownError,
      responseText: string,
      written: { structure: BareStructure; names: Array<[string, string]> } | undefined,
    ): void {
      showText(responseText);
      view.source = undefined;
      view.states = [];
      view.selected = undefined;
      view.names = new Map(written?.names ?? []);
      graph.setColouring(undefined);
      errorPanel.show(error);
      summary.clear();
      graph.clear();
      details.clear();
      latency.clear();
      timeline.clear();
      nodeTable.clear();
      bare = written === undefined ? undefined : emptyResult(written.structure);
      render();
    },
    /**
     * Where the summary finds the capacities editor of the registered system whose structure the
     * editor holds (the systems panel knows), for its empty state's button.
     */
    setCapacitiesOnShow(find: () => CapacitiesOnShow | undefined): void {
      capacitiesOnShow = find;
    },
    /** Called with every answer shown (not errors), after it is drawn. */
    onAnswer(listener: (answer: EngineAnswer, traffic: Traffic) => void): void {
      answerListeners.push(listener);
    },
  };
}

/** Where a node button is: its panel, the summary or details field holding it, and its rank there. */
interface ButtonPlace {
  panel: string;
  field: string | undefined;
  index: number;
}

function placeOf(button: HTMLElement): ButtonPlace | undefined {
  const panel = button.closest<HTMLElement>('[id]');
  if (panel === null) return undefined;
  const row = button.closest<HTMLElement>('[data-field]');
  const scope = row !== null && panel.contains(row) ? row : panel;
  const index = [...scope.querySelectorAll('button.node-link')].indexOf(button);
  return { panel: panel.id, field: scope === row ? row.dataset.field : undefined, index };
}

function focusPlace({ panel, field, index }: ButtonPlace): void {
  const container = document.getElementById(panel);
  const scope =
    field === undefined ? container : container?.querySelector(`[data-field="${CSS.escape(field)}"]`);
  const target = scope?.querySelectorAll<HTMLButtonElement>('button.node-link')[index];
  target?.focus();
}
