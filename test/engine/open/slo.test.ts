/**
 * `latencyHeadroom`: how far traffic can grow before the first entry misses its `slo`.
 */
import { describe, expect, it } from 'vitest';
import { analyze, JsonWriter, type Structure, writeAnalyze } from '../../../lib/engine';

function analyzed(structure: Structure) {
  const result = analyze(structure);
  const writer = new JsonWriter();
  writeAnalyze(writer, structure);
  expect(writer.finish()).toBe(JSON.stringify(result));
  return result;
}

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

  // Over capacity today: its requests never finish, so no scale meets the SLO.
  it('is 0 when the entry is stuck today', () => {
    expect(
      analyzed({
        nodes: [{ id: 'api', arrival: 20, serviceTime: 0.1, servers: 1, slo: 5, exit: 1 }],
        dependencies: [],
      }).latencyHeadroom,
    ).toEqual({ scale: 0, node: 'api' });
  });

  // Service times but no SLO: null.
  it('is null without an SLO', () => {
    expect(
      analyzed({ nodes: [{ id: 'api', arrival: 1, serviceTime: 0.1, exit: 1 }], dependencies: [] })
        .latencyHeadroom,
    ).toBeNull();
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

  // The README's story: checkout (5 ms, 20 a second, SLO 300 ms) calls payments once (40 ms, 2
  // servers: M/M/2 at a = 0.8, R = 47.6 ms) and inventory three times (10 ms, 1 server at 60 a
  // second: R = 25 ms): 5 + 47.6 + 75 = 127.6 ms today. Inventory saturates at ×1.67, checkout
  // misses its SLO first, at ×1.45.
  it("tells the README's checkout story", () => {
    const result = analyzed({
      nodes: [
        { id: 'checkout', arrival: 20, fanout: true, serviceTime: 0.005, slo: 0.3 },
        { id: 'payments', serviceTime: 0.04, servers: 2, exit: 1 },
        { id: 'inventory', serviceTime: 0.01, servers: 1, exit: 1 },
      ],
      dependencies: [
        { from: 'checkout', to: 'payments' },
        { from: 'checkout', to: 'inventory', weight: 3 },
      ],
    });
    expect(result.nodes[0]!.latency).toBeCloseTo(0.005 + 0.04 / 0.84 + 3 * 0.025, 14);
    expect(result.headroom).toEqual({ scale: 100 / 60, node: 'inventory' });
    expect(result.latencyHeadroom!.node).toBe('checkout');
    expect(result.latencyHeadroom!.scale).toBeCloseTo(1.4535, 4);
  });
});
