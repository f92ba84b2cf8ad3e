import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';
import { DENSE_SOLVE_LIMIT } from '../../lib/engine/reach';

/**
 * A ring n0 → n1 → … → n(k-1) → n0 where every hop but the last also leaks 1% of the value
 * into a dead end D, and the last node sends half its outflow to T. T holds 100, so it is the
 * primary blockage, and n0 holds 1, so T's origin share tells how likely value at n0 is to
 * reach T:  r(n_i) = a·r(n_(i+1)) with a = 1/1.01, and r(n_(k-1)) = ½·r(n0) + ½, so
 * r(n0) = a^(k-1) · ½ / (1 − ½·a^(k-1)).
 */
function leakyRing(k: number) {
  const nodes: { id: string; load: number }[] = [];
  const dependencies: { from: string; to: string; weight?: number }[] = [];
  for (let i = 0; i < k; i++) nodes.push({ id: `n${i}`, load: i === 0 ? 1 : 0 });
  nodes.push({ id: 'T', load: 100 }, { id: 'D', load: 0 });
  for (let i = 0; i < k - 1; i++) {
    dependencies.push({ from: `n${i}`, to: `n${i + 1}` }, { from: `n${i}`, to: 'D', weight: 0.01 });
  }
  dependencies.push({ from: `n${k - 1}`, to: 'n0' }, { from: `n${k - 1}`, to: 'T' });
  return { nodes, dependencies };
}

function expectedReach(k: number): number {
  const a = 1 / 1.01;
  const around = a ** (k - 1);
  return (around * 0.5) / (1 - 0.5 * around);
}

describe('reach probabilities inside cycles', () => {
  it.each([
    ['solved exactly (small cycle)', 20],
    ['solved exactly (at the dense limit)', DENSE_SOLVE_LIMIT],
    ['solved by sweeps (large cycle)', 300],
  ])('%s: a leaky ring of %i nodes', (_how, k) => {
    const result = analyze(leakyRing(k));
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin!.id).toBe('T');
    const reachOfN0 = 100 / result.origin!.share - 100;
    expect(reachOfN0).toBeCloseTo(expectedReach(k), 9);
    expect(result.events[0]).toMatchObject({ type: 'cycle', closed: false });
  });

  it('value that can never reach the blockage contributes nothing', () => {
    // S feeds only D; T's value is its own.
    const result = analyze({
      nodes: [
        { id: 'S', load: 50 },
        { id: 'D', load: 0, capacity: 100 },
        { id: 'T', load: 60 },
      ],
      dependencies: [
        { from: 'S', to: 'D' },
        { from: 'D', to: 'S' },
      ],
    });
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin).toEqual({ id: 'T', load: 60, contribution: 60, share: 1 });
  });
});
