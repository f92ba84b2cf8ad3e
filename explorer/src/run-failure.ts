import type { ShownError } from './error-panel';

/** Why the page stopped waiting for a run: the user's Cancel, a newer run, or the server's silence. */
export type StopReason = 'cancelled' | 'superseded' | 'timeout';

/** The reason a run's `AbortController` is aborted with, and so what its request rejects with. */
export class RunStopped extends Error {
  override readonly name = 'RunStopped';
  constructor(readonly reason: StopReason) {
    super(`the run was ${reason}`);
  }
}

/** The engine worker failed (its script did not load, or it threw): what its pending requests reject with. */
export class WorkerFailed extends Error {
  override readonly name = 'WorkerFailed';
}

/** `fetch` got no answer at all (connection refused, the network down): the browser says no more. */
export class NoConnection extends Error {
  override readonly name = 'NoConnection';
}

/** A run that ended without an answer, as the page says it: a short status line, and the error. */
export interface Failure {
  status: string;
  error: ShownError;
}

/** What a run's rejection means to the user (anything unforeseen in its own words). */
export function failureOf(thrown: unknown, timeoutMs: number): Failure {
  if (thrown instanceof RunStopped && thrown.reason === 'timeout') {
    const seconds = Math.round(timeoutMs / 1000);
    return {
      status: `No answer from the server in ${seconds} s.`,
      error: {
        title: 'No answer from the server',
        message: `It did not answer within ${seconds} s, so the page stopped waiting. Run again, or untick "Run on the server" to run it in the browser.`,
      },
    };
  }
  if (thrown instanceof WorkerFailed) {
    return {
      status: 'The engine worker failed.',
      error: {
        title: 'The engine worker failed',
        message: `${thrown.message}. The next run starts a new worker.`,
      },
    };
  }
  if (thrown instanceof NoConnection) {
    return {
      status: 'No connection to the server.',
      error: {
        title: 'Could not reach the server',
        message: `No answer came at all (the browser says: ${thrown.message}): the server is not running, or the network is down. Run again once it is back, or untick "Run on the server" to run it in the browser.`,
      },
    };
  }
  return {
    status: 'The run failed.',
    error: { title: 'The run failed', message: thrown instanceof Error ? thrown.message : String(thrown) },
  };
}

/**
 * Why a request of the systems panel (list, open, test, register, save capacities) got no
 * answer it could use, in one line for its status area: no connection, no answer in time, or
 * the thrown error's own words (an API error answer, as `CODE: message`).
 */
export function requestFailureLine(thrown: unknown, timeoutMs: number): string {
  if (thrown instanceof RunStopped && thrown.reason === 'timeout')
    return `No answer from the server in ${Math.round(timeoutMs / 1000)} s, so the page stopped waiting. Try again.`;
  if (thrown instanceof NoConnection)
    return `Could not reach the server (the browser says: ${thrown.message}): it is not running, or the network is down. Try again once it is back.`;
  return thrown instanceof Error ? thrown.message : String(thrown);
}
