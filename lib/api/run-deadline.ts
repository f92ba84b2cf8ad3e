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

/**
 * Writing what the run has not written yet but is about to in one go (a caller's extra field:
 * `JSON.stringify` of an object of 5 million keys, 70 MB, took 3.7 s on the bench machine, some
 * 53 ms per MB): 80 ms per MB allows for a slower Lambda CPU, on top of compressing it.
 *
 * @internal exported for its tests
 */
export const WRITE_MS_PER_BYTE = 80 / 1_000_000;

/**
 * The time kept back from a request's `limitMs` for what must follow its last check: `baseMs`, or
 * a quarter of the time where the function has less than four times that (`FUNCTION_TIMEOUT_MS`
 * may be as low as 1 s), so that small requests still run there.
 */
export function reserveWithin(limitMs: number, baseMs: number): number {
  return Math.min(baseMs, limitMs / 4);
}

export interface RunDeadline {
  /**
   * True when the run must stop now: what is left would not cover compressing and sending
   * `bytesWritten`, and writing, compressing and sending `bytesToWrite` more.
   */
  shouldStop: (bytesWritten: number, bytesToWrite?: number) => boolean;
  /** The function's time for this request (as it began), for the 413's message. */
  limitMs: number;
  /**
   * Whether the last stop came from the answer's size: compressing what had been written would
   * take more than half the request's time on its own, so no faster run could have answered.
   */
  stoppedBySize: () => boolean;
}

/**
 * A deadline from the function's remaining time (Lambda's `context.getRemainingTimeInMillis`)
 * and its time for the whole request (`timeLimitMs`, the remaining time as the invocation
 * began; what is left when the run begins without it). The limit, not what parsing and checking
 * the body left of it, sizes the reserve and is the one the 413 names: a body that took 12 of
 * the 15 s to parse had its reserve cut to a quarter of the 3 s left, and its 413 said "3 s".
 * Returns `undefined` without a clock (the CLI, a direct call): such a run is never stopped.
 */
export function runDeadline(
  remainingMs: (() => number) | undefined,
  timeLimitMs?: number,
): RunDeadline | undefined {
  if (remainingMs === undefined) return undefined;
  const limitMs = timeLimitMs ?? remainingMs();
  if (!Number.isFinite(limitMs)) return undefined;
  const reserveMs = reserveWithin(limitMs, BASE_RESERVE_MS);
  let bySize = false;
  return {
    limitMs,
    shouldStop: (bytesWritten, bytesToWrite = 0) => {
      const left = remainingMs();
      const compressingMs =
        (bytesWritten + bytesToWrite) * RESERVE_MS_PER_BYTE + bytesToWrite * WRITE_MS_PER_BYTE;
      const stop = left <= reserveMs + compressingMs;
      bySize = stop && compressingMs > limitMs / 2;
      return stop;
    },
    stoppedBySize: () => bySize,
  };
}

/**
 * The 413's message: the time limit, and what this request could reduce; `bySize` when it was
 * the answer's size that could not be compressed and sent in the time left.
 */
export function stoppedMessage(
  limitMs: number,
  request: { mode: string; compare?: boolean; stored?: boolean },
  bySize = false,
  /** Stopped before the run began: reading the body took the time. */
  beforeRun = false,
): string {
  const seconds = limitSeconds(limitMs);
  const reduce = [
    ...(request.mode === 'ticks' ? ['ask for fewer ticks'] : []),
    request.stored === true ? 'run a smaller system' : 'send a smaller structure',
    ...(request.compare === true ? ['leave out "compare"'] : []),
  ];
  const last = reduce.pop()!;
  const list = reduce.length === 0 ? last : `${reduce.join(', ')} or ${last}`;
  if (bySize) {
    // The answer returns the caller's extra fields as sent: a structure of two nodes whose extra
    // holds 60 MB is large for that alone.
    return `The run was stopped: its answer grew larger than can be compressed and sent within this request's time limit (${seconds} s); ${list} (the answer returns extra fields on nodes and dependencies as they were sent: leave out any it need not).`;
  }
  if (beforeRun) {
    return `The run could not begin within this request's time limit (${seconds} s): what came before it (the key checked, the body decoded and read) took most of it; ${list} (extra fields on nodes and dependencies included: the answer returns them as they were sent).`;
  }
  return `The run could not finish within this request's time limit (${seconds} s) and was stopped; ${list}.`;
}

/**
 * A time limit in seconds, up to the next tenth, as a 413 names it: the time read as the
 * invocation begins is the function's timeout less what has gone already, so 15 for a Lambda
 * function of 15 s (14,9xx ms left), 1.5 for `FUNCTION_TIMEOUT_MS=1500` (whole seconds named it
 * 1 s or 2 s, by a millisecond's difference). At least 0.1.
 */
export function limitSeconds(limitMs: number): number {
  return Math.max(0.1, Math.ceil(Math.round(limitMs) / 100) / 10);
}
