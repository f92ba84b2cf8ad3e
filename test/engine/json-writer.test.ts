import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { releaseScratchMemory } from '../../lib/engine';
import { ResultTooLargeError } from '../../lib/engine/errors';
import { JsonWriter, MAX_NUMBER_BYTES, QuotedIds, releaseWriterBuffer } from '../../lib/engine/json-writer';

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

/** Fills the writer with `count` bytes of `x`, as a hot loop would after reserving. */
function fill(writer: JsonWriter, count: number): void {
  writer.reserve(count);
  writer.range(new Uint8Array(count).fill(0x78), 0, count);
}

const MIB = 1024 * 1024;

describe('JsonWriter room', () => {
  // A string or a piece of JSON text arrives when the buffer has just a few bytes left: each
  // makes its own room, so nothing lands past the end. 'é' takes two bytes, '\u0001' six.
  it('makes room for text and strings written at the very end of the buffer', () => {
    for (const [tail, write, expected] of [
      [10, (w: JsonWriter) => w.text(JSON.stringify('é'.repeat(20))), JSON.stringify('é'.repeat(20))],
      [4, (w: JsonWriter) => w.string('abcdef'), '"abcdef"'],
      [4, (w: JsonWriter) => w.string('\u0001'), '"\\u0001"'],
    ] as const) {
      releaseWriterBuffer();
      const writer = new JsonWriter();
      const before = writer.buffer.length - tail;
      fill(writer, before);
      write(writer);
      const text = writer.finish();
      expect(text.length).toBe(before + expected.length);
      expect(text.slice(before)).toBe(expected);
    }
  });

  // 1,000 bytes written, then room for 255 KiB more asked at once: the buffer (64 KiB) grows to
  // 256 KiB, the smallest size it takes that holds it, keeping what was written.
  it('grows to hold what is reserved, to less than twice that, keeping the text', () => {
    releaseWriterBuffer();
    const writer = new JsonWriter();
    fill(writer, 1000);
    const needed = 256 * 1024;
    writer.reserve(needed - 1000);
    expect(writer.buffer.length).toBeGreaterThanOrEqual(needed);
    expect(writer.buffer.length).toBeLessThan(2 * needed);
    const buffer = writer.buffer;
    writer.reserve(buffer.length - writer.length);
    expect(writer.buffer).toBe(buffer);
    expect(writer.finish()).toBe('x'.repeat(1000));
  });

  // The text must become one string, so the writer refuses to hold more than 2^30 bytes; exactly
  // 2^30 may be reserved (memory is only committed as it is written).
  it('refuses to grow past 2^30 bytes', () => {
    releaseWriterBuffer();
    const writer = new JsonWriter();
    fill(writer, 10);
    expect(() => writer.reserve(2 ** 30 - 9)).toThrow(ResultTooLargeError);
    expect(() => writer.reserve(2 ** 30 - 9)).toThrow('the result is too large to write');
    writer.reserve(2 ** 30 - 10);
    expect(writer.buffer.length).toBe(2 ** 30);
    writer.release();
  });

  // 2^29 - 23 bytes: one character more than a string can hold. Finishing reports it as a result
  // too large (the decoder gives up before reading the bytes), and the buffer is let go.
  it('reports text longer than a string can be as too large', () => {
    releaseWriterBuffer();
    const writer = new JsonWriter();
    writer.reserve(2 ** 29);
    writer.length = 2 ** 29 - 23;
    expect(() => writer.finish()).toThrow(
      new ResultTooLargeError('the result is longer than a string can be'),
    );
    expect(writer.buffer.length).toBe(0);
    expect(new JsonWriter().buffer.length).toBeLessThan(2 ** 29);
  });
});

describe('JsonWriter buffer kept between calls', () => {
  // Steady traffic reuses warm memory: a finished writer's buffer is where the next one starts.
  it("hands a finished writer's buffer to the next writer", () => {
    releaseWriterBuffer();
    const first = new JsonWriter();
    first.reserve(200_000);
    const buffer = first.buffer;
    first.text('[]');
    expect(first.finish()).toBe('[]');
    expect(new JsonWriter().buffer).toBe(buffer);
  });

  // Up to 128 MiB is kept; a buffer past that is let go, so one huge answer does not pin its
  // memory in the process. (Neither buffer is written, so neither is committed.)
  it('keeps a buffer of up to 128 MiB, not a larger one', () => {
    for (const [reserved, kept] of [
      [128 * MIB, true],
      [128 * MIB + 1, false],
    ] as const) {
      releaseWriterBuffer();
      const writer = new JsonWriter();
      writer.reserve(reserved);
      const buffer = writer.buffer;
      writer.release();
      const next = new JsonWriter();
      expect(next.buffer === buffer, `${reserved} bytes`).toBe(kept);
      expect(next.buffer.length).toBeGreaterThan(0);
    }
    releaseWriterBuffer();
  });

  // Two writers at once (an answer written while another is open): whichever finishes first,
  // the larger buffer is the one kept.
  it('keeps the larger of two buffers given back', () => {
    for (const largeFirst of [true, false]) {
      releaseWriterBuffer();
      const small = new JsonWriter();
      const large = new JsonWriter();
      large.reserve(MIB);
      const buffer = large.buffer;
      if (largeFirst) {
        large.release();
        small.release();
      } else {
        small.release();
        large.release();
      }
      expect(new JsonWriter().buffer, largeFirst ? 'large first' : 'small first').toBe(buffer);
    }
  });

  // Giving a writer back twice gives its buffer once: the second time it has none, and the next
  // writer still starts with room.
  it('ignores a second release', () => {
    releaseWriterBuffer();
    const first = new JsonWriter();
    first.release();
    const second = new JsonWriter();
    first.release();
    expect(new JsonWriter().buffer.length).toBeGreaterThan(0);
    second.release();
  });

  // releaseScratchMemory() lets the kept buffer go with the rest of the engine's memory.
  it('starts cold after the memory is released', () => {
    const writer = new JsonWriter();
    writer.reserve(4 * MIB);
    const buffer = writer.buffer;
    writer.release();
    releaseScratchMemory();
    const next = new JsonWriter();
    expect(next.buffer).not.toBe(buffer);
    expect(next.buffer.length).toBe(64 * 1024);
  });
});

describe('QuotedIds room', () => {
  // One id of 342 control characters: 2,054 bytes once escaped and quoted, more than the table's
  // first size (3 bytes per code unit, 2 quotes, 1 KiB: 2,052), so the table grows first.
  it('grows the table for an id that escapes past its first size by two bytes', () => {
    const id = '\u0001'.repeat(342);
    const quoted = new QuotedIds([id]);
    expect(decoder.decode(quoted.bytes.subarray(quoted.start[0]!, quoted.start[1]!))).toBe(
      JSON.stringify(id),
    );
  });

  // Ten thousand plain ids fit the first size: the table is not grown for each.
  it('quotes many plain ids into one table of about their size', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `node-${i}`);
    const quoted = new QuotedIds(ids);
    expect(quoted.start[10_000]).toBe(ids.reduce((sum, id) => sum + id.length + 2, 0));
    expect(quoted.bytes.length).toBeLessThan(4 * quoted.start[10_000]!);
    expect(decoder.decode(quoted.bytes.subarray(quoted.start[9_999]!, quoted.start[10_000]!))).toBe(
      '"node-9999"',
    );
  });
});
