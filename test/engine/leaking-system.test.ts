/**
 * `leakingSystemOf`: a loop's equations with each node's diagonal left to what it does not keep.
 */
import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { leakingSystemOf } from '../../lib/engine/leaking-system';

describe('leakingSystemOf', () => {
  // A exits 1 and passes 1 to B and 2 to itself: of its 4, ¼ leaves the system, ¼ goes to B, and
  // the ½ it keeps is in neither. B passes 1 to A and 3 to C (outside the loop): ¼ to A, ¾ out.
  it('splits each share between the loop and what leaks out of it', () => {
    const structure = compileStructure({
      nodes: [{ id: 'A', exit: 1, arrival: 1 }, { id: 'B' }, { id: 'C', exit: 1 }],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'A', to: 'A', weight: 2 },
        { from: 'B', to: 'A' },
        { from: 'B', to: 'C', weight: 3 },
      ],
    });
    const localIndex = Int32Array.from([0, 1, -1]);
    const left: [number, number, number][] = [];
    const { offDiagonal, leak } = leakingSystemOf(
      structure,
      Int32Array.from([0, 1]),
      2,
      localIndex,
      (row, share, to) => left.push([row, share, to]),
    );
    expect([...offDiagonal]).toEqual([0, 0.25, 0.25, 0]);
    expect([...leak]).toEqual([0.25, 0.75]);
    expect(left).toEqual([[1, 0.75, 2]]);
  });
});
