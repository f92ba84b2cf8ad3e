import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { type LocalSystem, solveLocalSystem } from '../../lib/engine/large-cycle';
import { solveLinearSystem } from '../../lib/engine/linear-system';
import { DENSE_SOLVE_LIMIT, ReachWorkspace, solveReach } from '../../lib/engine/reach';
import { scratch } from '../../lib/engine/scratch';

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

/**
 * `solveLocalSystem` measures each sweep for the acceleration in one fused pass (`measureSweep`),
 * whose sums run in the order separate vector operations would, so that the numbers are the very
 * bits of the plain iteration. The reference below is that plain iteration, written out: a
 * Gauss–Seidel sweep of a copy, then the residual, its largest entry and the largest value, the
 * differences from the last sweep and their inner products, one vector operation at a time, then
 * Anderson mixing over the last three differences.
 */
const HISTORY = 3;
const MAX_ITERATIONS = 500;

/** The plain iteration: a sweep, then its measures one vector operation at a time. */
function twoPassSolve(system: LocalSystem): { values: Float64Array; sweeps: number; converged: boolean } {
  const { m, rowStart, target, share, constant, scale } = system;
  const tolerance = system.tolerance ?? 1e-13;
  const x = new Float64Array(m);
  if (system.initial !== undefined) x.set(system.initial);
  const g = new Float64Array(m);
  const previousG = new Float64Array(m);
  const previousF = new Float64Array(m);
  const deltaG = [new Float64Array(m), new Float64Array(m), new Float64Array(m)];
  const deltaF = [new Float64Array(m), new Float64Array(m), new Float64Array(m)];
  const inner = new Float64Array(HISTORY * HISTORY);
  let stored = 0;
  let next = 0;
  let sweeps = 0;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    // The sweep, on a copy of the iterate.
    g.set(x);
    for (let q = 0; q < m; q++) {
      let sum = constant[q]!;
      for (let e = rowStart[q]!; e < rowStart[q + 1]!; e++) sum += share[e]! * g[target[e]!]!;
      g[q] = sum * scale[q]!;
    }
    sweeps = iteration + 1;
    // The measuring, one vector operation at a time.
    const f = g.map((value, q) => value - x[q]!);
    const residual = f.reduce((largest, d) => Math.max(largest, Math.abs(d)), 0);
    const size = g.reduce((largest, value) => Math.max(largest, Math.abs(value)), 0);
    if (residual <= tolerance * size) return { values: g, sweeps, converged: true };
    const column = next;
    if (iteration > 0) {
      for (let q = 0; q < m; q++) {
        deltaG[column]![q] = g[q]! - previousG[q]!;
        deltaF[column]![q] = f[q]! - previousF[q]!;
      }
      if (stored < HISTORY) stored++;
      for (let c = 0; c < stored; c++) {
        let product = 0;
        for (let q = 0; q < m; q++) product += deltaF[column]![q]! * deltaF[c]![q]!;
        inner[column * HISTORY + c] = product;
        inner[c * HISTORY + column] = product;
      }
      next = (next + 1) % HISTORY;
    }
    previousG.set(g);
    previousF.set(f);
    // The mixing: the weights that best cancel the residual over the stored differences.
    const weights = new Float64Array(HISTORY);
    if (stored > 0) {
      const a = new Float64Array(stored * stored);
      let trace = 0;
      for (let r = 0; r < stored; r++) {
        for (let c = 0; c < stored; c++) a[r * stored + c] = inner[r * HISTORY + c]!;
        trace += a[r * stored + r]!;
      }
      if (trace > 0) {
        for (let r = 0; r < stored; r++) a[r * stored + r]! += 1e-12 * trace;
        const rhs = new Float64Array(stored);
        for (let c = 0; c < stored; c++) {
          let product = 0;
          for (let q = 0; q < m; q++) product += deltaF[c]![q]! * f[q]!;
          rhs[c] = product;
        }
        if (solveLinearSystem(a, rhs, stored)) weights.set(rhs);
      }
    }
    for (let q = 0; q < m; q++) {
      let value = g[q]!;
      for (let c = 0; c < HISTORY; c++) if (weights[c] !== 0) value -= weights[c]! * deltaG[c]![q]!;
      x[q] = value;
    }
  }
  return { values: g, sweeps, converged: false };
}

/** A local system of `m` rows, each reading a few others with shares that leave it something. */
const localSystem = fc
  .record({
    m: fc.integer({ min: 1, max: 40 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.double({ min: 0.01, max: 1, noNaN: true })), {
      maxLength: 160,
    }),
    constants: fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 40, maxLength: 40 }),
    stays: fc.array(fc.double({ min: 0, max: 0.5, noNaN: true }), { minLength: 40, maxLength: 40 }),
    keep: fc.double({ min: 0.3, max: 0.999, noNaN: true }),
    tolerance: fc.constantFrom(1e-13, 1e-9, 1e-3, -1),
    warm: fc.boolean(),
  })
  .map(({ m, edges, constants, stays, keep, tolerance, warm }): LocalSystem => {
    const rows: { target: number; share: number }[][] = Array.from({ length: m }, () => []);
    // A ring, so that every row reads another, and random extra reads.
    for (let q = 0; q < m; q++) if (m > 1) rows[q]!.push({ target: (q + 1) % m, share: 1 });
    for (const [from, to, share] of edges)
      if (from % m !== to % m) rows[from % m]!.push({ target: to % m, share });
    const rowStart = new Int32Array(m + 1);
    const target: number[] = [];
    const share: number[] = [];
    for (let q = 0; q < m; q++) {
      // Each row's shares scaled to add up to `keep` (< 1): the system has a solution.
      const total = rows[q]!.reduce((sum, edge) => sum + edge.share, 0);
      for (const edge of rows[q]!) {
        target.push(edge.target);
        share.push((keep * edge.share) / total);
      }
      rowStart[q + 1] = target.length;
    }
    return {
      m,
      rowStart,
      target: Int32Array.from(target),
      share: Float64Array.from(share),
      constant: Float64Array.from(constants.slice(0, m)),
      scale: Float64Array.from(stays.slice(0, m), (stay) => 1 / (1 - stay)),
      tolerance,
      ...(warm ? { initial: Float64Array.from(constants.slice(0, m), (c) => c / 2) } : {}),
    };
  });

describe('solveLocalSystem against the plain iteration', () => {
  // Random systems, to tolerances from 1e-13 to one no sweep meets (-1: the cap of 500 sweeps
  // stops it, and the answer is the last sweep's values), from zeros or from a warm start.
  it('gives the very bits of the plain iteration', () => {
    fc.assert(
      fc.property(localSystem, (system) => {
        const expected = twoPassSolve(system);
        const got = scratch.run(() => {
          const { values, sweeps, converged } = solveLocalSystem(system);
          return { values: Float64Array.from(values), sweeps, converged };
        });
        expect(got.sweeps).toBe(expected.sweeps);
        expect(got.converged).toBe(expected.converged);
        expect(Array.from(got.values)).toEqual(Array.from(expected.values));
      }),
      { numRuns: 150 },
    );
  });

  // A ring of three rows that each pass half on: x = 1 + x/2 settles at 2 everywhere.
  it('solves a small ring', () => {
    const system: LocalSystem = {
      m: 3,
      rowStart: Int32Array.from([0, 1, 2, 3]),
      target: Int32Array.from([1, 2, 0]),
      share: Float64Array.from([0.5, 0.5, 0.5]),
      constant: Float64Array.from([1, 1, 1]),
      scale: Float64Array.from([1, 1, 1]),
    };
    const { values, converged } = scratch.run(() => {
      const solved = solveLocalSystem(system);
      return { values: Array.from(solved.values), converged: solved.converged };
    });
    expect(converged).toBe(true);
    for (const value of values) expect(value).toBeCloseTo(2, 12);
  });
});
