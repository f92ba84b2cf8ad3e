import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { medianOfThree, sortIds } from '../../lib/engine/sort-ids';

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

  // A prefix sorts before any longer id, even one that continues with the smallest unit, U+0000:
  // "a" < "a\u0000" < "a\u0000\u0000" < "a\u0001". Twenty such ids, listed backwards, make a range
  // long enough to be split unit by unit.
  it('sorts an id before the same id followed by U+0000', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `a${'\u0000'.repeat(19 - i)}`).concat('a\u0001');
    const sorted = sortIds(ids.slice());
    expect(sorted.slice(0, 3)).toEqual(['a', 'a\u0000', 'a\u0000\u0000']);
    expect(sorted).toEqual(ids.slice().sort());
  });

  // Twenty ids that all start with U+0000 and then differ: the first split puts every one of them
  // with the pivot (unit 0), and that group must still be sorted on the units that follow.
  it('sorts ids that share a leading U+0000', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `\u0000${String(19 - i).padStart(2, '0')}`);
    expect(sortIds(ids.slice())).toEqual(ids.slice().sort());
  });

  // Sorting in place writes the sorted ids and nothing else into the caller's array.
  it('leaves the array holding only its ids', () => {
    for (const ids of [
      ['b', 'a'],
      ['c', 'b', 'a', 'd'],
      Array.from({ length: 40 }, (_, i) => `n${40 - i}`),
    ]) {
      const sorted = sortIds(ids);
      expect(sorted).toBe(ids);
      expect(Object.keys(sorted)).toEqual(sorted.map((_, i) => String(i)));
    }
  });
});

describe('medianOfThree', () => {
  // The pivot is the middle one of the three units it samples, whatever order they come in.
  it('returns the middle value of any three', () => {
    const orders = [
      [1, 2, 3],
      [1, 3, 2],
      [2, 1, 3],
      [2, 3, 1],
      [3, 1, 2],
      [3, 2, 1],
      [1, 1, 2],
      [1, 2, 1],
      [2, 1, 1],
      [2, 2, 1],
      [2, 1, 2],
      [1, 2, 2],
      [-1, -1, -1],
    ];
    for (const [a, b, c] of orders) {
      const middle = [a!, b!, c!].sort((x, y) => x - y)[1];
      expect(medianOfThree(a!, b!, c!), `${a}, ${b}, ${c}`).toBe(middle);
    }
  });
});
