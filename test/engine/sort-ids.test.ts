import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortIds } from '../../lib/engine/sort-ids';

// The default sort compares UTF-16 code units, exactly as `<` does: the order every id list in
// the engine's output uses. sortIds must agree with it on anything, byte for byte.
const idLists = fc.array(
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 6 }),
    fc.constantFrom('a', 'ab', 'abc', 'b', 'svc-1', 'svc-10', 'svc-2', '\uffff', '\ud800', '\u0000'),
    fc.nat(5000).map((i) => `n${i}`),
  ),
  { maxLength: 300 },
);

describe('sortIds', () => {
  it('orders ids exactly as the default sort does (prefixes first, code units, surrogates, duplicates)', () => {
    fc.assert(
      fc.property(idLists, (ids) => {
        expect(sortIds(ids.slice())).toEqual(ids.slice().sort());
      }),
      { numRuns: 400 },
    );
  });

  it('gives ranges that exhaust their split budget to the default sort, with the same result', () => {
    fc.assert(
      fc.property(idLists, fc.nat(3), (ids, budget) => {
        expect(sortIds(ids.slice(), budget)).toEqual(ids.slice().sort());
      }),
      { numRuns: 200 },
    );
  });

  // 20,000 ids sharing a 30-unit prefix, in descending order: every range splits on the same
  // units for 30 levels before the ids differ; still sorted, still the default order.
  it('sorts long shared prefixes and reversed input', () => {
    const prefix = 'x'.repeat(30);
    const ids = Array.from({ length: 20_000 }, (_, i) => `${prefix}${20_000 - i}`);
    expect(sortIds(ids.slice())).toEqual(ids.slice().sort());
  });

  // 60 ids in three groups by first letter (a, m, z), each group listed backwards. With a budget
  // of one uneven split, the first partition (on the first letter, pivot "m") leaves the a- and
  // z-groups out of budget: both go to the default sort, the z-group from the middle of the array.
  it('sorts a range that runs out of budget wherever it sits in the array', () => {
    const group = (letter: string) =>
      Array.from({ length: 20 }, (_, i) => `${letter}${String(19 - i).padStart(2, '0')}`);
    const ids = [...group('a'), ...group('m'), ...group('z')];
    expect(sortIds(ids.slice(), 1)).toEqual(ids.slice().sort());
  });
});
