/**
 * Solves the dense system `a · x = b` (`a` is n×n, row-major) in place by Gaussian elimination
 * with partial pivoting: `b` receives `x`, `a` is overwritten. Returns false when a pivot is 0
 * or the answer is not finite, in which case `b` holds nothing useful.
 */
export function solveLinearSystem(a: Float64Array, b: Float64Array, n: number): boolean {
  for (let col = 0; col < n; col++) {
    let pivot = col;
    let best = Math.abs(a[col * n + col]!);
    for (let row = col + 1; row < n; row++) {
      const size = Math.abs(a[row * n + col]!);
      if (size > best) {
        best = size;
        pivot = row;
      }
    }
    if (best === 0) return false;
    if (pivot !== col) {
      for (let k = col; k < n; k++) {
        const t = a[col * n + k]!;
        a[col * n + k] = a[pivot * n + k]!;
        a[pivot * n + k] = t;
      }
      const t = b[col]!;
      b[col] = b[pivot]!;
      b[pivot] = t;
    }
    const diagonal = a[col * n + col]!;
    for (let row = col + 1; row < n; row++) {
      const factor = a[row * n + col]! / diagonal;
      if (factor === 0) continue;
      for (let k = col; k < n; k++) a[row * n + k]! -= factor * a[col * n + k]!;
      b[row]! -= factor * b[col]!;
    }
  }
  for (let row = n - 1; row >= 0; row--) {
    let sum = b[row]!;
    for (let k = row + 1; k < n; k++) sum -= a[row * n + k]! * b[k]!;
    b[row] = sum / a[row * n + row]!;
    if (!Number.isFinite(b[row]!)) return false;
  }
  return true;
}
