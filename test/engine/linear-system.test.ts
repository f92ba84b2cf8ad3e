import { describe, expect, it } from 'vitest';
import {
  factorLeakingSystem,
  factorMMatrix,
  solveFactored,
  solveLeaking,
  solveLeakingSystem,
  solveLeakingTransposed,
  solveLinearSystem,
} from '../../lib/engine/linear-system';

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

  // x + y = 3, x + 2y = 0.1: both rows have 1 in the first column, a tie, and the first row stays
  // the pivot (a swap would gain nothing). Then y = 0.1 − 3 = −2.9 and x = 3 − y = 5.9, one
  // rounding each: the doubles nearest the exact answer. Swapping in the second row would take
  // x = 0.1 − 2y, two roundings: 5.8999999999999995.
  it('keeps the first row as the pivot on a tie', () => {
    expect(
      solve(
        [
          [1, 1],
          [1, 2],
        ],
        [3, 0.1],
      ),
    ).toEqual({ solved: true, x: [5.9, -2.9] });
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

describe('factorMMatrix and solveFactored', () => {
  function factorAndSolve(rows: number[][], rhs: number[][]): { factored: boolean; xs: number[][] } {
    const n = rows.length;
    const a = Float64Array.from(rows.flat());
    if (!factorMMatrix(a, n)) return { factored: false, xs: [] };
    return {
      factored: true,
      xs: rhs.map((b) => {
        const x = Float64Array.from(b);
        expect(solveFactored(a, x, n)).toBe(true);
        return Array.from(x);
      }),
    };
  }

  // x − ½y = 1, −½x + y = 1 (a loop sending half of each node to the other): x = y = 2; one
  // factoring serves a second right-hand side, 1 and 0: x = 4/3, y = 2/3.
  it('factors once and solves several right-hand sides', () => {
    const { factored, xs } = factorAndSolve(
      [
        [1, -0.5],
        [-0.5, 1],
      ],
      [
        [1, 1],
        [1, 0],
      ],
    );
    expect(factored).toBe(true);
    expect(xs[0]).toEqual([2, 2]);
    expect(xs[1]![0]).toBeCloseTo(4 / 3, 15);
    expect(xs[1]![1]).toBeCloseTo(2 / 3, 15);
  });

  // A loop that keeps all it gets (each node sends all to the other): the second pivot is
  // 1 − 1·1 = 0, not positive: no nonnegative inverse.
  it('refuses a gain of 1', () => {
    expect(
      factorAndSolve(
        [
          [1, -1],
          [-1, 1],
        ],
        [],
      ).factored,
    ).toBe(false);
  });

  // A gain above 1 (each sends twice what it gets): the second pivot is 1 − 2·2 = −3.
  it('refuses a gain above 1', () => {
    expect(
      factorAndSolve(
        [
          [1, -2],
          [-2, 1],
        ],
        [],
      ).factored,
    ).toBe(false);
  });

  // A first pivot that is not positive is refused at once, and so is one that is not finite.
  it('refuses a non-positive or infinite first pivot', () => {
    expect(factorAndSolve([[0]], []).factored).toBe(false);
    expect(factorAndSolve([[-1]], []).factored).toBe(false);
    expect(factorAndSolve([[Number.POSITIVE_INFINITY]], []).factored).toBe(false);
  });

  // Rows x0 − 1e308·x2, −2·x0 + x1 and x2: every pivot is 1 (the entries off the diagonal, x2 into
  // row 0 and x0 into row 1, make no loop: a nonsingular M-matrix). Eliminating x0 from row 1 puts
  // −2e308 beside x2 there, past the largest double: −Infinity. Row 2 has nothing in columns 0
  // and 1 and is left as it is; its pivot stays 1 (0 × −Infinity would make it NaN).
  it('leaves a row with nothing to eliminate as it is', () => {
    const a = Float64Array.from([1, 0, -1e308, -2, 1, 0, 0, 0, 1]);
    expect(factorMMatrix(a, 3)).toBe(true);
    expect(Array.from(a)).toEqual([1, 0, -1e308, -2, 1, Number.NEGATIVE_INFINITY, 0, 0, 1]);
  });

  // The answer is checked: a right-hand side past the largest double gives a non-finite x.
  it('says when the answer is not finite', () => {
    const a = Float64Array.from([0.5]);
    expect(factorMMatrix(a, 1)).toBe(true);
    const x = Float64Array.from([Number.MAX_VALUE]);
    expect(solveFactored(a, x, 1)).toBe(false);
  });
});

describe('solveLeakingSystem', () => {
  // Two nodes: A passes half to B and half out; B passes a quarter to A, the rest out, and B also
  // receives 1 from outside. x_A = ½·x_B, x_B = 1 + ¼·x_A: x_B = 1 / (1 − 1/8) = 8/7, x_A = 4/7.
  it('solves a small leaking system', () => {
    const offDiagonal = Float64Array.from([0, 0.5, 0.25, 0]);
    const leak = Float64Array.from([0.5, 0.75]);
    const b = Float64Array.from([0, 1]);
    expect(solveLeakingSystem(offDiagonal, leak, b, 2)).toBe(true);
    expect(b[0]).toBeCloseTo(4 / 7, 15);
    expect(b[1]).toBeCloseTo(8 / 7, 15);
  });

  // A keeps a billionth less than everything for B and back: x = 1 + (1 − 1e-9)·x over two
  // nodes each leaking 1e-9 of what they pass: x = 1e9 exactly. `1 − (1 − 1e-9)` as a difference
  // loses seven digits; the pivots here are sums.
  it('keeps its digits where almost nothing leaks', () => {
    const keep = 1 - 1e-9;
    const offDiagonal = Float64Array.from([0, keep, keep, 0]);
    const leak = Float64Array.from([1e-9, 1e-9]);
    const b = Float64Array.from([1, 1]);
    expect(solveLeakingSystem(offDiagonal, leak, b, 2)).toBe(true);
    expect(Math.abs(b[0]! - 1e9) / 1e9).toBeLessThan(1e-7);
  });

  // The same system's transpose, as throughputs read it (x_i = b_i + Σ_j x_j · N_ji): 1 arrives at
  // A; x_A = 1 + ¼·x_B, x_B = ½·x_A: x_A = 1 / (1 − 1/8) = 8/7, x_B = 4/7.
  it('solves the transpose with the same factors', () => {
    const offDiagonal = Float64Array.from([0, 0.5, 0.25, 0]);
    const pivot = factorLeakingSystem(offDiagonal, Float64Array.from([0.5, 0.75]), 2)!;
    const b = Float64Array.from([1, 0]);
    expect(solveLeakingTransposed(offDiagonal, pivot, b, 2)).toBe(true);
    expect(b[0]).toBeCloseTo(8 / 7, 15);
    expect(b[1]).toBeCloseTo(4 / 7, 15);
  });

  // A node that lets out 1e-300 of what it holds, fed 1e10: 1e310 passes, past the largest
  // double. Neither solve answers Infinity.
  it('refuses an answer past the largest double', () => {
    const pivot = factorLeakingSystem(new Float64Array(1), Float64Array.from([1e-300]), 1)!;
    expect(solveLeaking(new Float64Array(1), pivot, Float64Array.from([1e10]), 1)).toBe(false);
    expect(solveLeakingTransposed(new Float64Array(1), pivot, Float64Array.from([1e10]), 1)).toBe(false);
  });

  // A node that leaks nothing and passes nothing keeps everything: no finite answer.
  it('refuses a node that keeps everything', () => {
    expect(solveLeakingSystem(new Float64Array(1), new Float64Array(1), Float64Array.from([1]), 1)).toBe(
      false,
    );
  });
});
