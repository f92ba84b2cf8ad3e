/**
 * The `window` and `sampleRate` read options of the formats whose counts cover a window the
 * document does not state (dependency links, an X-Ray graph without its times): every count is
 * divided by the window's length in seconds (one step is then one second) and by the share of
 * traces sampled (Jaeger's and Zipkin's links are counted from the spans they kept).
 */
import { MAX_TOTAL_LOAD } from '../engine';
import { ReadOptionError, type ReadOptions, sampleRatePastTheTotal } from './types';

export interface CountScale {
  /** Seconds the counts cover; none: one step is that window. */
  window: number | undefined;
  /** The share of traces sampled, in (0, 1]; 1 when not given. */
  sampleRate: number;
}

/** The caller's window (finite, > 0) and sampling rate (in (0, 1]), checked. */
export function countScale(options: ReadOptions | undefined): CountScale {
  const window = options?.window;
  const sampleRate = options?.sampleRate ?? 1;
  if (window !== undefined && !(typeof window === 'number' && Number.isFinite(window) && window > 0))
    throw new RangeError(`window must be a finite number of seconds > 0, got ${String(window)}`);
  if (!(typeof sampleRate === 'number' && sampleRate > 0 && sampleRate <= 1))
    throw new RangeError(`sampleRate must be a number in (0, 1], got ${String(sampleRate)}`);
  return { window, sampleRate };
}

/**
 * `count` per step: over the window and the sampling rate. One the division takes past the
 * largest double names the option that did it (a window of 5e-324 s is a valid number), never
 * the document: `counted` is what the window is the length of, in the message's words.
 */
export function scaledCount(count: number, scale: CountScale, counted: string): number {
  const perWindow = scale.window === undefined ? count : count / scale.window;
  const scaled = perWindow / scale.sampleRate;
  if (Number.isFinite(scaled)) return scaled;
  throw Number.isFinite(perWindow)
    ? sampleRatePastTheTotal(scale.sampleRate, 'arrivals', MAX_TOTAL_LOAD)
    : windowPastTheTotal(scale.window!, counted);
}

/**
 * Arrivals per step that add up past what the engine takes (a window of 5e-324 s, valid as a
 * number, makes them infinite, which the engine would then blame on the document): the caller's
 * option is named, the sampling rate when the window alone (every trace kept) keeps the total
 * within it. `scale.window`: the window the caller gave, none when the counts' own span set it.
 */
export function refuseScaledPastTheTotal(
  nodes: readonly { arrival?: number }[],
  scale: CountScale,
  counted: string,
  /**
   * The arrivals' total with the window alone and as sent (neither option), when the caller
   * counted them (an arrival divided by a tiny sampling rate may be Infinity already); else from
   * each arrival's sampled share, summed.
   */
  counts?: { windowAlone: number; asSent: number },
): void {
  let total = 0;
  let sampledShares = 0;
  for (const node of nodes) {
    total += node.arrival ?? 0;
    sampledShares += (node.arrival ?? 0) * scale.sampleRate;
  }
  if (total <= MAX_TOTAL_LOAD) return;
  const withWindowAlone = counts?.windowAlone ?? sampledShares;
  // The counts as sent, neither option applied: past the total already, it is the document's
  // (the engine names the arrival), not an option the caller may not even have given.
  const asSent =
    counts?.asSent ?? (scale.window === undefined ? withWindowAlone : withWindowAlone * scale.window);
  if (asSent > MAX_TOTAL_LOAD) return;
  if (scale.window === undefined || withWindowAlone <= MAX_TOTAL_LOAD)
    throw sampleRatePastTheTotal(scale.sampleRate, 'arrivals', MAX_TOTAL_LOAD);
  throw windowPastTheTotal(scale.window, counted);
}

function windowPastTheTotal(window: number, counted: string): ReadOptionError {
  return new ReadOptionError(
    'window',
    `${window} makes the services' arrivals add up to more than ${MAX_TOTAL_LOAD}, the largest total the engine accepts; give the seconds the ${counted} over`,
  );
}
