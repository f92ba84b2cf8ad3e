/**
 * The one rule that turns observed calls into an open system: worked examples, each checked the
 * way that matters, by the engine's steady throughput reproducing the observed calls.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';
import { callGraphStructure, type ObservedCall } from '../../lib/formats/call-graph';
import { FormatError } from '../../lib/formats/types';

/** What the estimate warning says of an estimated arrival's direction, after the entries it names. */
const ESTIMATE =
  'a lower bound on the requests it takes while a request makes at most one call on each service, so the weights of its calls (calls per request) are upper bounds; set arrivals in settings where they are known';

/** The steady throughput of every node, by id, when the engine analyzes the mapped structure. */
function throughputs(
  nodes: string[],
  calls: ObservedCall[],
  roots: string[] = [],
  requests: Record<string, number> = {},
) {
  const mapped = callGraphStructure({
    nodes: nodes.map((id) => ({
      id,
      ...(roots.includes(id) ? { root: true } : {}),
      ...(Object.hasOwn(requests, id) ? { requests: requests[id] } : {}),
    })),
    calls,
  });
  const result = analyze({ nodes: mapped.nodes, dependencies: mapped.dependencies });
  return { mapped, byId: Object.fromEntries(result.nodes.map((node) => [node.id, node.throughput])) };
}

describe('callGraphStructure', () => {
  // docs/connect.md's worked example: frontend 300 (its busiest callee), checkout 100,
  // catalog 300 + 50, payment 100.
  it('maps the worked example so the throughputs are the observed calls', () => {
    const calls = [
      { from: 'frontend', to: 'checkout', count: 100 },
      { from: 'frontend', to: 'catalog', count: 300 },
      { from: 'checkout', to: 'catalog', count: 50 },
      { from: 'checkout', to: 'payment', count: 100 },
    ];
    const { mapped, byId } = throughputs(['frontend', 'checkout', 'catalog', 'payment'], calls);
    expect(mapped.nodes[0]).toEqual({ id: 'frontend', fanout: true, arrival: 300 });
    expect(mapped.dependencies.map((d) => d.weight)).toEqual([100 / 300, 1, 0.5, 1]);
    expect(byId).toEqual({ frontend: 300, checkout: 100, catalog: 350, payment: 100 });
  });

  // A service that calls itself: its own calls count in its throughput, so the weight of the
  // self-call is what it makes per request processed.
  it('counts self-calls in the caller throughput', () => {
    const { byId } = throughputs(
      ['api', 'db'],
      [
        { from: 'api', to: 'api', count: 20 },
        { from: 'api', to: 'db', count: 80 },
      ],
    );
    expect(byId.api).toBeCloseTo(100, 12);
    expect(byId.db).toBeCloseTo(80, 12);
  });

  // An entry that calls itself 100 times and b 20 times, with no count of its own requests: its
  // self-calls are requests it makes itself, not requests from outside, so the estimate is its
  // busiest call on another service (20), as the Prometheus reader's sum of the calls out, less
  // the self-calls, gives. An entry that calls nothing but itself keeps its self-calls' count.
  it("estimates an entry's arrival from its calls on others, not its calls on itself", () => {
    const { mapped, byId } = throughputs(
      ['a', 'b'],
      [
        { from: 'a', to: 'a', count: 100 },
        { from: 'a', to: 'b', count: 20 },
      ],
    );
    expect(mapped.nodes[0]).toEqual({ id: 'a', fanout: true, arrival: 20 });
    expect(byId.a).toBeCloseTo(120, 12);
    expect(byId.b).toBeCloseTo(20, 12);
    const alone = throughputs(['a'], [{ from: 'a', to: 'a', count: 100 }]);
    expect(alone.mapped.nodes[0]).toEqual({ id: 'a', fanout: true, arrival: 100 });
    expect(alone.byId.a).toBeCloseTo(200, 12);
  });

  // Two services that only call each other: nothing would arrive; the busier one becomes the
  // entry, with a warning, and the counts still come out.
  it('gives a cycle that nothing else calls an entry, with a warning', () => {
    const { mapped, byId } = throughputs(
      ['a', 'b'],
      [
        { from: 'a', to: 'b', count: 10 },
        { from: 'b', to: 'a', count: 30 },
      ],
    );
    expect(mapped.warnings[0]).toMatch(/^"a", "b" call each other and nothing else calls them: "b" is taken/);
    expect(byId.a).toBeCloseTo(30, 12);
    expect(byId.b).toBeCloseTo(10 + 30, 12);
  });

  // A call counted 0 carries nothing, and a weight must be above 0: left out, said in a warning.
  it('leaves calls counted 0 out', () => {
    const { mapped } = throughputs(
      ['a', 'b', 'c'],
      [
        { from: 'a', to: 'b', count: 5 },
        { from: 'a', to: 'c', count: 0 },
      ],
    );
    expect(mapped.dependencies).toHaveLength(1);
    expect(mapped.warnings).toEqual([
      `1 entry has no count of its own requests in the document: its arrival is the largest count among its calls ("a": 5), ${ESTIMATE}`,
      '1 call with a count of 0 left out (no traffic to carry)',
    ]);
  });

  // A root the source names takes arrivals even when others call it too.
  it('gives a named root its arrival even when it is called', () => {
    const { byId } = throughputs(
      ['gateway', 'svc'],
      [
        { from: 'gateway', to: 'svc', count: 40 },
        { from: 'svc', to: 'gateway', count: 10 },
      ],
      ['gateway'],
    );
    // gateway: arrival 40 + 10 called back; svc: 40.
    expect(byId.gateway).toBeCloseTo(50, 12);
    expect(byId.svc).toBeCloseTo(40, 12);
  });

  // Where the source counts the requests a node processes (Kiali's node rates, X-Ray's service
  // statistics), an entry processes exactly those: its arrival is the count less the calls the
  // graph brings it (here 10 of its own). The users sent 3 requests, 2 to orders and 1 to
  // search: arrival 3, not the busiest call's 2. An entry without a count keeps the estimate.
  it("takes an entry's arrival from the requests the source counts for it", () => {
    const { mapped, byId } = throughputs(
      ['users', 'orders', 'search', 'batch', 'db'],
      [
        { from: 'users', to: 'orders', count: 2 },
        { from: 'users', to: 'search', count: 1 },
        { from: 'batch', to: 'batch', count: 10 },
        { from: 'batch', to: 'db', count: 30 },
      ],
      [],
      { users: 3, batch: 25 },
    );
    expect(mapped.nodes.map((node) => [node.id, node.arrival])).toEqual([
      ['users', 3],
      ['orders', undefined],
      ['search', undefined],
      ['batch', 15],
      ['db', undefined],
    ]);
    expect(mapped.warnings).toEqual([]);
    expect(byId.users).toBeCloseTo(3, 12);
    expect(byId.orders).toBeCloseTo(2, 12);
    expect(byId.search).toBeCloseTo(1, 12);
    expect(byId.batch).toBeCloseTo(25, 12);
    expect(byId.db).toBeCloseTo(30, 12);
  });

  // A count that leaves nothing from outside (5 requests counted, 5 calls on itself) cannot be
  // an arrival: the estimate is used instead, and the warning says why.
  it('estimates an arrival when the count is not above the calls into the entry', () => {
    const { mapped } = throughputs(
      ['loop', 'db'],
      [
        { from: 'loop', to: 'loop', count: 5 },
        { from: 'loop', to: 'db', count: 8 },
      ],
      [],
      { loop: 5 },
    );
    expect(mapped.nodes[0]!.arrival).toBe(8);
    expect(mapped.warnings).toEqual([
      `1 entry's own request count is not above the calls into it that the graph shows: its arrival is the largest count among its calls instead ("loop": 8), ${ESTIMATE}`,
    ]);
  });

  // Two links of one pair are one dependency: counts and numeric fields added, the rest first.
  it('merges calls of one pair, counts added', () => {
    const mapped = callGraphStructure({
      nodes: [{ id: 'web' }, { id: 'db' }],
      calls: [
        { from: 'web', to: 'db', count: 30, extra: { errors: 1, protocol: 'http' }, path: 'data[0]' },
        { from: 'web', to: 'db', count: 10, extra: { errors: 2, protocol: 'grpc' }, path: 'data[1]' },
      ],
    });
    expect(mapped.dependencies).toEqual([{ errors: 3, protocol: 'http', from: 'web', to: 'db', weight: 1 }]);
    expect(mapped.nodes[0]).toEqual({ id: 'web', fanout: true, arrival: 40 });
    expect(mapped.warnings).toEqual([
      '1 call repeated a caller and callee seen before (data[1] repeats data[0]): merged into one dependency, counts added',
      `1 entry has no count of its own requests in the document: its arrival is the largest count among its calls ("web": 40), ${ESTIMATE}`,
    ]);
  });

  // Counts that overflow once added, or a weight past the largest number, are no rates: the
  // source element is named instead of handing the engine an Infinity.
  it('names the source element when counts overflow', () => {
    const huge = (path: string): ObservedCall => ({ from: 'a', to: 'b', count: 1e308, path });
    expect(() =>
      callGraphStructure({ nodes: [{ id: 'a' }, { id: 'b' }], calls: [huge('data[0]'), huge('data[1]')] }),
    ).toThrow(
      new FormatError('data[1]', 'the calls of "a" on "b" add up past the largest number a count can have'),
    );
    expect(() =>
      callGraphStructure({
        nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
        calls: [
          { from: 'a', to: 'b', count: 5e-324, path: 'data[0]' },
          { from: 'b', to: 'c', count: 1e300, path: 'data[1]' },
        ],
      }),
    ).toThrow(
      /^data\[1\]: "b" makes 1e\+300 calls on "c" while processing 5e-324 requests: too far apart to be a rate/,
    );
  });
});
