/**
 * `closestName`: the known name a mistyped one was most likely meant to be, for "did you mean"
 * hints. Worked examples with their edit distances (insertions, deletions, substitutions and
 * swaps of neighbours, each 1; letters compared case-insensitively).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestName } from '../../lib/text';

const FIELDS = ['capacity', 'defaultCapacity', 'arrival', 'exit', 'fanout', 'serviceTime', 'servers'];

describe('closestName', () => {
  // One letter left out: distance 1, well within a third of 15.
  it('finds a name with a letter left out', () => {
    expect(closestName('defaultCapacty', FIELDS)).toBe('defaultCapacity');
  });

  // One letter too many, and one letter wrong: 1 each.
  it('finds a name with a letter added or changed', () => {
    expect(closestName('arrivall', FIELDS)).toBe('arrival');
    expect(closestName('arrivel', FIELDS)).toBe('arrival');
  });

  // "exti" swaps two neighbours of "exit": 1 by a swap, where insertions, deletions and
  // substitutions alone need 2 — more than a third of 4, so only the swap finds it.
  it('counts two neighbours swapped as one edit', () => {
    expect(closestName('exti', FIELDS)).toBe('exit');
    expect(closestName('fnaout', FIELDS)).toBe('fanout');
    expect(closestName('exti', ['text', 'exit'])).toBe('exit');
  });

  // Case is not a difference: "ServiceTime" is "serviceTime" at distance 0.
  it('compares letters without case', () => {
    expect(closestName('ServiceTime', FIELDS)).toBe('serviceTime');
    expect(closestName('CAPACITY', FIELDS)).toBe('capacity');
  });

  // "servrs" is 1 from "servers" (7 letters: a third is 2) and 6 from every other name.
  // "srvers" too; "vers" is 3 from "servers", over the limit of 2.
  it('stays within a third of the longer name', () => {
    expect(closestName('servrs', FIELDS)).toBe('servers');
    expect(closestName('vers', FIELDS)).toBeUndefined();
    // "abc" against "abd": 1, and a third of 3 is 1.
    expect(closestName('abc', ['abd'])).toBe('abd');
    // "ab" against "cd": 2, and a third of 2 is 0.
    expect(closestName('ab', ['ab', 'cd'])).toBe('ab');
    expect(closestName('ab', ['cd'])).toBeUndefined();
  });

  // Both "cat" and "car" are 1 from "caz": the earlier known name wins; a nearer later one
  // still beats an earlier farther one.
  it('breaks ties by the order of the known names', () => {
    expect(closestName('caz', ['cat', 'car'])).toBe('cat');
    expect(closestName('caz', ['car', 'cat'])).toBe('car');
    expect(closestName('cattle', ['cattles', 'cattle'])).toBe('cattle');
  });

  // The distance counts every edit, not only the first: "capasitty" is 2 from "capacity"
  // (one substitution, one extra letter); a third of 9 is 3.
  it('adds up several edits', () => {
    expect(closestName('capasitty', FIELDS)).toBe('capacity');
    expect(closestName('cpaasitty', FIELDS)).toBe('capacity');
    expect(closestName('xxpasxtty', FIELDS)).toBeUndefined();
  });

  // Nothing known, or nothing typed: no guess unless the known name is short enough.
  it('gives nothing for an empty list, and handles empty names', () => {
    expect(closestName('capacity', [])).toBeUndefined();
    expect(closestName('', ['a'])).toBeUndefined();
    expect(closestName('', ['', 'a'])).toBe('');
    expect(closestName('abc', [''])).toBeUndefined();
  });

  // A swap is counted only between neighbours: "abcd" → "cbad" is 2 substitutions, not a swap.
  it('does not count a swap of letters that are not neighbours', () => {
    expect(closestName('abcdef', ['cbadef'])).toBe('cbadef');
    expect(closestName('abcdef', ['cbadfe'])).toBeUndefined();
    // "abdcfe": two neighbour swaps, 2.
    expect(closestName('abcdef', ['abdcfe'])).toBe('abdcfe');
    // "ba" is one swap from "ab"; a third of 2 is 0, so it is not offered.
    expect(closestName('ab', ['ba'])).toBeUndefined();
    expect(closestName('abcdef', ['bacdfe'])).toBe('bacdfe');
  });
});

/** The optimal string alignment distance, written out as the whole table (an independent check). */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

describe('closestName against the whole-table distance', () => {
  // Short words over three letters, where swaps and near misses are frequent.
  it('offers what the reference distance offers', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A'), maxLength: 7 });
    fc.assert(
      fc.property(word, fc.array(word, { maxLength: 5 }), (typed, known) => {
        let expected: string | undefined;
        let best = Number.POSITIVE_INFINITY;
        for (const name of known) {
          const distance = referenceDistance(typed.toLowerCase(), name.toLowerCase());
          if (distance < best && distance <= Math.floor(Math.max(typed.length, name.length) / 3)) {
            expected = name;
            best = distance;
          }
        }
        expect(closestName(typed, known)).toBe(expected);
      }),
      { seed: 2026_11_27, numRuns: 2000 },
    );
  });

  // "xxab" and "xxbc" share their last letters crosswise only in part: 2 edits, not a swap.
  it('does not take half a swap for a swap', () => {
    expect(closestName('xxab', ['xxbc'])).toBeUndefined();
    expect(closestName('xxab', ['xxba'])).toBe('xxba');
  });
});
