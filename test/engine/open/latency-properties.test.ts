/**
 * Properties of the latency fields on random open structures: the text the service writes is
 * what JSON.stringify makes of the objects; Little's law holds on every node; more traffic never
 * makes an entry faster; and a scenario's answer is the edited structure's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  compileStructure,
  type EngineResult,
  JsonWriter,
  type Structure,
  writeAnalyze,
} from '../../../lib/engine';
import { structureArbitrary } from '../scenario-arbitraries';

/** A random structure with service times on some nodes, servers on some of those and SLOs on entries. */
const withLatency: fc.Arbitrary<Structure> = structureArbitrary.chain((structure) =>
  fc
    .tuple(
      ...structure.nodes.map(() =>
        fc.record({
          serviceTime: fc.option(fc.double({ min: 0.001, max: 2, noNaN: true }), { nil: undefined }),
          servers: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
          slo: fc.option(fc.double({ min: 0.01, max: 50, noNaN: true }), { nil: undefined }),
        }),
      ),
    )
    .map((fields) => ({
      nodes: structure.nodes.map((node, i) => {
        const { serviceTime, servers, slo } = fields[i]!;
        const latency: Record<string, number> = {};
        // A node without a way out serves nothing, so it takes no servers (compile.ts).
        const wayOut =
          (node.exit ?? 0) > 0 ||
          node.fanout === true ||
          structure.dependencies.some((dependency) => dependency.from === node.id);
        if (serviceTime !== undefined) {
          latency.serviceTime = serviceTime;
          // Servers replace the node's own capacity (a capacity beside them must agree).
          if (servers !== undefined && wayOut) latency.servers = servers;
        }
        if (slo !== undefined && node.arrival !== undefined) latency.slo = slo;
        const { capacity, ...rest } = node;
        return {
          ...rest,
          ...(latency.servers === undefined && capacity !== undefined ? { capacity } : {}),
          ...latency,
        };
      }),
      dependencies: structure.dependencies,
    })),
);

function written(structure: Structure | ReturnType<typeof compileStructure>): string {
  const writer = new JsonWriter();
  writeAnalyze(writer, structure);
  return writer.finish();
}

describe('latency on random open structures', () => {
  it('writes what the result objects hold, and Little’s law holds on every node', () => {
    fc.assert(
      fc.property(withLatency, (structure) => {
        const result = analyze(structure);
        expect(written(structure)).toBe(JSON.stringify(result));
        for (const node of result.nodes) {
          if (node.responseTime === undefined) continue;
          expect(node.inFlight).toBeCloseTo(node.throughput! * node.responseTime, 9);
          expect(node.waiting).toBeGreaterThanOrEqual(0);
          expect(node.p99).toBeGreaterThanOrEqual(node.responseTime * 0.99);
        }
      }),
      { seed: 33, numRuns: 200 },
    );
  });

  it('never makes an entry faster when traffic grows', () => {
    fc.assert(
      fc.property(withLatency, (structure) => {
        const base = compileStructure(structure);
        const today = analyze(base);
        const more = analyze(applyScenario(base, { scale: 1.5 }));
        today.nodes.forEach((node, v) => {
          const after = (more as EngineResult).nodes[v]!;
          if (node.latency !== undefined && after.latency !== undefined) {
            expect(after.latency).toBeGreaterThanOrEqual(node.latency * (1 - 1e-12));
          }
          // Stuck today stays stuck with more traffic.
          if (node.latencyLimit !== undefined && node.arrival! > 0)
            expect(after).not.toHaveProperty('latency');
        });
      }),
      { seed: 34, numRuns: 150 },
    );
  });
});

describe('latency over loops too large to eliminate', () => {
  // One entry: by Little's law over the whole system, its latency is every node's requests in
  // flight over its arrivals, Σ throughput × responseTime / arrival. Its requests go round a
  // small loop (eliminated), then two rings of 150 services each (swept), the first calling into
  // the second. With an SLO the loops' systems are kept between solves; without, each solve
  // builds its own: the latencies are the same bits, and both obey Little's law.
  it("gives one entry the latency Little's law gives, with and without an SLO", () => {
    const size = 150;
    const ringOf = (name: string, servers: number, calls: number) => ({
      nodes: Array.from({ length: size }, (_, i) => ({
        id: `${name}${String(i).padStart(3, '0')}`,
        fanout: true,
        serviceTime: 0.0001 * (1 + (i % 5)),
        servers,
      })),
      dependencies: Array.from({ length: size }, (_, i) => ({
        from: `${name}${String(i).padStart(3, '0')}`,
        to: `${name}${String((i + 1) % size).padStart(3, '0')}`,
        weight: calls,
      })),
    });
    const a = ringOf('a', 2, 0.95);
    const b = ringOf('b', 3, 0.9);
    const structure = (slo?: number): Structure => ({
      nodes: [
        { id: 'api', arrival: 4, fanout: true, serviceTime: 0.002, servers: 2, ...(slo ? { slo } : {}) },
        ...['s0', 's1', 's2'].map((id) => ({ id, fanout: true, serviceTime: 0.0005, servers: 1 })),
        ...a.nodes,
        ...b.nodes,
      ],
      dependencies: [
        { from: 'api', to: 's0' },
        { from: 's0', to: 's1' },
        { from: 's1', to: 's2' },
        { from: 's2', to: 's0', weight: 0.5 },
        { from: 's2', to: 'a000' },
        ...a.dependencies,
        ...b.dependencies,
        ...Array.from({ length: size / 50 }, (_, k) => ({
          from: `a${String(50 * k).padStart(3, '0')}`,
          to: 'b000',
        })),
      ],
    });
    const without = analyze(structure());
    const withSlo = analyze(structure(1));
    expect(compileStructure(structure(1)).repeatsLoopSolves).toBe(true);
    expect(withSlo.nodes.map((node) => node.latency)).toEqual(without.nodes.map((node) => node.latency));
    const inFlight = without.nodes.reduce((sum, node) => sum + (node.inFlight ?? 0), 0);
    expect(Math.abs((without.nodes[0]!.latency as number) / (inFlight / 4) - 1)).toBeLessThanOrEqual(1e-9);
    expect(withSlo.latencyHeadroom?.node).toBe('api');
  });
});

/** The fields the latency model adds to an answer (docs/engine.md, "Latency"). */
const LATENCY_NODE_FIELDS = [
  'serviceTime',
  'responseTime',
  'waiting',
  'inFlight',
  'p99',
  'latency',
  'latencyLimit',
];

/** An answer with every field the latency model adds taken out. */
function withoutLatency(result: EngineResult): string {
  const { latencyHeadroom: _headroom, ...rest } = result as EngineResult & { latencyHeadroom?: unknown };
  return JSON.stringify({
    ...rest,
    nodes: rest.nodes.map((node) =>
      Object.fromEntries(Object.entries(node).filter(([key]) => !LATENCY_NODE_FIELDS.includes(key))),
    ),
    ...(rest.bottlenecks === undefined
      ? {}
      : { bottlenecks: rest.bottlenecks.map(({ responseTime: _time, ...bottleneck }) => bottleneck) }),
  });
}

describe('structures without service times', () => {
  // The latency model only adds: an open structure without `serviceTime` answers as it did
  // before it (no latency field at all), and service times alone (no servers, so no capacity
  // invented) change no other number, byte for byte.
  it('answer byte for byte as without the latency model, and service times alone only add fields', () => {
    fc.assert(
      fc.property(structureArbitrary, (structure) => {
        // A service time opens a closed structure (it is an open field): the open ones only.
        fc.pre(
          structure.nodes.some(
            (node) => node.arrival !== undefined || node.exit !== undefined || node.fanout !== undefined,
          ),
        );
        const plain = written(structure);
        for (const field of [...LATENCY_NODE_FIELDS, 'latencyHeadroom'])
          expect(plain).not.toContain(`"${field}":`);
        const timed: Structure = {
          nodes: structure.nodes.map((node, i) => ({ ...node, serviceTime: 0.01 * (1 + (i % 7)) })),
          dependencies: structure.dependencies,
        };
        expect(withoutLatency(JSON.parse(written(timed)) as EngineResult)).toBe(plain);
      }),
      { numRuns: 300 },
    );
  });
});
