import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareIds } from '../../lib/engine/compare-ids';

describe('compareIds', () => {
  // The engine model's tie-break: plain string comparison `<`, so "B" < "a" < "b" (code units).
  it('orders by code units: before is -1, after is 1, equal is 0', () => {
    expect(compareIds('a', 'b')).toBe(-1);
    expect(compareIds('b', 'a')).toBe(1);
    expect(compareIds('a', 'a')).toBe(0);
    expect(compareIds('B', 'a')).toBe(-1);
    expect(compareIds('a', 'ab')).toBe(-1);
    expect(compareIds('ab', 'a')).toBe(1);
  });

  // Sorting with it gives the default sort's order (UTF-16 code units, surrogates included),
  // and it agrees with `<` on every pair.
  it('agrees with < and with the default sort on any strings', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 30 }), (ids) => {
        expect([...ids].sort(compareIds)).toEqual([...ids].sort());
        for (const a of ids) {
          for (const b of ids) expect(compareIds(a, b)).toBe(a < b ? -1 : a === b ? 0 : 1);
        }
      }),
    );
  });
});
