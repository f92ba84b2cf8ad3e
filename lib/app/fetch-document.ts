/**
 * The document a system is read from, fetched from its URL: by connect (a new system) and by a
 * refresh (a stored one), the same way. The fetch takes the function's time into account
 * (`fetchDeadlineWithin`), may be as large, decoded, as an engine body, and a JSON Lines answer
 * (the Collector's file exporter, served as a file) is read line by line.
 */
import { documentFromJsonLines } from '../api/connect-request';
import type { Limits } from '../config/limits';
import { type FetchJsonOptions, fetchJson, JsonLinesText } from '../outbound';
import { DEFAULT_DEADLINE_MS } from '../outbound/deadline';
import { type FunctionTime, fetchDeadlineWithin } from './time-to-store';

export async function fetchDocument(
  url: string,
  deps: {
    outbound: Pick<FetchJsonOptions, 'allowHosts' | 'deadlineMs' | 'resolveHost' | 'trace'>;
    limits: Pick<Limits, 'maxDecodedBodyBytes'>;
  },
  call: {
    token: string | undefined;
    /** Told each URL before it is checked and fetched (the request line). */
    fetching: ((url: string) => void) | undefined;
    time: FunctionTime | undefined;
    /** A URL a system kept (a refresh), not one a request brings (`FetchJsonOptions.stored`). */
    stored?: boolean;
  },
): Promise<unknown> {
  const { outbound, limits } = deps;
  const { token, fetching, time, stored } = call;
  const fetched = await fetchJson(url, {
    ...outbound,
    deadlineMs: fetchDeadlineWithin(outbound.deadlineMs ?? DEFAULT_DEADLINE_MS, time),
    ...(stored === true ? { stored } : {}),
    maxBodyBytes: limits.maxDecodedBodyBytes,
    jsonLines: true,
    ...(token === undefined ? {} : { token }),
    ...(fetching === undefined ? {} : { onFetch: fetching }),
  });
  return fetched.body instanceof JsonLinesText ? documentFromJsonLines(fetched.body.text) : fetched.body;
}
