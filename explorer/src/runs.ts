import type { createBehaviour } from './behaviour';
import { $ } from './dom';
import { errorOfAnswer, type ShownError } from './error-panel';
import type { ExtraFields, InputPanel } from './input-panel';
import type { RunOutcome } from './page';
import type { RunAnswer } from './protocol';
import { failureOf, RunStopped } from './run-failure';
import { runInWorker, runOnServer, structureInWorker } from './runner';

/** How long a server run may take before the page stops waiting. */
export const SERVER_TIMEOUT_MS = 30_000;

/** One run: its number, and the controller that aborts it. */
interface Run {
  seq: number;
  controller: AbortController;
}

/** What a page user can do with a body too large for the server. */
const BROWSER_RUNS_ANY_BODY =
  'From this page: untick "Run on the server" to run it in the browser, where the body has no byte limit.';

/** `text` and then `sentence`, `text` ended with a full stop first when it has no end of its own. */
function withSentence(text: string, sentence: string): string {
  if (text === '') return sentence;
  return `${text}${/[.!?]$/.test(text) ? '' : '.'} ${sentence}`;
}

/**
 * Runs the editor's body and shows how it ended. Each run has a number and an `AbortController`:
 * starting one aborts the run before it (its server request, its worker run), and only the latest
 * run touches the page, so a late answer, or a late failure, is dropped unseen. While a run is in
 * flight, **Cancel** aborts it; a server run is given up after `serverTimeoutMs`. A run without a
 * result (an error answer, no connection, no answer in time, the worker failing) shows its error
 * once and the structure as written, bare (see `showError` in behaviour.ts); a cancelled one
 * leaves the answer on show before it.
 */
export function createRuns(
  input: InputPanel,
  behaviour: ReturnType<typeof createBehaviour>,
  serverTimeoutMs = SERVER_TIMEOUT_MS,
) {
  const cancelButton = $<HTMLButtonElement>('cancel');
  let latest: Run | undefined;
  let nextSeq = 0;
  const isLatest = (run: Run) => latest === run;

  cancelButton.addEventListener('click', () => latest?.controller.abort(new RunStopped('cancelled')));

  /** The latest run is over: its status line, the page's state (the tests wait on it), no Cancel. */
  function end(state: 'done' | 'error' | 'cancelled', status: string): void {
    input.setStatus(status);
    document.body.dataset.state = state;
    // Focus on Cancel, about to be hidden, goes to Run rather than back to the page's start.
    const focused = document.activeElement === cancelButton;
    cancelButton.hidden = true;
    if (focused) $('run').focus();
    latest = undefined;
  }

  /**
   * Ends `run`, if still the latest, without a result: `error` shown, the answer's text (an error
   * answer's) kept for Export JSON, and the structure `body` holds drawn bare. The outcome: a
   * newer run may start while the structure is read.
   */
  async function fail(
    run: Run,
    body: string,
    error: ShownError,
    text: string,
    status: string,
  ): Promise<RunOutcome> {
    // None when the worker cannot read it either (or the run is cancelled meanwhile).
    const written = await structureInWorker(body, run.controller.signal).catch(() => undefined);
    if (!isLatest(run)) return 'superseded';
    behaviour.showError(error, text, written);
    end('error', status);
    return 'failed';
  }

  /** Runs the editor's body, with `extra` fields on top; resolves once the page shows how it ended. */
  async function run(extra: ExtraFields = {}): Promise<RunOutcome> {
    // A field holding a bad number (the tick count) is said where it is typed: nothing is sent,
    // and the run before, if any, goes on.
    if (!input.checkFields()) return 'unsent';
    latest?.controller.abort(new RunStopped('superseded'));
    const current: Run = { seq: ++nextSeq, controller: new AbortController() };
    latest = current;
    const body = input.bodyToRun(extra);
    // Read now: the box may be ticked otherwise by the time the answer comes.
    const onServer = input.onServer;
    const where = onServer ? 'on the server' : 'in the browser, same bytes as the API';
    const { signal } = current.controller;
    document.body.dataset.state = 'running';
    cancelButton.hidden = false;
    input.setStatus(onServer ? 'Running on the server…' : 'Running in the browser…');
    let answer: RunAnswer;
    try {
      answer = onServer
        ? await runOnServer(body, input.apiKey, signal, serverTimeoutMs)
        : await runInWorker(body, 'run', signal);
    } catch (thrown) {
      if (!isLatest(current)) return 'superseded';
      if (thrown instanceof RunStopped && thrown.reason === 'cancelled') {
        end('cancelled', 'Cancelled: the answer on show is the run before.');
        return 'cancelled';
      }
      const failure = failureOf(thrown, serverTimeoutMs);
      return fail(current, body, failure.error, '', failure.status);
    }
    if (!isLatest(current)) return 'superseded';
    if (answer.status !== 200) {
      const answered = errorOfAnswer(answer);
      // A body too large for the API (its 6 MiB, which compression would get round) is one the
      // page cannot compress, but the browser can run: the API's advice is not the page user's.
      const error =
        onServer &&
        answer.status === 413 &&
        // The API's own words, or API Gateway's where the body is past what a Lambda event
        // holds (every body over 6 MiB deployed: the function never sees it).
        (answered.message.startsWith('The request body is larger than') ||
          /Request Entity Too Large/i.test(answer.text))
          ? { ...answered, message: withSentence(answered.message, BROWSER_RUNS_ANY_BODY) }
          : answered;
      const how = `HTTP ${answer.status} (${where}, ${answer.ms.toFixed(0)} ms)`;
      // The API answers a mistake in the structure 500 `PAYLOAD_ERROR` (the seed's contract): said
      // as what it is, since "HTTP 500" alone reads as the server failing.
      const status =
        error.title === 'PAYLOAD_ERROR' ? `The structure has a mistake, said under Run: ${how}` : how;
      return fail(current, body, error, answer.text, status);
    }
    let line: string;
    try {
      line = behaviour.show(answer, where, { body, onServer });
    } catch (thrown) {
      // An answer the page cannot read (or a panel failing on it) still ends the run.
      const failure = failureOf(thrown, serverTimeoutMs);
      return fail(current, body, failure.error, answer.text, failure.status);
    }
    end('done', line);
    return 'answered';
  }

  // How many runs were started (the systems panel's mark for a save's run).
  return Object.assign(run, { startedSoFar: () => nextSeq });
}
