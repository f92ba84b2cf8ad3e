/**
 * End-to-end latency: `L(u) = R(u) + Σ coef(e) · L(to(e))`, the time a request arriving at `u`
 * spends in the system, its calls made one after the other. Worked examples with their sums.
 */
import { describe, expect, it } from 'vitest';
import { compileStructure, type Structure } from '../../../lib/engine';
import { solveEntryLatency } from '../../../lib/engine/open/entry-latency';

function latencies(structure: Structure, own: Record<string, number>) {
  const compiled = compileStructure(structure);
  const vector = Float64Array.from(compiled.ids, (id) => own[id] ?? 0);
  const { latency, limitedBy } = solveEntryLatency(compiled, vector);
  return Object.fromEntries(
    compiled.ids.map((id, v) => [
      id,
      limitedBy[v]! >= 0 ? `stuck at ${compiled.ids[limitedBy[v]!]}` : latency[v]!,
    ]),
  );
}

describe('solveEntryLatency', () => {
  // A front end (10 ms) calls the API once (30 ms), which calls the database twice (5 ms each):
  // 10 + 30 + 2 × 5 = 50 ms for a request at the front end.
  it('adds the calls of a chain, fan-out weights as calls per request', () => {
    const result = latencies(
      {
        nodes: [
          { id: 'web', arrival: 1, fanout: true },
          { id: 'api', fanout: true },
          { id: 'db', exit: 1 },
        ],
        dependencies: [
          { from: 'web', to: 'api' },
          { from: 'api', to: 'db', weight: 2 },
        ],
      },
      { web: 10, api: 30, db: 5 },
    );
    expect(result).toEqual({ web: 50, api: 40, db: 5 });
  });

  // A router sends 3 in 4 requests to A (8 ms) and 1 in 4 to B (20 ms): 0.75 × 8 + 0.25 × 20 = 11.
  it('weights a router’s routes by their probability', () => {
    const result = latencies(
      {
        nodes: [
          { id: 'r', arrival: 1 },
          { id: 'a', exit: 1 },
          { id: 'b', exit: 1 },
        ],
        dependencies: [
          { from: 'r', to: 'a', weight: 3 },
          { from: 'r', to: 'b', weight: 1 },
        ],
      },
      { a: 8, b: 20 },
    );
    expect(result.r).toBe(11);
  });

  // A tandem with feedback (the Jackson network of docs/engine.md): A → B, and B sends ¾ of what
  // it serves back to A, ¼ out. A request visits each station 1 / (1 − ¾) = 4 times:
  // L(A) = 4 R(A) + 4 R(B) = 4 × 2 + 4 × 3 = 20.
  it('counts every visit of a loop', () => {
    const result = latencies(
      {
        nodes: [
          { id: 'A', arrival: 1 },
          { id: 'B', exit: 1 },
        ],
        dependencies: [
          { from: 'A', to: 'B' },
          { from: 'B', to: 'A', weight: 3 },
        ],
      },
      { A: 2, B: 3 },
    );
    expect(result.A as number).toBeCloseTo(20, 12);
    // From B: 3 + ¾ × L(A) = 3 + 15 = 18.
    expect(result.B as number).toBeCloseTo(18, 12);
  });

  // A retry of half the requests on the same node: 1 / (1 − ½) = 2 visits of 5 ms.
  it('closes a self-dependency', () => {
    const result = latencies(
      { nodes: [{ id: 's', arrival: 1, fanout: true }], dependencies: [{ from: 's', to: 's', weight: 0.5 }] },
      { s: 5 },
    );
    expect(result.s).toBe(10);
  });

  // The database never answers (saturated): every node whose requests reach it is stuck there;
  // a node that does not reach it is not.
  it('is stuck where a node never answers, by reachability', () => {
    const result = latencies(
      {
        nodes: [
          { id: 'web', arrival: 1, fanout: true },
          { id: 'db', exit: 1 },
          { id: 'cache', exit: 1 },
        ],
        dependencies: [{ from: 'web', to: 'db' }],
      },
      { web: 1, db: Number.POSITIVE_INFINITY, cache: 2 },
    );
    expect(result).toEqual({ web: 'stuck at db', db: 'stuck at db', cache: 2 });
  });

  // A loop that keeps every request (gain 1): none ever leaves; the loop is named by its smallest id.
  it('is stuck in a loop nothing leaves', () => {
    const result = latencies(
      {
        nodes: [
          { id: 'e', arrival: 1, fanout: true },
          { id: 'x', fanout: true },
          { id: 'y', fanout: true },
        ],
        dependencies: [
          { from: 'e', to: 'x' },
          { from: 'x', to: 'y' },
          { from: 'y', to: 'x' },
        ],
      },
      { e: 1, x: 1, y: 1 },
    );
    expect(result).toEqual({ e: 'stuck at x', x: 'stuck at x', y: 'stuck at x' });
  });

  // A ring of 200 services, each calling the next with probability ½ (fan-out weight 0.5), each
  // 1 ms: swept, not eliminated. From any node: Σ over k of ½^k per lap, 1 / (1 − ½^200 …) ≈ 2.
  it('sweeps a large loop', () => {
    const n = 200;
    const id = (i: number) => `r${i}`;
    const result = latencies(
      {
        nodes: Array.from({ length: n }, (_, i) => ({
          id: id(i),
          fanout: true,
          ...(i === 0 ? { arrival: 1 } : {}),
        })),
        dependencies: Array.from({ length: n }, (_, i) => ({
          from: id(i),
          to: id((i + 1) % n),
          weight: 0.5,
        })),
      },
      Object.fromEntries(Array.from({ length: n }, (_, i) => [id(i), 1])),
    );
    // L = 1 + ½ L on a uniform ring: L = 2 exactly.
    expect(result.r0 as number).toBeCloseTo(2, 12);
    expect(result.r137 as number).toBeCloseTo(2, 12);
  });

  // A tangle of 300 services, each calling the next (0.6 calls) and one 97 ahead (0.3 calls),
  // with own times from 1 to 9 ms: swept in the feedback order, each node's latency must be its
  // own equation's, L(u) = R(u) + 0.6 L(u + 1) + 0.3 L(u + 97), checked row by row.
  it("sweeps a large tangle to every node's own equation", () => {
    const n = 300;
    const id = (i: number) => `t${String(i % n).padStart(3, '0')}`;
    const own = (i: number) => 1 + ((i * 7) % 9);
    const result = latencies(
      {
        nodes: Array.from({ length: n }, (_, i) => ({ id: id(i), fanout: true })),
        dependencies: Array.from({ length: n }, (_, i) => [
          { from: id(i), to: id(i + 1), weight: 0.6 },
          { from: id(i), to: id(i + 97), weight: 0.3 },
        ]).flat(),
      },
      Object.fromEntries(Array.from({ length: n }, (_, i) => [id(i), own(i)])),
    );
    for (let i = 0; i < n; i++) {
      const expected = own(i) + 0.6 * (result[id(i + 1)] as number) + 0.3 * (result[id(i + 97)] as number);
      expect(Math.abs((result[id(i)] as number) - expected)).toBeLessThanOrEqual(1e-11 * expected);
    }
    // Between the fastest and the slowest own time over 1 − 0.9 of a request each visit.
    expect(result.t000 as number).toBeGreaterThan(10);
    expect(result.t000 as number).toBeLessThan(90);
  });
});
