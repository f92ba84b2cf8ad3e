/**
 * `compareStates`: what a scenario changed against its baseline, worked out on small examples
 * (the API's tests check the same through a request; these keep the engine's own tests, which
 * mutation testing runs, pinning every rule).
 */
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  type Changes,
  type CompiledStructure,
  compareStates,
  compileStructure,
  digestState,
  JsonWriter,
  type StateDigest,
  type Structure,
  writeAnalyze,
  writeTicks,
} from '../../lib/engine';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../../lib/worked-example';
import {
  FRONT_END_FAN,
  HALVE_B,
  HALVE_B_CHANGES,
  README_CHECKOUT,
  RETRY_LOOP,
  RETRY_STORM,
} from '../helpers/engine-examples';

/** The digest of `structure`'s state at `tick` (0: analyze), as the API takes it. */
function digest(structure: CompiledStructure, ticks: number, entryLimits = false): StateDigest {
  const writer = new JsonWriter();
  let kept: StateDigest | undefined;
  const observe = (
    described: Parameters<typeof digestState>[0],
    summary: Parameters<typeof digestState>[1],
  ) => {
    if (described.options.tick === ticks) kept = digestState(described, summary, { entryLimits });
  };
  if (ticks === 0) writeAnalyze(writer, structure, observe);
  else writeTicks(writer, structure, ticks, observe);
  writer.release();
  return kept!;
}

/** As the API compares: the scenario first, then the baseline, told whether the scenario has latency fields. */
function changes(structure: Structure, scenario: unknown, ticks = 0): Changes {
  const base = compileStructure(structure);
  const after = digest(applyScenario(base, scenario), ticks);
  return compareStates(digest(base, ticks, after.steady?.latency !== undefined), after);
}

describe('a closed structure', () => {
  // B's capacity halves: only pressure grows; no steady-state fields at all.
  it('lists pressure increases and nothing of the steady state', () => {
    expect(changes(WORKED_EXAMPLE, HALVE_B)).toEqual(HALVE_B_CHANGES);
  });

  // A passes its 4 on to B; C → D carries nothing. Cutting C → D changes no load and blocks
  // nothing, but C no longer calls anyone (a source becomes isolated) and nothing calls D (a
  // sink becomes isolated): both are listed.
  it('lists a node whose role changed though its blocked flag did not', () => {
    const structure: Structure = {
      nodes: [{ id: 'A', load: 4 }, { id: 'B' }, { id: 'C' }, { id: 'D' }],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'C', to: 'D' },
      ],
    };
    expect(changes(structure, { dependencies: [{ from: 'C', to: 'D', cut: true }] }).nodes).toEqual([
      { id: 'C', before: { blocked: false, role: 'source' }, after: { blocked: false, role: 'isolated' } },
      { id: 'D', before: { blocked: false, role: 'sink' }, after: { blocked: false, role: 'isolated' } },
    ]);
  });

  // A timeline compares its last snapshot: tick 1, and B newly blocked.
  it('compares the last snapshot of a timeline', () => {
    const result = changes(WORKED_EXAMPLE, HALVE_B, 1);
    expect(result.tick).toBe(1);
    expect(result.nodes).toEqual([
      { id: 'B', before: { blocked: false, role: 'relay' }, after: { blocked: true, role: 'relay' } },
    ]);
    expect(result).not.toHaveProperty('utilization');
  });

  // A pressure that falls is not an increase: B's capacity grows and nothing is listed.
  it('lists only pressure that grew', () => {
    expect(changes(WORKED_EXAMPLE, { nodes: { B: { capacity: 100 } } }).pressure).toEqual([]);
  });
});

describe('an open structure', () => {
  // C down: its 20 calls a step are lost, E falls from 20 to 0; every list says so.
  it('lists decreases, saturation both ways and the traffic lost', () => {
    expect(changes(FRONT_END_FAN, { nodes: { C: { down: true } } })).toEqual({
      tick: 0,
      nodes: [
        { id: 'C', before: { blocked: false, role: 'relay' }, after: { blocked: true, role: 'relay' } },
        { id: 'E', before: { blocked: true, role: 'sink' }, after: { blocked: false, role: 'sink' } },
      ],
      pressure: [{ id: 'C', before: 0, after: 20, increase: 20 }],
      utilization: [{ id: 'E', before: 2, after: 0, change: -2 }],
      throughput: [{ id: 'E', before: 20, after: 0, change: -20 }],
      saturated: { newly: ['C'], cleared: ['E'] },
      unbounded: { newly: [], cleared: [] },
      lost: { before: 0, after: 20 },
      primaryBlockage: { before: 'E', after: 'C' },
      origin: {
        before: { id: 'A', load: 0, arrival: 10, contribution: 20, share: 1 },
        after: { id: 'A', load: 0, arrival: 10, contribution: 20, share: 1 },
      },
      trace: { before: ['A', 'C', 'E'], after: ['A', 'C'] },
      headroom: { before: { scale: 0.5, node: 'E' }, after: { scale: 0, node: 'C' } },
    });
  });

  // Traffic doubles: every throughput doubles, largest change first, ties by id (A before B).
  it('orders changes by size, then id', () => {
    const result = changes(FRONT_END_FAN, { scale: 2 });
    expect(result.throughput!.map((row) => [row.id, row.change])).toEqual([
      ['C', 20],
      ['E', 20],
      ['A', 10],
      ['B', 10],
    ]);
    expect(result.utilization).toEqual([
      { id: 'E', before: 2, after: 4, change: 2 },
      { id: 'B', before: 1.25, after: 2.5, change: 1.25 },
    ]);
    expect(result.saturated).toEqual({ newly: [], cleared: [] });
    expect(result.lost).toEqual({ before: 0, after: 0 });
  });

  // A capacity removed: the node has no utilization after (null), counted as 0 in the change.
  it('shows null for a number a node does not have on one side', () => {
    const result = changes(FRONT_END_FAN, { nodes: { E: { capacity: null } } });
    expect(result.utilization).toEqual([{ id: 'E', before: 2, after: null, change: -2 }]);
    expect(result.saturated).toEqual({ newly: [], cleared: ['E'] });
    expect(result.throughput).toEqual([]);
  });

  // A takes 10 a step and passes them to B (capacity 5, over it). Cutting A → B leaves A no way
  // out: its 10 a step stay there for good. That is traffic lost, as taking A down loses it, not
  // B's overload cleared into "no wall at any scale".
  it('counts what a cut strands on a node with no way out as lost, as a node taken down', () => {
    const front = {
      nodes: [
        { id: 'A', arrival: 10 },
        { id: 'B', capacity: 5, exit: 1 },
      ],
      dependencies: [{ from: 'A', to: 'B' }],
    };
    const cut = changes(front, { dependencies: [{ from: 'A', to: 'B', cut: true }] });
    const down = changes(front, { nodes: { A: { down: true } } });
    for (const result of [cut, down]) {
      expect(result.lost).toEqual({ before: 0, after: 10 });
      expect(result.headroom).toEqual({ before: { scale: 0.5, node: 'B' }, after: { scale: 0, node: 'A' } });
      expect(result.saturated).toEqual({ newly: ['A'], cleared: ['B'] });
      expect(result.primaryBlockage).toEqual({ before: 'B', after: 'A' });
    }
    const events = analyze(
      applyScenario(compileStructure(front), { dependencies: [{ from: 'A', to: 'B', cut: true }] }),
    ).events;
    expect(events).toContainEqual({ tick: 0, type: 'saturated', node: 'A', lost: 10 });
    // The same structure sent without the dependency is a sink where value piles up, as the
    // seed's sinks are: nothing lost (with down, the change without a byte-for-byte inline twin).
    const asSent = analyze({ nodes: front.nodes, dependencies: [] });
    expect(asSent.lost).toBeUndefined();
    expect(asSent.headroom).toBeNull();
    // A cut that leaves another way out (an exit) strands nothing.
    const withExit = changes(
      { nodes: [{ id: 'A', arrival: 10, exit: 1 }, front.nodes[1]!], dependencies: front.dependencies },
      { dependencies: [{ from: 'A', to: 'B', cut: true }] },
    );
    expect(withExit.lost).toEqual({ before: 0, after: 0 });
  });

  // The latency side of a stranding cut: A's requests go to B, which then keeps them for good,
  // so they never answer: stuck at B (`stranded`), the SLO missed at any traffic, B with no
  // response time (its traffic is lost, not served). Before, B was over capacity.
  it('leaves the requests a stranding cut strands stuck, never "cleared"', () => {
    const front = {
      nodes: [
        { id: 'A', arrival: 10, serviceTime: 0.01, slo: 1 },
        { id: 'B', capacity: 20, serviceTime: 0.01 },
        { id: 'C', exit: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'C' },
      ],
    };
    const cut = { dependencies: [{ from: 'B', to: 'C', cut: true }] };
    const after = analyze(applyScenario(compileStructure(front), cut));
    const [a, b] = after.nodes;
    expect(a!.latencyLimit).toEqual({ node: 'B', reason: 'stranded' });
    expect(a).not.toHaveProperty('latency');
    expect(b).not.toHaveProperty('responseTime');
    expect(after.latencyHeadroom).toEqual({ scale: 0, node: 'A' });
    const result = changes(front, cut);
    expect(result.latencyLimit).toEqual({ newly: ['A'], cleared: [] });
    expect(result.latencyHeadroom!.after).toEqual({ scale: 0, node: 'A' });
  });

  // E sends its 10 to A and its 4 to C (an exit); A passes on to B. Only a cut of A's last way
  // out strands it: a cut of one of two dependencies, or of a node with an exit or fan-out of its
  // own, strands nothing. A stranded node shows what it loses; no other node shows `lost`.
  it('strands only a node whose last way out is cut, and says so of it alone', () => {
    const fan = (a: Record<string, unknown>) => ({
      nodes: [
        { id: 'E', arrival: 14, fanout: true },
        { id: 'A', ...a },
        { id: 'B', exit: 1 },
        { id: 'C', exit: 1 },
      ],
      dependencies: [
        { from: 'E', to: 'A', weight: 10 / 14 },
        { from: 'E', to: 'C', weight: 4 / 14 },
        { from: 'A', to: 'B' },
        { from: 'A', to: 'C', weight: 1e-9 },
      ],
    });
    const cutB = { dependencies: [{ from: 'A', to: 'B', cut: true }] };
    const cutBoth = {
      dependencies: [
        { from: 'A', to: 'B', cut: true },
        { from: 'A', to: 'C', cut: true },
      ],
    };
    // One of two cut: A still passes on to C.
    expect(changes(fan({}), cutB).lost).toEqual({ before: 0, after: 0 });
    // Both cut: A is stranded, and only A.
    const stranded = analyze(applyScenario(compileStructure(fan({})), cutBoth));
    expect(stranded.lost).toBeCloseTo(10, 9);
    const lostOn = stranded.nodes.filter((node) => 'lost' in node).map((node) => [node.id, node.lost]);
    expect(lostOn).toHaveLength(1);
    expect(lostOn[0]![0]).toBe('A');
    expect(lostOn[0]![1]).toBeCloseTo(10, 9);
    // A fan-out node, or one with an exit, completes requests itself: no cut strands it.
    expect(changes(fan({ fanout: true }), cutBoth).lost).toEqual({ before: 0, after: 0 });
    expect(changes(fan({ exit: 1 }), cutBoth).lost).toEqual({ before: 0, after: 0 });
    // A node down shows its loss, and no node beside it shows one.
    const down = analyze(applyScenario(compileStructure(fan({})), { nodes: { B: { down: true } } }));
    expect(down.nodes.filter((node) => 'lost' in node).map((node) => node.id)).toEqual(['B']);
    // Nothing reaching it (no traffic at all), a stranded node still says what it loses, 0, as a
    // down node says it: both keep what reaches them (it once said nothing).
    const idle = analyze(applyScenario(compileStructure(fan({})), { scale: 0, ...cutBoth }));
    expect(idle.nodes.filter((node) => 'lost' in node).map((node) => [node.id, node.lost])).toEqual([
      ['A', 0],
    ]);
    const idleDown = analyze(
      applyScenario(compileStructure(fan({})), { scale: 0, nodes: { B: { down: true } } }),
    );
    expect(idleDown.nodes.filter((node) => 'lost' in node).map((node) => [node.id, node.lost])).toEqual([
      ['B', 0],
    ]);
  });

  // Opening a closed structure with an arrival: the baseline has no steady state, so it counts
  // as no utilization, throughput, saturation or loss.
  it('compares against a closed baseline', () => {
    const result = changes(WORKED_EXAMPLE, { nodes: { A: { arrival: 1 } } });
    expect(result.lost).toEqual({ before: 0, after: 0 });
    expect(result.headroom!.before).toBeNull();
    expect(result.throughput!.every((row) => row.before === null)).toBe(true);
    expect(result.throughput!.length).toBeGreaterThan(0);
  });

  // A retry loop switched on: its nodes become unbounded and are left out of the lists (the
  // unbounded event says it); the rest still compare.
  it('leaves out nodes unbounded on either side', () => {
    const structure: Structure = {
      nodes: [
        { id: 'F', arrival: 1, fanout: true },
        { id: 'S', fanout: true },
        { id: 'T', capacity: 4, exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'S' },
        { from: 'F', to: 'T' },
        { from: 'S', to: 'S', weight: 0.5 },
      ],
    };
    const result = changes(structure, {
      dependencies: [{ from: 'S', to: 'S', weight: 2 }],
      nodes: { T: { capacity: 2 } },
    });
    expect(result.throughput).toEqual([]);
    expect(result.utilization).toEqual([{ id: 'T', before: 0.25, after: 0.5, change: 0.25 }]);
    expect(result.headroom).toEqual({ before: { scale: 4, node: 'T' }, after: null });
    // S is unbounded, not saturated: `unbounded` says so.
    expect(result.saturated).toEqual({ newly: [], cleared: [] });
    expect(result.unbounded).toEqual({ newly: ['S'], cleared: [] });
  });

  // A retry storm: A calls B, which sends every request back to A; the scenario makes A call B
  // twice, a loop of gain 1, and the whole system floods. B and E were over capacity before:
  // read from `saturated` alone, they "cleared", and nothing else said the traffic now grows
  // without limit. Now every flooded node is named in `unbounded.newly`, and an overload that
  // turned into a flood is not in `saturated.cleared`.
  it('names the nodes a scenario floods, and never reads their overload as cleared', () => {
    const structure = RETRY_LOOP;
    const result = changes(structure, RETRY_STORM);
    expect(result.unbounded).toEqual({ newly: ['A', 'B', 'C', 'E'], cleared: [] });
    expect(result.saturated).toEqual({ newly: [], cleared: [] });
    expect(result.headroom).toEqual({ before: { scale: 0.25, node: 'E' }, after: null });
    // And back: the flood clears, B and E are saturated again, said once each.
    const calm = changes(
      {
        ...structure,
        dependencies: structure.dependencies.map((d) => (d.to === 'B' ? { ...d, weight: 2 } : d)),
      },
      { dependencies: [{ from: 'A', to: 'B', weight: 1 }] },
    );
    expect(calm.unbounded).toEqual({ newly: [], cleared: ['A', 'B', 'C', 'E'] });
    expect(calm.saturated).toEqual({ newly: [], cleared: [] });
    // A node that keeps all it takes once its way on is cut (its only other dependency is to
    // itself): unbounded, named.
    const keeps = changes(
      {
        nodes: [
          { id: 'A', arrival: 5, capacity: 10 },
          { id: 'S', exit: 1 },
        ],
        dependencies: [
          { from: 'A', to: 'S' },
          { from: 'A', to: 'A' },
        ],
      },
      { dependencies: [{ from: 'A', to: 'S', cut: true }] },
    );
    expect(keeps.unbounded).toEqual({ newly: ['A'], cleared: [] });
  });

  // The other way: S retries itself twice per request (unbounded) in the baseline and half a
  // time in the scenario, where it handles 1 / (1 − 0.5) = 2 a step against a capacity of 4.
  // S had no number to compare in the baseline, so it is in no list, though it now has a
  // throughput and a utilization (0.5), and it was unbounded, not saturated: nothing cleared.
  it('leaves out a node that was unbounded in the baseline', () => {
    const structure: Structure = {
      nodes: [
        { id: 'F', arrival: 1, fanout: true },
        { id: 'S', fanout: true, capacity: 4 },
        { id: 'T', capacity: 4, exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'S' },
        { from: 'F', to: 'T' },
        { from: 'S', to: 'S', weight: 2 },
      ],
    };
    const result = changes(structure, { dependencies: [{ from: 'S', to: 'S', weight: 0.5 }] });
    expect(result.throughput).toEqual([]);
    expect(result.utilization).toEqual([]);
    expect(result.saturated).toEqual({ newly: [], cleared: [] });
    expect(result.unbounded).toEqual({ newly: [], cleared: ['S'] });
    expect(result.headroom).toEqual({ before: null, after: { scale: 2, node: 'S' } });
  });

  // F takes 5 a step and calls Z and A once each (capacity 10 both: utilization 0.5). Tripled,
  // both get 15 (1.5) and saturate; halved from there, both clear. Z is listed before A, but the
  // lists are in id order, and equal changes (Z and A both +1 in utilization, all three +10 in
  // throughput) go to the smaller id.
  it('lists saturation both ways in id order, and equal changes by id', () => {
    const structure = (arrival: number): Structure => ({
      nodes: [
        { id: 'F', arrival, fanout: true },
        { id: 'Z', capacity: 10, exit: 1 },
        { id: 'A', capacity: 10, exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'Z' },
        { from: 'F', to: 'A' },
      ],
    });
    const tripled = changes(structure(5), { scale: 3 });
    expect(tripled.saturated).toEqual({ newly: ['A', 'Z'], cleared: [] });
    expect(tripled.utilization!.map((row) => [row.id, row.change])).toEqual([
      ['A', 1],
      ['Z', 1],
    ]);
    expect(tripled.throughput!.map((row) => [row.id, row.change])).toEqual([
      ['A', 10],
      ['F', 10],
      ['Z', 10],
    ]);
    expect(changes(structure(15), { scale: 0.5 }).saturated).toEqual({ newly: [], cleared: ['A', 'Z'] });
  });

  // F takes 1 a step and calls Z twice and A once. Doubled: Z +2, A and F +1 each. Z's larger
  // change comes first though A is a smaller id; A and F tie and go by id.
  it('ranks a larger change before a smaller id', () => {
    const structure: Structure = {
      nodes: [
        { id: 'F', arrival: 1, fanout: true },
        { id: 'Z', exit: 1 },
        { id: 'A', exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'Z', weight: 2 },
        { from: 'F', to: 'A' },
      ],
    };
    expect(changes(structure, { scale: 2 }).throughput!.map((row) => [row.id, row.change])).toEqual([
      ['Z', 2],
      ['A', 1],
      ['F', 1],
    ]);
  });

  // More than 20 changes: the 20 largest are kept.
  it('keeps the 20 largest', () => {
    const nodes = [
      { id: 'F', arrival: 1, fanout: true },
      ...Array.from({ length: 25 }, (_, i) => ({ id: `s${String(i).padStart(2, '0')}`, exit: 1 })),
    ];
    const dependencies = nodes.slice(1).map((node, i) => ({ from: 'F', to: node.id, weight: i + 1 }));
    const result = changes({ nodes, dependencies }, { scale: 3 });
    expect(result.throughput).toHaveLength(20);
    expect(result.throughput![0]).toEqual({ id: 's24', before: 25, after: 75, change: 50 });
    expect(result.throughput![19]!.id).toBe('s05');
  });

  // The open worked example's own comparison: B doubled in capacity clears.
  it('reports a node no longer saturated', () => {
    const result = changes(OPEN_WORKED_EXAMPLE, { nodes: { B: { capacity: 30 } } });
    expect(result.saturated).toEqual({ newly: [], cleared: ['B'] });
    expect(result.utilization).toEqual([
      { id: 'B', before: 20 / 15, after: 20 / 30, change: 20 / 30 - 20 / 15 },
    ]);
  });
});

describe('with latency fields', () => {
  // The M/M/2 API behind a 10 ms front end, given two more servers: the API answers in 0.212 s
  // instead of 1.053 s, and the front end's latency falls by the same amount.
  it('lists response time and latency changes, and the latency headroom', () => {
    const shop: Structure = {
      nodes: [
        { id: 'web', arrival: 9, fanout: true, serviceTime: 0.01, slo: 2 },
        { id: 'api', serviceTime: 0.2, servers: 2, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    };
    const result = changes(shop, { nodes: { api: { servers: 4 } } });
    const api = result.responseTime!.find((row) => row.id === 'api')!;
    expect(api.before).toBeCloseTo(1.053, 3);
    expect(api.after).toBeCloseTo(0.212, 3);
    expect(api.change).toBeLessThan(0);
    // Latency is an entry's: web's row only, not the API's.
    expect(result.latency!.map((row) => row.id)).toEqual(['web']);
    const web = result.latency!.find((row) => row.id === 'web')!;
    expect(web.change).toBeCloseTo(api.change, 12);
    expect(result.latencyHeadroom!.after!.scale).toBeGreaterThan(result.latencyHeadroom!.before!.scale);
  });

  // A structure with no service time, given one by the scenario: before, nothing is said of
  // latency; after, the API answers in 0.2 s (M/M/1 at λ 5, S 0.1), and so does the front end.
  it('lists latency when only the scenario has service times', () => {
    const plain: Structure = {
      nodes: [
        { id: 'web', arrival: 5, fanout: true },
        { id: 'api', capacity: 20, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    };
    const result = changes(plain, { nodes: { api: { serviceTime: 0.1, servers: 1 } } });
    expect(result.latency!.map((row) => row.id)).toEqual(['web']);
    expect(result.latency![0]!.after).toBeCloseTo(0.2, 14);
    expect(result.responseTime!.find((row) => row.id === 'api')!.after).toBeCloseTo(0.2, 14);
    expect(result.latencyHeadroom).toEqual({ before: null, after: null });
  });

  // Twice the traffic puts the M/M/2 API past its 10 a second: it no longer answers, and the
  // front end's requests get stuck there. Neither has a time to compare any more, so neither is
  // listed in the numbers (as an unbounded node is left out of throughput): `saturated` names the
  // API, `latencyLimit` the front end (the scenario's answer gives its `latencyLimit`), and the
  // way back, from twice the traffic to today's, clears them.
  it('names the node that stops answering and the entry stuck behind it', () => {
    const shop: Structure = {
      nodes: [
        { id: 'web', arrival: 9, fanout: true, serviceTime: 0.01 },
        { id: 'api', serviceTime: 0.2, servers: 2, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    };
    const result = changes(shop, { scale: 2 });
    expect(result.responseTime).toEqual([]);
    expect(result.latency).toEqual([]);
    expect(result.saturated).toEqual({ newly: ['api'], cleared: [] });
    expect(result.latencyLimit).toEqual({ newly: ['web'], cleared: [] });

    const doubled: Structure = {
      ...shop,
      nodes: shop.nodes.map((node) => ({ ...node, arrival: node.arrival && 18 })),
    };
    const back = changes(doubled, { scale: 0.5 });
    expect(back.latencyLimit).toEqual({ newly: [], cleared: ['web'] });
    expect(back.saturated).toEqual({ newly: [], cleared: ['api'] });
  });

  // The open worked example: B takes 20 against its capacity of 15, so F's requests are stuck
  // there in the baseline, which has no service time at all. A scenario that gives B one (and so
  // a latency model) leaves F stuck: not newly. One that also lifts B's capacity frees F, which
  // was stuck: cleared. And D, given a single server too slow for its 30, sticks F newly where
  // the baseline's F was free.
  it('names no entry newly stuck that was stuck in a baseline without service times', () => {
    const stuckStill = changes(OPEN_WORKED_EXAMPLE, { nodes: { B: { serviceTime: 0.01 } } });
    expect(stuckStill.saturated).toEqual({ newly: [], cleared: [] });
    expect(stuckStill.latencyLimit).toEqual({ newly: [], cleared: [] });
    expect(stuckStill.latency).toEqual([]);
    const freed = changes(OPEN_WORKED_EXAMPLE, { nodes: { B: { serviceTime: 0.01, capacity: 40 } } });
    expect(freed.latencyLimit).toEqual({ newly: [], cleared: ['F'] });
    const roomy = {
      ...OPEN_WORKED_EXAMPLE,
      nodes: OPEN_WORKED_EXAMPLE.nodes.map((node) => ({
        ...node,
        ...(node.id === 'B' ? { capacity: 40 } : {}),
      })),
    };
    const stuckNewly = changes(roomy, { nodes: { D: { serviceTime: 0.1, servers: 1 } } });
    expect(stuckNewly.latencyLimit).toEqual({ newly: ['F'], cleared: [] });
    // The node that saturates listed first (index 0): F is stuck behind it all the same.
    const bFirst = {
      ...OPEN_WORKED_EXAMPLE,
      nodes: [OPEN_WORKED_EXAMPLE.nodes[2]!, ...OPEN_WORKED_EXAMPLE.nodes.filter((node) => node.id !== 'B')],
    };
    expect(changes(bFirst, { nodes: { B: { serviceTime: 0.01 } } }).latencyLimit).toEqual({
      newly: [],
      cleared: [],
    });
  });

  // `old` takes 20 a second on one server of 5 a second: stuck on both sides, so not named. The
  // API takes 9.5 of its 10 today; twice that sticks both its callers, named in id order.
  it('names no entry stuck on both sides, and the newly stuck in id order', () => {
    const shop: Structure = {
      nodes: [
        { id: 'web', arrival: 9, fanout: true, serviceTime: 0.01 },
        { id: 'app', arrival: 0.5, fanout: true, serviceTime: 0.01 },
        { id: 'api', serviceTime: 0.2, servers: 2, exit: 1 },
        { id: 'old', arrival: 20, serviceTime: 0.2, servers: 1, exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'app', to: 'api' },
      ],
    };
    const result = changes(shop, { scale: 2 });
    expect(result.latencyLimit).toEqual({ newly: ['app', 'web'], cleared: [] });
    // And back: twice the traffic to today's frees both, in id order too.
    const doubled: Structure = {
      ...shop,
      nodes: shop.nodes.map((node) =>
        node.id === 'old' ? node : { ...node, arrival: node.arrival && node.arrival * 2 },
      ),
    };
    expect(changes(doubled, { scale: 0.5 }).latencyLimit).toEqual({ newly: [], cleared: ['app', 'web'] });
  });

  // The front end has a service time, the API gets one (and servers) only in the scenario: the
  // API had no response time before (null), not one that never came; it answers in 0.2 s after.
  it('shows null before for a node given a service time by the scenario', () => {
    const shop: Structure = {
      nodes: [
        { id: 'web', arrival: 5, fanout: true, serviceTime: 0.01 },
        { id: 'api', capacity: 20, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    };
    const result = changes(shop, { nodes: { api: { serviceTime: 0.1, servers: 1 } } });
    const api = result.responseTime!.find((row) => row.id === 'api')!;
    expect(api.before).toBeNull();
    expect(api.after).toBeCloseTo(0.2, 14);
  });

  // The README's capacity-planning story as a what-if: at twice today's traffic inventory (one
  // server of 10 ms, 60 calls a second today) saturates, payments (M/M/2 of 40 ms) answers in
  // 1/9 s instead of 1/21 s, and checkout's requests get stuck behind inventory.
  it("answers the README's what-if: twice the traffic sticks checkout behind inventory", () => {
    const result = changes(README_CHECKOUT, { scale: 2 });
    expect(result.saturated).toEqual({ newly: ['inventory'], cleared: [] });
    expect(result.responseTime).toHaveLength(1);
    expect(result.responseTime![0]!.id).toBe('payments');
    expect(result.responseTime![0]!.before).toBeCloseTo(1 / 21, 15);
    expect(result.responseTime![0]!.after).toBeCloseTo(1 / 9, 15);
    expect(result.latencyHeadroom!.before!.scale).toBeCloseTo(1.4535, 4);
    expect(result.latencyHeadroom!.after!.node).toBe('checkout');
    // Over capacity at ×2, checkout meets its SLO again below half of it: today's headroom, halved.
    expect(result.latencyHeadroom!.after!.scale).toBeCloseTo(result.latencyHeadroom!.before!.scale / 2, 8);
    expect(result.latencyLimit).toEqual({ newly: ['checkout'], cleared: [] });
  });

  // Without latency fields on either side there is nothing to say.
  it('has no latencyLimit without latency fields', () => {
    expect(changes(OPEN_WORKED_EXAMPLE, { scale: 2 }).latencyLimit).toBeUndefined();
  });
});
