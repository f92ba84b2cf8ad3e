import { describe, expect, it } from 'vitest';
import { solveLinearSystem } from '../../lib/engine/linear-system';

function solve(rows: number[][], rhs: number[]): { solved: boolean; x: number[] } {
  const n = rhs.length;
  const a = Float64Array.from(rows.flat());
  const b = Float64Array.from(rhs);
  const solved = solveLinearSystem(a, b, n);
  return { solved, x: Array.from(b) };
}

describe('solveLinearSystem', () => {
  // x + 2y = 5, 3x + 4y = 11: x = 1, y = 2. The larger first column (3) is taken as the pivot.
  it('solves a small system exactly', () => {
    expect(
      solve(
        [
          [1, 2],
          [3, 4],
        ],
        [5, 11],
      ),
    ).toEqual({ solved: true, x: [1, 2] });
  });

  // y = 2, x = 3: the first column's only non-zero entry is in the second row, so the rows are
  // swapped before eliminating.
  it('swaps rows when the diagonal is zero', () => {
    expect(
      solve(
        [
          [0, 1],
          [1, 0],
        ],
        [2, 3],
      ),
    ).toEqual({ solved: true, x: [3, 2] });
  });

  // Two equal rows: no unique answer, so it reports failure rather than numbers.
  it('reports a singular system', () => {
    expect(
      solve(
        [
          [1, 1],
          [1, 1],
        ],
        [1, 2],
      ).solved,
    ).toBe(false);
    expect(
      solve(
        [
          [0, 0],
          [0, 0],
        ],
        [0, 0],
      ).solved,
    ).toBe(false);
  });

  // 1e-300 · x = 1e300 has x = 1e600, past the largest double: no finite answer, so failure.
  it('reports an answer that is not finite', () => {
    expect(solve([[1e-300]], [1e300]).solved).toBe(false);
    expect(
      solve(
        [
          [1, 0],
          [0, 1e-300],
        ],
        [1, 1e300],
      ).solved,
    ).toBe(false);
  });
});
