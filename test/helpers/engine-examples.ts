/**
 * Structures, scenarios and answers that the engine's tests and the API's tests both work
 * through, written once.
 */
import type { Changes, Scenario, Structure } from '../../lib/engine';

/**
 * A front end A takes 10 requests a step and calls B once and C twice per request; C calls E
 * once. B can serve 8 a step, E 10: B gets 10 (utilization 1.25), E gets 20 (utilization 2:
 * twice over capacity).
 */
export const FRONT_END_FAN: Structure = {
  nodes: [
    { id: 'A', arrival: 10, fanout: true },
    { id: 'B', capacity: 8, exit: 1 },
    { id: 'C', fanout: true },
    { id: 'E', capacity: 10, exit: 1 },
  ],
  dependencies: [
    { from: 'A', to: 'B' },
    { from: 'A', to: 'C', weight: 2 },
    { from: 'C', to: 'E' },
  ],
};

/**
 * `FRONT_END_FAN` with B sending every request back to A, and the scenario that makes A call B
 * twice: a loop A → B → A of gain 1, a retry storm that floods every node.
 */
export const RETRY_LOOP: Structure = {
  nodes: FRONT_END_FAN.nodes,
  dependencies: [...FRONT_END_FAN.dependencies, { from: 'B', to: 'A' }],
};
export const RETRY_STORM: Scenario = { dependencies: [{ from: 'A', to: 'B', weight: 2 }] };

/** B's capacity halves: 4 → 2 in the closed worked example. */
export const HALVE_B: Scenario = { nodes: { B: { capacity: 2 } } };

/**
 * What `HALVE_B` changes in the closed worked example, analyze (docs/engine.md, "What if"): at
 * tick 0 B gets 5 and can pass 2, so only its pressure grows, 1 → 3; a closed structure has no
 * steady state, so there are no steady-state fields at all.
 */
export const HALVE_B_CHANGES: Changes = {
  tick: 0,
  nodes: [],
  pressure: [{ id: 'B', before: 1, after: 3, increase: 2 }],
  primaryBlockage: { before: 'B', after: 'B' },
  origin: {
    before: { id: 'A', load: 10, contribution: 5, share: 1 },
    after: { id: 'A', load: 10, contribution: 5, share: 1 },
  },
  trace: { before: ['A', 'B'], after: ['A', 'B'] },
};

/** The keys of `analyze` on a closed structure, in the documented order. */
export const CLOSED_ANALYZE_KEYS = ['nodes', 'dependencies', 'primaryBlockage', 'events', 'origin', 'trace'];

/**
 * E takes 1 a step and sends it to A; A routes 1/3 to B and 2/3 to C (weights 1 and 2), which
 * both send everything back. Nothing leaves A, B, C, so the loop keeps all it gets, though the
 * two shares do not add up to exactly 1 in doubles. With `fanoutEntry`, E is a fan-out service
 * calling A once per request (the same traffic, in a structure with fan-out).
 */
export function thirdsLoop(fanoutEntry: boolean): Structure {
  return {
    nodes: [
      { id: 'E', arrival: 1, ...(fanoutEntry ? { fanout: true } : {}) },
      { id: 'A' },
      { id: 'B' },
      { id: 'C' },
    ],
    dependencies: [
      { from: 'E', to: 'A' },
      { from: 'A', to: 'B', weight: 1 },
      { from: 'A', to: 'C', weight: 2 },
      { from: 'B', to: 'A' },
      { from: 'C', to: 'A' },
    ],
  };
}

/** Ids that sort like their numbers, so a failure lists the ring in order. */
export const ringId = (i: number) => `r${String(i).padStart(3, '0')}`;

/**
 * A ring of `n` services (fan-out unless `fanout` is false), each calling the next with
 * `weight(i)`; the first gets 1 a step.
 */
export function ring(n: number, weight: (i: number) => number, fanout = true): Structure {
  return {
    nodes: Array.from({ length: n }, (_, i) => ({
      id: ringId(i),
      ...(fanout ? { fanout: true } : {}),
      ...(i === 0 ? { arrival: 1 } : {}),
    })),
    dependencies: Array.from({ length: n }, (_, i) => ({
      from: ringId(i),
      to: ringId((i + 1) % n),
      weight: weight(i),
    })),
  };
}

/**
 * The README's capacity-planning story: checkout (5 ms, 20 requests a second, SLO 300 ms) calls
 * payments once (40 ms, 2 servers) and inventory three times (10 ms, 1 server).
 */
export const README_CHECKOUT: Structure = {
  nodes: [
    { id: 'checkout', arrival: 20, fanout: true, serviceTime: 0.005, slo: 0.3 },
    { id: 'payments', serviceTime: 0.04, servers: 2, exit: 1 },
    { id: 'inventory', serviceTime: 0.01, servers: 1, exit: 1 },
  ],
  dependencies: [
    { from: 'checkout', to: 'payments' },
    { from: 'checkout', to: 'inventory', weight: 3 },
  ],
};

const SWEPT_RING_SIZE = 150;

/** The id of `sweptRing`'s member `i`, counted round the ring (150 is r000 again). */
export const sweptRingMember = (i: number) => ringId(i % SWEPT_RING_SIZE);

/**
 * An API calling into a ring of 150 services (past 128, so its loop is swept, and its local
 * systems are kept where a call solves it again), every tenth leaving the system and every
 * tenth calling 53 places on: `ringId`s r000 … r149. `slo` on the API when given.
 */
export function sweptRing(slo?: number): Structure {
  const size = SWEPT_RING_SIZE;
  const member = sweptRingMember;
  return {
    nodes: [
      { id: 'api', arrival: 2, serviceTime: 0.01, servers: 2, ...(slo === undefined ? {} : { slo }) },
      ...Array.from({ length: size }, (_, i) => ({
        id: member(i),
        serviceTime: 0.001 * (1 + (i % 7)),
        servers: 1,
        ...(i % 10 === 9 ? { exit: 1 } : {}),
      })),
    ],
    dependencies: [
      { from: 'api', to: member(0) },
      ...Array.from({ length: size }, (_, i) => ({ from: member(i), to: member(i + 1) })),
      ...Array.from({ length: size / 10 }, (_, k) => ({ from: member(10 * k + 4), to: member(10 * k + 57) })),
    ],
  };
}

/**
 * A ring of `n` nodes (`ringId(i)` → `ringId(i + 1)`, the last back to the first) with `chords`
 * more dependencies across it, between nodes picked by a linear congruential sequence from
 * `seed`, and `leakAt` passing `leak` (as a weight) to a node `out` outside the ring. Both sweep
 * orders of such a ring run against it in places (sweep-order.ts): a ring of 65 with one
 * dependency back to its second node had half of it swept forwards in the first order, and its
 * accelerated sweeps stalled at a reach of 0.45 where every node's is 1.
 */
export function chordedRing(
  n: number,
  chords: number,
  seed: number,
): { dependencies: { from: string; to: string }[]; leakAt: string } {
  let state = seed >>> 0;
  const below = (k: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % k;
  };
  const dependencies = Array.from({ length: n }, (_, i) => ({ from: ringId(i), to: ringId((i + 1) % n) }));
  const pairs = new Set(dependencies.map(({ from, to }) => `${from}>${to}`));
  for (let k = 0; k < chords; k++) {
    const from = ringId(below(n));
    const to = ringId(below(n));
    if (from === to || pairs.has(`${from}>${to}`)) continue;
    pairs.add(`${from}>${to}`);
    dependencies.push({ from, to });
  }
  return { dependencies, leakAt: ringId(below(n)) };
}

/**
 * A loop of `n` nodes (`ringId(i)` → `ringId(i + 1)`, the last back to the first) with `n` more
 * dependencies at random, every weight `10^u` for `u` uniform in ±`spread`, drawn from a linear
 * congruential sequence seeded by `seed`; `next` goes on drawing from it (uniform in [0, 1)).
 */
export function spreadLoop(
  n: number,
  seed: number,
  spread: number,
): {
  ids: string[];
  dependencies: { from: string; to: string; weight: number }[];
  next: () => number;
  weight: () => number;
} {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const weight = () => 10 ** (2 * spread * next() - spread);
  const ids = Array.from({ length: n }, (_, i) => ringId(i));
  const dependencies = ids.map((id, i) => ({ from: id, to: ids[(i + 1) % n]!, weight: weight() }));
  for (let k = 0; k < n; k++)
    dependencies.push({
      from: ids[Math.floor(next() * n)]!,
      to: ids[Math.floor(next() * n)]!,
      weight: weight(),
    });
  return { ids, dependencies, next, weight };
}
