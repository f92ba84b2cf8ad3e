import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { DENSE_SOLVE_LIMIT, ReachWorkspace, solveReach } from '../../lib/engine/reach';

/** A small deterministic generator, so the structure is the same on every run. */
function lcg(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * A ring of `size` nodes (so they form one large cycle) plus random extra dependencies with
 * random weights, and a few nodes that also leak into a dead end: value wanders a long time
 * before it either reaches the target `T` or dies in `D`.
 */
function tangledCycle(size: number, seed: number) {
  const random = lcg(seed);
  const nodes = [
    { id: 'T' },
    { id: 'D' },
    ...Array.from({ length: size }, (_, i) => ({ id: `n${i}`, load: 1 })),
  ];
  const dependencies: { from: string; to: string; weight: number }[] = [];
  for (let i = 0; i < size; i++) {
    dependencies.push({ from: `n${i}`, to: `n${(i + 1) % size}`, weight: 1 });
    for (let k = 0; k < 3; k++) {
      dependencies.push({ from: `n${i}`, to: `n${Math.floor(random() * size)}`, weight: 0.5 + random() });
    }
    if (random() < 0.05) dependencies.push({ from: `n${i}`, to: 'T', weight: random() });
    if (random() < 0.05) dependencies.push({ from: `n${i}`, to: 'D', weight: random() });
  }
  return { nodes, dependencies };
}

/** Reference: Gaussian elimination on the whole system, written independently of the engine. */
function referenceReach(structure: ReturnType<typeof tangledCycle>, target: string): Map<string, number> {
  const ids = structure.nodes.map((n) => n.id).filter((id) => id !== target);
  const index = new Map(ids.map((id, i) => [id, i]));
  const n = ids.length;
  const a = Array.from({ length: n }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === j ? 1 : 0)));
  const total = new Map<string, number>();
  for (const d of structure.dependencies) total.set(d.from, (total.get(d.from) ?? 0) + d.weight);
  for (const d of structure.dependencies) {
    if (d.from === target) continue;
    const row = a[index.get(d.from)!]!;
    const p = d.weight / total.get(d.from)!;
    if (d.to === target) row[n]! += p;
    else row[index.get(d.to)!]! -= p;
  }
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col || a[col]![col] === 0) continue;
      const factor = a[r]![col]! / a[col]![col]!;
      for (let k = col; k <= n; k++) a[r]![k]! -= factor * a[col]![k]!;
    }
  }
  return new Map(ids.map((id, i) => [id, a[i]![col(i)]! === 0 ? 0 : a[i]![n]! / a[i]![i]!]));
  function col(i: number) {
    return i;
  }
}

describe('reach probabilities inside a large tangled cycle', () => {
  it.each([200, 600])('%i nodes: the accelerated sweeps agree with exact elimination to 1e-10', (size) => {
    expect(size).toBeGreaterThan(DENSE_SOLVE_LIMIT);
    const structure = tangledCycle(size, size);
    const compiled = compileStructure(structure);
    const ws = new ReachWorkspace(compiled.nodeCount);
    solveReach(compiled, compiled.ids.indexOf('T'), ws);
    const expected = referenceReach(structure, 'T');
    let largest = 0;
    compiled.ids.forEach((id, v) => {
      if (id === 'T') return;
      largest = Math.max(largest, Math.abs(ws.reach[v]! - expected.get(id)!));
    });
    expect(largest).toBeLessThan(1e-10);
    // Converged well before the cap: plain sweeps would need hundreds here.
    expect(ws.sweeps).toBeGreaterThan(0);
    expect(ws.sweeps).toBeLessThan(80);
    expect(ws.reach[compiled.ids.indexOf('D')]).toBe(0);
  });
});
