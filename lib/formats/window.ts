/**
 * The `window` read option of the formats whose counts cover a window the document does not
 * state (dependency links, an X-Ray graph without its times): its length in seconds, by which
 * every count is divided so that one step is one second.
 */
import { MAX_TOTAL_LOAD } from '../engine';
import { ReadOptionError, type ReadOptions } from './types';

/** The window's length in seconds, when the caller gives one: finite and > 0. */
export function windowOption(options: ReadOptions | undefined): number | undefined {
  const window = options?.window;
  if (window !== undefined && !(typeof window === 'number' && Number.isFinite(window) && window > 0))
    throw new RangeError(`window must be a finite number of seconds > 0, got ${String(window)}`);
  return window;
}

/**
 * A window so short that the arrivals per second add up past what the engine takes is the
 * caller's to fix (a window of 1e-300 s is a valid number): named as the option, not the
 * document. `counted`: what the window is the length of, in the message's words.
 */
export function refuseWindowPastTheTotal(
  nodes: readonly { arrival?: number }[],
  window: number,
  counted: string,
): void {
  let total = 0;
  for (const node of nodes) total += node.arrival ?? 0;
  if (total <= MAX_TOTAL_LOAD) return;
  throw new ReadOptionError(
    'window',
    `${window} makes the services' arrivals add up to more than ${MAX_TOTAL_LOAD}, the largest total the engine accepts; give the seconds the ${counted} over`,
  );
}
