/**
 * `latencyCurve`: an entry's latency as all traffic grows, the curve the explorer draws.
 */
import { describe, expect, it } from 'vitest';
import { analyze, applyScenario, compileStructure, latencyCurve, type Structure } from '../../../lib/engine';

// One M/M/1 API: λ = 5 a second, S = 0.1 s. At a scale s its response time is
// 0.1 / (1 − 0.5 s): 0.1 with no traffic, 0.2 today, 0.5 at 1.6, none from 2 on.
const API: Structure = {
  nodes: [{ id: 'api', arrival: 5, serviceTime: 0.1, servers: 1, exit: 1 }],
  dependencies: [],
};

describe('latencyCurve', () => {
  it('follows M/M/1 to its saturation', () => {
    const curve = latencyCurve(API, 'api', [0, 1, 1.6, 2, 3])!;
    expect(curve.saturation).toBe(2);
    const expected = [0.1, 0.2, 0.5];
    for (const [i, value] of expected.entries()) expect(curve.latency[i]).toBeCloseTo(value, 14);
    expect(curve.latency.slice(3)).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
  });

  // web (10 ms) calls the API twice per request; at scale 1 the curve gives analyze's latency.
  it('agrees with analyze at today’s traffic', () => {
    const structure: Structure = {
      nodes: [
        { id: 'web', arrival: 2.5, fanout: true, serviceTime: 0.01 },
        { id: 'api', serviceTime: 0.1, servers: 1, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api', weight: 2 }],
    };
    const [today] = latencyCurve(structure, 'web', [1])!.latency;
    expect(today).toBeCloseTo(analyze(structure).nodes[0]!.latency!, 14);
    expect(today).toBeCloseTo(0.01 + 2 * 0.2, 14);
  });

  // No curve for an unknown id or a node that takes no traffic.
  it('has no curve for a node that is no entry', () => {
    expect(latencyCurve(API, 'nope', [1])).toBeUndefined();
    const behind: Structure = {
      nodes: [
        { id: 'web', fanout: true, serviceTime: 0.1 },
        { id: 'api', arrival: 1, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    };
    expect(latencyCurve(behind, 'web', [1])).toBeUndefined();
  });

  // Over capacity today: 20 a second at one 0.1 s server, which serves 10. analyze gives no
  // latency (stuck at api, saturated); the curve still runs below ×0.5, where 10 a second get
  // through: 0.1 / (1 − 2 s), 0.2 at ×0.25, none from ×0.5 on (today included).
  it('draws an entry over capacity today up to where its traffic fits', () => {
    const stuck: Structure = {
      nodes: [{ id: 'api', arrival: 20, serviceTime: 0.1, servers: 1, exit: 1 }],
      dependencies: [],
    };
    expect(analyze(stuck).nodes[0]).toMatchObject({ latencyLimit: { node: 'api', reason: 'saturated' } });
    const curve = latencyCurve(stuck, 'api', [0, 0.25, 0.5, 1])!;
    expect(curve.saturation).toBe(0.5);
    expect(curve.latency[0]).toBeCloseTo(0.1, 14);
    expect(curve.latency[1]).toBeCloseTo(0.2, 14);
    expect(curve.latency.slice(2)).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
  });

  // A node down on the way (a what-if's `down`, applied as the explorer applies it before it
  // asks for the curve) saturates at ×0: no traffic at all gets through it.
  it('has no curve when a node on the way is down', () => {
    const base = compileStructure({
      nodes: [
        { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01 },
        { id: 'api', serviceTime: 0.1, servers: 1, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    });
    expect(latencyCurve(base, 'web', [0])).toBeDefined();
    const down = applyScenario(base, { nodes: { api: { down: true } } });
    expect(analyze(down).nodes[0]).toMatchObject({ latencyLimit: { node: 'api', reason: 'down' } });
    expect(latencyCurve(down, 'web', [0, 1])).toBeUndefined();
    // Down elsewhere, off web's paths: web's curve is as before.
    const aside = applyScenario(
      compileStructure({
        nodes: [
          { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01 },
          { id: 'api', serviceTime: 0.1, servers: 1, exit: 1 },
          { id: 'batch', arrival: 1, exit: 1 },
        ],
        dependencies: [{ from: 'web', to: 'api' }],
      }),
      { nodes: { batch: { down: true } } },
    );
    expect(latencyCurve(aside, 'web', [0, 1])).toEqual(latencyCurve(base, 'web', [0, 1]));
    // The node down listed first (node 0), the entry after it.
    const first = applyScenario(
      compileStructure({
        nodes: [
          { id: 'api', serviceTime: 0.1, servers: 1, exit: 1 },
          { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01 },
        ],
        dependencies: [{ from: 'web', to: 'api' }],
      }),
      { nodes: { api: { down: true } } },
    );
    expect(latencyCurve(first, 'web', [0, 1])).toBeUndefined();
  });

  // 1e200 calls of a 1e200 s service: past the largest double even with no traffic (analyze
  // refuses the structure, naming the entry): no curve.
  it('has no curve whose latency a double cannot hold', () => {
    const huge: Structure = {
      nodes: [
        { id: 'web', arrival: 1, fanout: true, serviceTime: 0.1 },
        { id: 'api', serviceTime: 1e200, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api', weight: 1e200 }],
    };
    expect(() => analyze(huge)).toThrow(/nodes\[0\]: its requests' end-to-end latency/);
    expect(latencyCurve(huge, 'web', [0])).toBeUndefined();
  });

  // A retry storm at the entry itself (two retries per request): unbounded today, no curve. A
  // closed structure has no entries, so no curve either.
  it('has no curve for an unbounded entry or a closed structure', () => {
    const storm: Structure = {
      nodes: [{ id: 'api', arrival: 1, fanout: true, serviceTime: 0.1 }],
      dependencies: [{ from: 'api', to: 'api', weight: 2 }],
    };
    expect(latencyCurve(storm, 'api', [0.5, 1])).toBeUndefined();
    // The storm behind the entry, at a node without a service time: it adds no time of its own,
    // yet the requests never leave it, at any traffic.
    const behind: Structure = {
      nodes: [
        { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01 },
        { id: 'api', fanout: true },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'api', to: 'api', weight: 2 },
      ],
    };
    expect(analyze(behind).nodes[0]).toMatchObject({ latencyLimit: { node: 'api', reason: 'unbounded' } });
    expect(latencyCurve(behind, 'web', [0, 0.5])).toBeUndefined();
    const closed: Structure = {
      nodes: [{ id: 'a', load: 3 }, { id: 'b' }],
      dependencies: [{ from: 'a', to: 'b' }],
    };
    expect(latencyCurve(closed, 'a', [1])).toBeUndefined();
  });

  // At exactly the scale where the API saturates, it has no finite latency; just below, it has.
  it('ends the curve at its saturation, not after it', () => {
    const [below, at] = latencyCurve(API, 'api', [2 - 2 ** -51, 2])!.latency;
    expect(below).toBeGreaterThan(1e13);
    expect(below).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(at).toBe(Number.POSITIVE_INFINITY);
  });

  // The database has a capacity of 10 a second and no service time: it adds no time, but past
  // its capacity its queue grows without end. With 5 a second today it saturates at ×2: the
  // curve is the front end's 10 ms up to ×2 (at capacity, not over it, as analyze says) and
  // infinite past it. Over capacity today (12 a second), the curve ends at ×10/12.
  it('ends the curve where a node without a service time goes over its capacity', () => {
    const structure = (arrival: number): Structure => ({
      nodes: [
        { id: 'web', arrival, fanout: true, serviceTime: 0.01 },
        { id: 'db', capacity: 10, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'db' }],
    });
    const curve = latencyCurve(structure(5), 'web', [1, 2, 2.5])!;
    expect(curve.saturation).toBe(2);
    expect(curve.latency).toEqual([0.01, 0.01, Number.POSITIVE_INFINITY]);
    expect(latencyCurve(structure(10), 'web', [1])!.latency).toEqual([0.01]);
    expect(analyze(structure(10)).nodes[0]!.latency).toBe(0.01);
    const over = latencyCurve(structure(12), 'web', [0.5, 10 / 12, 1])!;
    expect(over.saturation).toBe(10 / 12);
    expect(over.latency).toEqual([0.01, 0.01, Number.POSITIVE_INFINITY]);
  });
});
