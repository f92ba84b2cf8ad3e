import { describe, expect, it } from 'vitest';
import { backShare, chosenLayout, cyclicShare, mostlyCycles } from '../../explorer/src/cycles';
import { layeredLayout } from '../../explorer/src/layout';

const chain = (n: number) => Array.from({ length: n - 1 }, (_, v) => [v, v + 1] as const);
const ring = (n: number) => Array.from({ length: n }, (_, v) => [v, (v + 1) % n] as const);

describe('cyclicShare: the share of nodes on a cycle of two nodes or more', () => {
  it('is 0 for a DAG, an empty structure and nodes calling only themselves', () => {
    expect(cyclicShare(5, chain(5))).toBe(0);
    expect(
      cyclicShare(4, [
        [0, 1],
        [0, 2],
        [1, 3],
        [2, 3],
      ]),
    ).toBe(0);
    expect(cyclicShare(0, [])).toBe(0);
    expect(
      cyclicShare(3, [
        [0, 0],
        [1, 1],
        [0, 1],
      ]),
    ).toBe(0);
  });

  it('counts every node of each strongly connected component of two or more', () => {
    expect(cyclicShare(4, ring(4))).toBe(1);
    // A 2-cycle, a 3-cycle reached from it, and a tail of two: 5 of 7.
    const edges = [
      [0, 1],
      [1, 0],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 2],
      [4, 5],
      [5, 6],
    ] as const;
    expect(cyclicShare(7, edges)).toBeCloseTo(5 / 7);
    // Repeated pairs count once.
    expect(
      cyclicShare(3, [
        [0, 1],
        [0, 1],
        [1, 0],
      ]),
    ).toBeCloseTo(2 / 3);
  });

  it('takes no stack for a 200,000-node cycle or chain', () => {
    expect(cyclicShare(200_000, ring(200_000))).toBe(1);
    expect(cyclicShare(200_000, chain(200_000))).toBe(0);
  });
});

describe('backShare: the share of dependencies pointing back in the layering', () => {
  it('counts those into the same or an earlier layer, not a node calling itself', () => {
    // 0 → 1 → 2 → 0, and 2 → 2: one of three between two nodes goes back.
    const edges = [
      [0, 1],
      [1, 2],
      [2, 0],
      [2, 2],
    ] as const;
    expect(backShare(layeredLayout(3, edges).layer, edges)).toBeCloseTo(1 / 3);
    expect(backShare(layeredLayout(5, chain(5)).layer, chain(5))).toBe(0);
    expect(backShare(new Int32Array(1), [[0, 0]])).toBe(0);
  });
});

describe('mostlyCycles and chosenLayout', () => {
  it('is force from 50 nodes, over half of them on a cycle and 5% of dependencies pointing back', () => {
    expect(mostlyCycles(50, 0.51, 0.05)).toBe(true);
    expect(mostlyCycles(49, 1, 1)).toBe(false);
    expect(mostlyCycles(1000, 0.5, 0.5)).toBe(false);
    // A flow with a few long loops back: nearly every node on a cycle, few dependencies back.
    expect(mostlyCycles(10_000, 0.96, 0.014)).toBe(false);
  });

  it('draws the layout chosen, or automatically by the rule', () => {
    expect(chosenLayout('auto', true)).toBe('force');
    expect(chosenLayout('auto', false)).toBe('layers');
    expect(chosenLayout('layers', true)).toBe('layers');
    expect(chosenLayout('force', false)).toBe('force');
  });
});
