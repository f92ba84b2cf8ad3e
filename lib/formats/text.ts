import { keyStep, quoteText, shortText } from '../text/describe-value';
import { FormatError } from './types';

/**
 * How the format modules word what they found: a received value described, never dumped (the
 * service's rule, `lib/text`'s, whose quoting is used here as it is), and the copying of a
 * source's own fields onto the engine's elements.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `path.key` for a key that is an identifier and not long, else `path["odd key"]` (`keyStep`). */
export function memberPath(path: string, key: string, identifier = /^[A-Za-z_$][\w$]*$/): string {
  return `${path}${keyStep(key, identifier)}`;
}

/** A caller's string, quoted and cut short: `"db"`, `"aaaa…"` (`quoteText`). */
export const quote = quoteText;

export { shortText };

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
