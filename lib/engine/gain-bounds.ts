import type { CompiledStructure } from './compile';
import { checkpoint } from './stop-check';

/**
 * How many power iterations `gainBounds` spends at most. Each costs one pass over the
 * component's dependencies; a gain that is still undecided after them is decided by solving
 * (see `steady-state.ts`).
 */
const POWER_ITERATIONS = 24;

/** Lower and upper bounds on a component's gain (the spectral radius of its coefficients). */
export interface GainBounds {
  low: number;
  high: number;
}

/**
 * Collatz–Wielandt bounds on the gain of a strongly connected component: for every positive
 * vector `v`, `min (Tv)ᵤ / vᵤ ≤ ρ(T) ≤ max (Tv)ᵤ / vᵤ`, where `(Tv)ᵤ` sums `coef(e) · v(to(e))`
 * over `u`'s dependencies inside the component (a self-dependency included). Starting from
 * `v = 1`, whose ratios are each node's gain per unit processed (four 0.25 calls: exactly 1), it
 * iterates `v ← v + Tv`: the power method on `I + T`, which converges for a ring too (the
 * power method on a ring's `T` only rotates `v`), and whose first step already gives a ring of
 * alternating 2 and 0.5 calls its exact ratios. It stops once `low` reaches `decided` or `high`
 * falls below it, or after `POWER_ITERATIONS`.
 *
 * `localIndex[v]` is `v`'s place in `members`, −1 for a node outside the component.
 */
export function gainBounds(
  structure: CompiledStructure,
  members: Int32Array,
  localIndex: Int32Array,
  decided: number,
): GainBounds {
  const { outStart, outTarget, outShare } = structure;
  const n = members.length;
  let v = new Float64Array(n).fill(1);
  let next = new Float64Array(n);
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  for (let iteration = 0; iteration < POWER_ITERATIONS; iteration++) {
    checkpoint();
    let smallest = Number.POSITIVE_INFINITY;
    let largest = 0;
    let size = 0;
    // Stryker disable next-line EqualityOperator: one past the end: members[n] is undefined, so no dependency is read, the ratio is NaN (no comparison takes it) and next[n] is past the array's end, dropped (the `>=` twin is killed)
    for (let i = 0; i < n; i++) {
      const u = members[i]!;
      let sum = 0;
      const end = outStart[u + 1]!;
      for (let k = outStart[u]!; k < end; k++) {
        const local = localIndex[outTarget[k]!]!;
        if (local >= 0) sum += outShare[k]! * v[local]!;
      }
      const ratio = sum / v[i]!;
      // Stryker disable next-line EqualityOperator: equal replaces equal (the `>=` twin is killed)
      if (ratio < smallest) smallest = ratio;
      // Stryker disable next-line EqualityOperator: equal replaces equal (the `<=` twin is killed)
      if (ratio > largest) largest = ratio;
      const grown = v[i]! + sum;
      next[i] = grown;
      // Stryker disable next-line EqualityOperator: equal replaces equal (the `<=` twin is killed)
      if (grown > size) size = grown;
    }
    // Stryker disable next-line EqualityOperator: equal replaces equal (the `<=` twin is killed)
    if (smallest > low) low = smallest;
    // Stryker disable next-line EqualityOperator: equal replaces equal (the `>=` twin is killed)
    if (largest < high) high = largest;
    if (low >= decided || high < decided || !(size < Number.POSITIVE_INFINITY)) break;
    // Rescaled so that `v` stays within range however large the gain.
    // Stryker disable next-line EqualityOperator: one past the end: next[n] is past the array's end, the write is dropped (the `>=` twin, no rescaling, is killed)
    for (let i = 0; i < n; i++) next[i] = next[i]! / size;
    [v, next] = [next, v];
  }
  return { low, high };
}
