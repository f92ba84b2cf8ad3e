/**
 * A JSON text writer that produces exactly what `JSON.stringify` produces for the engine's
 * results, written as UTF-8 bytes into one growing buffer and decoded into a string once at
 * the end. `JSON.stringify` of a result walks a million objects the engine had to build first;
 * writing straight from the engine's typed arrays skips both the objects and their garbage.
 *
 * Only what the writer knows the exact form of is written by hand: ASCII constants, strings
 * that need no escaping (ids are quoted once per structure, `QuotedIds`), and numbers. Anything
 * else (a string to escape, a caller's extra fields) goes through `JSON.stringify` and is copied
 * in as text, so there is one definition of JSON's rules, V8's.
 */

import { ResultTooLargeError } from './errors';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A constant's UTF-8 bytes, encoded once at module load. */
export function constantBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The most bytes one number takes: `-1.2345678901234567e-308` is 24. */
export const MAX_NUMBER_BYTES = 24;

/** The buffer is kept between calls up to this size, so steady traffic reuses warm memory. */
const RETAINED_BYTES = 128 * 1024 * 1024;
const INITIAL_BYTES = 64 * 1024;
/** Past this the text could not become one string anyway (V8 strings stop at 2^29 - 24 characters). */
const MAX_BYTES = 2 ** 30;
let retained: Uint8Array | undefined;

/** Lets the buffer kept between calls go (the next writer starts cold). Not while writing. */
export function releaseWriterBuffer(): void {
  retained = undefined;
}

const DIGIT_0 = 48;
const SCALE = 1e6;

export class JsonWriter {
  buffer: Uint8Array;
  /** Bytes written so far. */
  length = 0;
  /** The last number written in full, and where its digits are, so a repeat is a copy. */
  private lastNumber = Number.NaN;
  private lastStart = 0;
  private lastEnd = 0;

  constructor() {
    this.buffer = retained ?? new Uint8Array(INITIAL_BYTES);
    retained = undefined;
  }

  /** Makes room for `bytes` more bytes; hot loops reserve once per element, then write freely. */
  reserve(bytes: number): void {
    const needed = this.length + bytes;
    if (needed <= this.buffer.length) return;
    if (needed > MAX_BYTES) throw new ResultTooLargeError('the result is too large to write');
    // Buffers are INITIAL_BYTES times a power of two, so doubling from half or from the initial
    // size reaches the same size.
    // Stryker disable next-line MethodExpression,ArithmeticOperator: see above
    let size = Math.max(this.buffer.length * 2, INITIAL_BYTES);
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, MAX_BYTES));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  /** Copies constant bytes (from `constantBytes`); room must be reserved. */
  bytes(source: Uint8Array): void {
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < source.length; i++) buffer[at++] = source[i]!;
    this.length = at;
  }

  /** Copies bytes `start .. end` of `source`; room must be reserved. */
  range(source: Uint8Array, start: number, end: number): void {
    const buffer = this.buffer;
    let at = this.length;
    for (let i = start; i < end; i++) buffer[at++] = source[i]!;
    this.length = at;
  }

  /** Appends JSON text as it is (from `JSON.stringify`), reserving room itself. */
  text(json: string): void {
    const count = json.length;
    this.reserve(count * 3);
    const buffer = this.buffer;
    let at = this.length;
    let i = 0;
    // Stryker disable all: the ASCII loop is a fast path; encodeInto writes the same bytes for any of the text
    for (; i < count; i++) {
      const code = json.charCodeAt(i);
      if (code > 0x7f) break;
      buffer[at++] = code;
    }
    if (i < count) {
      // JSON.stringify escapes lone surrogates, so the rest encodes to UTF-8 without loss.
      at += encoder.encodeInto(json.slice(i), buffer.subarray(at)).written;
    }
    // Stryker restore all
    this.length = at;
  }

  /** Appends `JSON.stringify(value)` for a string, reserving room itself. */
  string(value: string): void {
    this.reserve(value.length + 2);
    const end = writePlainQuoted(this.buffer, this.length, value);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a quoted string is at least 2 bytes, never 0; without the fast path text() writes the same bytes over it
    if (end >= 0) this.length = end;
    else this.text(JSON.stringify(value));
  }

  /** Appends `value` as `JSON.stringify` would; room for `MAX_NUMBER_BYTES` must be reserved. */
  number(value: number): void {
    const buffer = this.buffer;
    // Stryker disable next-line ConditionalExpression,BlockStatement: fast path; the general path writes "0" for 0 and -0 too
    if (value === 0) {
      buffer[this.length++] = DIGIT_0; // -0 too, as JSON.stringify writes it
      return;
    }
    // Stryker disable next-line ConditionalExpression,BlockStatement,EqualityOperator: fast paths (0 was written above); the general path writes the same digits
    if (value > 0 && value < 2147483648) {
      if ((value | 0) === value) {
        this.length = writeDigits(buffer, this.length, value);
        return;
      }
      // Stryker disable next-line ConditionalExpression,BlockStatement: fast path; writing the number again gives the same digits
      if (value === this.lastNumber) {
        const start = this.length;
        this.range(buffer, this.lastStart, this.lastEnd);
        this.lastStart = start;
        this.lastEnd = this.length;
        return;
      }
      // At most six decimals, which is what most loads, capacities and weights have: the
      // shortest round-trip form is those decimals without trailing zeros (below 2^31 two
      // different six-decimal numbers are more than an ulp apart, so no shorter one exists).
      // Stryker disable next-line ArithmeticOperator: a wrong scale only fails the check below, which sends the number to the general path
      const scaled = Math.round(value * SCALE);
      // Stryker disable next-line ConditionalExpression,ArithmeticOperator,BlockStatement: fast path; the general path writes the same digits
      if (scaled / SCALE === value) {
        this.length = writeDecimal(buffer, this.length, scaled);
        return;
      }
    }
    const start = this.length;
    const digits = Number.isFinite(value) ? `${value}` : 'null';
    let at = start;
    for (let i = 0; i < digits.length; i++) buffer[at++] = digits.charCodeAt(i);
    this.length = at;
    this.lastNumber = value;
    this.lastStart = start;
    this.lastEnd = at;
  }

  /** The text written so far. The writer must not be used afterwards. */
  finish(): string {
    let text: string;
    try {
      text = decoder.decode(this.buffer.subarray(0, this.length));
    } catch {
      // The decoder replaces malformed bytes rather than throwing: it fails only when the text
      // is longer than a string can be (2^29 - 24 characters), or memory runs out making it.
      throw new ResultTooLargeError('the result is longer than a string can be');
    } finally {
      this.release();
    }
    return text;
  }

  /** Gives the buffer back for the next writer (when small enough to keep). */
  release(): void {
    if (this.buffer.length === 0) return;
    if (
      this.buffer.length <= RETAINED_BYTES &&
      (retained === undefined || retained.length < this.buffer.length)
    ) {
      retained = this.buffer;
    }
    this.buffer = new Uint8Array(0);
    this.length = 0;
  }
}

/** Writes the decimal digits of a positive integer below 2^31; returns the new length. */
function writeDigits(buffer: Uint8Array, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
  const end = at + digits;
  let position = end;
  let rest = value;
  do {
    const quotient = (rest / 10) | 0;
    buffer[--position] = DIGIT_0 + rest - quotient * 10;
    rest = quotient;
  } while (rest > 0);
  return end;
}

/** Writes `scaled / 1e6` (not an integer) as `int.fraction` without trailing zeros. */
function writeDecimal(buffer: Uint8Array, at: number, scaled: number): number {
  const whole = Math.floor(scaled / SCALE);
  // Stryker disable next-line ArithmeticOperator: only the last six digits are written, and adding whole millions leaves them as they are
  let fraction = scaled - whole * SCALE;
  // Stryker disable next-line ConditionalExpression: writeDigits writes "0" for 0 too
  let end = whole === 0 ? at + 1 : writeDigits(buffer, at, whole);
  if (whole === 0) buffer[at] = DIGIT_0;
  buffer[end++] = 46; // '.'
  let places = 6;
  while (fraction % 10 === 0) {
    fraction /= 10;
    places--;
  }
  for (let i = places - 1; i >= 0; i--) {
    const quotient = Math.floor(fraction / 10);
    buffer[end + i] = DIGIT_0 + fraction - quotient * 10;
    fraction = quotient;
  }
  return end + places;
}

/**
 * Every id of a structure as quoted JSON text, UTF-8, in one byte array: id `v` is
 * `bytes[start[v] .. start[v + 1]]`. Built once per structure and reused by every snapshot.
 */
export class QuotedIds {
  readonly bytes: Uint8Array;
  readonly start: Int32Array;
  /** The longest quoted id, in bytes, for reservations. */
  readonly longest: number;

  constructor(ids: readonly string[]) {
    const count = ids.length;
    const start = new Int32Array(count + 1);
    let total = 0;
    // The first size is an estimate only: the check below grows the table before any id that
    // might not fit, and an id takes at most 6 bytes per code unit (a \u escape) plus its quotes.
    // Stryker disable next-line ConditionalExpression: see above
    for (let v = 0; v < count; v++) total += ids[v]!.length;
    // Room for ids of up to 3 UTF-8 bytes per code unit; an id with escapes grows it below.
    // Stryker disable next-line ArithmeticOperator: see above
    let bytes = new Uint8Array(total * 3 + 2 * count + 1024);
    let at = 0;
    let longest = 0;
    for (let v = 0; v < count; v++) {
      start[v] = at;
      const id = ids[v]!;
      if (at + id.length * 6 + 2 > bytes.length) {
        // Doubling is enough for any id (at most 6 bytes per code unit, and the first size counts
        // 3 per unit of every id), so the second term never decides; both give the id its room.
        // Stryker disable next-line MethodExpression,ArithmeticOperator: see above
        const grown = new Uint8Array(Math.max(bytes.length * 2, at + id.length * 6 + 2));
        grown.set(bytes.subarray(0, at));
        bytes = grown;
      }
      const plainEnd = writePlainQuoted(bytes, at, id);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a quoted id is at least 2 bytes, never 0; without the fast path encodeInto writes the same bytes
      if (plainEnd >= 0) {
        at = plainEnd;
      } else {
        at += encoder.encodeInto(JSON.stringify(id), bytes.subarray(at)).written;
      }
      // Stryker disable next-line EqualityOperator: replacing the longest by one as long changes nothing
      if (at - start[v]! > longest) longest = at - start[v]!;
    }
    start[count] = at;
    this.bytes = bytes;
    this.start = start;
    this.longest = longest;
  }
}

/**
 * Writes `"id"` when every code unit is printable ASCII other than `"` and `\` (nothing to
 * escape or encode); returns the new length, or -1 when the id needs `JSON.stringify`.
 */
// Stryker disable next-line BlockStatement: without the fast path (undefined, not >= 0) every caller writes JSON.stringify's same bytes
function writePlainQuoted(bytes: Uint8Array, at: number, id: string): number {
  let position = at;
  bytes[position++] = 34;
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: sending more strings to JSON.stringify changes no byte (space and ~ need no escape either way)
    if (code < 0x20 || code > 0x7e || code === 34 || code === 92) return -1;
    bytes[position++] = code;
  }
  bytes[position++] = 34;
  return position;
}
