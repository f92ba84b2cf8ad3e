/**
 * `latencyCurve`: an entry's latency as all traffic grows, the curve the explorer draws.
 */
import { describe, expect, it } from 'vitest';
import { analyze, latencyCurve, type Structure } from '../../../lib/engine';

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

  // No curve for a node that takes no traffic, an unknown id, or requests stuck today.
  it('has no curve where there is no finite latency to draw', () => {
    expect(latencyCurve(API, 'nope', [1])).toBeUndefined();
    const stuck: Structure = {
      nodes: [{ id: 'api', arrival: 20, serviceTime: 0.1, servers: 1, exit: 1 }],
      dependencies: [],
    };
    expect(latencyCurve(stuck, 'api', [0.5])).toBeUndefined();
    const behind: Structure = {
      nodes: [
        { id: 'web', fanout: true, serviceTime: 0.01 },
        { id: 'api', arrival: 1, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    };
    expect(latencyCurve(behind, 'web', [1])).toBeUndefined();
  });
});
