/**
 * `unbounded` is never missed: loops that keep all they get are found by their structure, loops
 * with fan-out by bounds on their gain, and everything an unbounded loop reaches is unbounded by
 * reachability, so no number is NaN and no unbounded node is left out.
 */
import { describe, expect, it } from 'vitest';
import { analyze, type EngineResult, type Structure } from '../../lib/engine';
import { GAIN_MARGIN } from '../../lib/engine/steady-state';
import { ring, thirdsLoop } from '../helpers/engine-examples';

const unboundedOf = (result: EngineResult) =>
  result.events.flatMap((event) => (event.type === 'unbounded' ? event.nodes : []));

/** Every node of the structure is unbounded, none carries a throughput, no text reads null. */
function expectAllUnbounded(structure: Structure): void {
  const result = analyze(structure);
  expect(unboundedOf(result)).toHaveLength(structure.nodes.length);
  for (const node of result.nodes) expect(node).not.toHaveProperty('throughput');
  expect(/"(throughput|utilization|lost|scale)":null/.test(JSON.stringify(result))).toBe(false);
  expect(result.headroom).toBeNull();
}

describe('decided by the structure', () => {
  // E feeds a loop A → B → A, A → C → A with weights 1 and 2: shares 1/3 and 2/3 do not add up
  // to exactly 1 in doubles, but nothing leaves the loop, so it keeps all it gets.
  it('a loop without fan-out that nothing leaves is unbounded, whatever its shares', () => {
    const result = analyze(thirdsLoop(true));
    expect(unboundedOf(result)).toEqual(['A', 'B', 'C']);
    expect(result.nodes[0]!.throughput).toBe(1);
    expect(result.headroom).toBeNull();
  });

  // Self-dependencies of weights 0.1, 0.2 and 0.7: they add up to 1.0000000000000002 or less
  // depending on order, but the node keeps all it processes.
  it('a node whose every dependency is to itself keeps all it gets', () => {
    const result = analyze({
      nodes: [{ id: 'E', arrival: 1, fanout: true }, { id: 'S' }],
      dependencies: [
        { from: 'E', to: 'S' },
        { from: 'S', to: 'S', weight: 0.7 },
        { from: 'S', to: 'S', weight: 0.2 },
        { from: 'S', to: 'S', weight: 0.1 },
      ],
    });
    expect(unboundedOf(result)).toEqual(['S']);
  });

  // A 129-node routing loop beside one isolated fan-out node: the fan-out elsewhere does not
  // stop the loop from being recognised.
  it('a large closed loop is unbounded beside an unrelated fan-out node', () => {
    const loop = ring(129, () => 1, false);
    expectAllUnbounded(loop);
    const result = analyze({ ...loop, nodes: [...loop.nodes, { id: 'lonely', fanout: true }] });
    expect(unboundedOf(result)).toHaveLength(129);
  });
});

describe('decided by bounds on the gain', () => {
  // Each service calls the next once: the gain around the ring is exactly 1.
  it('a 129-node ring of single calls', () => expectAllUnbounded(ring(129, () => 1)));
  it('a 128-node ring of single calls', () => expectAllUnbounded(ring(128, () => 1)));

  // 2 calls, then half a call, in turn: a gain of 1 though no node's own gain is 1.
  it('a 130-node ring alternating 2 and 0.5 calls', () =>
    expectAllUnbounded(ring(130, (i) => (i % 2 ? 0.5 : 2))));

  // Services each making four 0.25 calls into the tangle: every unit makes one call in it.
  it.each([
    [200, [1, 2, 3, 4]],
    [50, [1, 3, 9, 27]],
    [300, [1, 3, 9, 27]],
  ])('a tangle of %i services making four 0.25 calls per request (steps %j)', (n, steps) => {
    const id = (i: number) => `t${i}`;
    expectAllUnbounded({
      nodes: Array.from({ length: n }, (_, i) => ({
        id: id(i),
        fanout: true,
        ...(i === 0 ? { arrival: 1 } : {}),
      })),
      dependencies: Array.from({ length: n }, (_, i) =>
        steps.map((step) => ({ from: id(i), to: id((i + step) % n), weight: 0.25 })),
      ).flat(),
    });
  });

  // A ring of 100 whose per-call weight c makes the gain c (the spectral radius): just below
  // 1 − GAIN_MARGIN it is solved, within the margin it is reported unbounded.
  it('draws the line at GAIN_MARGIN', () => {
    const solved = analyze(ring(100, () => 1 - 10 * GAIN_MARGIN));
    expect(unboundedOf(solved)).toEqual([]);
    // x0 = 1 / (1 − c^100) ≈ 1 / (100 · 10 · GAIN_MARGIN) = 1e6.
    expect(solved.nodes[0]!.throughput).toBeCloseTo(1 / (1 - (1 - 10 * GAIN_MARGIN) ** 100), -1);
    expectAllUnbounded(ring(100, () => 1 - GAIN_MARGIN / 10));
    expectAllUnbounded(ring(200, () => 1 - GAIN_MARGIN / 10));
  });

  // A loop with more than enough gain (1.5 per call) is unbounded before any solve.
  it('a gain above 1', () => expectAllUnbounded(ring(300, () => 1.5)));
});

describe('reachability, never arithmetic on infinity', () => {
  // E retries itself twice per request (gain 2), then calls S, which splits 1e300 : 1e-300
  // between T and U. U's share underflows to 0, and 0 × Infinity was NaN: U must be
  // unbounded with the rest, and no number null.
  it('marks a node reached through an underflowing share', () => {
    const result = analyze({
      nodes: [{ id: 'E', arrival: 1, fanout: true }, { id: 'S' }, { id: 'T', exit: 1 }, { id: 'U', exit: 1 }],
      dependencies: [
        { from: 'E', to: 'E', weight: 2 },
        { from: 'E', to: 'S' },
        { from: 'S', to: 'T', weight: 1e300 },
        { from: 'S', to: 'U', weight: 1e-300 },
      ],
    });
    expect(unboundedOf(result)).toEqual(['E', 'S', 'T', 'U']);
    for (const node of result.nodes) {
      expect(node).not.toHaveProperty('throughput');
      expect(node).not.toHaveProperty('utilization');
    }
    for (const dependency of result.dependencies) expect(dependency).not.toHaveProperty('throughput');
  });

  // S sends 1e300 a step, split 1e300 : 1e-300 between T and U: U gets 1e-300 a step against
  // a capacity of 1e-301 (utilization 10), T 1e300 against 1e301 (0.1). The share 1e-600
  // underflows, but U's traffic does not: U is the headroom node at 0.1, not T at 10.
  it('keeps the headroom node when a share underflows', () => {
    const result = analyze({
      nodes: [
        { id: 'S', arrival: 1e300 },
        { id: 'T', capacity: 1e301, exit: 1 },
        { id: 'U', capacity: 1e-301, exit: 1 },
      ],
      dependencies: [
        { from: 'S', to: 'T', weight: 1e300 },
        { from: 'S', to: 'U', weight: 1e-300 },
      ],
    });
    expect(result.nodes[2]!.throughput).toBe(1e-300);
    expect(result.nodes[2]!.utilization).toBeCloseTo(10, 12);
    expect(result.headroom!.node).toBe('U');
    expect(result.headroom!.scale).toBeCloseTo(0.1, 12);
    expect(result.dependencies.map((d) => d.throughput)).toEqual([1e300, 1e-300]);
    expect(result.primaryBlockage).toBe('U');
  });
});
