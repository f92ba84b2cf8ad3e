/**
 * `unbounded` is never missed: loops that keep all they get are found by their structure, loops
 * with fan-out by bounds on their gain, and everything an unbounded loop reaches is unbounded by
 * reachability, so no number is NaN and no unbounded node is left out.
 */
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  compileStructure,
  type DependencyInput,
  type EngineResult,
  JsonWriter,
  type NodeInput,
  type Structure,
  writeAnalyze,
} from '../../lib/engine';
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

  // 1,100 routing services, each passing half to the next and half to the one before: nothing
  // leaves them, so they keep all E sends in (through its second dependency; its first goes to
  // S, which lets everything out). Decided by the structure: no sweep is asked, though sweeps
  // would not settle on such a loop.
  it('a large loop that nothing leaves is unbounded, listed beside an entry that leaks', () => {
    const n = 1100;
    const id = (i: number) => `t${String(i).padStart(4, '0')}`;
    const result = analyze({
      nodes: [
        ...Array.from({ length: n }, (_, i) => ({ id: id(i) })),
        { id: 'E', arrival: 1 },
        { id: 'S', exit: 1 },
      ],
      dependencies: [
        ...Array.from({ length: n }, (_, i) => [
          { from: id(i), to: id((i + 1) % n) },
          { from: id(i), to: id((i + n - 1) % n) },
        ]).flat(),
        { from: 'E', to: 'S' },
        { from: 'E', to: 't0000' },
      ],
    });
    expect(unboundedOf(result)).toEqual(Array.from({ length: n }, (_, i) => id(i)));
    expect(result.nodes.slice(-2).map((node) => node.throughput)).toEqual([1, 0.5]);
  });

  // A ring of 1,025 routing services, every other one with an exit; r000 also sends 1e17 to
  // itself beside its weight of 1 to the next, a share of 1e17 / (1e17 + 1), which in doubles
  // is exactly 1: r000 keeps all it processes, and the loop is unbounded.
  it('a loop with a node that keeps all it gets is unbounded', () => {
    const loop = ring(1025, () => 1, false);
    const result = analyze({
      nodes: loop.nodes.map((node, i) => (i % 2 === 1 ? { ...node, exit: 1 } : node)),
      dependencies: [...loop.dependencies, { from: 'r000', to: 'r000', weight: 1e17 }],
    });
    expect(unboundedOf(result)).toHaveLength(1025);
  });

  // X and Y pass everything to each other, but nothing reaches them: they keep a throughput of
  // 0, closed or not, and are not unbounded.
  it('a closed loop nothing reaches is not unbounded', () => {
    const result = analyze({
      nodes: [{ id: 'E', arrival: 1, exit: 1 }, { id: 'X' }, { id: 'Y' }],
      dependencies: [
        { from: 'X', to: 'Y' },
        { from: 'Y', to: 'X' },
      ],
    });
    expect(unboundedOf(result)).toEqual([]);
    expect(result.nodes.map((node) => node.throughput)).toEqual([1, 0, 0]);
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

  // 200 routing services in a ring; r005 lets 1e-12 of what it processes out. A unit passes
  // about 200 / 1e-12 = 2e14 nodes before it leaves (more than 1 / GAIN_MARGIN): its gain,
  // (1 − 1e-12)^(1/200), is within the margin of 1.
  it('a large routing loop a unit visits more than a billion times', () => {
    const loop = ring(200, () => 1, false);
    expectAllUnbounded({
      nodes: loop.nodes.map((node, i) => (i === 5 ? { ...node, exit: 1e-12 } : node)),
      dependencies: loop.dependencies,
    });
  });

  // A loop with more than enough gain (1.5 per call) is unbounded before any solve.
  it('a gain above 1', () => expectAllUnbounded(ring(300, () => 1.5)));
});

describe('reachability, never arithmetic on infinity', () => {
  // Z retries itself twice per request (gain 2): the loop to fix. It calls A, which calls itself
  // once per request (a gain of 1, no steady state either), and A is flooded by Z: unbounded,
  // but not the loop to fix, so the primary blockage is Z though A is the smaller id.
  it('a loop flooded by an unbounded one is not the one to fix', () => {
    const result = analyze({
      nodes: [
        { id: 'Z', arrival: 1, fanout: true },
        { id: 'A', fanout: true },
      ],
      dependencies: [
        { from: 'Z', to: 'Z', weight: 2 },
        { from: 'Z', to: 'A' },
        { from: 'A', to: 'A', weight: 1 },
      ],
    });
    expect(unboundedOf(result)).toEqual(['A', 'Z']);
    expect(result.primaryBlockage).toBe('Z');
  });

  // Z (gain 2 again) calls A, which routes to B, which routes back to A or out: a loop with a
  // steady state of its own, flooded by Z: unbounded by reachability, and Z is the one to fix.
  it('a loop with a steady state of its own, fed by an unbounded one, is unbounded', () => {
    const result = analyze({
      nodes: [{ id: 'Z', arrival: 1, fanout: true }, { id: 'A' }, { id: 'B', exit: 1 }],
      dependencies: [
        { from: 'Z', to: 'Z', weight: 2 },
        { from: 'Z', to: 'A' },
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
      ],
    });
    expect(unboundedOf(result)).toEqual(['A', 'B', 'Z']);
    expect(result.primaryBlockage).toBe('Z');
  });

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

  // E's arrival of 5e-324 a step, split 3 : 2, sends P 2e-324, which rounds to 0: P ↔ Q, a loop
  // nothing leaves, was then taken for one nothing reaches. Value reaches it: unbounded.
  it('finds a loop unbounded when what reaches it rounds to 0', () => {
    const result = analyze({
      nodes: [{ id: 'E', arrival: 5e-324 }, { id: 'X', exit: 1 }, { id: 'P' }, { id: 'Q' }],
      dependencies: [
        { from: 'E', to: 'X', weight: 3 },
        { from: 'E', to: 'P', weight: 2 },
        { from: 'P', to: 'Q' },
        { from: 'Q', to: 'P' },
      ],
    });
    expect(unboundedOf(result)).toEqual(['P', 'Q']);
    expect(result.primaryBlockage).toBe('P');
  });

  // The same with a fan-out node that retries itself twice (gain 2), reached by a share of
  // 1e-600 a step (one node, and a ring of two), and beside them what is not unbounded: a loop
  // that lets half out, reached as little, keeps a throughput of 0; a loop behind a down node
  // is not reached at all.
  it('judges a loop reached by less than a double by its structure', () => {
    const reachedBy = (loop: Structure['nodes'], edges: Structure['dependencies']) =>
      analyze({
        nodes: [{ id: 'E', arrival: 1 }, { id: 'X', exit: 1 }, ...loop],
        dependencies: [
          { from: 'E', to: 'X', weight: 1e300 },
          { from: 'E', to: loop[0]!.id, weight: 1e-300 },
          ...edges,
        ],
      });
    const self = reachedBy([{ id: 'L', fanout: true }], [{ from: 'L', to: 'L', weight: 2 }]);
    expect(unboundedOf(self)).toEqual(['L']);
    const pair = reachedBy(
      [
        { id: 'P', fanout: true },
        { id: 'Q', fanout: true },
      ],
      [
        { from: 'P', to: 'Q', weight: 2 },
        { from: 'Q', to: 'P' },
      ],
    );
    expect(unboundedOf(pair)).toEqual(['P', 'Q']);
    const leaky = reachedBy(
      [{ id: 'P' }, { id: 'Q', exit: 1 }],
      [
        { from: 'P', to: 'Q' },
        { from: 'Q', to: 'P' },
      ],
    );
    expect(unboundedOf(leaky)).toEqual([]);
    expect(leaky.nodes.map((node) => node.throughput)).toEqual([1, 1, 0, 0]);
    const behindDown = applyScenario(
      compileStructure({
        nodes: [{ id: 'E', arrival: 1 }, { id: 'D' }, { id: 'P' }, { id: 'Q' }],
        dependencies: [
          { from: 'E', to: 'D' },
          { from: 'D', to: 'P' },
          { from: 'P', to: 'Q' },
          { from: 'Q', to: 'P' },
        ],
      }),
      { nodes: { D: { down: true } } },
    );
    expect(unboundedOf(analyze(behindDown))).toEqual([]);
  });

  // Two 200-node routing loops (solved by sweeps), each judged by the visits a unit makes from
  // where value enters it, whatever the arrival: the first lets 5e-9 of a round out into a chain
  // that comes back (1 − gain = 5e-10, under GAIN_MARGIN: unbounded), the second is a ring fed
  // 1e-9 of what A passes on that sends 1e-8 of it back (bounded). An arrival of 5e-324 read the
  // first bounded (a unit entering everywhere visits far less often), and of 1e-300 the second
  // unbounded (sweeps over subnormal numbers).
  it('judges a large routing loop the same for any arrival', () => {
    const leaky = (arrival: number): Structure => {
      const nodes: NodeInput[] = [
        { id: 'E', arrival },
        { id: 'X', exit: 1 },
      ];
      const dependencies: DependencyInput[] = [
        { from: 'E', to: 'X', weight: 3 },
        { from: 'E', to: 'S0', weight: 2 },
        { from: 'S9', to: 'S0' },
        { from: 'S9', to: 'C0', weight: 5e-9 },
      ];
      for (let i = 0; i < 10; i++) {
        nodes.push({ id: `S${i}` });
        if (i < 9) dependencies.push({ from: `S${i}`, to: `S${i + 1}` });
      }
      for (let i = 0; i < 190; i++) {
        nodes.push({ id: `C${i}`, exit: 1 });
        dependencies.push({ from: `C${i}`, to: i < 189 ? `C${i + 1}` : 'S0' });
      }
      return { nodes, dependencies };
    };
    const fedBack = (arrival: number): Structure => {
      const nodes: NodeInput[] = [
        { id: 'E', arrival },
        { id: 'X', exit: 1 },
        { id: 'A', exit: 1 },
      ];
      const dependencies: DependencyInput[] = [
        { from: 'E', to: 'X', weight: 3 },
        { from: 'E', to: 'A', weight: 2 },
        { from: 'A', to: 'R0', weight: 1e-9 },
        { from: 'R199', to: 'A', weight: 1e-8 },
      ];
      for (let i = 0; i < 200; i++) {
        nodes.push({ id: `R${i}` });
        dependencies.push({ from: `R${i}`, to: i < 199 ? `R${i + 1}` : 'R0' });
      }
      return { nodes, dependencies };
    };
    for (const arrival of [1, 1e-300, 5e-324]) {
      expect(unboundedOf(analyze(leaky(arrival))), `leaky, ${arrival}`).toHaveLength(200);
      expect(unboundedOf(analyze(fedBack(arrival))), `fed back, ${arrival}`).toEqual([]);
    }
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

/**
 * A share below the smallest normal double (2.2e-308) has lost its digits or is 0, so what such
 * a dependency carries is worked out from the weights (docs/engine.md, "Tiny shares"):
 * `x / (W + exit) × weight`, in whichever order stays in range.
 */
describe('tiny shares, carried by their weights', () => {
  const throughputs = (result: EngineResult) => ({
    nodes: result.nodes.map((node) => node.throughput),
    dependencies: result.dependencies.map((dependency) => dependency.throughput),
  });

  // S takes 1e300 a step and has an exit of 1e300 beside its weights 1e300 (to T) and 1e-300
  // (to U): W + exit = 2e300, so T gets 1e300 × 1e300 / 2e300 = 5e299 and U 1e300 × 1e-300 /
  // 2e300 = 5e-301 (a share of 5e-601, which no double holds).
  it('counts the exit in what the weights share', () => {
    const { nodes, dependencies } = throughputs(
      analyze({
        nodes: [
          { id: 'S', arrival: 1e300, exit: 1e300 },
          { id: 'T', exit: 1 },
          { id: 'U', exit: 1 },
        ],
        dependencies: [
          { from: 'S', to: 'T', weight: 1e300 },
          { from: 'S', to: 'U', weight: 1e-300 },
        ],
      }),
    );
    expect(nodes[1]! / 5e299).toBeCloseTo(1, 14);
    expect(nodes[2]! / 5e-301).toBeCloseTo(1, 14);
    expect(dependencies[1]! / 5e-301).toBeCloseTo(1, 14);
  });

  // S takes 1e300 a step; its exit and weights to T and U are 1.5e308 each, and its weight to V
  // is 1: W + exit = 4.5e308, past the largest double (the shares are computed scaled by the
  // largest weight). T and U each get a third, 3.33e299; V gets 1e300 / 4.5e308 = 2.22e-9.
  it('works from weights whose sum overflows', () => {
    const { nodes, dependencies } = throughputs(
      analyze({
        nodes: [
          { id: 'S', arrival: 1e300, exit: 1.5e308 },
          { id: 'T', exit: 1 },
          { id: 'U', exit: 1 },
          { id: 'V', exit: 1 },
        ],
        dependencies: [
          { from: 'S', to: 'T', weight: 1.5e308 },
          { from: 'S', to: 'U', weight: 1.5e308 },
          { from: 'S', to: 'V', weight: 1 },
        ],
      }),
    );
    expect(nodes[1]! / (1e300 / 3)).toBeCloseTo(1, 14);
    // (4.5e308 is no double: 1e300 / 1.5e308 / 3.)
    expect(nodes[3]! / (1e300 / 1.5e308 / 3)).toBeCloseTo(1, 14);
    expect(dependencies[2]! / (1e300 / 1.5e308 / 3)).toBeCloseTo(1, 14);
  });

  // S and R take 4e299 a step each. S sends 1e-300 to U (its first dependency) and 1e300 to T;
  // R sends 1e299 to T (the first dependency of all) and 1e-300 to U. U gets two tiny shares,
  // each of its own source: 4e299 × 1e-300 / 1e300 = 4e-301 from S and 4e299 × 1e-300 / 1e299 =
  // 4e-300 from R, 4.4e-300 in all.
  it('keeps each tiny share with its own dependency', () => {
    const { nodes, dependencies } = throughputs(
      analyze({
        nodes: [
          { id: 'S', arrival: 4e299 },
          { id: 'R', arrival: 4e299 },
          { id: 'T', exit: 1 },
          { id: 'U', exit: 1 },
        ],
        dependencies: [
          { from: 'R', to: 'T', weight: 1e299 },
          { from: 'S', to: 'U', weight: 1e-300 },
          { from: 'S', to: 'T', weight: 1e300 },
          { from: 'R', to: 'U', weight: 1e-300 },
        ],
      }),
    );
    expect(nodes[3]! / 4.4e-300).toBeCloseTo(1, 14);
    expect(dependencies[1]! / 4e-301).toBeCloseTo(1, 14);
    expect(dependencies[3]! / 4e-300).toBeCloseTo(1, 14);
  });

  // S takes 1 a step and sends it by weight 1 to T and 1e-310 (a subnormal weight) to U: W = 1
  // in doubles, so U gets 1e-310 and T all the rest.
  it('carries a subnormal weight', () => {
    const { nodes } = throughputs(
      analyze({
        nodes: [
          { id: 'S', arrival: 1 },
          { id: 'T', exit: 1 },
          { id: 'U', exit: 1 },
        ],
        dependencies: [
          { from: 'S', to: 'T', weight: 1 },
          { from: 'S', to: 'U', weight: 1e-310 },
        ],
      }),
    );
    expect(nodes).toEqual([1, 1, 1e-310]);
  });

  // D is down (it loses the 5 it takes a step) and carries nothing to U; S sends 1e300 a step
  // split 1e300 : 1e-300 between T and U, so U gets 1e-300, all from S.
  it('leaves a down node’s dependencies out', () => {
    const base = compileStructure({
      nodes: [
        { id: 'D', arrival: 5 },
        { id: 'S', arrival: 1e300 },
        { id: 'T', exit: 1 },
        { id: 'U', exit: 1 },
      ],
      dependencies: [
        { from: 'D', to: 'U', weight: 3 },
        { from: 'S', to: 'T', weight: 1e300 },
        { from: 'S', to: 'U', weight: 1e-300 },
      ],
    });
    const { nodes, dependencies } = throughputs(
      analyze(applyScenario(base, { nodes: { D: { down: true } } })),
    );
    expect(nodes[3]! / 1e-300).toBeCloseTo(1, 14);
    expect(dependencies[0]).toBe(0);
  });

  // F takes 3e299 a step and calls itself 1 − 5e-9 times per request: it handles
  // 3e299 / (1 − (1 − 5e-9)) ≈ 6e307 a step, all of which it sends to S. S routes 1.5e308 to T
  // and to U and 4 to V: V gets 6e307 × 4 / 3e308 ≈ 0.8, though 6e307 × 4 is past the largest
  // double (the order that stays in range divides first).
  it('divides first where the product would overflow', () => {
    const { nodes } = throughputs(
      analyze({
        nodes: [
          { id: 'F', arrival: 3e299, fanout: true },
          { id: 'S' },
          { id: 'T', exit: 1 },
          { id: 'U', exit: 1 },
          { id: 'V', exit: 1 },
        ],
        dependencies: [
          { from: 'F', to: 'F', weight: 1 - 5e-9 },
          { from: 'F', to: 'S' },
          { from: 'S', to: 'T', weight: 1.5e308 },
          { from: 'S', to: 'U', weight: 1.5e308 },
          { from: 'S', to: 'V', weight: 4 },
        ],
      }),
    );
    const handled = 3e299 / (1 - (1 - 5e-9));
    expect(nodes[1]! / handled).toBeCloseTo(1, 12);
    expect(nodes[4]! / ((handled / 1.5e308 / 2) * 4)).toBeCloseTo(1, 12);
  });
});

describe('a call past the largest double', () => {
  // F sends 1e200 a step, G makes 1e90 calls on H per request: H would get 1e380 a step, past
  // every double, so H is unbounded; G → H carries as much, so it has no throughput either, on
  // the text path as on the objects (it was Infinity there, and an engine fault here).
  it('leaves the dependency without a throughput, like its unbounded target', () => {
    const structure: Structure = {
      nodes: [
        { id: 'F', arrival: 1e200, fanout: true },
        { id: 'G', fanout: true },
        { id: 'H', exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'G', weight: 1e90 },
        { from: 'G', to: 'H', weight: 1e90 },
      ],
    };
    const result = analyze(structure);
    expect(unboundedOf(result)).toEqual(['H']);
    expect(result.dependencies[0]!.throughput).toBeCloseTo(1e290, -280);
    expect(result.dependencies[1]).not.toHaveProperty('throughput');
    const writer = new JsonWriter();
    writeAnalyze(writer, structure);
    expect(writer.finish()).toBe(JSON.stringify(result));
  });
});
