/** `keepRanked`: the first few items in order, kept as items arrive one at a time. */
import { describe, expect, it } from 'vitest';
import { keepRanked } from '../../lib/engine/ranked';

describe('keepRanked', () => {
  const smaller = (a: number, b: number) => a < b;

  // 5, 3, 9, 1, 7 kept three at a time: 1, 3, 5. Equal items keep their arrival order.
  it('keeps the first items in order, at most the limit', () => {
    const ranked: number[] = [];
    for (const item of [5, 3, 9, 1, 7]) keepRanked(ranked, item, 3, smaller);
    expect(ranked).toEqual([1, 3, 5]);
  });

  it('keeps equal items in the order they came', () => {
    const ranked: { key: number; name: string }[] = [];
    for (const item of [
      { key: 1, name: 'a' },
      { key: 0, name: 'b' },
      { key: 1, name: 'c' },
    ]) {
      keepRanked(ranked, item, 5, (x, y) => x.key < y.key);
    }
    expect(ranked.map((item) => item.name)).toEqual(['b', 'a', 'c']);
  });

  // Past the limit, an item after the last is left out; one before it pushes the last out.
  it('drops what falls past the limit', () => {
    const ranked = [1, 2];
    keepRanked(ranked, 3, 2, smaller);
    expect(ranked).toEqual([1, 2]);
    keepRanked(ranked, 0, 2, smaller);
    expect(ranked).toEqual([0, 1]);
  });
});
