import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  compileStructure,
  type JsonWriter,
  PayloadError,
  ResultTooLargeError,
  releaseScratchMemory,
  type Structure,
  tick,
  ticks,
  writeAnalyze,
  writeTick,
  writeTicks,
} from '../../lib/engine';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { isExtraKey } from './input-fields';
import { written } from './written';

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
  fc
    .oneof(fc.string({ maxLength: 5 }), fc.constantFrom('0', '7', '__proto__', 'toJSON', 'flow', 'role'))
    .filter(isExtraKey),
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

  // Printing an extra can fail in two more ways. V8 throws a RangeError other than a stack
  // overflow when the text would pass 2^29 characters: the answer is too large, and the element
  // is named (a half-GB string is too slow to build here, so an extra whose toJSON throws that
  // error stands in for it). Any other error is not the writer's to explain and passes through.
  it('reports an extra too large to print, and passes other errors through', () => {
    const withNote = (error: Error): Structure => ({
      nodes: [
        { id: 'A', load: 1 },
        {
          id: 'B',
          note: {
            toJSON() {
              throw error;
            },
          },
        },
      ],
      dependencies: [],
    });
    const tooLong = withNote(new RangeError('Invalid string length'));
    expect(() => written((w) => writeAnalyze(w, tooLong))).toThrow(ResultTooLargeError);
    expect(() => written((w) => writeAnalyze(w, tooLong))).toThrow('nodes[1] is too large to return');
    const other = new TypeError('not printable');
    expect(() => written((w) => writeAnalyze(w, withNote(other)))).toThrow(other);
  });

  // The same for a dependency's extra field: the dependency is named.
  it('names the dependency whose extra field is nested too deeply to print', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { deep };
    const structure = {
      nodes: [{ id: 'A', load: 1 }, { id: 'B' }],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A', note: deep },
      ],
    };
    expect(() => written((w) => writeAnalyze(w, structure))).toThrow(
      /^dependencies\[1\]: an extra field is nested too deeply/,
    );
  });

  // Loads, capacities and weights like 1/3 print with 17 significant digits, and so do the flows
  // and pressures they make: such an answer is about 1.5 times the size estimated before writing.
  // Written by a writer that starts cold (64 KiB), chains of 180 to 300 nodes outgrow the buffer
  // partway through their nodes or dependencies, a tangle of 20 nodes (380 dependencies) partway
  // through its dependencies, and a timeline between two snapshots: every element makes its own
  // room, so every one lands whole.
  it('writes answers that outgrow their estimated size whole', () => {
    const chain = (n: number): Structure => ({
      nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, load: 1 / (i + 3), capacity: 1 / (i + 7) })),
      dependencies: Array.from({ length: n - 1 }, (_, i) => ({
        from: `n${i}`,
        to: `n${i + 1}`,
        weight: 1 / (i + 11),
      })),
    });
    const tangle = (n: number): Structure => ({
      nodes: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, load: 1 / (i + 3) })),
      dependencies: Array.from({ length: n * n }, (_, k) => ({
        from: `t${Math.floor(k / n)}`,
        to: `t${k % n}`,
        weight: 1 / (k + 3),
      })).filter((d) => d.from !== d.to),
    });
    const cold = (write: (writer: JsonWriter) => void): string => {
      releaseScratchMemory();
      return written(write);
    };
    for (let n = 180; n <= 300; n += 15) {
      const structure = chain(n);
      expect(
        cold((w) => writeAnalyze(w, structure)),
        `chain of ${n}`,
      ).toBe(JSON.stringify(analyze(structure)));
    }
    // Extra fields are not in the estimate: 100 of 280 nodes with 60-character ids carrying a
    // 200-character note (or 60 of 149 dependencies of a chain of 150 such nodes) make an answer
    // that outgrows it within the plain nodes (or the plain dependencies) after them. Each
    // step of `shift` moves those entries one byte, so over 220 steps (more than one entry's
    // length) the entry that meets the end of the buffer starts at every distance from it.
    const id = (i: number) => `${'n'.repeat(60)}${i}`;
    const note = (i: number, shift: number) => ({ note: 'x'.repeat(i === 0 ? 200 + shift : 200) });
    const notedNodes = (shift: number): Structure => ({
      nodes: Array.from({ length: 280 }, (_, i) => ({
        id: id(i),
        load: 1 / (i + 3),
        capacity: 1 / (i + 7),
        ...(i < 100 ? note(i, shift) : {}),
      })),
      dependencies: [],
    });
    const notedDependencies = (shift: number): Structure => ({
      nodes: Array.from({ length: 150 }, (_, i) => ({ id: id(i), load: 1 / (i + 3), capacity: 1 / (i + 7) })),
      dependencies: Array.from({ length: 149 }, (_, i) => ({
        from: id(i),
        to: id(i + 1),
        weight: 1 / (i + 11),
        ...(i < 60 ? note(i, shift) : {}),
      })),
    });
    for (const [what, noted] of [
      ['nodes', notedNodes],
      ['dependencies', notedDependencies],
    ] as const) {
      for (let shift = 0; shift < 220; shift++) {
        const structure = noted(shift);
        const text = cold((w) => writeAnalyze(w, structure));
        if (text !== JSON.stringify(analyze(structure))) expect.fail(`noted ${what}, shifted by ${shift}`);
      }
    }
    for (const n of [20, 24, 28]) {
      const structure = tangle(n);
      expect(
        cold((w) => writeAnalyze(w, structure)),
        `tangle of ${n}`,
      ).toBe(JSON.stringify(analyze(structure)));
    }
    for (const n of [25, 40, 55]) {
      const structure = chain(n);
      expect(
        cold((w) => writeTicks(w, structure, 12)),
        `12 ticks of ${n}`,
      ).toBe(JSON.stringify(ticks(structure, 12)));
    }
  });

  it('refuses a negative tick count as ticks does', () => {
    expect(() => written((w) => writeTicks(w, WORKED_EXAMPLE, -1))).toThrow(RangeError);
  });
});
