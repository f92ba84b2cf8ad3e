import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  compileStructure,
  JsonWriter,
  PayloadError,
  type Structure,
  tick,
  ticks,
  writeAnalyze,
  writeTick,
  writeTicks,
} from '../../lib/engine';
import { WORKED_EXAMPLE } from '../../lib/worked-example';

function written(write: (writer: JsonWriter) => void): string {
  const writer = new JsonWriter();
  write(writer);
  return writer.finish();
}

/** Ids a caller may really send: quotes, backslashes, controls, emoji, lone surrogates, numbers. */
const idArbitrary = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toJSON',
    '0',
    '12',
    '-1',
    'a"b',
    'a\\b',
    '\u2028',
    '😀',
    '\ud800',
  ),
  fc.string({ minLength: 1, maxLength: 4 }),
);

/** Extra fields: any JSON value, under any key (integer-like keys print first in JSON). */
const extrasArbitrary = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('0', '7', '__proto__', 'toJSON', 'flow', 'role')),
  fc.jsonValue({ maxDepth: 3 }),
  { maxKeys: 3 },
);

const numberArbitrary = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 1000 }),
  fc.double({ min: 0, max: 1e6, noNaN: true }),
  fc.double({ min: 1e-300, max: 1e-5, noNaN: true }),
  fc.nat(10 ** 8).map((n) => n / 1000),
);

/** Random structures with awkward ids, extra fields, capacities and weights. */
const structureArbitrary: fc.Arbitrary<Structure> = fc
  .uniqueArray(idArbitrary, { minLength: 1, maxLength: 16 })
  .chain((ids) =>
    fc.record({
      nodes: fc.tuple(
        ...ids.map((id) =>
          fc.record({
            id: fc.constant(id),
            load: numberArbitrary,
            capacity: fc.option(fc.double({ min: 0.001, max: 100, noNaN: true }), { nil: undefined }),
            extras: fc.option(extrasArbitrary, { nil: undefined }),
          }),
        ),
      ),
      dependencies: fc.array(
        fc.record({
          from: fc.constantFrom(...ids),
          to: fc.constantFrom(...ids),
          weight: fc.option(fc.double({ min: 0.001, max: 1000, noNaN: true }), { nil: undefined }),
          extras: fc.option(extrasArbitrary, { nil: undefined }),
        }),
        { maxLength: 40 },
      ),
    }),
  )
  // Through JSON text, as the API and the CLI receive it.
  .map(({ nodes, dependencies }) =>
    JSON.parse(
      JSON.stringify({
        nodes: nodes.map(({ id, load, capacity, extras }) => ({ ...extras, id, load, capacity })),
        dependencies: dependencies.map(({ from, to, weight, extras }) => ({ ...extras, from, to, weight })),
      }),
    ),
  );

describe('writing results as JSON text', () => {
  // The worked example, all three modes: the text is JSON.stringify's, byte for byte.
  it('writes the worked example as JSON.stringify writes its results', () => {
    expect(written((w) => writeAnalyze(w, WORKED_EXAMPLE))).toBe(JSON.stringify(analyze(WORKED_EXAMPLE)));
    expect(written((w) => writeTick(w, WORKED_EXAMPLE))).toBe(JSON.stringify(tick(WORKED_EXAMPLE)));
    expect(written((w) => writeTicks(w, WORKED_EXAMPLE, 4))).toBe(JSON.stringify(ticks(WORKED_EXAMPLE, 4)));
  });

  it('matches JSON.stringify of the result objects on random structures, odd ids and extras included', () => {
    fc.assert(
      fc.property(structureArbitrary, fc.integer({ min: 0, max: 6 }), (structure, count) => {
        expect(written((w) => writeAnalyze(w, structure))).toBe(JSON.stringify(analyze(structure)));
        expect(written((w) => writeTick(w, structure))).toBe(JSON.stringify(tick(structure)));
        expect(written((w) => writeTicks(w, structure, count))).toBe(JSON.stringify(ticks(structure, count)));
        const compiled = compileStructure(structure);
        expect(written((w) => writeAnalyze(w, compiled))).toBe(JSON.stringify(analyze(structure)));
      }),
      { numRuns: 300 },
    );
  });

  // A caller's extra field nested deeper than JSON can be printed: the element is named.
  it('names the element whose extra field is nested too deeply to print', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const structure = {
      nodes: [
        { id: 'A', load: 1 },
        { id: 'B', note: deep },
      ],
      dependencies: [],
    };
    expect(() => written((w) => writeAnalyze(w, structure))).toThrow(PayloadError);
    expect(() => written((w) => writeAnalyze(w, structure))).toThrow(
      /^nodes\[1\]: an extra field is nested too deeply/,
    );
    // Snapshots carry no extras, so the same structure's timeline prints.
    expect(written((w) => writeTicks(w, structure, 2))).toBe(JSON.stringify(ticks(structure, 2)));
  });

  it('refuses a negative tick count as ticks does', () => {
    expect(() => written((w) => writeTicks(w, WORKED_EXAMPLE, -1))).toThrow(RangeError);
  });
});
