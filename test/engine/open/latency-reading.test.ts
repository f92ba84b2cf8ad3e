/**
 * An entry's end-to-end `latency` in `analyze`: its requests' own times along their calls, or
 * where they get stuck (`latencyLimit`). Text and objects agree on every example.
 */
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  compileStructure,
  JsonWriter,
  type Structure,
  writeAnalyze,
} from '../../../lib/engine';
import { queueTimes } from '../../../lib/engine/open/mmc';

function analyzed(structure: Structure | ReturnType<typeof compileStructure>) {
  const result = analyze(structure);
  const writer = new JsonWriter();
  writeAnalyze(writer, structure);
  expect(writer.finish()).toBe(JSON.stringify(result));
  return result;
}

/**
 * A web front end (10 ms a request, no servers given: it never queues) takes 9 requests a
 * second and calls the API once per request; the API is the M/M/2 example (two servers of
 * 0.2 s): R(api) = 1.053 s. A request at the front end: 0.01 + R(api).
 */
const SHOP: Structure = {
  nodes: [
    { id: 'web', arrival: 9, fanout: true, serviceTime: 0.01 },
    { id: 'api', serviceTime: 0.2, servers: 2, exit: 1 },
  ],
  dependencies: [{ from: 'web', to: 'api' }],
};

describe('latency of an entry', () => {
  it('adds the response times along its calls', () => {
    const [web, api] = analyzed(SHOP).nodes;
    const apiTime = queueTimes(9, 0.2, 2)!.responseTime;
    expect(api!.responseTime).toBeCloseTo(apiTime, 14);
    expect(web!.latency).toBeCloseTo(0.01 + apiTime, 14);
    expect(api).not.toHaveProperty('latency');
  });

  // Ten requests a second on two servers of 0.2 s: the API is at capacity and never settles.
  it('names the node where requests get stuck', () => {
    const web = analyzed(applyScenario(compileStructure(SHOP), { nodes: { web: { arrival: 10 } } }))
      .nodes[0]!;
    expect(web).not.toHaveProperty('latency');
    expect(web.latencyLimit).toEqual({ node: 'api', reason: 'saturated' });
  });

  it('says a down node never answers', () => {
    const web = analyzed(applyScenario(compileStructure(SHOP), { nodes: { api: { down: true } } })).nodes[0]!;
    expect(web.latencyLimit).toEqual({ node: 'api', reason: 'down' });
  });

  // The API retries itself twice per request: a retry storm, no steady state.
  it('says an unbounded loop never answers', () => {
    const web = analyzed({
      nodes: [
        { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01 },
        { id: 'api', fanout: true, serviceTime: 0.1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'api', to: 'api', weight: 2 },
      ],
    }).nodes[0]!;
    expect(web.latencyLimit).toEqual({ node: 'api', reason: 'unbounded' });
  });

  // The database has a capacity but no service time: it adds no time of its own, but over its
  // capacity its queue grows without end, so requests that reach it never answer. At exactly its
  // capacity it is not over it, and the front end's latency is its own 10 ms.
  it('is stuck at a node over its capacity, even one without a service time', () => {
    const structure = (arrival: number): Structure => ({
      nodes: [
        { id: 'web', arrival, fanout: true, serviceTime: 0.01 },
        { id: 'db', capacity: 10, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'db' }],
    });
    expect(analyzed(structure(12)).nodes[0]!.latencyLimit).toEqual({ node: 'db', reason: 'saturated' });
    const atCapacity = analyzed(structure(10)).nodes[0]!;
    expect(atCapacity.latency).toBe(0.01);
    expect(atCapacity).not.toHaveProperty('latencyLimit');
  });

  // The front end calls the API, which calls it back once per request (fan-out: a call each):
  // every request makes endless calls, so the front end itself is in the unbounded loop, and
  // says so of itself (it never answers: its requests get stuck at it), though it has no
  // throughput to show.
  it('says an entry inside an unbounded loop never answers', () => {
    const [web] = analyzed({
      nodes: [
        { id: 'web', arrival: 1, fanout: true, serviceTime: 0.01, slo: 2 },
        { id: 'api', fanout: true, serviceTime: 0.1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'api', to: 'web' },
      ],
    }).nodes;
    expect(web).not.toHaveProperty('throughput');
    expect(web).not.toHaveProperty('latency');
    expect(web!.latencyLimit).toEqual({ node: 'web', reason: 'unbounded' });
  });

  // Five requests a step on a capacity of 3 with a service time of 0.1 (no servers): the node is
  // over its capacity, so no response time exists there, as its entry's latency says too.
  it('gives no response time to a node over a capacity given beside its service time', () => {
    const [api] = analyzed({
      nodes: [{ id: 'api', arrival: 5, exit: 1, capacity: 3, serviceTime: 0.1 }],
      dependencies: [],
    }).nodes;
    for (const field of ['responseTime', 'waiting', 'inFlight', 'p99', 'latency']) {
      expect(api).not.toHaveProperty(field);
    }
    expect(api!.latencyLimit).toEqual({ node: 'api', reason: 'saturated' });
    // At exactly its capacity it is not over it: its service time, no wait.
    const [atCapacity] = analyzed({
      nodes: [{ id: 'api', arrival: 3, exit: 1, capacity: 3, serviceTime: 0.1 }],
      dependencies: [],
    }).nodes;
    expect(atCapacity!.responseTime).toBe(0.1);
    expect(atCapacity!.latency).toBe(0.1);
  });

  // Numbers past the largest double would print as null: such a structure is refused, naming
  // the field, as a total load past its bound is.
  it('refuses a service time whose numbers no double holds', () => {
    const refusal = (structure: Structure) => {
      try {
        analyze(structure);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    // 1e308 s: its 99th percentile, 1e308 × ln 100, is past the largest double.
    expect(refusal({ nodes: [{ id: 'a', arrival: 1, exit: 1, serviceTime: 1e308 }], dependencies: [] })).toBe(
      "nodes[0].serviceTime: makes the node's p99 larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
    );
    // 1e10 requests a step, each 1e300 steps long: 1e310 in flight.
    expect(
      refusal({ nodes: [{ id: 'a', arrival: 1e10, exit: 1, serviceTime: 1e300 }], dependencies: [] }),
    ).toMatch(/^nodes\[0\]\.serviceTime: makes the node's inFlight larger than the largest number/);
    // Each request makes 1e10 calls of 1e300 steps each: no node overflows, the entry does.
    expect(
      refusal({
        nodes: [
          { id: 'a', arrival: 1e-20, fanout: true, serviceTime: 1 },
          { id: 'b', exit: 1, serviceTime: 1e300 },
        ],
        dependencies: [{ from: 'a', to: 'b', weight: 1e10 }],
      }),
    ).toBe(
      "nodes[0]: its requests' end-to-end latency (expected calls times response times on their paths) is larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
    );
    // One call further away: a's latency overflows (not stuck: no node saturates), and the entry
    // that calls it reads that infinity as a latency past a double, not as a node it is stuck at.
    expect(
      refusal({
        nodes: [
          { id: 'e', arrival: 1e-20, fanout: true, serviceTime: 1 },
          { id: 'a', fanout: true, serviceTime: 1 },
          { id: 'b', exit: 1, serviceTime: 1e300 },
        ],
        dependencies: [
          { from: 'e', to: 'a' },
          { from: 'a', to: 'b', weight: 1e10 },
        ],
      }),
    ).toBe(
      "nodes[0]: its requests' end-to-end latency (expected calls times response times on their paths) is larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
    );
    // The same calls from a node no request arrives at: its latency is said nowhere, so nothing
    // is refused, and the entry beside it answers.
    const [entry, idle] = analyzed({
      nodes: [
        { id: 'e', arrival: 1, exit: 1, serviceTime: 1 },
        { id: 'a', fanout: true, serviceTime: 1 },
        { id: 'b', exit: 1, serviceTime: 1e300 },
      ],
      dependencies: [{ from: 'a', to: 'b', weight: 1e10 }],
    }).nodes;
    expect(entry!.latency).toBe(1);
    expect(idle).not.toHaveProperty('latency');
  });

  // Without any service time there is nothing to say about latency, and nothing is said.
  it('adds nothing to a structure without service times', () => {
    const result = analyzed({
      nodes: [
        { id: 'web', arrival: 9, fanout: true },
        { id: 'api', capacity: 10, exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'api' }],
    });
    for (const node of result.nodes) {
      expect(node).not.toHaveProperty('latency');
      expect(node).not.toHaveProperty('responseTime');
    }
  });
});

describe('a Jackson network with feedback', () => {
  // A → B, and B sends ¾ of what it serves back to A, ¼ out: a request visits each station
  // 1 / (1 − ¾) = 4 times, so both see 4 × 1 = 4 requests a second, and its latency is
  // 4·R(A) + 4·R(B) with each an M/M/1 at 4 a second: R(A) = 0.1 / (1 − 0.4), R(B) = 0.05 / (1 − 0.2).
  it('counts every visit', () => {
    const [a, b] = analyzed({
      nodes: [
        { id: 'A', arrival: 1, serviceTime: 0.1, servers: 1 },
        { id: 'B', serviceTime: 0.05, servers: 1, exit: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A', weight: 3 },
      ],
    }).nodes;
    expect(a!.throughput).toBeCloseTo(4, 12);
    expect(b!.throughput).toBeCloseTo(4, 12);
    const rA = 0.1 / (1 - 0.4);
    const rB = 0.05 / (1 - 0.2);
    expect(a!.responseTime).toBeCloseTo(rA, 12);
    expect(b!.responseTime).toBeCloseTo(rB, 12);
    expect(a!.latency).toBeCloseTo(4 * rA + 4 * rB, 12);
  });
});
