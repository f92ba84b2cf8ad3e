/**
 * The outbound fetch's deadline setting, apart from the fetch itself: the connect function reads
 * it at cold start and loads the fetch (`node:https`, the guarded lookup) only at the first
 * request that fetches.
 */
import { type Env, envInt } from '../config/env';

/**
 * One deadline for the whole fetch. 10 s carries the largest answer taken (64 MiB decoded) at
 * 6.7 MB/s (54 Mbit/s) uncompressed, and a gzipped one (JSON graphs shrink 8-15×) at well under
 * 1 MB/s, leaving the connect function (20 s) time to read, check and store it.
 */
export const DEFAULT_DEADLINE_MS = 10_000;
/** The connect function's timeout is 20 s: the fetch must leave time to validate and store. */
const MAX_DEADLINE_MS = 15_000;

/**
 * `CONNECT_DEADLINE_MS`: how long one external fetch may take in all (connecting, headers, body,
 * every redirect), 100 to 15,000 ms, default 10,000. A malformed value stops the start.
 */
export function readConnectDeadlineMs(env: Env): number {
  return envInt(env, 'CONNECT_DEADLINE_MS', DEFAULT_DEADLINE_MS, { min: 100, max: MAX_DEADLINE_MS });
}
