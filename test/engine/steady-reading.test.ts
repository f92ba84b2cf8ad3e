/**
 * The steady state leads `analyze` of an open structure: saturated nodes are blocked and named
 * in events, the worst steady-state problem is the primary blockage, dependencies carry their
 * steady throughput, `bottlenecks` ranks the walls, and a down node loses traffic and says so.
 */
import { describe, expect, it } from 'vitest';
import { analyze, applyScenario, compileStructure, type Structure } from '../../lib/engine';
import { readSteadyState } from '../../lib/engine/steady-reading';
import { solveSteadyState } from '../../lib/engine/steady-state';
import { CLOSED_ANALYZE_KEYS, FRONT_END_FAN } from '../helpers/engine-examples';

const withScenario = (structure: Structure, scenario: unknown) =>
  analyze(applyScenario(compileStructure(structure), scenario));

/** Why the steady state names its primary blockage (`readSteadyState`'s `primaryKind`). */
function primaryKind(structure: Structure, scenario?: unknown) {
  const base = compileStructure(structure);
  const compiled = scenario === undefined ? base : applyScenario(base, scenario);
  return readSteadyState(compiled, solveSteadyState(compiled)).primaryKind;
}

/**
 * Services without dependencies, in the order given: each takes `arrival` a step and completes
 * it (exit 1), so its throughput is its arrival; `capacity` when given.
 */
function services(list: [id: string, arrival: number, capacity?: number][]): Structure {
  return {
    nodes: list.map(([id, arrival, capacity]) => ({
      id,
      arrival,
      exit: 1,
      ...(capacity === undefined ? {} : { capacity }),
    })),
    dependencies: [],
  };
}

/** The scenario that takes `ids` down. */
const down = (...ids: string[]) => ({ nodes: Object.fromEntries(ids.map((id) => [id, { down: true }])) });

describe('the steady state leads', () => {
  // At tick 0 only B has a backlog (it holds 10 against 8), but in the steady state E is the
  // most over capacity: E is the primary blockage, blocked though its pressure is 0 now.
  it('names the most over-utilized node, not the one with a backlog now', () => {
    const result = analyze(FRONT_END_FAN);
    expect(result.primaryBlockage).toBe('E');
    expect(result.nodes.map((n) => [n.id, n.blocked, n.pressure])).toEqual([
      ['A', false, 0],
      ['B', true, 2],
      ['C', false, 0],
      ['E', true, 0],
    ]);
    // cycle, unbounded, saturated, then blocked (pressure now), each in id order.
    expect(result.events).toEqual([
      { tick: 0, type: 'saturated', node: 'B', utilization: 1.25 },
      { tick: 0, type: 'saturated', node: 'E', utilization: 2 },
      { tick: 0, type: 'blocked', node: 'B', pressure: 2 },
    ]);
    // A's 10 requests make 20 calls on E: all of E's traffic, along A → C → E.
    expect(result.origin).toEqual({ id: 'A', load: 0, arrival: 10, contribution: 20, share: 1 });
    expect(result.trace).toEqual(['A', 'C', 'E']);
    expect(result.headroom).toEqual({ scale: 0.5, node: 'E' });
  });

  // The second wall after the first: E saturates at 0.5 times today's traffic, B at 0.8.
  it('ranks the bottlenecks in the order they saturate', () => {
    expect(analyze(FRONT_END_FAN).bottlenecks).toEqual([
      { node: 'E', scale: 0.5, utilization: 2 },
      { node: 'B', scale: 0.8, utilization: 1.25 },
    ]);
  });

  // Equal scales go to the smaller id; at most 10 are listed.
  it('breaks ties by id and lists at most ten', () => {
    const nodes = [
      { id: 'F', arrival: 1, fanout: true },
      ...Array.from({ length: 12 }, (_, i) => ({
        id: `s${String(11 - i).padStart(2, '0')}`,
        capacity: 4,
        exit: 1,
      })),
    ];
    const dependencies = nodes.slice(1).map((n) => ({ from: 'F', to: n.id }));
    const { bottlenecks } = analyze({ nodes, dependencies });
    expect(bottlenecks!.map((b) => b.node)).toEqual(
      Array.from({ length: 10 }, (_, i) => `s${String(i).padStart(2, '0')}`),
    );
    expect(bottlenecks!.every((b) => b.scale === 4 && b.utilization === 0.25)).toBe(true);
  });

  // Calls per step on each dependency in the steady state, beside the flow of the next step.
  it('gives each dependency its steady throughput', () => {
    const result = analyze(FRONT_END_FAN);
    expect(result.dependencies).toEqual([
      { from: 'A', to: 'B', flow: 10, throughput: 10 },
      { from: 'A', to: 'C', weight: 2, flow: 20, throughput: 20 },
      { from: 'C', to: 'E', flow: 0, throughput: 20 },
    ]);
  });

  // A node exactly at capacity is not over it.
  it('does not saturate a node at utilization exactly 1', () => {
    const result = withScenario(FRONT_END_FAN, { nodes: { E: { capacity: 20 }, B: { capacity: 10 } } });
    expect(result.events).toEqual([]);
    expect(result.primaryBlockage).toBeNull();
    expect(result.headroom).toEqual({ scale: 1, node: 'B' });
  });

  // A queue is another matter: two servers of 50 ms taking 40 a second (ρ = 1) wait without
  // limit, so db is saturated at exactly 1, blocked, named in the events and as the primary
  // blockage, and its entry's latency says so too; a capacity of 40 (no servers) at the same
  // traffic is not. A queue whose offered load rounds to its servers (3 / 0.7 a second of 0.7 s
  // on 3 servers: 2.9999999999999996 of 3, utilization 1) or whose utilization does while its
  // load does not (7 / 0.3 of 0.3 s on 7) is saturated both ways, never given a response time of
  // 1.6e15.
  it('saturates a queue at utilization exactly 1, in its events and its latency alike', () => {
    const fan = (db: Structure['nodes'][number]): Structure => ({
      nodes: [{ id: 'F', arrival: 20, fanout: true, serviceTime: 0.01, slo: 0.5 }, db],
      dependencies: [{ from: 'F', to: 'db', weight: 2 }],
    });
    const queue = analyze(fan({ id: 'db', serviceTime: 0.05, servers: 2, exit: 1 }));
    expect(queue.events.filter((e) => e.type === 'saturated')).toEqual([
      { tick: 0, type: 'saturated', node: 'db', utilization: 1 },
    ]);
    expect(queue.primaryBlockage).toBe('db');
    const db = queue.nodes.find((node) => node.id === 'db')!;
    expect(db.blocked).toBe(true);
    expect(db.responseTime).toBeUndefined();
    expect(queue.nodes.find((node) => node.id === 'F')!.latencyLimit).toEqual({
      node: 'db',
      reason: 'saturated',
    });
    const plain = analyze(fan({ id: 'db', capacity: 40, exit: 1 }));
    expect(plain.events.filter((e) => e.type === 'saturated')).toEqual([]);
    expect(plain.primaryBlockage).toBeNull();
    for (const [arrival, serviceTime, servers] of [
      [3 / 0.7, 0.7, 3],
      [7 / 0.3, 0.3, 7],
    ] as const) {
      const result = analyze({
        nodes: [{ id: 'q', arrival, serviceTime, servers, exit: 1, slo: 1e20 }],
        dependencies: [],
      });
      const q = result.nodes[0]!;
      expect(q.utilization, `${servers} servers`).toBe(1);
      expect(q.blocked).toBe(true);
      expect(q.responseTime).toBeUndefined();
      expect(q.latencyLimit).toEqual({ node: 'q', reason: 'saturated' });
      expect(result.events.filter((e) => e.type === 'saturated')).toHaveLength(1);
    }
    // One ulp under its capacity of 3 / 0.1: utilization 0.9999999999999999, and a load of
    // 29.999999999999996 × 0.1 that rounds to its 3 servers. The queue's own times have no mean
    // there, so it is saturated too, utilization and all.
    const underByAnUlp = analyze({
      nodes: [{ id: 'q', arrival: 29.999999999999996, serviceTime: 0.1, servers: 3, exit: 1, slo: 1e20 }],
      dependencies: [],
    });
    const q = underByAnUlp.nodes[0]!;
    expect(q.utilization).toBe(0.9999999999999999);
    expect(q.blocked).toBe(true);
    expect(q.responseTime).toBeUndefined();
    expect(q.latencyLimit).toEqual({ node: 'q', reason: 'saturated' });
    expect(underByAnUlp.events.filter((e) => e.type === 'saturated')).toEqual([
      { tick: 0, type: 'saturated', node: 'q', utilization: 0.9999999999999999 },
    ]);
    // Its headroom, its place among the bottlenecks and the SLO search agree: it saturates at ×1
    // (capacity / throughput rounds to 1.0000000000000002, which had said it was free below it).
    expect(underByAnUlp.headroom).toEqual({ scale: 1, node: 'q' });
    expect(underByAnUlp.bottlenecks).toEqual([{ node: 'q', scale: 1, utilization: 0.9999999999999999 }]);
    expect(underByAnUlp.latencyHeadroom!.scale).toBeLessThanOrEqual(1);
  });

  // Q takes 20 a step against a capacity of 10 (utilization 2), P 10 against 8 (1.25). Q, listed
  // first, is the worst and leads; P, a smaller id, does not take it. Events in id order: P, Q.
  it('names the most utilized node wherever it is listed', () => {
    const structure = services([
      ['Q', 20, 10],
      ['P', 10, 8],
    ]);
    const result = analyze(structure);
    expect(result.primaryBlockage).toBe('Q');
    expect(result.events.filter((e) => e.type === 'saturated')).toEqual([
      { tick: 0, type: 'saturated', node: 'P', utilization: 1.25 },
      { tick: 0, type: 'saturated', node: 'Q', utilization: 2 },
    ]);
    expect(primaryKind(structure)).toBe('saturated');
  });

  // A and B each take 10 a step against a capacity of 5: utilization 2 both. The tie goes to
  // the smaller id, A, listed first or last.
  it('breaks a tie of utilization by id', () => {
    for (const order of [
      ['A', 'B'],
      ['B', 'A'],
    ]) {
      const result = analyze(services(order.map((id) => [id, 10, 5])));
      expect(result.primaryBlockage).toBe('A');
      expect(result.events.filter((e) => e.type === 'saturated').map((e) => e.node)).toEqual(['A', 'B']);
    }
  });

  // Nothing over capacity (B at 0.5): the steady state names no blockage.
  it('names no blockage when nothing saturates', () => {
    expect(primaryKind(services([['B', 4, 8]]))).toBeUndefined();
  });

  // Nothing saturates in the steady state (B serves 1 a step of its 10), but B holds a backlog
  // of 50 right now: with no steady-state problem to lead, the backlog names the blockage.
  it('falls back to the backlog now when nothing saturates', () => {
    const result = analyze({
      nodes: [
        { id: 'A', arrival: 1, fanout: true },
        { id: 'B', capacity: 10, load: 50, exit: 1 },
      ],
      dependencies: [{ from: 'A', to: 'B' }],
    });
    expect(result.primaryBlockage).toBe('B');
    expect(result.nodes[1]).toMatchObject({ id: 'B', blocked: true, utilization: 0.1 });
  });

  // Closed structures and snapshots keep their rules: no new keys, no saturated events.
  it('leaves closed structures alone', () => {
    const closed = analyze({
      nodes: [
        { id: 'a', load: 10 },
        { id: 'b', capacity: 1 },
      ],
      dependencies: [{ from: 'a', to: 'b' }],
    });
    expect(Object.keys(closed)).toEqual(CLOSED_ANALYZE_KEYS);
    expect(Object.keys(closed.dependencies[0]!)).toEqual(['from', 'to', 'flow']);
  });
});

describe('down loses traffic', () => {
  // C down: the 20 calls a step on it are lost, E gets nothing. The system cannot serve today's
  // traffic at any scale, so the headroom is 0 at C, while `bottlenecks` still ranks B.
  it('reports what a down node loses and never looks better for it', () => {
    const result = withScenario(FRONT_END_FAN, { nodes: { C: { down: true } } });
    expect(result.nodes[2]).toMatchObject({ id: 'C', throughput: 20, lost: 20, blocked: true });
    expect(result.nodes[3]).toMatchObject({ id: 'E', throughput: 0, utilization: 0, blocked: false });
    expect(result.lost).toBe(20);
    expect(result.headroom).toEqual({ scale: 0, node: 'C' });
    expect(result.bottlenecks).toEqual([{ node: 'B', scale: 0.8, utilization: 1.25 }]);
    expect(result.primaryBlockage).toBe('C');
    expect(result.events).toEqual([
      { tick: 0, type: 'saturated', node: 'B', utilization: 1.25 },
      { tick: 0, type: 'saturated', node: 'C', lost: 20 },
      { tick: 0, type: 'blocked', node: 'B', pressure: 2 },
      // C keeps the 20 calls it will receive in the next step: all its next load is pressure.
      { tick: 0, type: 'blocked', node: 'C', pressure: 20 },
    ]);
    // C → E carries nothing now; A → C still carries its 20 calls (to be lost).
    expect(result.dependencies.map((d) => d.throughput)).toEqual([10, 20, 0]);
    expect(Object.keys(result).slice(-3)).toEqual(['headroom', 'bottlenecks', 'lost']);
  });

  // Two nodes down: the one losing most is the primary blockage and the headroom node.
  it('puts the node losing most first', () => {
    const result = withScenario(FRONT_END_FAN, { nodes: { B: { down: true }, C: { down: true } } });
    expect(result.lost).toBe(30);
    expect(result.primaryBlockage).toBe('C');
    expect(result.headroom).toEqual({ scale: 0, node: 'C' });
    expect(result.bottlenecks).toEqual([]);
  });

  // Q and P down, losing their arrivals: Q 20, P 10. Q, listed first, loses most and leads;
  // P, a smaller id, does not take it. 30 lost in all; events in id order: P, Q.
  it('puts the node losing most first wherever it is listed', () => {
    const structure = services([
      ['Q', 20],
      ['P', 10],
    ]);
    const result = withScenario(structure, down('Q', 'P'));
    expect(result.primaryBlockage).toBe('Q');
    expect(result.headroom).toEqual({ scale: 0, node: 'Q' });
    expect(result.lost).toBe(30);
    expect(result.events.filter((e) => e.type === 'saturated')).toEqual([
      { tick: 0, type: 'saturated', node: 'P', lost: 10 },
      { tick: 0, type: 'saturated', node: 'Q', lost: 20 },
    ]);
    expect(primaryKind(structure, down('Q', 'P'))).toBe('lost');
  });

  // A and B down, losing 10 a step each: the tie goes to the smaller id, A, listed first or last.
  it('breaks a tie of losses by id', () => {
    for (const order of [
      ['A', 'B'],
      ['B', 'A'],
    ]) {
      const result = withScenario(services(order.map((id) => [id, 10])), down('A', 'B'));
      expect(result.primaryBlockage).toBe('A');
      expect(result.headroom).toEqual({ scale: 0, node: 'A' });
    }
  });

  // A down node nothing reaches loses nothing: no `lost` on the result, no event.
  it('says nothing of a down node without traffic', () => {
    const result = withScenario(
      { ...FRONT_END_FAN, nodes: [...FRONT_END_FAN.nodes, { id: 'Z', capacity: 1 }] },
      { nodes: { Z: { down: true } } },
    );
    expect(result).not.toHaveProperty('lost');
    expect(result.nodes[4]).toMatchObject({ id: 'Z', lost: 0, blocked: false });
    expect(result.primaryBlockage).toBe('E');
  });
});

describe('an unbounded loop leads', () => {
  // A retry storm: S retries itself twice per request. S is the loop to fix; T only suffers.
  it('is the primary blockage, with no origin, before any saturated node', () => {
    const result = analyze({
      nodes: [
        { id: 'F', arrival: 1, fanout: true },
        { id: 'S', fanout: true },
        { id: 'T', exit: 1 },
        { id: 'B', capacity: 0.5, exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'S' },
        { from: 'F', to: 'B' },
        { from: 'S', to: 'S', weight: 2 },
        { from: 'S', to: 'T' },
      ],
    });
    expect(result.primaryBlockage).toBe('S');
    expect(result.origin).toBeNull();
    expect(result.trace).toEqual([]);
    expect(result.headroom).toBeNull();
    // B holds 1 against a capacity of 0.5: over capacity in the steady state and backlogged now.
    expect(result.events.map((e) => e.type)).toEqual(['cycle', 'unbounded', 'saturated', 'blocked']);
    expect(result.nodes.map((n) => n.blocked)).toEqual([false, true, true, true]);
    expect(result.bottlenecks).toEqual([{ node: 'B', scale: 0.5, utilization: 2 }]);
  });

  // A routing loop M → A → Z → M that nothing leaves, fed at M: all three keep what they get.
  // The loop's smallest id, A, is the primary blockage, though listed neither first nor last.
  it('is named by its smallest id', () => {
    const structure: Structure = {
      nodes: [{ id: 'M', arrival: 1 }, { id: 'A' }, { id: 'Z' }],
      dependencies: [
        { from: 'M', to: 'A' },
        { from: 'A', to: 'Z' },
        { from: 'Z', to: 'M' },
      ],
    };
    expect(analyze(structure).primaryBlockage).toBe('A');
    expect(primaryKind(structure)).toBe('unbounded');
  });
});
