import type { EngineAnswer } from './behaviour';
import type { Colouring } from './colour-by';
import type { ExtraFields } from './input-panel';
import type { Traffic } from './steady';

/**
 * How a run ended: with an answer shown, an error shown (an error answer, or none at all),
 * cancelled by the user, superseded by a newer run before it ended (nothing of it shown), or
 * never sent because a field under Run holds a bad number (said under that field).
 */
export type RunOutcome = 'answered' | 'failed' | 'cancelled' | 'superseded' | 'unsent';

/**
 * What a panel of its own (a scenario panel, say) may do on the page, and all it should need:
 * `main.ts` builds one and hands it to each such panel.
 */
export interface ExplorerPage {
  /**
   * Runs the structure in the editor again as **Run** does (same mode, browser or server), with
   * `extra` request fields added at the top level (`{ scenario, compare: true }`); the answer is
   * shown as any other, its error too. Resolves once the page shows how it ended.
   */
  rerun(extra: ExtraFields): Promise<RunOutcome>;
  /**
   * Called with every answer shown (not with errors), after the page has drawn it: the place to
   * read fields the page itself does not show (`changes`, `baseline`), with whose traffic its
   * factors multiply (the scenario's, where the body that ran holds one that changes traffic).
   */
  onAnswer(listener: (answer: EngineAnswer, traffic: Traffic) => void): void;
  /**
   * Colours the graph (SVG and WebGL views) by a value per node, with the key under the graph
   * saying what it means (and, optionally, the palette, the colour bar's numbers and a
   * comparison's marks: `Colouring`); `undefined` goes back to pressure or utilization. A new answer drops
   * it before the `onAnswer` listeners run, so a listener sets it again for the answer it reads.
   */
  setColouring(colouring: Colouring | undefined): void;
  /** Selects a node as a click on it does (its numbers in the details, its ring on the graph). */
  select(id: string): void;
}
