/**
 * A node's response time in `analyze`: `serviceTime` and `servers` make it an M/M/c queue
 * (checked in mmc.test.ts against published values); here, how the fields are read, refused and
 * reported, on the text path and the object path alike.
 */
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  compileStructure,
  JsonWriter,
  PayloadError,
  type Structure,
  writeAnalyze,
} from '../../../lib/engine';
import { nodeLatency, nodeResponseTime } from '../../../lib/engine/open/node-latency';

/** `analyze` as the service writes it: the text must be what JSON.stringify makes of the objects. */
function analyzed(structure: Structure) {
  const result = analyze(structure);
  const writer = new JsonWriter();
  writeAnalyze(writer, structure);
  expect(writer.finish()).toBe(JSON.stringify(result));
  return result;
}

function refusal(structure: Structure): string {
  try {
    analyze(structure);
  } catch (error) {
    if (error instanceof PayloadError) return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('a node with servers', () => {
  // The M/M/2 example (ETH Zurich's slides, see mmc.test.ts): 9 requests a second on two
  // servers of 0.2 s each. Capacity 2 / 0.2 = 10 a second, utilization 0.9, mean response time
  // 1.053 s, and 9 × 1.053 requests in flight.
  it('queues as M/M/c', () => {
    const [node] = analyzed({
      nodes: [{ id: 'api', arrival: 9, serviceTime: 0.2, servers: 2, exit: 1 }],
      dependencies: [],
    }).nodes;
    expect(node).toMatchObject({ id: 'api', capacity: 10, serviceTime: 0.2, servers: 2, throughput: 9 });
    expect(node!.utilization).toBeCloseTo(0.9, 14);
    expect(node!.responseTime).toBeCloseTo(1.053, 3);
    expect(node!.inFlight).toBeCloseTo(9 * node!.responseTime!, 12);
    expect(node!.waiting).toBeCloseTo(node!.responseTime! - 0.2, 12);
    expect(node!.p99).toBeGreaterThan(node!.responseTime!);
    // As an entry it also carries its end-to-end latency: here just its own response time.
    expect(Object.keys(node!).slice(-7)).toEqual([
      'throughput',
      'utilization',
      'responseTime',
      'waiting',
      'inFlight',
      'p99',
      'latency',
    ]);
    expect(node!.latency).toBe(node!.responseTime);
  });

  // A capacity beside them must agree with servers / serviceTime.
  it('accepts a capacity that agrees, and refuses one that does not', () => {
    expect(
      analyzed({
        nodes: [{ id: 'a', arrival: 1, serviceTime: 0.1, servers: 1, capacity: 10, exit: 1 }],
        dependencies: [],
      }).nodes[0]!.capacity,
    ).toBe(10);
    // One within 1e-9 agrees, and the node's capacity is the quotient, not the number sent.
    const close = analyzed({
      nodes: [{ id: 'a', arrival: 5, serviceTime: 0.1, servers: 1, capacity: 10.000000009, exit: 1 }],
      dependencies: [],
    });
    expect(close.nodes[0]!.capacity).toBe(10);
    expect(close.headroom).toEqual({ scale: 2, node: 'a' });
    expect(
      refusal({
        nodes: [{ id: 'a', arrival: 1, serviceTime: 0.1, servers: 1, capacity: 3, exit: 1 }],
        dependencies: [],
      }),
    ).toBe('nodes[0].capacity: 3 disagrees with servers / serviceTime = 10; drop one');
  });

  // 10,000 servers of 1e-305 s each would serve 1e309 a step: past the largest double, so no
  // capacity can stand for them, and the service time is named. 1,000 of them serve 1e308.
  it('refuses servers whose capacity a double cannot hold, naming the service time', () => {
    expect(
      refusal({
        nodes: [{ id: 'a', arrival: 1, serviceTime: 1e-305, servers: 10_000, exit: 1 }],
        dependencies: [],
      }),
    ).toBe(
      'nodes[0].serviceTime: is too small for 10000 servers: their capacity per step is beyond the largest number',
    );
    // One server of the smallest double (1 / 5e-324 is past it too), in the singular.
    expect(
      refusal({
        nodes: [{ id: 'a', arrival: 1, serviceTime: 5e-324, servers: 1, exit: 1 }],
        dependencies: [],
      }),
    ).toBe(
      'nodes[0].serviceTime: is too small for 1 server: its capacity per step is beyond the largest number',
    );
    expect(
      analyzed({
        nodes: [{ id: 'a', arrival: 1, serviceTime: 1e-305, servers: 1_000, exit: 1 }],
        dependencies: [],
      }).nodes[0]!.capacity,
    ).toBe(1_000 / 1e-305);
  });

  it('refuses servers without a service time, and servers that are not a whole number from 1 to 10,000', () => {
    expect(refusal({ nodes: [{ id: 'a', servers: 2 }], dependencies: [] })).toBe(
      'nodes[0].servers: servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
    );
    for (const servers of [0, 1.5, 10_001, '2'] as unknown[]) {
      expect(
        refusal({ nodes: [{ id: 'a', serviceTime: 1, servers: servers as number }], dependencies: [] }),
      ).toMatch(/^nodes\[0\]\.servers: must be a whole number from 1 to 10000, got /);
    }
    expect(refusal({ nodes: [{ id: 'a', serviceTime: 0 }], dependencies: [] })).toBe(
      'nodes[0].serviceTime: must be a finite number > 0, got 0',
    );
  });

  // A node with no way out keeps what reaches it and serves none of it: the steady state gives it
  // no utilization, so a queue there would saturate where nothing else in the answer does.
  it('refuses servers on a node without a way out, and takes them with an exit, a dependency or fan-out', () => {
    const sink = { id: 'db', serviceTime: 0.05, servers: 1 };
    const entry = { id: 'web', arrival: 10, fanout: true };
    const calls = [{ from: 'web', to: 'db' }];
    expect(refusal({ nodes: [entry, sink], dependencies: calls })).toBe(
      'nodes[1].servers: the node has no way out (no dependency, no "exit", no "fanout"): what reaches it stays there and none of it is served, so it has no queue; give it an "exit" (or "fanout": true), or drop "servers"',
    );
    // An exit of 0 is no way out either.
    expect(refusal({ nodes: [entry, { ...sink, exit: 0 }], dependencies: calls })).toMatch(
      /^nodes\[1\]\.servers: the node has no way out/,
    );
    for (const wayOut of [{ exit: 1 }, { fanout: true }]) {
      expect(
        analyzed({ nodes: [entry, { ...sink, ...wayOut }], dependencies: calls }).nodes[1],
      ).toMatchObject({
        utilization: 0.5,
        responseTime: 0.1,
      });
    }
    const onward = analyzed({
      nodes: [entry, sink, { id: 'log', exit: 1 }],
      dependencies: [...calls, { from: 'db', to: 'log' }],
    });
    expect(onward.nodes[1]).toMatchObject({ utilization: 0.5, responseTime: 0.1 });
    // A service time alone on such a node is kept: nothing there saturates on either side.
    expect(
      analyzed({ nodes: [entry, { id: 'db', serviceTime: 0.05 }], dependencies: calls }).nodes[1],
    ).toMatchObject({ responseTime: 0.05 });
  });

  // At or above saturation no mean time exists: the fields are left out.
  it('gives no response time at or above saturation', () => {
    const [node] = analyzed({
      nodes: [{ id: 'api', arrival: 10, serviceTime: 0.2, servers: 2, exit: 1 }],
      dependencies: [],
    }).nodes;
    expect(node!.utilization).toBe(1);
    expect(node).not.toHaveProperty('responseTime');
  });
});

describe('a node with a service time alone', () => {
  // No servers: no capacity is assumed, nothing waits; the response time is the service time.
  it('answers in its service time and never saturates', () => {
    const [node] = analyzed({
      nodes: [{ id: 'db', arrival: 1e6, serviceTime: 0.004, exit: 1 }],
      dependencies: [],
    }).nodes;
    expect(node).not.toHaveProperty('capacity');
    expect(node).toMatchObject({ responseTime: 0.004, waiting: 0, inFlight: 4000 });
    expect(node!.p99).toBeCloseTo(0.004 * Math.log(100), 15);
  });

  // The fields open a structure, and a structure without them is described as before.
  it('opens the structure', () => {
    const result = analyzed({ nodes: [{ id: 'a', load: 1, serviceTime: 1 }], dependencies: [] });
    expect(result).toHaveProperty('headroom');
  });
});

describe('a scenario on service times and servers', () => {
  const API = { nodes: [{ id: 'api', arrival: 9, serviceTime: 0.2, servers: 2, exit: 1 }], dependencies: [] };

  // Two more servers: the M/M/4 example (0.212 s), the same answer as the edited structure sent inline.
  it('sets servers, and the capacity follows', () => {
    const base = compileStructure(API);
    const scenario = analyze(applyScenario(base, { nodes: { api: { servers: 4 } } }));
    const inline = analyze({ nodes: [{ ...API.nodes[0]!, servers: 4 }], dependencies: [] });
    expect(JSON.stringify(scenario)).toBe(JSON.stringify(inline));
    expect(scenario.nodes[0]!.capacity).toBe(20);
    expect(scenario.nodes[0]!.responseTime).toBeCloseTo(0.212, 3);
  });

  // Servers on a node without a service time, and a capacity on a node with servers, are refused.
  it('refuses what would contradict the servers', () => {
    const scenarioRefusal = (structure: Structure, scenario: unknown) => {
      try {
        applyScenario(compileStructure(structure), scenario);
      } catch (error) {
        if (error instanceof PayloadError) return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(scenarioRefusal(API, { nodes: { api: { capacity: 30 } } })).toBe(
      'scenario.nodes.api.capacity: the node\'s capacity is servers / serviceTime; change "servers" or "serviceTime" instead',
    );
    expect(
      scenarioRefusal(
        { nodes: [{ id: 'db', arrival: 1, exit: 1 }], dependencies: [] },
        { nodes: { db: { servers: 2 } } },
      ),
    ).toBe(
      'scenario.nodes.db.servers: servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
    );
    expect(scenarioRefusal(API, { nodes: { api: { servers: 0.5 } } })).toBe(
      'scenario.nodes.api.servers: must be a whole number from 1 to 10000, got 0.5',
    );
    // Servers or a service time whose capacity no double holds, as inline.
    const tiny = {
      nodes: [{ id: 'a', arrival: 1, exit: 1, serviceTime: 1e-305, servers: 1 }],
      dependencies: [],
    };
    expect(scenarioRefusal(tiny, { nodes: { a: { servers: 10_000 } } })).toBe(
      'scenario.nodes.a.servers: 10000 servers of serviceTime 1e-305 have a capacity per step beyond the largest number',
    );
    // Servers given to a node without a way out, or a cut that leaves a node with servers none; a
    // node with servers that is down has none by design, and is down.
    const chain = {
      nodes: [
        { id: 'web', arrival: 10, serviceTime: 0.01, servers: 1 },
        { id: 'db', serviceTime: 0.05, exit: 1 },
        { id: 'cache', serviceTime: 0.01 },
      ],
      dependencies: [
        { from: 'web', to: 'db' },
        { from: 'db', to: 'cache' },
      ],
    };
    expect(scenarioRefusal(chain, { nodes: { cache: { servers: 2 } } })).toBe(
      'scenario.nodes.cache.servers: the node has no way out (no dependency, no "exit", no "fanout"): what reaches it stays there and none of it is served, so it has no queue; give it an "exit" (or "fanout": true), or drop "servers"',
    );
    expect(scenarioRefusal(chain, { dependencies: [{ from: 'web', to: 'db', cut: true }] })).toBe(
      'scenario.dependencies[0]: cutting it leaves "web", a node with servers, no way out: what reaches it would stay there and none of it be served; give it an "exit" in the structure, or keep a dependency',
    );
    // Another change on the node the cut leaves stuck: still the cut's doing.
    expect(
      scenarioRefusal(chain, {
        nodes: { web: { load: 1 } },
        dependencies: [{ from: 'web', to: 'db', cut: true }],
      }),
    ).toMatch(/^scenario\.dependencies\[0\]: cutting it leaves "web"/);
    // A node down elsewhere does not excuse one that is up.
    expect(scenarioRefusal(chain, { nodes: { db: { down: true }, cache: { servers: 2 } } })).toMatch(
      /^scenario\.nodes\.cache\.servers: the node has no way out/,
    );
    // db keeps its exit when its dependency is cut; web keeps its dependency; a fan-out node needs
    // none; a node down has no way out, as any down node; a cut that leaves a node without servers
    // stuck (db, cache) is a what-if like any other.
    const withFanout = {
      nodes: [
        ...chain.nodes,
        { id: 'fan', serviceTime: 0.01, fanout: true },
        { id: 'mid', serviceTime: 0.01 },
      ],
      dependencies: [...chain.dependencies, { from: 'mid', to: 'cache' }],
    };
    for (const fine of [
      { dependencies: [{ from: 'db', to: 'cache', cut: true }], nodes: { db: { servers: 1 } } },
      { nodes: { web: { servers: 2 }, fan: { servers: 1 } } },
      { nodes: { web: { down: true } }, dependencies: [{ from: 'web', to: 'db', cut: true }] },
      { nodes: { cache: { servers: 2, down: true } } },
      { dependencies: [{ from: 'mid', to: 'cache', cut: true }] },
    ]) {
      expect(() => analyze(applyScenario(compileStructure(withFanout), fine))).not.toThrow();
    }
    expect(scenarioRefusal(API, { nodes: { api: { serviceTime: 5e-324 } } })).toBe(
      'scenario.nodes.api.serviceTime: 2 servers of serviceTime 5e-324 have a capacity per step beyond the largest number',
    );
  });
});

describe('nodeLatency and nodeResponseTime, asked directly', () => {
  // What every caller relies on: no time where none is said. The API has a service time, web has
  // none; the cache is down in the scenario; a structure without any service time says nothing.
  it('say nothing where no time exists: no service time, unbounded, down, or none in the structure', () => {
    const shop = compileStructure({
      nodes: [
        { id: 'web', arrival: 1, fanout: true },
        { id: 'api', serviceTime: 0.1, servers: 1, exit: 1 },
        { id: 'cache', serviceTime: 0.01, exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'web', to: 'cache' },
      ],
    });
    const [web, api, cache] = [0, 1, 2];
    for (const read of [nodeLatency, nodeResponseTime]) {
      expect(read(shop, web, 1, Number.NaN)).toBeUndefined();
      expect(read(shop, api, Number.POSITIVE_INFINITY, Number.NaN)).toBeUndefined();
      expect(read(shop, cache, Number.POSITIVE_INFINITY, Number.NaN)).toBeUndefined();
      expect(read(shop, api, 20, Number.NaN)).toBeUndefined();
      expect(read(shop, cache, 1, Number.NaN)).toBeDefined();
      const down = applyScenario(shop, { nodes: { cache: { down: true } } });
      expect(read(down, cache, 1, Number.NaN)).toBeUndefined();
      expect(read(down, api, 1, Number.NaN)).toBeDefined();
    }
    // M/M/1 at λ = 5, S = 0.1: R = 0.1 / (1 − 0.5) = 0.2; the cache, no servers: its service time.
    expect(nodeResponseTime(shop, api, 5, Number.NaN)).toBeCloseTo(0.2, 15);
    expect(nodeResponseTime(shop, cache, 5, Number.NaN)).toBe(0.01);
    const timeless = compileStructure({
      nodes: [{ id: 'web', arrival: 1, fanout: true, capacity: 5 }],
      dependencies: [],
    });
    expect(nodeLatency(timeless, 0, 1, Number.NaN)).toBeUndefined();
    expect(nodeResponseTime(timeless, 0, 1, Number.NaN)).toBeUndefined();
  });
});
