/**
 * Will a response fit through Lambda? Lambda limits the function's whole return value as
 * JSON (`{ statusCode, headers, body, isBase64Encoded }`) to 6 MiB, so what counts is the body
 * as it appears inside that JSON: a text body with its quotes and backslashes escaped, a
 * binary (compressed) body as base64, 4 characters for every 3 bytes.
 */
import type { Limits } from '../config/limits';

/**
 * Room kept for everything in the returned envelope except the body: the status code, the
 * headers (content type and encoding, vary, request id, WWW-Authenticate) and the JSON
 * punctuation around them. Our headers come to well under 1 KiB; 8 KiB leaves room for more
 * without making a practical difference to the 6 MiB.
 */
const ENVELOPE_MARGIN_BYTES = 8 * 1024;

/**
 * Bytes the body takes inside the returned JSON envelope, quotes around it excluded.
 * @internal test/api/response-size.test.ts checks this count against what Lambda serializes.
 */
export function returnedBodyBytes(body: string | Uint8Array, isBase64Encoded: boolean): number {
  if (typeof body !== 'string') return base64Length(body.byteLength);
  // A base64 string needs no escaping: its alphabet is letters, digits, `+`, `/` and `=`.
  if (isBase64Encoded) return body.length;
  return Buffer.byteLength(JSON.stringify(body), 'utf8') - 2;
}

/** Largest body, as counted by `returnedBodyBytes`, that leaves the envelope within `maxResponseBytes`. */
export function responseBodyBudget(limits: Pick<Limits, 'maxResponseBytes'>): number {
  return limits.maxResponseBytes - ENVELOPE_MARGIN_BYTES;
}

/** Largest compressed body, in raw bytes, that still fits once base64-encoded. */
export function largestBinaryBody(limits: Pick<Limits, 'maxResponseBytes'>): number {
  return Math.floor(responseBodyBudget(limits) / 4) * 3;
}

/**
 * Whether a serialized body can be returned. Pass a `Uint8Array` for a compressed body (it
 * will be base64-encoded), or the string exactly as it will be placed in `body`.
 */
export function responseFits(
  body: string | Uint8Array,
  isBase64Encoded: boolean,
  limits: Pick<Limits, 'maxResponseBytes'>,
): boolean {
  const budget = responseBodyBudget(limits);
  // Escaping only ever adds bytes, so a raw text body already over budget needs no closer look
  // (and a huge one is not copied just to be measured).
  if (typeof body === 'string' && !isBase64Encoded && Buffer.byteLength(body, 'utf8') > budget) return false;
  return returnedBodyBytes(body, isBase64Encoded) <= budget;
}

function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/**
 * What an engine request whose answer is too large could ask for less of: fewer ticks (mode
 * `ticks`), a smaller structure (a smaller system, for a run by `systemId`: it sent none), the
 * scenario without `compare` (when it compares). The refusal before the run and the response
 * limit after it say the same.
 */
export function lessToAskFor(request: {
  mode: string;
  compare?: boolean | undefined;
  stored?: boolean | undefined;
}): string {
  const smaller = request.stored === true ? 'a smaller system' : 'a smaller structure';
  const ticks = request.mode === 'ticks' ? 'fewer ticks, ' : '';
  if (request.compare === true) return `${ticks}${smaller}, or the scenario without \`compare\``;
  return request.mode === 'ticks' ? `fewer ticks or ${smaller}` : smaller;
}

/**
 * What the 413 of `GET /api/systems/{id}` advises when the system will not fit: it is returned
 * whole, and a run by `systemId` reads it where it is stored.
 */
export const WHOLE_SYSTEM_ADVICE = 'run the system by `systemId` instead, which reads it where it is stored';
