/**
 * `solveSteadyState` itself: what it reports beside the throughputs (what down nodes lose, the
 * loops with no steady state of their own, the sweeps spent) and the path each loop takes
 * (docs/engine.md, "Steady state and headroom" and "When is a loop unbounded"), on rings and
 * small loops whose throughputs have a closed form.
 */
import { describe, expect, it } from 'vitest';
import { analyze, applyScenario, compileStructure, type Structure } from '../../lib/engine';
import { solveSteadyState } from '../../lib/engine/steady-state';
import { FRONT_END_FAN, ringId, spreadLoop } from '../helpers/engine-examples';

const solve = (structure: Structure) => solveSteadyState(compileStructure(structure));

/** `actual` within `relative` of `expected`. */
function expectNear(actual: number | undefined, expected: number, relative = 1e-12): void {
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(relative * Math.abs(expected));
}

/**
 * A ring of `n` services, node i passing on to node i + 1: fan-out services making `calls`
 * calls each, or plain services routing everything on with an exit of `exit` beside the weight
 * of 1. The first takes 1 a step.
 */
function ringOf(n: number, ring: { calls: number } | { exit: number }): Structure {
  const fanout = 'calls' in ring;
  return {
    nodes: Array.from({ length: n }, (_, i) => ({
      id: ringId(i),
      ...(fanout ? { fanout: true } : { exit: ring.exit }),
      ...(i === 0 ? { arrival: 1 } : {}),
    })),
    dependencies: Array.from({ length: n }, (_, i) => ({
      from: ringId(i),
      to: ringId((i + 1) % n),
      ...(fanout ? { weight: ring.calls } : {}),
    })),
  };
}

/**
 * Two rings of `n` fan-out services, a000 → a001 → … → a000 and b000 → … → b000, node i calling
 * the next `calls(ring, i)` times per request, a000 calling b000 `ab` times and b000 calling a000
 * `ba` times; a000 takes 1 a step.
 */
function coupledRings(
  n: number,
  calls: (ring: 'a' | 'b', i: number) => number,
  ab: number,
  ba: number,
): Structure {
  const id = (ring: 'a' | 'b', i: number) => `${ring}${String(i).padStart(3, '0')}`;
  const ring = (name: 'a' | 'b') =>
    Array.from({ length: n }, (_, i) => ({
      from: id(name, i),
      to: id(name, (i + 1) % n),
      weight: calls(name, i),
    }));
  return {
    nodes: (['a', 'b'] as const).flatMap((name) =>
      Array.from({ length: n }, (_, i) => ({
        id: id(name, i),
        fanout: true,
        ...(name === 'a' && i === 0 ? { arrival: 1 } : {}),
      })),
    ),
    dependencies: [
      ...ring('a'),
      ...ring('b'),
      { from: id('a', 0), to: id('b', 0), weight: ab },
      { from: id('b', 0), to: id('a', 0), weight: ba },
    ],
  };
}

describe('what solveSteadyState reports beside the throughputs', () => {
  // Nothing is down: `lost` is empty. With C down, C loses the 20 calls a step it gets.
  it('lists what down nodes lose, and nothing when none is down', () => {
    const up = solve(FRONT_END_FAN);
    expect(up.lost).toHaveLength(0);
    expect(up.totalLost).toBe(0);
    const down = solveSteadyState(
      applyScenario(compileStructure(FRONT_END_FAN), { nodes: { C: { down: true } } }),
    );
    expect(Array.from(down.lost)).toEqual([0, 0, 20, 0]);
    expect(down.totalLost).toBe(20);
  });

  // The loops to fix, by index, whatever order the components are solved in:
  // - X and Y take 1 a step each; X routes half to Y and half to P, Y all back to X (X = 4,
  //   Y = 3). P and Q pass everything to each other: a closed loop, listed 0 and 2.
  // - E calls S and T once; S and T each call themselves twice per request (gain 2).
  it('lists the loops with no steady state of their own in index order', () => {
    const closedPair = solve({
      nodes: [{ id: 'P' }, { id: 'X', arrival: 1 }, { id: 'Q' }, { id: 'Y', arrival: 1 }],
      dependencies: [
        { from: 'X', to: 'Y' },
        { from: 'Y', to: 'X' },
        { from: 'Q', to: 'P' },
        { from: 'P', to: 'Q' },
        { from: 'X', to: 'P' },
      ],
    });
    expect(closedPair.unboundedLoops).toEqual([0, 2]);
    expect([closedPair.throughput[1], closedPair.throughput[3]]).toEqual([4, 3]);
    const twoRetries = solve({
      nodes: [
        { id: 'E', arrival: 1, fanout: true },
        { id: 'S', fanout: true },
        { id: 'T', fanout: true },
      ],
      dependencies: [
        { from: 'E', to: 'T' },
        { from: 'E', to: 'S' },
        { from: 'T', to: 'T', weight: 2 },
        { from: 'S', to: 'S', weight: 2 },
      ],
    });
    expect(twoRetries.unboundedLoops).toEqual([1, 2]);
    expect(twoRetries.unbounded).toEqual([1, 2]);
  });
});

describe('the path a loop takes', () => {
  // Up to 128 nodes a loop is solved by elimination: no sweeps. Each of the 128 fan-out services
  // calls the next half a time: x(i) = 0.5^i / (1 − 0.5^128), and 0.5^128 is below a double's
  // precision beside 1.
  it('eliminates a loop of 128 nodes', () => {
    const steady = solve(ringOf(128, { calls: 0.5 }));
    expect(steady.sweeps).toBe(0);
    for (const i of [0, 1, 127]) expectNear(steady.throughput[i], 0.5 ** i);
  });

  // 200 fan-out services, each calling the next half a time; E calls r000 once per request and
  // r000 also calls itself half a time. Swept predecessors first, the first sweep carries the
  // value all the way round: x(0) = 1 / (1 − 0.5) = 2 and x(i) = 2·0.5^i. The second sweep
  // moves nothing by more than what comes back round the ring (0.5^200 of it), and stops: two.
  it('sweeps a larger ring twice', () => {
    const { nodes, dependencies } = ringOf(200, { calls: 0.5 });
    const steady = solve({
      nodes: [{ id: 'E', arrival: 1, fanout: true }, ...nodes.map(({ id }) => ({ id, fanout: true }))],
      dependencies: [
        { from: 'E', to: ringId(0) },
        { from: ringId(0), to: ringId(0), weight: 0.5 },
        ...dependencies,
      ],
    });
    expect(steady.sweeps).toBe(2);
    expect(steady.throughput[0]).toBe(1);
    for (const i of [0, 1, 199]) expectNear(steady.throughput[i + 1], 2 * 0.5 ** i);
  });

  // A routing ring: 200 services each passing on half (exit 1 beside a weight of 1). A unit
  // visits 1 + 0.5 + 0.25 + … = 2 nodes of it on average, few enough that 1e-9 / 2 is above the
  // sweeps' 1e-11: done after the same two sweeps.
  it('sweeps a routing ring that lets half out twice', () => {
    const steady = solve(ringOf(200, { exit: 1 }));
    expect(steady.sweeps).toBe(2);
    for (const i of [0, 1, 199]) expectNear(steady.throughput[i], 0.5 ** i);
  });

  // 8,000 routing services each passing on 199/200 (an exit of 1/199 beside the weight of 1): a
  // unit visits 1 / (1 − 0.995) = 200 of them, so the sweeps go on to 1e-9 / 200 = 5e-12 of the
  // largest, from where they stopped. Two sweeps (0.995^8000 = 4e-18 comes back round), then one
  // that finds nothing to move: three.
  it('sweeps on a routing loop that keeps value longer', () => {
    const steady = solve(ringOf(8000, { exit: 1 / 199 }));
    expect(steady.sweeps).toBe(3);
    for (const i of [0, 1, 7999]) expectNear(steady.throughput[i], 0.995 ** i, 1e-9);
  });

  // 26,000 fan-out services each calling the next 0.999 times: the bounds certify the gain 0.999
  // at once (every node's ratio is 0.999), a gap of 1e-3, so the sweeps stop at a change of
  // 1e-9 × 1e-3 = 1e-12 of the largest. What comes back round after the first sweep is
  // 0.999^26000 = 5.0e-12 of x(0), more than that: a third sweep.
  it('sweeps a fan-out loop to 1e-9 of its certified gap', () => {
    const steady = solve(ringOf(26_000, { calls: 0.999 }));
    expect(steady.sweeps).toBe(3);
    const back = 0.999 ** 26_000;
    for (const i of [0, 1, 25_999]) expectNear(steady.throughput[i], 0.999 ** i / (1 - back), 1e-9);
  });

  // 1,025 fan-out services in a ring, calling the next `high` times in blocks and `low` times in
  // the blocks between: in 24 power iterations a node deep in a block sees only its neighbours,
  // so its ratio stays `high` or `low` and the bounds decide nothing. The sweeps solve it (two:
  // the first carries the value round, and it is powers of two, exactly: x(i) is the product of
  // the calls before i), and inverse iteration on them certifies the gap:
  // - blocks of 50 calling 2 and 0.25: 525 calls of 2 and 500 of 0.25, gain 2^(−475/1025) = 0.73;
  // - blocks of 250 calling 4 and 1/8: 525 calls of 4 and 500 of 1/8, gain 2^(−450/1025) = 0.74,
  //   with throughputs from 2^-500 to 2^500 (inverse iteration rescales between its steps).
  it.each([
    [50, 2, 0.25],
    [250, 4, 1 / 8],
  ])(
    'certifies a loop the bounds leave undecided by inverse iteration on sweeps (blocks of %i)',
    (block, high, low) => {
      const calls = (i: number) => (i % (2 * block) < block ? high : low);
      const n = 1025;
      const structure = ringOf(n, { calls: 1 });
      const steady = solve({
        nodes: structure.nodes,
        dependencies: structure.dependencies.map((d, i) => ({ ...d, weight: calls(i) })),
      });
      expect(steady.unbounded).toEqual([]);
      expect(steady.sweeps).toBe(2);
      let x = 1;
      for (let i = 0; i < n; i++) {
        expect(steady.throughput[i]).toBe(x);
        x *= calls(i);
      }
    },
  );

  // A calls itself a = 1 − 2.001e-9 times per request and B b = 1e-9 times; B calls itself
  // e = 1 − 1.001e-9 − 1e-15 times and A d = 1e-15 times. Both make 1 − 1.001e-9 calls per
  // request, so from v = 1 both ratios are exactly that: the bounds certify a gap of 1.001e-9,
  // above GAIN_MARGIN, and the loop is solved. (Inverse iteration alone would not certify it in
  // its 4 steps: A is called a million times less than B, and the bound only halves its error
  // per step.) x(A) = 1 + a·x(A) + d·x(B) and x(B) = b·x(A) + e·x(B).
  it('solves a loop its bounds certify, however close to the margin', () => {
    const [a, b, e, d] = [1 - 2.001e-9, 1e-9, 1 - 1.001e-9 - 1e-15, 1e-15];
    const steady = solve({
      nodes: [
        { id: 'A', arrival: 1, fanout: true },
        { id: 'B', fanout: true },
      ],
      dependencies: [
        { from: 'A', to: 'A', weight: a },
        { from: 'A', to: 'B', weight: b },
        { from: 'B', to: 'B', weight: e },
        { from: 'B', to: 'A', weight: d },
      ],
    });
    expect(steady.unbounded).toEqual([]);
    const xA = 1 / (1 - a - (d * b) / (1 - e));
    expectNear(steady.throughput[0], xA, 1e-6);
    expectNear(steady.throughput[1], (b * xA) / (1 - e), 1e-6);
  });

  // Two rings of 512 fan-out services, every service making 1 − g calls per request (g =
  // 1.001e-9, certified by the bounds at once); a000 passes 1e-7 of them to b000 instead of
  // a001, b000 passes 1e-13 to a000. Sweeps that do not settle in the first order are run in the
  // other (then elimination, up to 1,024 nodes), without asking inverse iteration again (it
  // could not certify so small a gap on rings so unevenly called). With c = 1 − g, q = (c − 1e-7)·c^511 (a round trip of ring a)
  // and r = (c − 1e-13)·c^511 (of ring b): x(a000) = 1 / (1 − q − 1e-13·1e-7 / (1 − r)) and
  // x(b000) = 1e-7·x(a000) / (1 − r).
  it('solves a loop of up to 1,024 nodes whose sweeps do not settle in the first order', () => {
    const [n, g, ab, ba] = [512, 1.001e-9, 1e-7, 1e-13];
    const c = 1 - g;
    // Node 0 of each ring calls the next the rest of its c, besides the call to the other ring.
    const steady = solve(coupledRings(n, (ring, i) => (i === 0 ? c - (ring === 'a' ? ab : ba) : c), ab, ba));
    expect(steady.unbounded).toEqual([]);
    const q = (c - ab) * c ** (n - 1);
    const r = (c - ba) * c ** (n - 1);
    const xa = 1 / (1 - q - (ba * ab) / (1 - r));
    expectNear(steady.throughput[0], xa, 1e-7);
    expectNear(steady.throughput[n], (ab * xa) / (1 - r), 1e-7);
  });

  // Two rings of 600 fan-out services, each calling the next 0.999 times per request; a000 and
  // b000 also call each other 0.07 times (weights within 1,000× of each other: the sweep order
  // counts edges alone). Every node keeps an incoming edge from its ring, so the first sweep order runs
  // against the rings and 500 sweeps move value 500 nodes: the other order follows them and
  // settles in a few sweeps, and inverse iteration certifies the gain (some 0.999; the bounds
  // leave it undecided). With p = 0.999^600 (a round trip of a ring):
  // x(a000) = 1 / (1 − p − 0.07·0.07 / (1 − p)) and x(b000) = 0.07·x(a000) / (1 − p).
  it('sweeps a loop over 1,024 nodes whose first order runs against it in the other order', () => {
    const [n, cross] = [600, 0.07];
    const steady = solve(coupledRings(n, () => 0.999, cross, cross));
    expect(steady.unbounded).toEqual([]);
    expect(steady.sweeps).toBeGreaterThan(500);
    expect(steady.sweeps).toBeLessThan(600);
    const p = 0.999 ** n;
    const xa = 1 / (1 - p - (cross * cross) / (1 - p));
    expectNear(steady.throughput[0], xa, 1e-9);
    expectNear(steady.throughput[n], (cross * xa) / (1 - p), 1e-9);
    expectNear(steady.throughput[n - 1], 0.999 ** (n - 1) * xa, 1e-9);
  });

  // The same rings with service times and an SLO on the entry: the search will solve the loop
  // again, so the solve keeps its systems, one for each sweep order (the first runs against the
  // rings, the other follows them): the same sweeps and the same bits as without the SLO.
  it('keeps a system for each sweep order where an SLO keeps them', () => {
    const [n, cross] = [600, 0.07];
    const rings = coupledRings(n, () => 0.999, cross, cross);
    const timed = (slo: boolean): Structure => ({
      ...rings,
      nodes: rings.nodes.map((node, i) => ({
        ...node,
        serviceTime: 0.001,
        ...(slo && i === 0 ? { slo: 10 } : {}),
      })),
    });
    const kept = compileStructure(timed(true));
    expect(kept.repeatsLoopSolves).toBe(true);
    const steady = solveSteadyState(kept);
    const plain = solve(timed(false));
    expect(steady.sweeps).toBeGreaterThan(500);
    expect(steady.sweeps).toBe(plain.sweeps);
    expect(Array.from(steady.throughput)).toEqual(Array.from(plain.throughput));
  });

  // The same rings with calls of 1e-4 between them: the weights span 9,990×, so the first order
  // weighs each edge's share beside the edges, the light calls between the rings are the ones
  // read stale, and it follows the rings: settled in a few sweeps, with the same numbers.
  it('follows the rings in the first order when the weights span more than 1,000×', () => {
    const [n, cross] = [600, 1e-4];
    const steady = solve(coupledRings(n, () => 0.999, cross, cross));
    expect(steady.unbounded).toEqual([]);
    expect(steady.sweeps).toBeLessThan(50);
    const p = 0.999 ** n;
    const xa = 1 / (1 - p - (cross * cross) / (1 - p));
    expectNear(steady.throughput[0], xa, 1e-9);
    expectNear(steady.throughput[n], (cross * xa) / (1 - p), 1e-9);
    expectNear(steady.throughput[n - 1], 0.999 ** (n - 1) * xa, 1e-9);
  });
});

describe('routing loops whose weights spread over orders of magnitude', () => {
  /**
   * A routing loop of `n` services (a ring and `n` more calls at random, weights 10^±`spread`),
   * 1 request a second arriving at the first, an exit at one of them, 1 ms of service each.
   */
  function openLoop(n: number, seed: number, spread: number): { structure: Structure; exitAt: number } {
    const { ids, dependencies, next, weight } = spreadLoop(n, seed, spread);
    const exitAt = Math.floor(next() * n);
    return {
      exitAt,
      structure: {
        nodes: ids.map((id, i) => ({
          id,
          serviceTime: 0.001,
          ...(i === 0 ? { arrival: 1 } : {}),
          ...(i === exitAt ? { exit: weight() } : {}),
        })),
        dependencies,
      },
    };
  }

  // What arrives leaves at the exit: its throughput × its exit share is the 1 request a second
  // arriving, and the entry's latency is 1 ms × the visits a request makes, the throughputs'
  // sum, from the other solve. Loops of 3–122 services with weights over 1e-2…1e2 are eliminated:
  // by differences (1 − the share a node keeps, pivots that cancel) they were 1e-8 off, or had a
  // pivot cancel to 0 and were called unbounded.
  it('conserves what arrives and agrees with the latency, to 1e-12', () => {
    let finite = 0;
    for (let i = 0; i < 60; i++) {
      const { structure, exitAt } = openLoop(3 + ((i * 37) % 120), 700 + i, 2);
      const result = analyze(structure);
      // More than a billion visits a request is unbounded by the rule (docs/engine.md).
      if (result.events.some((event) => event.type === 'unbounded')) continue;
      finite++;
      const exitNode = structure.nodes[exitAt]!;
      const out = structure.dependencies
        .filter((dependency) => dependency.from === exitNode.id)
        .reduce((sum, dependency) => sum + dependency.weight!, 0);
      const exitShare = exitNode.exit! / (exitNode.exit! + out);
      expect(Math.abs(result.nodes[exitAt]!.throughput! * exitShare - 1)).toBeLessThanOrEqual(1e-12);
      const visits = result.nodes.reduce((sum, node) => sum + node.throughput!, 0);
      expect(Math.abs((result.nodes[0]!.latency as number) / (0.001 * visits) - 1)).toBeLessThanOrEqual(
        1e-12,
      );
    }
    expect(finite).toBeGreaterThanOrEqual(50);
  });
});
