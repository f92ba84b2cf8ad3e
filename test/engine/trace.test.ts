import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';

describe('trace', () => {
  // O splits 3:1 between A and B. A sends only a quarter of its outflow on to T (the rest to X),
  // B all of it: via A the path's probability is 0.75 × 0.25 = 0.1875, via B 0.25 × 1 = 0.25.
  // The most probable path is the product of shares along it, so the trace goes through B.
  it('follows the greatest product of shares, not the greatest first share', () => {
    const result = analyze({
      nodes: [
        { id: 'O', load: 1000 },
        { id: 'A', load: 0 },
        { id: 'B', load: 0 },
        { id: 'T', load: 100 },
        { id: 'X', load: 0 },
      ],
      dependencies: [
        { from: 'O', to: 'A', weight: 3 },
        { from: 'O', to: 'B', weight: 1 },
        { from: 'A', to: 'T', weight: 1 },
        { from: 'A', to: 'X', weight: 3 },
        { from: 'B', to: 'T' },
      ],
    });
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin?.id).toBe('O');
    expect(result.trace).toEqual(['O', 'B', 'T']);
  });

  // Two paths of exactly equal probability from O to T: 1/3 × 1 through "b", 2/3 × 1/2 through
  // "a" (the same double). "b" is settled first (its own probability, 1, is higher), so only the
  // tie-break rule (smallest next id) picks "a".
  it('breaks an exact tie between paths by the smallest next id', () => {
    const result = analyze({
      nodes: [
        { id: 'O', load: 1000 },
        { id: 'a', load: 0 },
        { id: 'b', load: 0 },
        { id: 'T', load: 100 },
        { id: 'W', load: 0 },
      ],
      dependencies: [
        { from: 'O', to: 'b', weight: 1 },
        { from: 'O', to: 'a', weight: 2 },
        { from: 'b', to: 'T' },
        { from: 'a', to: 'T' },
        { from: 'a', to: 'W' },
      ],
    });
    expect(1 / 3).toBe((2 / 3) * 0.5);
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin?.id).toBe('O');
    expect(result.trace).toEqual(['O', 'a', 'T']);
  });
});
