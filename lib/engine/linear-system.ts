/**
 * Solves the dense system `a · x = b` (`a` is n×n, row-major) in place by Gaussian elimination
 * with partial pivoting: `b` receives `x`, `a` is overwritten. Returns false when a pivot is 0
 * or the answer is not finite, in which case `b` holds nothing useful.
 */
export function solveLinearSystem(a: Float64Array, b: Float64Array, n: number): boolean {
  // (In the loops below, a column or row one past the end reads undefined and writes past the
  // arrays' ends, which is dropped.)
  // Stryker disable next-line EqualityOperator: see above
  for (let col = 0; col < n; col++) {
    let pivot = col;
    let best = Math.abs(a[col * n + col]!);
    // Stryker disable next-line EqualityOperator: see above (a row one past the end reads NaN, which is never larger; the `>=` twin is killed)
    for (let row = col + 1; row < n; row++) {
      const size = Math.abs(a[row * n + col]!);
      if (size > best) {
        best = size;
        pivot = row;
      }
    }
    // Going on would divide by this zero pivot, which the finiteness check below reports the same.
    // Stryker disable next-line ConditionalExpression: see above
    if (best === 0) return false;
    // Stryker disable next-line ConditionalExpression: swapping a row with itself changes nothing
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
    // Stryker disable next-line EqualityOperator: see above
    for (let row = col + 1; row < n; row++) {
      const factor = a[row * n + col]! / diagonal;
      // Stryker disable next-line ConditionalExpression: subtracting 0 times a finite row changes nothing; this saves the work
      if (factor === 0) continue;
      for (let k = col; k < n; k++) a[row * n + k]! -= factor * a[col * n + k]!;
      b[row]! -= factor * b[col]!;
    }
  }
  return substituteBackwards(a, b, n);
}

/**
 * Solves the upper triangle of `a` (on and above the diagonal) for `b` in place; false when an
 * answer is not finite.
 */
function substituteBackwards(a: Float64Array, b: Float64Array, n: number): boolean {
  for (let row = n - 1; row >= 0; row--) {
    let sum = b[row]!;
    for (let k = row + 1; k < n; k++) sum -= a[row * n + k]! * b[k]!;
    b[row] = sum / a[row * n + row]!;
    if (!Number.isFinite(b[row]!)) return false;
  }
  return true;
}

/**
 * Factors `a` (n×n, row-major) in place as `L·U` by Gaussian elimination without pivoting, for
 * a Z-matrix (off-diagonal entries ≤ 0) such as `I − Tᵀ`: it is a nonsingular M-matrix exactly
 * when every pivot is positive, which for `I − Tᵀ` with `T ≥ 0` irreducible means a spectral
 * radius below 1. Then `L` and `U` are M-matrices too: eliminating only adds numbers of one sign
 * to the off-diagonal entries, and the substitutions only add, so nothing cancels except in the
 * pivots themselves (partial pivoting instead can swap in rows that grow like the products of a
 * ring's calls). `U` sits on and above the diagonal, `L`'s multipliers below it. False when a
 * pivot is not positive and finite (no nonnegative inverse: the gain is 1 or more).
 */
export function factorMMatrix(a: Float64Array, n: number): boolean {
  for (let col = 0; col < n; col++) {
    const diagonal = a[col * n + col]!;
    if (!(diagonal > 0 && diagonal < Number.POSITIVE_INFINITY)) return false;
    // Stryker disable next-line EqualityOperator: one past the end: a row past the last reads undefined and writes past the array's end, which is dropped (the `>=` twin is killed)
    for (let row = col + 1; row < n; row++) {
      const factor = a[row * n + col]! / diagonal;
      a[row * n + col] = factor;
      if (factor === 0) continue;
      for (let k = col + 1; k < n; k++) a[row * n + k]! -= factor * a[col * n + k]!;
    }
  }
  return true;
}

/** Solves `a · x = b` with the factors of `factorMMatrix`; `b` receives `x`. False when `x` is not finite. */
export function solveFactored(a: Float64Array, b: Float64Array, n: number): boolean {
  // Stryker disable next-line EqualityOperator: one past the end: b[n] is undefined, not 0, and no row follows it (the `>=` twin is killed)
  for (let col = 0; col < n; col++) {
    const value = b[col]!;
    // Stryker disable next-line ConditionalExpression: same answer, other work: subtracting a multiplier times 0 changes nothing (at most a −0 becomes +0), and the multipliers of a matrix factorMMatrix accepted are finite (an infinite one makes a later pivot NaN or −Infinity, which it refuses; the `true` twin, no elimination, is killed)
    if (value === 0) continue;
    // Stryker disable next-line EqualityOperator: one past the end: row n reads undefined and writes past b's end, which is dropped (the `>=` twin is killed)
    for (let row = col + 1; row < n; row++) b[row]! -= a[row * n + col]! * value;
  }
  return substituteBackwards(a, b, n);
}

/**
 * Factors `D − N` for a system that leaks: `N` (n×n, row-major, `offDiagonal`) holds what each
 * unknown passes to each other one (≥ 0, its diagonal unread), `leak` what it passes out of the
 * system (≥ 0), and the diagonal is what it keeps for none of them: `D_i = leak_i + Σ_j N_ij`.
 * That is the equation of a routing loop (`x = b + P x` for a reach or a latency, its transpose
 * for throughputs) written with each diagonal as the sum of what leaves the node rather than
 * `1 − ` what it keeps: with a self-dependency that keeps 440,000 parts in 440,010, `1 − 0.99998`
 * has lost five digits before any elimination, and elimination by differences loses the rest (a
 * 3-node loop whose reach is 0.9999998 was solved as 0; routing loops of 60–75 nodes with weights
 * over 1e-2…1e2 had a pivot cancel to 0 and were called unbounded). Eliminated by
 * Grassmann–Taksar–Heyman: each pivot is recomputed as the sum of what is left of its row, and
 * every step adds nonnegative numbers, so nothing cancels and the answer keeps nearly every digit
 * however the weights spread. On return `offDiagonal` holds the factors (the multipliers below the
 * diagonal, what is left of `N` above it) and `leak` is overwritten; the pivots are returned, or
 * `undefined` when some unknown keeps everything (a pivot of 0: no finite answer).
 *
 * @internal exported for its tests
 */
export function factorLeakingSystem(
  offDiagonal: Float64Array,
  leak: Float64Array,
  n: number,
): Float64Array | undefined {
  const pivot = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const row = k * n;
    let d = leak[k]!;
    for (let j = k + 1; j < n; j++) d += offDiagonal[row + j]!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: same answer: a pivot of 0 or past the largest double makes the solves' answer not finite, which they refuse (shares and leaks of a routing loop are at most 1, so neither arises from the engine's systems)
    if (!(d > 0 && d < Number.POSITIVE_INFINITY)) return undefined;
    pivot[k] = d;
    // Stryker disable next-line EqualityOperator: one past the end: its reads are undefined and its writes past the array's end, dropped
    for (let i = k + 1; i < n; i++) {
      const toK = offDiagonal[i * n + k]!;
      if (toK === 0) continue;
      const f = toK / d;
      offDiagonal[i * n + k] = f;
      const other = i * n;
      // What i passed to k now goes where k passes it: to the others still unknown, out of the
      // system, or back to i (which only keeps it at i: left out of i's row).
      // Stryker disable next-line ConditionalExpression: same answer: what comes back to i lands on its diagonal, which is never read
      for (let j = k + 1; j < n; j++) if (j !== i) offDiagonal[other + j]! += f * offDiagonal[row + j]!;
      leak[i]! += f * leak[k]!;
    }
  }
  return pivot;
}

/** Solves `(D − N) x = b` with the factors of `factorLeakingSystem`; `b` (≥ 0) receives `x`. False when `x` is not finite. */
export function solveLeaking(
  factors: Float64Array,
  pivot: Float64Array,
  b: Float64Array,
  n: number,
): boolean {
  // Stryker disable next-line EqualityOperator: one past the end: b[n] is undefined and no row follows it
  for (let k = 0; k < n; k++) {
    const value = b[k]!;
    // Stryker disable next-line ConditionalExpression: same answer, other work: adding multiples of 0
    if (value === 0) continue;
    // Stryker disable next-line EqualityOperator: one past the end: its writes are past b's end, dropped
    for (let i = k + 1; i < n; i++) b[i]! += factors[i * n + k]! * value;
  }
  for (let k = n - 1; k >= 0; k--) {
    const row = k * n;
    let sum = b[k]!;
    for (let j = k + 1; j < n; j++) sum += factors[row + j]! * b[j]!;
    b[k] = sum / pivot[k]!;
    if (!Number.isFinite(b[k]!)) return false;
  }
  return true;
}

/**
 * Solves `(D − N)ᵀ x = b` with the factors of `factorLeakingSystem` (a loop's throughputs:
 * `x_i = b_i + Σ_j x_j · N_ji`); `b` (≥ 0) receives `x`. False when `x` is not finite.
 */
export function solveLeakingTransposed(
  factors: Float64Array,
  pivot: Float64Array,
  b: Float64Array,
  n: number,
): boolean {
  // Uᵀ y = b: y_k = (b_k + Σ_{j<k} N_jk · y_j) / d_k.
  for (let k = 0; k < n; k++) {
    const value = b[k]! / pivot[k]!;
    b[k] = value;
    // Stryker disable next-line ConditionalExpression: same answer: a value past the largest double makes x_k's sum in the pass below not finite, which it refuses
    if (!Number.isFinite(value)) return false;
    // Stryker disable next-line ConditionalExpression: same answer, other work: adding multiples of 0
    if (value === 0) continue;
    const row = k * n;
    // Stryker disable next-line EqualityOperator: one past the end: its writes are past b's end, dropped
    for (let j = k + 1; j < n; j++) b[j]! += factors[row + j]! * value;
  }
  // Lᵀ x = y: x_k = y_k + Σ_{i>k} f_ik · x_i.
  for (let k = n - 1; k >= 0; k--) {
    let sum = b[k]!;
    for (let i = k + 1; i < n; i++) sum += factors[i * n + k]! * b[i]!;
    b[k] = sum;
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: defensive: the multipliers are at most 1 and what they add is already finite in the pass before, so only a sum of many large finite values could pass the largest double here
    if (!Number.isFinite(sum)) return false;
  }
  return true;
}

/**
 * Solves `(D − N) x = b` for a system that leaks (`factorLeakingSystem`) in one go; `b` receives
 * `x`, `offDiagonal` and `leak` are overwritten. False when there is no finite answer.
 *
 * @internal exported for its tests
 */
export function solveLeakingSystem(
  offDiagonal: Float64Array,
  leak: Float64Array,
  b: Float64Array,
  n: number,
): boolean {
  const pivot = factorLeakingSystem(offDiagonal, leak, n);
  return pivot !== undefined && solveLeaking(offDiagonal, pivot, b, n);
}
