/**
 * When an engine run must stop so that its answer, or a 413 saying why there is none, still
 * leaves the function before its timeout. Lambda ends a function that overruns without a body
 * (API Gateway answers 503 or 504 with its own message); a run that stops in time is answered
 * 413 LIMIT_EXCEEDED naming the time limit and what to reduce.
 */

/**
 * Time kept back for what follows the engine's last checkpoint whatever the answer's size: the
 * last state's description and writing (about a second for the largest structures the limits
 * allow, measured in `npm run bench`), turning the buffer into text, and the response itself.
 * A function given less than four times this (`FUNCTION_TIMEOUT_MS` may be as low as 1 s) keeps
 * back a quarter of its time instead: structures that take a second to write cannot be answered
 * in such a function anyway, and small ones then still run.
 *
 * @internal exported for its tests
 */
export const BASE_RESERVE_MS = 1500;

/**
 * Compressing the answer: gzip -6 took 26 ms and brotli q4 18 ms per MB of engine JSON on the
 * bench machine; 40 ms per MB per coding allows for a slower Lambda CPU, and a body that does not
 * fit as it stands may be tried with both codings (docs/api.md, Compression). So each byte
 * written so far keeps back two codings' time.
 *
 * @internal exported for its tests
 */
export const RESERVE_MS_PER_BYTE = 2 * (40 / 1_000_000);

export interface RunDeadline {
  /** True when the run must stop now: what is left would not cover writing `bytesWritten` out. */
  shouldStop: (bytesWritten: number) => boolean;
  /** The time this request had when the run began, for the 413's message. */
  limitMs: number;
}

/**
 * A deadline from the function's remaining time (Lambda's `context.getRemainingTimeInMillis`).
 * Returns `undefined` without a clock (the CLI, a direct call): such a run is never stopped.
 */
export function runDeadline(remainingMs: (() => number) | undefined): RunDeadline | undefined {
  if (remainingMs === undefined) return undefined;
  const limitMs = remainingMs();
  if (!Number.isFinite(limitMs)) return undefined;
  const reserveMs = Math.min(BASE_RESERVE_MS, limitMs / 4);
  return {
    limitMs,
    shouldStop: (bytesWritten) => remainingMs() <= reserveMs + bytesWritten * RESERVE_MS_PER_BYTE,
  };
}

/** The 413's message: the time limit, and what this request could reduce. */
export function stoppedMessage(limitMs: number, request: { mode: string; compare?: boolean }): string {
  const seconds = Math.max(1, Math.round(limitMs / 1000));
  const reduce = [
    ...(request.mode === 'ticks' ? ['ask for fewer ticks'] : []),
    'send a smaller structure',
    ...(request.compare === true ? ['leave out "compare"'] : []),
  ];
  const last = reduce.pop()!;
  const list = reduce.length === 0 ? last : `${reduce.join(', ')} or ${last}`;
  return `The run could not finish within this request's time limit (${seconds} s) and was stopped; ${list}.`;
}
