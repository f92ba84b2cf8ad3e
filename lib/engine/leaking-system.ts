import type { CompiledStructure } from './compile';

/**
 * A loop's equations as a system that leaks (`factorLeakingSystem` in linear-system.ts): row `i`
 * is `members[i]`, whose `localIndex` is `i`; `offDiagonal[i·n + j]` the share it passes to
 * `members[j]`, `leak[i]` what it passes out of the members (its dependencies to other nodes, and
 * its exit: what leaves the system there). A self-dependency is in neither: the diagonal is what
 * the node does not keep, their sum. `leaving` sees each dependency out of the members, with its
 * share (a reach adds the target's reach times the share).
 */
export function leakingSystemOf(
  structure: CompiledStructure,
  members: Int32Array,
  n: number,
  localIndex: Int32Array,
  leaving?: (row: number, share: number, to: number) => void,
): { offDiagonal: Float64Array; leak: Float64Array } {
  const { outStart, outTarget, outShare } = structure;
  const offDiagonal = new Float64Array(n * n);
  const leak = new Float64Array(n);
  // Stryker disable next-line EqualityOperator: one past the end: members[n] is undefined, whose rows are none
  for (let i = 0; i < n; i++) {
    const u = members[i]!;
    const end = outStart[u + 1]!;
    for (let k = outStart[u]!; k < end; k++) {
      const t = outTarget[k]!;
      // Stryker disable next-line ConditionalExpression: same answer: a self-dependency lands on the diagonal, which the leaking system never reads and a fan-out system sets anew
      if (t === u) continue;
      const j = localIndex[t]!;
      if (j >= 0) offDiagonal[i * n + j]! += outShare[k]!;
      else {
        leak[i]! += outShare[k]!;
        leaving?.(i, outShare[k]!, t);
      }
    }
    if (structure.open) leak[i]! += structure.exitShare[u]!;
  }
  return { offDiagonal, leak };
}
