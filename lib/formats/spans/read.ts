/**
 * The checks the span readers share: a field read as the type it must have, or a FormatError
 * naming its path in the source document. Times become nanoseconds since the epoch as BigInt.
 */
import { describeValue, isRecord } from '../text';
import { FormatError } from '../types';

const DIGITS = /^[0-9]+$/;
/** The largest time a span may carry: 2^64 − 1 nanoseconds (OTLP's fixed64), past year 2500. */
const MAX_NANOSECONDS = 2n ** 64n - 1n;

/**
 * Whether `list` has a first element and it passes `test`: `detect` looks at the first element
 * only, so a malformed later one is named by its path when the document is read (with the first
 * three looked at, a bad second span made the document fit no format, with no path).
 */
export function leading(list: readonly unknown[], test: (value: unknown) => boolean): boolean {
  return list.length > 0 && test(list[0]);
}

export function recordAt(value: unknown, path: string, what: string): Record<string, unknown> {
  if (!isRecord(value))
    throw new FormatError(path, `must be an object (${what}), got ${describeValue(value)}`);
  return value;
}

/** An array, or `[]` where the field is missing or null. */
export function listAt(holder: Record<string, unknown>, key: string, path: string): readonly unknown[] {
  const value = holder[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new FormatError(`${path}.${key}`, `must be an array, got ${describeValue(value)}`);
  return value;
}

/** A string, or `undefined` where the field is missing or null. */
export function textAt(holder: Record<string, unknown>, key: string, path: string): string | undefined {
  const value = holder[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new FormatError(`${path}.${key}`, `must be a string, got ${describeValue(value)}`);
  return value;
}

/**
 * A whole number of `unit` nanoseconds (1000 for microseconds) since the epoch, or a length of
 * time: a JSON number >= 0, or a string of decimal digits (proto3's JSON writes 64-bit integers
 * as strings; OTLP's nanoseconds are past 2^53, so a string is read exactly, never as a double).
 * `undefined` where missing or null. A fraction of a microsecond is kept to the nanosecond.
 */
export function nanosecondsAt(
  holder: Record<string, unknown>,
  key: string,
  path: string,
  unit: bigint,
  what: string,
): bigint | undefined {
  const value = holder[key];
  if (value === undefined || value === null) return undefined;
  let nanoseconds: bigint | undefined;
  if (typeof value === 'string' && DIGITS.test(value)) nanoseconds = BigInt(value) * unit;
  else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    const whole = Math.trunc(value);
    nanoseconds = BigInt(whole) * unit + BigInt(Math.round((value - whole) * Number(unit)));
  }
  if (nanoseconds === undefined || nanoseconds > MAX_NANOSECONDS)
    throw new FormatError(
      `${path}.${key}`,
      `must be ${what}: a whole number >= 0 (or a string of its digits) below 2^64 nanoseconds, got ${describeValue(value)}`,
    );
  return nanoseconds;
}

/** Something found while reading: how many times, and where first. */
export class Tally {
  count = 0;
  first = '';
  add(path: string): void {
    if (this.count++ === 0) this.first = path;
  }
}
