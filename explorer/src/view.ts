import type { EngineResult } from '../../lib/engine/types';
import type { DisplayNames } from './names';
import { TODAY, type Traffic } from './steady';

/** One described state of the current answer: the analyze result (tick 0) or a snapshot. */
export interface State {
  tick: number;
  result: EngineResult;
}

/** The answer on show and what the user picked in it; the panels draw from this alone. */
export interface View {
  states: State[];
  /** Index in `states` of the state on show. */
  current: number;
  selected: string | undefined;
  /** The answer's exact text, for Export JSON. */
  responseText: string;
  /** Readable names of the answer's nodes, where they have one (see names.ts). */
  names: DisplayNames;
  /**
   * The request body that produced the answer and where it ran: the latency chart computes its
   * curve again from the body, in the worker, for an answer computed in the browser.
   */
  source: { body: string; onServer: boolean } | undefined;
  /** Whose traffic the answer's factors multiply: today's, or the scenario's (steady.ts). */
  traffic: Traffic;
}

/** The name to show for a node: its readable name, else its id. */
export function nameOf(view: Pick<View, 'names'>, id: string): string {
  return view.names.get(id) ?? id;
}

export function createView(): View {
  return {
    states: [],
    current: 0,
    selected: undefined,
    responseText: '',
    names: new Map(),
    source: undefined,
    traffic: TODAY,
  };
}
