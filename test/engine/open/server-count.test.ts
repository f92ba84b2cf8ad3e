import { describe, expect, it } from 'vitest';
import { isServerCount, MAX_SERVERS } from '../../../lib/engine/open/server-count';

describe('isServerCount', () => {
  // A node has from one server to ten thousand, counted whole: the engine refuses the rest for a
  // structure and a scenario alike, and the explorer's servers field refuses them as typed.
  it('takes a whole number from 1 to 10,000', () => {
    expect(MAX_SERVERS).toBe(10_000);
    for (const servers of [1, 2, 9_999, 10_000]) expect(isServerCount(servers), String(servers)).toBe(true);
  });

  it('refuses none, a fraction, a number out of range, and what is no number', () => {
    for (const value of [
      0,
      -1,
      10_001,
      2.5,
      1 + 1e-9,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '3',
      null,
      undefined,
    ])
      expect(isServerCount(value), String(value)).toBe(false);
  });
});
