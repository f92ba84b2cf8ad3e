/**
 * How error messages describe what a caller sent. One helper for every layer (the engine's
 * validation, the contract, the SSRF guard, the HTTP stack), so every message reads the same and
 * no value is echoed at length: strings are quoted and cut at `MAX_ECHOED_CHARS`, arrays and
 * objects are named, never dumped. Ground floor: it imports nothing.
 */

/** Longest part of a caller's string repeated in a message; the rest is replaced by `…`. */
const MAX_ECHOED_CHARS = 40;

/** A caller's string, quoted as JSON and cut short: `"db"`, `"aaaa…"`. */
export function quoteText(text: string): string {
  return JSON.stringify(shortText(text));
}

/** A caller's string cut short as `quoteText` cuts it, unquoted (a label name in a PromQL series). */
export function shortText(text: string): string {
  if (text.length <= MAX_ECHOED_CHARS) return text;
  // Cut between code points, as quoteKey does.
  const end = isHighSurrogate(text.charCodeAt(MAX_ECHOED_CHARS - 1))
    ? MAX_ECHOED_CHARS - 1
    : MAX_ECHOED_CHARS;
  return `${text.slice(0, end)}…`;
}

/**
 * Longest key a path repeats whole. Ids are compared by their path (the explorer marks the
 * setting an error names), and real ones share long prefixes (ARNs of one account, X-Ray names):
 * so a key is kept whole far past `MAX_ECHOED_CHARS`, and past this its head and tail are kept
 * around `…`, so a 3-million-character key costs an error 255 of them.
 */
const MAX_PATH_KEY_CHARS = 256;

/** A caller's key quoted as JSON for a path, whole up to `MAX_PATH_KEY_CHARS`, else its ends. */
export function quoteKey(key: string): string {
  if (key.length <= MAX_PATH_KEY_CHARS) return JSON.stringify(key);
  const half = (MAX_PATH_KEY_CHARS - 1) / 2;
  // Cut between code points: a cut inside a surrogate pair wrote its half as `\ude00`.
  let head = Math.ceil(half);
  if (isHighSurrogate(key.charCodeAt(head - 1))) head--;
  let tail = key.length - Math.floor(half);
  if (isHighSurrogate(key.charCodeAt(tail - 1))) tail++;
  return JSON.stringify(`${key.slice(0, head)}…${key.slice(tail)}`);
}

/**
 * A caller's key as one step of an error's path: `.db` for one that `plain` takes, `["a.b"]` for
 * one that would read ambiguously after a dot (or is empty, or long), quoted by `quoteKey`, so a
 * path never repeats a long id in full (`scenario.nodes["aaaa…zzzz"].load`). `plain` defaults to
 * ids (`[\w$-]+`); a field's path takes identifiers.
 */
export function keyStep(key: string, plain: RegExp = /^[\w$-]+$/): string {
  return key.length <= MAX_PATH_KEY_CHARS && plain.test(key) ? `.${key}` : `[${quoteKey(key)}]`;
}

/** A received value in words: `nothing`, `null`, `an array`, `an object`, `true`, `-1`, `the string "x"`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${quoteText(value)}`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      // Not reachable from JSON; kept honest for callers passing JS values directly.
      return `a value of type ${typeof value}`;
  }
}

/** A plain object (not null, not an array): what a JSON object parses to. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
