/**
 * `latencyHeadroom`: how far traffic can grow before the first entry misses its `slo`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  compileStructure,
  JsonWriter,
  type Structure,
  writeAnalyze,
} from '../../../lib/engine';
import type { DependencyInput, NodeInput } from '../../../lib/engine/types';
import { README_CHECKOUT } from '../../helpers/engine-examples';

function analyzed(structure: Structure) {
  const result = analyze(structure);
  const writer = new JsonWriter();
  writeAnalyze(writer, structure);
  expect(writer.finish()).toBe(JSON.stringify(result));
  return result;
}

/** Each entry's scale searched alone: the structure with only that entry's SLO. */
const alone = (structure: Structure) =>
  structure.nodes
    .filter((node) => node.slo !== undefined)
    .map((entry) => {
      const nodes = structure.nodes.map(({ slo: _none, ...node }) =>
        node.id === entry.id ? { ...node, slo: entry.slo! } : node,
      );
      return {
        id: entry.id,
        ...analyzed({ nodes, dependencies: structure.dependencies }).latencyHeadroom!,
      };
    });
const smallest = (scales: { id: string; scale: number }[]) =>
  scales.reduce((best, next) =>
    next.scale < best.scale || (next.scale === best.scale && next.id < best.id) ? next : best,
  );

/** The headroom names the entry of the smallest scale, each searched alone, and its scale to 1e-9. */
function expectEveryEntryAlone(structure: Structure) {
  const expected = smallest(alone(structure));
  const result = analyzed(structure).latencyHeadroom!;
  expect(result.node).toBe(expected.id);
  expect(Math.abs(result.scale / expected.scale - 1)).toBeLessThanOrEqual(1e-9);
}

/** A routing loop l0 → l1 → l2 → l0 (one in three of l2's requests leave), M/M/1 at 20% today. */
const loop = (arrivals: number) => {
  const nodes = ['l0', 'l1', 'l2'].map((id) => ({
    id,
    serviceTime: 0.2 / (3 * arrivals),
    servers: 1,
    ...(id === 'l2' ? { exit: 1 } : {}),
  }));
  const dependencies = [
    { from: 'l0', to: 'l1' },
    { from: 'l1', to: 'l2' },
    { from: 'l2', to: 'l0', weight: 2 },
  ];
  return { nodes, dependencies };
};

/** Twelve entries, `e00` to `e11`, each through its own M/M/1 front (30% to 95% busy at one request a step). */
const TWELVE = Array.from({ length: 12 }, (_, i) => `e${String(i).padStart(2, '0')}`);
const twelveFronts = () =>
  TWELVE.map((id, i) => ({ id, arrival: 1, serviceTime: 0.3 + (0.65 * ((i * 5) % 12)) / 11, servers: 1 }));

describe('latencyHeadroom', () => {
  // One M/M/1 service: λ = 5 a second, S = 0.1 s, SLO 0.5 s. At scale s the response time is
  // S / (1 − λ·S·s); it reaches 0.5 where 1 − 0.5 s = 0.2: s = 1.6.
  it('has the closed form of M/M/1', () => {
    const result = analyzed({
      nodes: [{ id: 'api', arrival: 5, serviceTime: 0.1, servers: 1, slo: 0.5, exit: 1 }],
      dependencies: [],
    });
    expect(result.latencyHeadroom!.node).toBe('api');
    expect(result.latencyHeadroom!.scale).toBeCloseTo(1.6, 8);
    // docs/engine.md's worked example: ρ 0.5, R = 0.1 / 0.5, half of it waiting, one in flight,
    // p99 = ln(100) / (μ − λ) = ln(100) / 5.
    const [api] = result.nodes;
    expect(api!.utilization).toBe(0.5);
    expect(api!.responseTime).toBeCloseTo(0.2, 14);
    expect(api!.waiting).toBeCloseTo(0.1, 14);
    expect(api!.inFlight).toBeCloseTo(1, 14);
    expect(api!.p99).toBeCloseTo(Math.log(100) / 5, 10);
    // It comes right after headroom.
    expect(Object.keys(result).slice(-3)).toEqual(['headroom', 'latencyHeadroom', 'bottlenecks']);
  });

  // db has a capacity but no way out (no dependency, no exit): a queue that keeps what it takes
  // never fills, so the steady state gives it no utilization and no headroom, and e's latency is
  // db's service time today. The search agrees: nothing on e's way saturates at any traffic.
  it('counts a capacity only on a node with a way out, as the steady state does', () => {
    const result = analyze({
      nodes: [
        { id: 'e', arrival: 1, fanout: true, slo: 1 },
        { id: 'db', capacity: 0.5, serviceTime: 0.1 },
      ],
      dependencies: [{ from: 'e', to: 'db' }],
    });
    expect(result.headroom).toBeNull();
    expect(result.nodes[0]!.latency).toBe(0.1);
    expect(result.latencyHeadroom).toEqual({ scale: Number.MAX_VALUE, node: 'e' });
    // With a way out, the capacity counts: db is over it today (twice), so e's requests are stuck
    // there, and the search finds the SLO held up to db's saturation, half today's traffic.
    const withExit = analyze({
      nodes: [
        { id: 'e', arrival: 1, fanout: true, slo: 1 },
        { id: 'db', capacity: 0.5, serviceTime: 0.1, exit: 1 },
      ],
      dependencies: [{ from: 'e', to: 'db' }],
    });
    expect(withExit.nodes[0]!.latencyLimit).toEqual({ node: 'db', reason: 'saturated' });
    expect(withExit.latencyHeadroom).toEqual({ scale: 0.5, node: 'e' });
  });

  // The README's checkout: inventory (one server of 10 ms, 60 calls a second) is the first wall,
  // at ×5/3, answering in 0.01 / (1 − 0.6) = 25 ms today; payments (two of 40 ms, 20 a second:
  // capacity 50) the next, at ×2.5, in 1/21 s (Erlang C). Each bottleneck says how slow it is
  // today, as its node does; over capacity, no response time.
  it('gives each bottleneck its response time today, below saturation', () => {
    const result = analyze(README_CHECKOUT);
    const nodeTime = (id: string) => result.nodes.find((node) => node.id === id)!.responseTime;
    expect(result.bottlenecks).toEqual([
      { node: 'inventory', scale: 5 / 3, utilization: 0.6, responseTime: nodeTime('inventory') },
      { node: 'payments', scale: 2.5, utilization: 0.4, responseTime: nodeTime('payments') },
    ]);
    expect(result.bottlenecks![0]!.responseTime).toBeCloseTo(0.025, 15);
    expect(result.bottlenecks![1]!.responseTime).toBeCloseTo(1 / 21, 15);
    const doubled = analyze(applyScenario(compileStructure(README_CHECKOUT), { scale: 2 }));
    expect(doubled.bottlenecks![0]).toStrictEqual({ node: 'inventory', scale: 5 / 6, utilization: 1.2 });
    // The text writer says the same.
    const writer = new JsonWriter();
    writeAnalyze(writer, compileStructure(README_CHECKOUT));
    expect(JSON.parse(writer.finish()).bottlenecks).toEqual(result.bottlenecks);
  });

  // A front end of 10 ms (2 requests a second, SLO 1 s) calls an M/M/1 API of 0.1 s twice per
  // request; a batch entry (1 a second, SLO 100 s) calls it once. The API gets 5 a second today,
  // 5 s at scale s: R = 0.1 / (1 − 0.5 s). The front end: 0.01 + 2 × R = 1 where
  // 1 − 0.5 s = 0.2 / 0.99. The batch entry only breaks next to the API's saturation (s = 2).
  it('adds the calls on the way, and the entry that breaks first is named', () => {
    const result = analyzed({
      nodes: [
        { id: 'web', arrival: 2, fanout: true, serviceTime: 0.01, slo: 1 },
        { id: 'api', serviceTime: 0.1, servers: 1, exit: 1 },
        { id: 'batch', arrival: 1, fanout: true, serviceTime: 0.01, slo: 100 },
      ],
      dependencies: [
        { from: 'web', to: 'api', weight: 2 },
        { from: 'batch', to: 'api' },
      ],
    });
    const s = 2 * (1 - 0.2 / 0.99);
    expect(result.nodes[0]!.latency).toBeCloseTo(0.41, 14);
    expect(result.latencyHeadroom!.node).toBe('web');
    expect(result.latencyHeadroom!.scale).toBeCloseTo(s, 8);
  });

  // Its service times alone take longer than the SLO: no traffic scale meets it.
  it('is 0 when the SLO is missed with no traffic', () => {
    expect(
      analyzed({
        nodes: [{ id: 'api', arrival: 1, serviceTime: 0.1, servers: 4, slo: 0.05, exit: 1 }],
        dependencies: [],
      }).latencyHeadroom,
    ).toEqual({ scale: 0, node: 'api' });
  });

  // SLO 0.1 s on one server of 0.1 s: met with no traffic (0.1 s exactly), missed at any traffic
  // at all (0.1 / (1 − 0.5s) > 0.1 for every s > 0), so the scale is 0, exactly, not the tiny
  // scale at which rounding still gives 0.1. Beside it, an entry with room (0.2 s: ×1) is not
  // the one named; and a service time alone at its SLO holds up to its capacity's saturation (×2).
  it('is 0 for an entry exactly at its SLO with no traffic, whose latency grows with any', () => {
    const atSlo = { id: 'tight', arrival: 5, serviceTime: 0.1, servers: 1, slo: 0.1, exit: 1 };
    expect(analyzed({ nodes: [atSlo], dependencies: [] }).latencyHeadroom).toEqual({
      scale: 0,
      node: 'tight',
    });
    const roomy = { id: 'a-roomy', arrival: 5, serviceTime: 0.1, servers: 1, slo: 0.2, exit: 1 };
    expect(analyzed({ nodes: [roomy, atSlo], dependencies: [] }).latencyHeadroom).toEqual({
      scale: 0,
      node: 'tight',
    });
    // Just above it (by 1e-12 of itself), the scale is just above 0: 0.1 / (1 − 0.5s) ≤ 0.1 × (1 +
    // 1e-12) up to s = 2e-12, far below 1e-9 of the way to saturation, and found as any other.
    const justAbove = analyzed({ nodes: [{ ...atSlo, slo: 0.1 * (1 + 1e-12) }], dependencies: [] })
      .latencyHeadroom!;
    expect(justAbove.scale / 2e-12).toBeCloseTo(1, 3);
    expect(
      analyzed({
        nodes: [{ id: 'flat', arrival: 5, serviceTime: 0.1, capacity: 10, slo: 0.1, exit: 1 }],
        dependencies: [],
      }).latencyHeadroom,
    ).toEqual({ scale: 2, node: 'flat' });
  });

  // The same with ten or a hundred servers: any traffic makes requests wait sometimes, so the SLO
  // of exactly the service time is missed at any traffic and the scale is 0. Their wait is far too
  // small for a double to add to 0.1 s at small scales (with ten servers it first shows at ×1.4,
  // which the search used to answer; with a hundred, ×408), so it is asked of the structure. A
  // service time without servers is no queue: at its SLO exactly, the entry meets it up to ×2,
  // where `gate` saturates.
  it('is 0 for an entry exactly at its SLO with no traffic behind many servers', () => {
    for (const servers of [10, 100]) {
      const atSlo = { id: 'many', arrival: 1, serviceTime: 0.1, servers, slo: 0.1, exit: 1 };
      expect(analyzed({ nodes: [atSlo], dependencies: [] }).latencyHeadroom).toEqual({
        scale: 0,
        node: 'many',
      });
      // Through a router: the entry adds no time of its own, the queue it calls all of it.
      expect(
        analyzed({
          nodes: [
            { id: 'edge', arrival: 1, slo: 0.1 },
            { id: 'queue', serviceTime: 0.1, servers, exit: 1 },
          ],
          dependencies: [{ from: 'edge', to: 'queue' }],
        }).latencyHeadroom,
      ).toEqual({ scale: 0, node: 'edge' });
    }
    // Seventy such entries (past the 64 whose calls are solved up front: one pass a step), named
    // by the smallest id; and one whose requests loop (q calls r half a time a request, r routes
    // them back to q or out, as often: L(q) = 0.125 + ½ · ½ L(q) = 1/6 s with no traffic, and the
    // SLO that number as the engine computes it), searched entry by entry beside a roomy one.
    const seventy = Array.from({ length: 70 }, (_, i) => `e${String(69 - i).padStart(2, '0')}`);
    const seventyBehind = (queue: Record<string, number>) =>
      analyzed({
        nodes: [
          ...seventy.map((id) => ({ id, arrival: 1, slo: 0.1 })),
          { id: 'queue', serviceTime: 0.1, exit: 1, ...queue },
        ],
        dependencies: seventy.map((from) => ({ from, to: 'queue' })),
      }).latencyHeadroom;
    expect(seventyBehind({ servers: 10 })).toEqual({ scale: 0, node: 'e00' });
    // The same seventy behind a service time without servers (no queue, no wait), with a
    // capacity of 1,000: at their SLO up to its saturation, ×1000/70.
    expect(seventyBehind({ capacity: 1000 })).toEqual({ scale: 1000 / 70, node: 'e00' });
    const looping = (servers?: number, slo?: number) => ({
      nodes: [
        { id: 'web', arrival: 1, ...(slo === undefined ? {} : { slo }) },
        { id: 'api', arrival: 1, slo: 1 },
        { id: 'q', serviceTime: 0.125, ...(servers === undefined ? {} : { servers }), fanout: true },
        { id: 'r', exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'q' },
        { from: 'api', to: 'q' },
        { from: 'q', to: 'r', weight: 0.5 },
        { from: 'r', to: 'q' },
      ],
    });
    const withNoTraffic = analyzed(looping()).nodes[0]!.latency as number;
    expect(withNoTraffic).toBeCloseTo(1 / 6, 15);
    expect(analyzed(looping(10, withNoTraffic)).latencyHeadroom).toEqual({ scale: 0, node: 'web' });
    expect(
      analyzed({
        nodes: [
          { id: 'edge', arrival: 1, slo: 0.1, fanout: true },
          { id: 'gate', capacity: 2, exit: 1 },
          { id: 'side', serviceTime: 0.1, exit: 1 },
        ],
        dependencies: [
          { from: 'edge', to: 'gate' },
          { from: 'edge', to: 'side' },
        ],
      }).latencyHeadroom,
    ).toEqual({ scale: 2, node: 'edge' });
  });

  // fe calls m 1e-165 times a request and m calls d 1e-165 times: 1e-330 calls of d, below the
  // doubles. d (one server of 1e30 s) takes 5e299 × 1e-330 = 5e-31 requests a second, half its
  // capacity, so fe answers in 1e-330 × 1e30 / (1 − 0.5s) = 1e-300 / (1 − 0.5s), its SLO of 4e-300
  // at s = 1.5. The expected calls read 0 for d and the search ran to d's saturation (×2): an
  // entry whose calls do not give its latency today is searched by the latencies' solve. Likewise
  // with calls of 1.23456789e-320, a subnormal with eight digits left: ×1.3700000147 (exact, by
  // fractions), where the calls gave ×1.36998.
  it('counts calls too rare for a double, as the latency today does', () => {
    const rare = (first: number, second: number, arrival: number, serviceTime: number, slo: number) =>
      analyzed({
        nodes: [
          { id: 'fe', arrival, fanout: true, slo },
          { id: 'm', fanout: true },
          { id: 'd', exit: 1, serviceTime, servers: 1 },
        ],
        dependencies: [
          { from: 'fe', to: 'm', weight: first },
          { from: 'm', to: 'd', weight: second },
        ],
      }).latencyHeadroom!;
    const below = rare(1e-165, 1e-165, 5e299, 1e30, 4e-300);
    expect(below.node).toBe('fe');
    expect(Math.abs(below.scale / 1.5 - 1)).toBeLessThan(1e-9);
    const subnormal = rare(1e-160, 1.23456789e-160, 1e20, 5e299, 4e-20);
    expect(Math.abs(subnormal.scale / 1.3700000147420002 - 1)).toBeLessThan(1e-9);

    // The same rare calls into a loop (d sends half its requests to e, which sends half back: 4/3
    // visits of d for each call), beside a roomy entry, so the entries are searched one by one:
    // d at 2/3 of its capacity today, fe's latency 4/3 × 1e-300 / (1 − 2s/3), its SLO of 8e-300 at
    // s = 1.25.
    const looped = analyzed({
      nodes: [
        { id: 'fe', arrival: 5e299, fanout: true, slo: 8e-300 },
        { id: 'api', arrival: 1e-300, slo: 1e300 },
        { id: 'm', fanout: true },
        { id: 'd', exit: 1, serviceTime: 1e30, servers: 1 },
        { id: 'e', exit: 1 },
      ],
      dependencies: [
        { from: 'fe', to: 'm', weight: 1e-165 },
        { from: 'm', to: 'd', weight: 1e-165 },
        { from: 'api', to: 'd' },
        { from: 'd', to: 'e' },
        { from: 'e', to: 'd' },
      ],
    }).latencyHeadroom!;
    expect(looped.node).toBe('fe');
    expect(Math.abs(looped.scale / 1.25 - 1)).toBeLessThan(1e-9);
  });

  // Over capacity today (20 a second on one server of 0.1 s: utilization 2), so its requests
  // never finish today; at a scale s it answers in 0.1 / (1 − 2s), which is its 5 s SLO at
  // 1 − 2s = 0.02: s = 0.49. Less traffic frees it, as `headroom` says of capacity.
  it('is below 1 for an entry over capacity today, where less traffic meets the SLO', () => {
    const result = analyzed({
      nodes: [{ id: 'api', arrival: 20, serviceTime: 0.1, servers: 1, slo: 5, exit: 1 }],
      dependencies: [],
    });
    expect(result.nodes[0]!.latencyLimit).toEqual({ node: 'api', reason: 'saturated' });
    const { scale, node } = result.latencyHeadroom!;
    expect(node).toBe('api');
    expect(Math.abs(scale / 0.49 - 1)).toBeLessThan(2e-9);
    expect(scale).toBeLessThanOrEqual(0.49);
  });

  // The same entry over capacity, whose requests also call a loop that keeps what enters it (a
  // fan-out node calling itself once a request: unbounded): stuck at any traffic, so 0.
  it('is 0 when the entry is stuck at any traffic, over capacity or not', () => {
    expect(
      analyzed({
        nodes: [
          { id: 'api', arrival: 20, serviceTime: 0.1, servers: 1, slo: 5, exit: 0.5 },
          { id: 'retry', fanout: true, serviceTime: 0.01 },
        ],
        dependencies: [
          { from: 'api', to: 'retry' },
          { from: 'retry', to: 'retry', weight: 1 },
        ],
      }).latencyHeadroom,
    ).toEqual({ scale: 0, node: 'api' });
  });

  // Service times but no SLO: null. An SLO on a node that takes no arrivals judges nothing.
  it('is null without an SLO on an entry', () => {
    expect(
      analyzed({ nodes: [{ id: 'api', arrival: 1, serviceTime: 0.1, exit: 1 }], dependencies: [] })
        .latencyHeadroom,
    ).toBeNull();
    const inner = analyzed({
      nodes: [
        { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01 },
        { id: 'api', serviceTime: 0.1, servers: 1, slo: 0.5, exit: 1 },
        { id: 'idle', arrival: 0, serviceTime: 0.1, servers: 1, slo: 0.5, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    });
    expect(inner.latencyHeadroom).toBeNull();
  });

  // Over capacity today and calling a database a scenario takes down: stuck at any traffic. (The
  // database listed first: the node its requests stop at is node 0.) A node down that its
  // requests never reach (audit, called by nobody) changes nothing: the same scale as without it.
  it('is 0 when the entry over capacity calls a node that is down, and not for one it never reaches', () => {
    const base = compileStructure({
      nodes: [
        { id: 'db', serviceTime: 0.01, exit: 1 },
        { id: 'api', arrival: 20, serviceTime: 0.1, servers: 1, slo: 5, fanout: true },
        { id: 'audit', exit: 1 },
      ],
      dependencies: [{ from: 'api', to: 'db' }],
    });
    // 0.1 / (1 − 2s) + 0.01 = 5 s: 1 − 2s = 0.1 / 4.99.
    const today = analyze(base).latencyHeadroom!;
    expect(Math.abs(today.scale / ((1 - 0.1 / 4.99) / 2) - 1)).toBeLessThan(2e-9);
    expect(analyze(applyScenario(base, { nodes: { db: { down: true } } })).latencyHeadroom).toEqual({
      scale: 0,
      node: 'api',
    });
    expect(analyze(applyScenario(base, { nodes: { audit: { down: true } } })).latencyHeadroom).toEqual(today);
  });

  // Two entries stuck at any traffic (each a fan-out calling itself once a request): the
  // smallest id is named, wherever it is listed.
  it('names the smallest id among the entries stuck at any traffic', () => {
    const stuck = (id: string) => [{ id, arrival: 1, fanout: true, serviceTime: 0.1, slo: 5 }];
    for (const ids of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const result = analyzed({
        nodes: ids.flatMap(stuck),
        dependencies: ids.map((id) => ({ from: id, to: id, weight: 1 })),
      }).latencyHeadroom;
      expect(result, ids.join(', ')).toEqual({ scale: 0, node: 'a' });
    }
  });

  // b's requests loop in c forever (stuck at any traffic); a's 1 s of service alone misses its
  // 0.5 s. Both are at 0, a tie the smallest id wins: a, whichever is listed first. Before, the
  // stuck entry was named without looking at the others. With a's SLO met, b is named.
  it('names the smallest id among the entries stuck and those that miss with no traffic', () => {
    const a = { id: 'a', arrival: 1, serviceTime: 1, slo: 0.5, exit: 1 };
    const b = { id: 'b', arrival: 1, slo: 1 };
    const dependencies = [
      { from: 'b', to: 'c' },
      { from: 'c', to: 'c' },
    ];
    for (const nodes of [
      [a, b, { id: 'c' }],
      [{ id: 'c' }, b, a],
    ])
      expect(analyzed({ nodes, dependencies }).latencyHeadroom).toEqual({ scale: 0, node: 'a' });
    expect(analyzed({ nodes: [{ ...a, slo: 2 }, b, { id: 'c' }], dependencies }).latencyHeadroom).toEqual({
      scale: 0,
      node: 'b',
    });
    // a exactly at its SLO with no traffic: missed at any traffic when it queues (servers), held
    // at every traffic when nothing on its way waits.
    const atSlo = { id: 'a', arrival: 1, serviceTime: 0.5, slo: 0.5, exit: 1 };
    expect(
      analyzed({ nodes: [{ ...atSlo, servers: 4 }, b, { id: 'c' }], dependencies }).latencyHeadroom,
    ).toEqual({
      scale: 0,
      node: 'a',
    });
    expect(analyzed({ nodes: [atSlo, b, { id: 'c' }], dependencies }).latencyHeadroom).toEqual({
      scale: 0,
      node: 'b',
    });
    // a behind four queues, well inside its SLO with no traffic (0.25 of 0.5): not at 0, so b.
    expect(
      analyzed({
        nodes: [{ ...atSlo, serviceTime: 0.25, servers: 4 }, b, { id: 'c' }],
        dependencies,
      }).latencyHeadroom,
    ).toEqual({ scale: 0, node: 'b' });
    // Two entries missing with no traffic before the stuck one: the smallest id, listed first or not.
    const aa = { ...a, id: 'aa' };
    for (const nodes of [
      [a, aa, b, { id: 'c' }],
      [aa, a, b, { id: 'c' }],
    ])
      expect(analyzed({ nodes, dependencies }).latencyHeadroom).toEqual({ scale: 0, node: 'a' });
    // The same with b down in a what-if: b stuck, a missing with no traffic.
    const twin = { nodes: [a, { ...b, exit: 1 }], dependencies: [] };
    const scenario = applyScenario(compileStructure(twin), { nodes: { b: { down: true } } });
    expect(analyze(scenario).latencyHeadroom).toEqual({ scale: 0, node: 'a' });
  });

  // Three entries whose service times alone exceed their SLOs: the smallest id, listed second.
  it('names the smallest id among the entries that miss with no traffic, listed anywhere', () => {
    const slow = (id: string) => ({ id, arrival: 1, serviceTime: 0.1, servers: 4, slo: 0.05, exit: 1 });
    const result = analyzed({ nodes: ['m', 'a', 'z'].map(slow), dependencies: [] }).latencyHeadroom;
    expect(result).toEqual({ scale: 0, node: 'a' });
  });

  // a (SLO 1 s, 10 ms) calls db1 (capacity 4 at 1 a second: saturates at ×4); b and c call db2
  // (capacity 4 at 2 a second: ×2). Nothing queues on the way, so the SLOs hold up to ×2, where
  // b meets its SLO of 50 ms exactly with no traffic (its 50 ms of service, no wait) behind two
  // servers, so any traffic misses it: its scale is 0. e's 200 ms miss its 100 ms with no traffic
  // at all: 0 too. A tie at 0, named by the smallest id, whichever entry misses outright (e was
  // named, from the entries that miss with no traffic alone).
  it('names the smallest id among the entries that miss with no traffic and those at it whose latency grows', () => {
    for (const [atEdge, missing] of [
      ['b', 'e'],
      ['e', 'b'],
    ]) {
      const result = analyzed({
        nodes: [
          { id: atEdge!, arrival: 1, serviceTime: 0.05, servers: 2, slo: 0.05, exit: 1 },
          { id: missing!, arrival: 1, serviceTime: 0.2, slo: 0.1, exit: 1 },
          // a meets its SLO with room to spare: never named, though its id comes first.
          { id: 'a', arrival: 1, serviceTime: 0.05, servers: 2, slo: 1, exit: 1 },
          // a2 is exactly at its SLO, but with no servers its latency never grows: it meets it at
          // any traffic, and is not named either.
          { id: 'a2', arrival: 1, serviceTime: 0.1, slo: 0.1, exit: 1 },
        ],
        dependencies: [],
      });
      expect(result.latencyHeadroom).toEqual({ scale: 0, node: 'b' });
    }
  });

  // db2 saturates: of the entries that reach it, b is named, not a, the smallest id overall.
  it('names the smallest id among the entries that reach the node saturating first', () => {
    const result = analyzed({
      nodes: [
        { id: 'a', arrival: 1, fanout: true, serviceTime: 0.01, slo: 1 },
        { id: 'c', arrival: 1, fanout: true, serviceTime: 0.01, slo: 1 },
        { id: 'b', arrival: 1, fanout: true, serviceTime: 0.01, slo: 1 },
        { id: 'db1', capacity: 4, exit: 1 },
        { id: 'db2', capacity: 4, exit: 1 },
      ],
      dependencies: [
        { from: 'a', to: 'db1' },
        { from: 'c', to: 'db2' },
        { from: 'b', to: 'db2' },
      ],
    }).latencyHeadroom;
    expect(result).toEqual({ scale: 2, node: 'b' });
  });

  // Any M/M/1 entry has a closed form: L(s) = S / (1 − sλS) reaches its SLO = kS at
  // s* = (1 − 1/k) / (λS). The search's scale is not above it (there the SLO no longer holds;
  // 1e-12 allows for rounding) and within 2e-9 of it below, for one to four entries at loads from 1% to 99% and SLOs from
  // 1.001 to 1,000 times the service time; the entry named has the smallest s*.
  it('finds the scale to 2e-9 of the closed form, never above it', () => {
    const entry = fc.record({
      load: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
      service: fc.double({ min: 1e-4, max: 10, noNaN: true }),
      k: fc.double({ min: 1.001, max: 1_000, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 4 }), (entries) => {
        const nodes = entries.map(({ load, service, k }, i) => ({
          id: `e${i}`,
          arrival: load / service,
          serviceTime: service,
          servers: 1,
          slo: k * service,
          exit: 1,
        }));
        // From the numbers as sent (rounded): s* = (1 − S / slo) / (λS).
        const closed = nodes.map(
          ({ arrival, serviceTime, slo }) => (1 - serviceTime / slo) / (arrival * serviceTime),
        );
        const smallest = Math.min(...closed);
        const result = analyzed({ nodes, dependencies: [] }).latencyHeadroom!;
        // Above it by rounding at most (the closed form's own, some 1e-16 a step).
        expect(result.scale).toBeLessThanOrEqual(smallest * (1 + 1e-12));
        expect(result.scale).toBeGreaterThanOrEqual(smallest * (1 - 2e-9));
        const close = closed.flatMap((scale, i) => (scale <= smallest * (1 + 2e-9) ? [`e${i}`] : []));
        expect(close).toContain(result.node);
      }),
      { seed: 33_034, numRuns: 300 },
    );
  });

  // Two M/M/1 services as entries: A (λ 5, S 0.1, SLO 0.5) reaches it at 1.6 (as above), B
  // (λ 2, S 0.2, SLO 1) where 0.2 / (1 − 0.4 s) = 1: s = 2. One search finds the first, A;
  // C is A's twin under a larger id: equal scales are a tie, and the smaller id is named.
  it('searches all entries at once and names the first to miss', () => {
    const result = analyzed({
      nodes: [
        { id: 'C', arrival: 5, serviceTime: 0.1, servers: 1, slo: 0.5, exit: 1 },
        { id: 'B', arrival: 2, serviceTime: 0.2, servers: 1, slo: 1, exit: 1 },
        { id: 'A', arrival: 5, serviceTime: 0.1, servers: 1, slo: 0.5, exit: 1 },
      ],
      dependencies: [],
    });
    expect(result.latencyHeadroom!.node).toBe('A');
    expect(Math.abs(result.latencyHeadroom!.scale / 1.6 - 1)).toBeLessThanOrEqual(1e-9);
    const alone = analyzed({
      nodes: [{ id: 'B', arrival: 2, serviceTime: 0.2, servers: 1, slo: 1, exit: 1 }],
      dependencies: [],
    });
    expect(Math.abs(alone.latencyHeadroom!.scale / 2 - 1)).toBeLessThanOrEqual(1e-9);
  });

  // Entries e001…eN each call A (10 ms, 2 servers), which calls B (20 ms, 3 servers); e002's SLO
  // is 1e-12 below the others' 300 ms, so its scale is some 3e-14 below theirs: a tie at 1e-9,
  // named by the smallest id, e001, whether the search ends with its bracket's top between the
  // two scales or not, in a line and in a loop (B calls A back three times in four), with few
  // entries (searched at once) and with more than are solved up front (searched binding first).
  // An SLO a millionth lower is no tie: e002 is named.
  it('names the smallest id among entries whose scales agree to 1e-9', () => {
    const structure = (count: number, loop: boolean, gap: number): Structure => {
      const nodes: NodeInput[] = [
        { id: 'A', serviceTime: 0.01, servers: 2, fanout: true },
        { id: 'B', serviceTime: 0.02, servers: 3, exit: 1 },
      ];
      const dependencies: DependencyInput[] = [{ from: 'A', to: 'B' }];
      if (loop) dependencies.push({ from: 'B', to: 'A', weight: 3 });
      for (let i = 1; i <= count; i++) {
        const id = `e${String(i).padStart(3, '0')}`;
        nodes.push({
          id,
          arrival: 1,
          fanout: true,
          serviceTime: 0.001,
          slo: i === 2 ? 0.3 * (1 - gap) : 0.3,
        });
        dependencies.push({ from: id, to: 'A' });
      }
      return { nodes, dependencies };
    };
    for (const count of [2, 3, 5, 20, 70]) {
      for (const loop of [false, true]) {
        expect(analyzed(structure(count, loop, 1e-12)).latencyHeadroom!.node, `${count} ${loop}`).toBe(
          'e001',
        );
        expect(analyzed(structure(count, loop, 1e-10)).latencyHeadroom!.node, `${count} ${loop}`).toBe(
          'e001',
        );
        expect(analyzed(structure(count, loop, 1e-6)).latencyHeadroom!.node, `${count} ${loop}`).toBe('e002');
      }
    }
  });

  // web (10 ms, SLO 1 s) calls a database of capacity 4 that has no service time: its latency
  // stays 10 ms until the database saturates at twice today's 2 a second.
  it('holds up to the first saturation when nothing on the way slows down before it', () => {
    const result = analyzed({
      nodes: [
        { id: 'web', arrival: 2, fanout: true, serviceTime: 0.01, slo: 1 },
        { id: 'db', capacity: 4, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'db' }],
    });
    expect(result.latencyHeadroom).toEqual({ scale: 2, node: 'web' });
  });

  // A service time without servers never queues: no traffic makes it miss a generous SLO.
  it('is the largest double when nothing the entry calls can saturate', () => {
    const result = analyzed({
      nodes: [{ id: 'api', arrival: 1, serviceTime: 0.1, slo: 0.2, exit: 1 }],
      dependencies: [],
    });
    expect(result.latencyHeadroom).toEqual({ scale: Number.MAX_VALUE, node: 'api' });
  });

  // Traffic so small (1e-310 a step into one server of 1) that the queue saturates only past the
  // largest double: its latency still grows over the scales there are. M/M/1: R(s) = 1 / (1 −
  // s·1e-310) = 1.01 at s = (1 − 1/1.01) / 1e-310 ≈ 9.90e307. It read ×1.8e308 (the largest
  // double), where R is 1.018: the SLO missed. Exactly at its SLO with no traffic, it is 0 as
  // everywhere (it read the largest double too).
  it('searches below the largest double where saturation lies past it', () => {
    const queue = (slo: number, arrival = 1e-310) =>
      analyzed({
        nodes: [{ id: 'e', arrival, exit: 1, serviceTime: 1, servers: 1, slo }],
        dependencies: [],
      }).latencyHeadroom!;
    const found = queue(1.01);
    const exact = (1 - 1 / 1.01) / 1e-310;
    expect(found.node).toBe('e');
    expect(Math.abs(found.scale - exact) / exact).toBeLessThan(2e-9);
    expect(found.scale).toBeLessThanOrEqual(exact * (1 + 1e-12));
    for (const arrival of [1e-310, 5e-324]) expect(queue(1, arrival)).toEqual({ scale: 0, node: 'e' });
    // Where the SLO holds at every scale there is: the largest double.
    expect(queue(1e300, 5e-324)).toEqual({ scale: Number.MAX_VALUE, node: 'e' });
  });

  // The README's story: checkout (5 ms, 20 a second, SLO 300 ms) calls payments once (40 ms, 2
  // servers: M/M/2 at a = 0.8, R = 47.6 ms) and inventory three times (10 ms, 1 server at 60 a
  // second: R = 25 ms): 5 + 47.6 + 75 = 127.6 ms today. Inventory saturates at ×1.67, checkout
  // misses its SLO first, at ×1.45.
  it("tells the README's checkout story", () => {
    const result = analyzed(README_CHECKOUT);
    expect(result.nodes[0]!.latency).toBeCloseTo(0.005 + 0.04 / 0.84 + 3 * 0.025, 14);
    expect(result.headroom).toEqual({ scale: 100 / 60, node: 'inventory' });
    expect(result.latencyHeadroom!.node).toBe('checkout');
    expect(result.latencyHeadroom!.scale).toBeCloseTo(1.4535, 4);
  });
});

/**
 * Where the entries reach a loop, each entry's expected calls cost a steady solve, so the search
 * starts from the entry likeliest to break and checks the others with one solve of the entry
 * latencies. Its answers must be those of searching every entry: the smallest of each entry's
 * own scale (an entry alone is searched directly), ties to the smallest id.
 */
describe('latencyHeadroom where the entries reach a loop', () => {
  // `quiet` has the tighter SLO against its latency today (×1.05) but calls only the loop, at
  // 20%: its latency grows slowly. `busy` has room (×1.5) but calls `hot`, at 90% of one
  // server, which saturates at ×1.11. The search starts with quiet; the check at quiet's scale
  // finds busy missing, and busy breaks first.
  // Listed after the loop, and listed first (node 0).
  it.each([false, true])(
    'finds the entry that breaks first when the likeliest today does not (busy first: %s)',
    (busyFirst) => {
      const { nodes, dependencies } = loop(2);
      const place = <T extends { id: string }>(list: T[]) =>
        busyFirst ? [...list.filter((n) => n.id === 'busy'), ...list.filter((n) => n.id !== 'busy')] : list;
      const today = analyzed({
        nodes: place([
          ...nodes,
          { id: 'quiet', arrival: 1, fanout: true, serviceTime: 0.001 },
          { id: 'busy', arrival: 1, fanout: true, serviceTime: 0.001 },
          { id: 'hot', fanout: true, serviceTime: 0.9, servers: 1 },
        ]),
        dependencies: [
          ...dependencies,
          { from: 'quiet', to: 'l0' },
          { from: 'busy', to: 'hot' },
          { from: 'hot', to: 'l0' },
        ],
      });
      const latencyOf = (id: string) => today.nodes.find((node) => node.id === id)!.latency as number;
      const structure: Structure = {
        nodes: place([
          ...nodes,
          { id: 'quiet', arrival: 1, fanout: true, serviceTime: 0.001, slo: 1.05 * latencyOf('quiet') },
          { id: 'busy', arrival: 1, fanout: true, serviceTime: 0.001, slo: 1.5 * latencyOf('busy') },
          { id: 'hot', fanout: true, serviceTime: 0.9, servers: 1 },
        ]),
        dependencies: [
          ...dependencies,
          { from: 'quiet', to: 'l0' },
          { from: 'busy', to: 'hot' },
          { from: 'hot', to: 'l0' },
        ],
      };
      const each = alone(structure);
      expect(each.find((e) => e.id === 'quiet')!.scale).toBeGreaterThan(
        each.find((e) => e.id === 'busy')!.scale,
      );
      const result = analyzed(structure).latencyHeadroom!;
      expect(result.node).toBe('busy');
      expect(Math.abs(result.scale / smallest(each).scale - 1)).toBeLessThanOrEqual(1e-9);
      expect(result.scale).toBeLessThan(1 / 0.9);
    },
  );

  // `quiet` has the tighter SLO against its latency today (×1.3) and breaks at about ×1.9, as
  // the loop slows down. `busy` has room (×10) but calls the loop through `gate`, which has a
  // capacity of 1.2 a step and no service time: it adds no time, yet past ×1.2 it is over its
  // capacity and busy's requests never finish. The search starts with quiet; the check at
  // quiet's scale must see busy stuck behind the gate, so busy is named, at the gate's ×1.2.
  it('sees an entry stuck behind a node over its capacity that adds no time', () => {
    const { nodes, dependencies } = loop(2);
    const wired = [
      ...dependencies,
      { from: 'quiet', to: 'l0' },
      { from: 'busy', to: 'gate' },
      { from: 'gate', to: 'l0' },
    ];
    const entries = [
      { id: 'quiet', arrival: 1, fanout: true, serviceTime: 0.001 },
      { id: 'busy', arrival: 1, fanout: true, serviceTime: 0.001 },
      { id: 'gate', fanout: true, capacity: 1.2 },
    ];
    const today = analyzed({ nodes: [...nodes, ...entries], dependencies: wired });
    const latencyOf = (id: string) => today.nodes.find((node) => node.id === id)!.latency as number;
    const slo: Record<string, number> = { quiet: 1.3 * latencyOf('quiet'), busy: 10 * latencyOf('busy') };
    const structure: Structure = {
      nodes: [
        ...nodes,
        ...entries.map((entry) => (entry.id in slo ? { ...entry, slo: slo[entry.id]! } : entry)),
      ],
      dependencies: wired,
    };
    const each = alone(structure);
    expect(each.find((e) => e.id === 'quiet')!.scale).toBeGreaterThan(1.5);
    expect(analyzed(structure).latencyHeadroom).toEqual({ scale: 1.2, node: 'busy' });
  });

  // Twelve entries into the loop, each through its own M/M/1 front at 30% to 95%, SLOs from
  // ×1.1 to ×3 of their latency today, paired in eight orders: the entry with the least room
  // today is not always the first to break, so some searches take a second or third round. The
  // answer is always the smallest scale of the twelve, each searched alone.
  it('agrees with every entry searched alone', () => {
    const { nodes, dependencies } = loop(12);
    const entries = TWELVE;
    for (let order = 1; order <= 8; order++) {
      const fronts = twelveFronts();
      const wired = [...dependencies, ...entries.map((id) => ({ from: id, to: 'l0' }))];
      const today = analyzed({ nodes: [...nodes, ...fronts], dependencies: wired });
      const latencyOf = (id: string) => today.nodes.find((node) => node.id === id)!.latency as number;
      const structure: Structure = {
        nodes: [
          ...nodes,
          ...fronts.map((front, i) => ({
            ...front,
            slo: (1.1 + (1.9 * ((i * (2 * order + 1)) % 12)) / 11) * latencyOf(front.id),
          })),
        ],
        dependencies: wired,
      };
      expectEveryEntryAlone(structure);
    }
  });

  // A and B both miss their SLOs with no traffic; B (the tighter, searched first) alone would be
  // named, but A misses too and has the smaller id.
  // The tie above where both entries reach a loop (p1 ⇄ p2 and q1 ⇄ q2, called a billionth of a
  // time a request): the search starts with e, likeliest to break (half its SLO today), finds 0,
  // and checks b there; b, exactly at its SLO with no traffic and a queue on its way, misses too.
  it('names the smallest id among the entries that miss with no traffic and those at it whose latency grows', () => {
    const loop = (p: string): NodeInput[] => [{ id: `${p}1`, exit: 1 }, { id: `${p}2` }];
    const loopCalls = (p: string): DependencyInput[] => [
      { from: `${p}1`, to: `${p}2` },
      { from: `${p}2`, to: `${p}1` },
    ];
    for (const [atEdge, missing] of [
      ['b', 'e'],
      ['e', 'b'],
    ]) {
      const result = analyzed({
        nodes: [
          { id: atEdge!, arrival: 1, fanout: true, serviceTime: 0.05, servers: 2, slo: 0.05 },
          { id: missing!, arrival: 1, fanout: true, serviceTime: 0.2, slo: 0.1 },
          ...loop('p'),
          ...loop('q'),
        ],
        dependencies: [
          { from: atEdge!, to: 'p1', weight: 1e-9 },
          { from: missing!, to: 'q1', weight: 1e-9 },
          ...loopCalls('p'),
          ...loopCalls('q'),
        ],
      });
      expect(result.latencyHeadroom).toEqual({ scale: 0, node: 'b' });
    }
  });

  it('names the smallest id among the entries that miss with no traffic', () => {
    const { nodes, dependencies } = loop(2);
    const result = analyzed({
      nodes: [
        ...nodes,
        { id: 'A', arrival: 1, fanout: true, serviceTime: 0.01, slo: 0.011 },
        { id: 'B', arrival: 1, fanout: true, serviceTime: 0.01, slo: 0.0101 },
      ],
      dependencies: [...dependencies, { from: 'A', to: 'l0' }, { from: 'B', to: 'l0' }],
    }).latencyHeadroom;
    expect(result).toEqual({ scale: 0, node: 'A' });
  });

  // Service times without servers never queue: nothing saturates, every entry holds for ever,
  // and the smallest id is named even though the search started with another.
  it('is the largest double when nothing can saturate, naming the smallest id', () => {
    const result = analyzed({
      nodes: [
        { id: 'l0', serviceTime: 0.1 },
        { id: 'l1', serviceTime: 0.1, exit: 1 },
        { id: 'A', arrival: 1, fanout: true, serviceTime: 0.01, slo: 100 },
        { id: 'B', arrival: 1, fanout: true, serviceTime: 0.01, slo: 2 },
      ],
      dependencies: [
        { from: 'l0', to: 'l1' },
        { from: 'l1', to: 'l0' },
        { from: 'A', to: 'l0' },
        { from: 'B', to: 'l0' },
      ],
    }).latencyHeadroom;
    expect(result).toEqual({ scale: Number.MAX_VALUE, node: 'A' });
  });

  // Both entries reach `db` (capacity 6, no service time) through the loop: l0 is visited
  // 2 / (1 − 1/3) = 3 times a step and calls db each time, so db saturates at ×2. Both SLOs hold
  // right up to it (nothing on the way queues): the smallest id of those that reach it is named.
  it('holds up to the first saturation, naming the smallest id that reaches it', () => {
    const result = analyzed({
      nodes: [
        { id: 'l0', serviceTime: 0.001, fanout: true },
        { id: 'l1', serviceTime: 0.001, exit: 1 },
        { id: 'db', capacity: 6, exit: 1 },
        { id: 'A', arrival: 1, fanout: true, serviceTime: 0.01, slo: 100 },
        { id: 'B', arrival: 1, fanout: true, serviceTime: 0.01, slo: 50 },
      ],
      dependencies: [
        { from: 'l0', to: 'l1' },
        { from: 'l0', to: 'db' },
        { from: 'l1', to: 'l0', weight: 0.5 },
        { from: 'A', to: 'l0' },
        { from: 'B', to: 'l0' },
      ],
    }).latencyHeadroom!;
    // (6 / 3 in doubles: the visits to l0 sum to 2.9999999999999996.)
    expect(result.node).toBe('A');
    expect(Math.abs(result.scale - 2)).toBeLessThanOrEqual(1e-15);
  });
});

describe('latencyHeadroom where the entries reach a loop and nothing slows before it saturates', () => {
  // a and c reach c, which saturates first (at ×1.2632) and has no service time, in a loop
  // a → c → q → a: the SLOs hold right up to it, and of the two entries the smallest id is
  // named. The search starts with the entry likeliest to break (c) and checks the others at
  // that scale, where nothing in the latencies shows the saturation; c was named.
  it('names the smallest id that reaches the node saturating first', () => {
    const structure: Structure = {
      nodes: [
        { id: 'a', arrival: 3, slo: 1 },
        { id: 'c', arrival: 2, capacity: 4, exit: 2, slo: 0.15 },
        { id: 'q', exit: 0.6 },
        { id: 's', serviceTime: 0.1 },
        { id: 'j' },
        { id: 'h' },
      ],
      dependencies: [
        { from: 'a', to: 'c' },
        { from: 'a', to: 'j', weight: 3 },
        { from: 'c', to: 'q', weight: 1.5 },
        { from: 'q', to: 'a', weight: 0.7 },
        { from: 'q', to: 'h', weight: 1.4 },
        { from: 'c', to: 's', weight: 1.2 },
        { from: 'c', to: 'c', weight: 0.6 },
      ],
    };
    const result = analyzed(structure);
    expect(result.latencyHeadroom).toEqual({ scale: result.headroom!.scale, node: 'a' });
    expectEveryEntryAlone(structure);
  });
});

describe('latencyHeadroom where the entries reach a loop, on random fronts', () => {
  // Three to six entries into the loop, each through an M/M/1 front at its own utilization and
  // with its own SLO against its latency today: which entry is likeliest today, which misses by
  // most at a check and which breaks first all vary, so the rounds, the checks and the checks
  // skipped vary too. The answer is always the smallest scale of the entries, each searched alone.
  it('agrees with every entry searched alone', () => {
    // Six entries' worth of traffic at most: the loop at up to 20% today.
    const { nodes: loopNodes, dependencies: loopDependencies } = loop(6);
    const front = fc.record({
      utilization: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
      room: fc.double({ min: 1.01, max: 1.6, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(front, { minLength: 3, maxLength: 6 }), (fronts) => {
        const ids = fronts.map((_, i) => `e${i}`);
        const nodes = fronts.map(({ utilization }, i) => ({
          id: ids[i]!,
          arrival: 1,
          serviceTime: utilization,
          servers: 1,
        }));
        const wired = [...loopDependencies, ...ids.map((id) => ({ from: id, to: 'l0' }))];
        const today = analyzed({ nodes: [...loopNodes, ...nodes], dependencies: wired });
        const latencyOf = (id: string) => today.nodes.find((node) => node.id === id)!.latency as number;
        const structure = {
          nodes: [
            ...loopNodes,
            ...nodes.map((node, i) => ({ ...node, slo: fronts[i]!.room * latencyOf(node.id) })),
          ],
          dependencies: wired,
        };
        // Two entries breaking within 1e-9 of each other are a tie, named by the smallest id,
        // which the entries searched alone cannot tell: such draws are left out.
        const scales = alone(structure)
          .map((entry) => entry.scale)
          .sort((a, b) => a - b);
        fc.pre(scales[1]! / scales[0]! - 1 > 1e-6);
        expectEveryEntryAlone(structure);
      }),
      { seed: 3501, numRuns: 300 },
    );
  });
});

describe('latencyHeadroom where the entries reach a loop too large to eliminate', () => {
  // The twelve fronts of the loop test above, into a routing ring of 150 nodes (swept, not
  // eliminated: its local systems are kept between the search's solves), each front into its
  // own place on the ring, in eight orders of SLOs. Some searches take several rounds, some end
  // without a second check (every entry that missed at the first check has been searched); the
  // answer is always the smallest scale of the twelve, each searched alone.
  it('agrees with every entry searched alone', () => {
    const size = 150;
    const ring = (i: number) => `r${String(i % size).padStart(3, '0')}`;
    const ringNodes = Array.from({ length: size }, (_, i) => ({
      id: ring(i),
      serviceTime: 0.2 / (3 * 12),
      servers: 1,
      ...(i === size - 1 ? { exit: 1 } : {}),
    }));
    const ringDependencies = Array.from({ length: size }, (_, i) => ({
      from: ring(i),
      to: ring(i + 1),
      ...(i === size - 1 ? { weight: 2 } : {}),
    }));
    const entries = TWELVE;
    for (let order = 1; order <= 8; order++) {
      const fronts = twelveFronts();
      const wired = [...ringDependencies, ...entries.map((id, i) => ({ from: id, to: ring(i * 12) }))];
      const today = analyzed({ nodes: [...ringNodes, ...fronts], dependencies: wired });
      const latencyOf = (id: string) => today.nodes.find((node) => node.id === id)!.latency as number;
      const slo = fronts.map(
        (front, i) => (1.1 + (1.9 * ((i * (2 * order + 1)) % 12)) / 11) * latencyOf(front.id),
      );
      const structure: Structure = {
        nodes: [...ringNodes, ...fronts.map((front, i) => ({ ...front, slo: slo[i]! }))],
        dependencies: wired,
      };
      expectEveryEntryAlone(structure);
      // Against solves that keep nothing (no SLO): the same latencies today, bit for bit, and at
      // the scale found (every arrival times it) the entry named just meets its SLO, no other misses.
      const result = analyzed(structure);
      expect(result.nodes.map((node) => node.latency)).toEqual(today.nodes.map((node) => node.latency));
      const { scale, node: named } = result.latencyHeadroom!;
      const there = analyzed({
        nodes: [...ringNodes, ...fronts.map((front) => ({ ...front, arrival: scale }))],
        dependencies: wired,
      });
      fronts.forEach((front, i) => {
        const latency = there.nodes.find((node) => node.id === front.id)!.latency as number;
        if (front.id === named) expect(Math.abs(latency / slo[i]! - 1)).toBeLessThanOrEqual(1e-7);
        else expect(latency).toBeLessThanOrEqual(slo[i]! * (1 + 1e-12));
      });
    }
  });
});

describe('latencyHeadroom with more SLO entries than are solved at once', () => {
  // Every node of a layered service DAG is an entry with an SLO (80 of them: past the 64 whose
  // expected calls are solved up front). Node i calls the next three on the way to the exit, each
  // at its own utilization today; SLOs from ×1.2 to ×3 of each entry's latency today. Each step of
  // the search then asks every entry's latency of one pass over the structure; the answer is
  // still the smallest scale of the eighty, each searched alone.
  it('agrees with every entry searched alone', () => {
    const count = 80;
    const ids = Array.from({ length: count }, (_, i) => `s${String(i).padStart(2, '0')}`);
    const wired = ids.flatMap((from, i) =>
      [1, 2, 3].filter((j) => i + j < count).map((j) => ({ from, to: ids[i + j]! })),
    );
    const nodes = ids.map((id, i) => ({
      id,
      arrival: 0.1 + (i % 5) * 0.05,
      serviceTime: 0.01 + ((i * 7) % 11) * 0.002,
      servers: 1 + (i % 3),
      exit: 1,
    }));
    const today = analyzed({ nodes, dependencies: wired });
    const structure: Structure = {
      nodes: nodes.map((node, i) => ({
        ...node,
        slo: (1.2 + (1.8 * ((i * 13) % 17)) / 16) * (today.nodes[i]!.latency as number),
      })),
      dependencies: wired,
    };
    expectEveryEntryAlone(structure);
  });

  // The same structure with a database behind the last tier that saturates before any SLO
  // breaks (SLOs of ×100): every entry that reaches it breaks there, and the smallest id is named.
  it('holds up to the first saturation, naming the smallest id that reaches it', () => {
    const count = 70;
    const ids = Array.from({ length: count }, (_, i) => `s${String(i).padStart(2, '0')}`);
    const wired = [
      ...ids.flatMap((from, i) => (i + 1 < count ? [{ from, to: ids[i + 1]! }] : [])),
      { from: ids[count - 1]!, to: 'db' },
    ];
    const result = analyzed({
      nodes: [
        ...ids.map((id) => ({ id, arrival: 0.1, serviceTime: 0.001, slo: 1e6, exit: 1 })),
        { id: 'db', capacity: 1, exit: 1 },
      ],
      dependencies: wired,
    }).latencyHeadroom!;
    expect(result.node).toBe('s00');
    const throughputOfDb = analyze({
      nodes: [...ids.map((id) => ({ id, arrival: 0.1, exit: 1 })), { id: 'db', exit: 1 }],
      dependencies: wired,
    }).nodes.at(-1)!.throughput!;
    expect(Math.abs(result.scale / (1 / throughputOfDb) - 1)).toBeLessThanOrEqual(1e-12);
  });
});

describe('latencyHeadroom at the edges of a double', () => {
  /** `extra` more entries (with SLOs), beside the structure's own: 0, 63 and 64 cross the 64 solved up front. */
  const withEntries = (structure: Structure, extra: number): Structure => ({
    nodes: [
      ...structure.nodes,
      ...Array.from({ length: extra }, (_, i) => ({
        id: `z${String(i).padStart(3, '0')}`,
        arrival: 1,
        serviceTime: 0.01,
        slo: 1,
        exit: 1,
      })),
    ],
    dependencies: structure.dependencies,
  });

  // A reaches C only through two shares of 1e-200: its expected calls there are below the
  // smallest double, 0. C saturates at ×2 from D's traffic, and A's requests that reach it get
  // stuck there (by reachability, as its latencyLimit says past ×2): A breaks at ×2, whichever
  // way the entries are searched.
  it('counts a node reached only through calls too rare for a double', () => {
    const structure: Structure = {
      nodes: [
        { id: 'A', arrival: 1, serviceTime: 0.01, slo: 100, exit: 1 },
        { id: 'B', exit: 1 },
        { id: 'C', capacity: 1, exit: 1 },
        { id: 'D', arrival: 0.5 },
      ],
      dependencies: [
        { from: 'A', to: 'B', weight: 1e-200 },
        { from: 'B', to: 'C', weight: 1e-200 },
        { from: 'D', to: 'C' },
      ],
    };
    for (const extra of [0, 63, 64]) {
      expect(analyzed(withEntries(structure, extra)).latencyHeadroom).toEqual({ scale: 2, node: 'A' });
    }
  });

  // Each request at A makes 1e200 calls on B, each of which makes 1e200 on C: C's expected calls
  // are past the largest double, but neither B nor C has a service time, so A's latency is its
  // own 10 ms, and it breaks where C saturates (×10): a number, not a failure.
  it('adds nothing for calls past a double on nodes without a service time', () => {
    const structure: Structure = {
      nodes: [
        { id: 'A', arrival: 1e-300, fanout: true, serviceTime: 0.01, slo: 1 },
        { id: 'B', fanout: true },
        { id: 'C', capacity: 1e101, exit: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'B', weight: 1e200 },
        { from: 'B', to: 'C', weight: 1e200 },
      ],
    };
    for (const extra of [0, 63, 64]) {
      const result = analyzed(withEntries(structure, extra));
      expect(result.nodes[0]!.latency).toBe(0.01);
      expect(result.latencyHeadroom).toEqual({ scale: 10, node: 'A' });
    }
  });
});
