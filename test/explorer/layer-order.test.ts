import { describe, expect, it } from 'vitest';
import { orderWithinLayers } from '../../explorer/src/layer-order';

describe('orderWithinLayers with groups', () => {
  it("keeps each group's members together in a layer, groups in the same order in every layer", () => {
    // Two layers of four; nodes 0–3 in layer 0, 4–7 in layer 1; groups alternate.
    const layer = Int32Array.from([0, 0, 0, 0, 1, 1, 1, 1]);
    const group = Int32Array.from([0, 1, 0, 1, 0, 1, 0, 1]);
    const edges = [
      [0, 4],
      [1, 5],
      [2, 6],
      [3, 7],
    ] as const;
    const row = orderWithinLayers(layer, 2, edges, group);
    const byRow = (l: number) =>
      [0, 1, 2, 3, 4, 5, 6, 7]
        .filter((v) => layer[v] === l)
        .sort((a, b) => row[a]! - row[b]!)
        .map((v) => group[v]);
    expect(byRow(0)).toEqual(byRow(1));
    const first = byRow(0);
    expect(first[0]).toBe(first[1]);
    expect(first[2]).toBe(first[3]);
  });

  it('leaves the order of nodes in no group by their place', () => {
    const layer = Int32Array.from([0, 0, 0]);
    expect([...orderWithinLayers(layer, 1, [], Int32Array.from([-1, -1, -1]))]).toEqual([0, 1, 2]);
  });
});
