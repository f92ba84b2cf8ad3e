import { FormatError } from './types';

/**
 * How the format modules word what they found: a received value described, never dumped (the
 * service's rule, as `lib/text` words it for the rest of the service; this folder imports nothing
 * but the engine's types, so it keeps its own copy of the rule), and the copying of a source's
 * own fields onto the engine's elements.
 */

/** How much of a caller's string a message repeats. */
const MAX_ECHOED_CHARS = 40;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Longest key a path repeats whole, past it its head and tail around `…` (as `quoteKey` in
 * lib/text keeps them): a 3-million-character label name costs an error 255 of them.
 */
const MAX_PATH_KEY_CHARS = 256;

/** A document's key quoted for a path (`path["odd key"]`), whole up to `MAX_PATH_KEY_CHARS`. */
function quoteKey(key: string): string {
  if (key.length <= MAX_PATH_KEY_CHARS) return JSON.stringify(key);
  const half = (MAX_PATH_KEY_CHARS - 1) / 2;
  // Cut between code points: a cut inside a surrogate pair wrote its half as `\ude00`.
  let head = Math.ceil(half);
  if (isHighSurrogate(key.charCodeAt(head - 1))) head--;
  let tail = key.length - Math.floor(half);
  if (isHighSurrogate(key.charCodeAt(tail - 1))) tail++;
  return JSON.stringify(`${key.slice(0, head)}…${key.slice(tail)}`);
}

/** `path.key` for a key that is an identifier and not long, else `path["odd key"]`. */
export function memberPath(path: string, key: string, identifier = /^[A-Za-z_$][\w$]*$/): string {
  return key.length <= MAX_PATH_KEY_CHARS && identifier.test(key)
    ? `${path}.${key}`
    : `${path}[${quoteKey(key)}]`;
}

/** A caller's string, quoted and cut short: `"db"`, `"aaaa…"`. */
export function quote(text: string): string {
  if (text.length <= MAX_ECHOED_CHARS) return JSON.stringify(text);
  // Cut between code points, as quoteKey does.
  const end = isHighSurrogate(text.charCodeAt(MAX_ECHOED_CHARS - 1))
    ? MAX_ECHOED_CHARS - 1
    : MAX_ECHOED_CHARS;
  return JSON.stringify(`${text.slice(0, end)}…`);
}

/** A value in words: `nothing`, `null`, `an array`, `an object`, `true`, `-1`, `the string "x"`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : `a ${typeof value}`;
}

/** `1 link`, `3 links`; `nouns` for an irregular plural. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** Names the engine reads or writes on a node and on a dependency; a source field so named is renamed. */
export const NODE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'load',
  'capacity',
  'arrival',
  'exit',
  'fanout',
  'inflow',
  'outflow',
  'exited',
  'pressure',
  'blocked',
  'role',
  'throughput',
  'utilization',
  'lost',
  'serviceTime',
  'servers',
  'slo',
  'responseTime',
  'waiting',
  'inFlight',
  'p99',
  'latency',
  'latencyLimit',
]);
export const DEPENDENCY_FIELDS: ReadonlySet<string> = new Set(['from', 'to', 'weight', 'flow', 'throughput']);

/** An id as the engine takes it: a non-empty string, or a number as its decimal string. */
export function idText(value: unknown, path: string): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && value.length > 0) return value;
  throw new FormatError(path, `must be a non-empty string or a number, got ${describeValue(value)}`);
}

/** Sets a field as data, whatever its name (`__proto__` included). */
function setField(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Fields kept under another name, by element, source name and new name: how many times. */
export type Renamed = Map<string, { element: string; key: string; name: string; count: number }>;

/**
 * Copies `source`'s fields onto `target`, but `skip`; a field named like one the engine owns is
 * kept as `original_<name>` (prefixed again while the source has that name too), counted in
 * `renamed`.
 */
export function copyExtras(
  target: object,
  source: Record<string, unknown>,
  skip: readonly string[],
  owned: ReadonlySet<string>,
  renamed: Renamed,
  element: string,
): void {
  for (const key of Object.keys(source)) {
    if (skip.includes(key)) continue;
    let name = key;
    if (owned.has(key)) {
      name = `original_${key}`;
      while (Object.hasOwn(source, name)) name = `original_${name}`;
      const counted = JSON.stringify([element, key, name]);
      const entry = renamed.get(counted) ?? { element, key, name, count: 0 };
      entry.count++;
      renamed.set(counted, entry);
    }
    setField(target, name, source[key]);
  }
}

export function renameWarnings(renamed: Renamed): string[] {
  return [...renamed.values()].map(
    ({ element, key, name, count }) =>
      `${plural(count, element)} ${count === 1 ? 'has' : 'have'} a field ${quote(key)}, a name the engine owns; it is kept as ${quote(name)}`,
  );
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
