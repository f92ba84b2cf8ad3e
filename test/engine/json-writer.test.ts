import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonWriter, MAX_NUMBER_BYTES, QuotedIds } from '../../lib/engine/json-writer';

function numberText(value: number): string {
  const writer = new JsonWriter();
  writer.reserve(MAX_NUMBER_BYTES);
  writer.number(value);
  return writer.finish();
}

const decoder = new TextDecoder();

describe('JsonWriter numbers', () => {
  // The quick paths: zero (and -0), small integers, up to six decimals; and the general one.
  it('writes worked examples exactly as JSON.stringify does', () => {
    const examples = [
      0,
      -0,
      1,
      7,
      10,
      2147483647,
      2147483648,
      0.1,
      0.5,
      1.25,
      37.42,
      9.355,
      0.000001,
      0.0000015,
      5e-7,
      1e-7,
      123456.000001,
      2147483647.5,
      2147483647.123456,
      16.051666666666666,
      1 / 3,
      1e21,
      1e300,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
      -1.5,
      -2147483648,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (const value of examples) expect(numberText(value), String(value)).toBe(JSON.stringify(value));
  });

  it('matches JSON.stringify on any double', () => {
    fc.assert(
      fc.property(fc.double(), (value) => {
        expect(numberText(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 20_000 },
    );
  });

  // Loads, capacities and weights mostly have a few decimals: the six-decimal path's claim that
  // dropping trailing zeros gives the shortest form is checked right up to 2^31.
  it('matches JSON.stringify on numbers with up to six decimals, up to 2^31', () => {
    fc.assert(
      fc.property(
        fc.nat(2 ** 31 - 1),
        fc.nat(999_999),
        fc.integer({ min: 0, max: 6 }),
        (whole, digits, places) => {
          const value = whole + (digits % 10 ** places) / 10 ** places;
          expect(numberText(value)).toBe(JSON.stringify(value));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  // A repeated value is copied from where it was written the first time, also across growth.
  it('writes a repeated value again in full, after the buffer grew', () => {
    const writer = new JsonWriter();
    const values = [1 / 3, 1 / 3, 2 / 3, 2 / 3, 1 / 3];
    let expected = '';
    for (let round = 0; round < 5_000; round++) {
      for (const value of values) {
        writer.reserve(MAX_NUMBER_BYTES + 1);
        writer.number(value);
        writer.text(',');
        expected += `${JSON.stringify(value)},`;
      }
    }
    expect(writer.finish()).toBe(expected);
  });
});

describe('JsonWriter text', () => {
  // Any string, lone surrogates and control characters included, quoted as JSON.stringify does.
  it('quotes strings exactly as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const writer = new JsonWriter();
        writer.string(a);
        writer.text(',');
        writer.string(b);
        expect(writer.finish()).toBe(`${JSON.stringify(a)},${JSON.stringify(b)}`);
      }),
      { numRuns: 2_000 },
    );
  });

  it('quotes each id once into one table, byte for byte what JSON.stringify makes of it', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', minLength: 1 }), { maxLength: 40 }), (ids) => {
        const quoted = new QuotedIds(ids);
        ids.forEach((id, v) => {
          const text = decoder.decode(quoted.bytes.subarray(quoted.start[v]!, quoted.start[v + 1]!));
          expect(text).toBe(JSON.stringify(id));
          expect(quoted.start[v + 1]! - quoted.start[v]!).toBeLessThanOrEqual(quoted.longest);
        });
      }),
      { numRuns: 1_000 },
    );
  });

  // The quick paths end at 2^31 (integers) and at six decimals: numbers on either side of each
  // edge are written as JSON.stringify writes them.
  it('matches JSON.stringify at the edges of its quick paths', () => {
    const edges = [
      2 ** 31 - 1,
      2 ** 31,
      2 ** 31 + 1,
      2 ** 31 - 0.5,
      2 ** 31 + 0.5,
      0.000001,
      0.0000015,
      1e-7,
      123456.000001,
      -1,
      -0.5,
    ];
    const writer = new JsonWriter();
    writer.reserve(edges.length * (MAX_NUMBER_BYTES + 1));
    edges.forEach((value, i) => {
      if (i > 0) writer.text(',');
      writer.number(value);
    });
    expect(writer.finish()).toBe(edges.map((value) => JSON.stringify(value)).join(','));
  });

  // An id of 400 control characters is 400 code units but 2,402 bytes once quoted (each one
  // becomes \u00XX): more than the table's first guess of 3 bytes per unit plus slack, so the
  // table grows in the middle, and the ids after it still land whole.
  it('grows the id table for ids that take six bytes per code unit once escaped', () => {
    const ids = ['a', '\u0001'.repeat(400), 'b', '\u001f'.repeat(700), 'c'];
    const quoted = new QuotedIds(ids);
    ids.forEach((id, v) => {
      const text = decoder.decode(quoted.bytes.subarray(quoted.start[v]!, quoted.start[v + 1]!));
      expect(text).toBe(JSON.stringify(id));
    });
    expect(quoted.longest).toBe(JSON.stringify(ids[3]).length);
  });

  // A finished writer gives its buffer to the next one: nothing of the old text leaks through.
  it('starts every writer empty, whatever the one before it wrote', () => {
    const first = new JsonWriter();
    first.text('{"a":"a long text that stays in the retained buffer"}');
    expect(first.finish()).toBe('{"a":"a long text that stays in the retained buffer"}');
    const second = new JsonWriter();
    second.text('[]');
    expect(second.finish()).toBe('[]');
    const abandoned = new JsonWriter();
    abandoned.text('[1,2');
    abandoned.release();
    const third = new JsonWriter();
    third.text('{}');
    expect(third.finish()).toBe('{}');
  });
});
