/**
 * AWS X-Ray service graphs (`GetServiceGraph`): worked examples first, then every real fixture
 * through the engine (its steady state must reproduce the edges' counts), detection against
 * every other format's fixtures, malformed documents, and a property over random service graphs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applySettings } from '../../lib/api/system-settings';
import { analyze, compileStructure } from '../../lib/engine';
import { type MappedGraph, readGraph } from '../../lib/formats';
import { xray } from '../../lib/formats/xray';
import { fixturesIn, NO_TRAFFIC, otherFolders, roundingReach, thrown } from './fixtures';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const OWN = 'xray';

/** What the estimate warning says of an estimated arrival's direction, after the entries it names. */
const ESTIMATE =
  'a lower bound on the requests it takes while a request makes at most one call on each service, so the weights of its calls (calls per request) are upper bounds; set arrivals in settings where they are known';

function fixture(file: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, OWN, file), 'utf8'));
}

const others = otherFolders(OWN);

interface Call {
  from: string;
  to: string;
  count: number;
  total: number;
}

type Json = Record<string, unknown>;

/**
 * The edges as the source states them, read here without the module: every edge with a
 * `SummaryStatistics.TotalCount`, per second over the graph's span when it has one. Node ids are
 * looked up by the `referenceId` the mapped nodes keep.
 */
function observedEdges(document: unknown, mapped: MappedGraph) {
  const services = (Array.isArray(document) ? document : (document as Json).Services) as Json[];
  const envelope = Array.isArray(document) ? {} : (document as Json);
  const timed = typeof envelope.StartTime === 'number' && typeof envelope.EndTime === 'number';
  const span = timed ? (envelope.EndTime as number) - (envelope.StartTime as number) : 1;
  const idOf = new Map(mapped.nodes.map((node) => [node.referenceId as number, node.id]));
  const calls: Call[] = [];
  for (const service of services)
    for (const edge of (service.Edges ?? []) as Json[]) {
      const total = (edge.SummaryStatistics as Json | undefined)?.TotalCount;
      if (typeof total !== 'number') continue;
      calls.push({
        from: idOf.get(service.ReferenceId as number)!,
        to: idOf.get(edge.ReferenceId as number)!,
        count: total / span,
        total,
      });
    }
  const roots = new Set(
    services.filter((service) => service.Root === true).map((s) => idOf.get(s.ReferenceId as number)!),
  );
  // The requests X-Ray counts for a service itself: its own TotalCount, or for a client (whose
  // statistics are empty) the calls it sends, one for each request of the users it stands for.
  const requests = new Map<string, number>();
  for (const service of services) {
    const own = (service.SummaryStatistics as Json | undefined | null)?.TotalCount;
    const sent = calls
      .filter((call) => call.from === idOf.get(service.ReferenceId as number))
      .reduce((sum, call) => sum + call.count, 0);
    if (typeof own === 'number') requests.set(idOf.get(service.ReferenceId as number)!, own / span);
    else if (service.Type === 'client') requests.set(idOf.get(service.ReferenceId as number)!, sent);
  }
  // Edges of one pair are one call relation: counts added, in first-seen order.
  const byPair = new Map<string, Call>();
  for (const call of calls) {
    const key = JSON.stringify([call.from, call.to]);
    const seen = byPair.get(key);
    if (seen === undefined) byPair.set(key, { ...call });
    else {
      seen.count += call.count;
      seen.total += call.total;
    }
  }
  return { calls: [...byPair.values()], roots, timed, requests };
}

/**
 * What each service must process in the steady state: the calls into it, plus, for an entry (no
 * other service calls it, or the entry of a cycle nothing else calls: its root, else the member
 * with the busiest call, first on ties), its arrival: the requests X-Ray counts for it less the
 * calls into it, where that leaves more than rounding, else the largest count among its calls.
 */
function expectedLoads(
  names: readonly string[],
  calls: readonly Call[],
  roots: ReadonlySet<string>,
  requests: ReadonlyMap<string, number>,
) {
  const counted = calls.filter((call) => call.count > 0);
  const between = counted.filter((call) => call.from !== call.to);
  const reach = new Map<string, Set<string>>();
  for (const start of names) {
    const seen = new Set<string>();
    const queue = [start];
    while (queue.length > 0) {
      const at = queue.pop()!;
      for (const call of between)
        if (call.from === at && !seen.has(call.to)) {
          seen.add(call.to);
          queue.push(call.to);
        }
    }
    reach.set(start, seen);
  }
  const largest = (name: string) =>
    Math.max(0, ...calls.filter((call) => call.from === name).map((call) => call.count));
  // The estimate reads the calls on other services first: a self-call is no request from outside.
  const largestElsewhere = (name: string) =>
    Math.max(0, ...calls.filter((call) => call.from === name && call.to !== name).map((call) => call.count));
  const entries = new Set(names.filter((name) => !between.some((call) => call.to === name)));
  const grouped = new Set<string>();
  for (const name of names) {
    if (grouped.has(name)) continue;
    const group = names.filter(
      (other) => other === name || (reach.get(name)!.has(other) && reach.get(other)!.has(name)),
    );
    for (const member of group) grouped.add(member);
    const closed = !between.some((call) => group.includes(call.to) && !group.includes(call.from));
    if (group.length < 2 || !closed) continue;
    const rooted = group.filter((member) => roots.has(member));
    const candidates = rooted.length > 0 ? rooted : group;
    entries.add(candidates.reduce((best, member) => (largest(member) > largest(best) ? member : best)));
  }
  const loads = new Map<string, { arrival: number; throughput: number }>();
  for (const name of names) {
    const into = counted.filter((call) => call.to === name).reduce((sum, call) => sum + call.count, 0);
    const own = requests.get(name);
    const fromOutside = own === undefined ? 0 : own - into;
    const arrival = !entries.has(name)
      ? 0
      : own !== undefined && fromOutside > 1e-6 * own
        ? fromOutside
        : largestElsewhere(name) || largest(name);
    loads.set(name, { arrival, throughput: arrival + into });
  }
  return loads;
}

/** The steady throughputs, in node order, to 9 decimals (the engine solves with rounding). */
function expectThroughputs(mapped: MappedGraph, expected: readonly number[]): void {
  const steady = analyze(mapped).nodes.map((node) => node.throughput!);
  expect(steady).toHaveLength(expected.length);
  for (const [i, value] of expected.entries()) expect(steady[i]).toBeCloseTo(value, 9);
}

function close(actual: number | undefined, expected: number, tolerance = 1e-9): boolean {
  return (
    actual !== undefined && Math.abs(actual - expected) <= tolerance * Math.max(Math.abs(expected), 1e-300)
  );
}

/** The engine takes the structure, and its steady state reproduces every edge's count. */
function expectReproduced(document: unknown, mapped: MappedGraph): void {
  compileStructure(mapped);
  const { calls, roots, timed, requests } = observedEdges(document, mapped);
  expect(mapped.unit).toBe(timed ? 'second' : 'window');
  const counted = calls.filter((call) => call.count > 0);
  expect(mapped.dependencies.map((d) => [d.from, d.to, d.totalCount])).toEqual(
    counted.map((call) => [call.from, call.to, call.total]),
  );
  const loads = expectedLoads(
    mapped.nodes.map((node) => node.id),
    calls,
    roots,
    requests,
  );
  const result = analyze(mapped);
  expect(result.events.filter((event) => event.type === 'unbounded')).toEqual([]);
  const throughput = new Map(result.nodes.map((node) => [node.id, node.throughput]));
  // 1e-9, or a hundred times what the weights' rounding can move where that is more (fixtures.ts).
  const tolerance = Math.max(1e-9, 100 * roundingReach(mapped, throughput));
  for (const node of mapped.nodes) {
    const expected = loads.get(node.id)!;
    expect(node.fanout).toBe(true);
    if (!close(node.arrival ?? 0, expected.arrival))
      expect.fail(`${node.id}: arrival ${node.arrival}, expected ${expected.arrival}`);
    if (!close(throughput.get(node.id), expected.throughput, tolerance))
      expect.fail(`${node.id}: throughput ${throughput.get(node.id)}, observed ${expected.throughput}`);
  }
  mapped.dependencies.forEach((dependency, i) => {
    const flow = throughput.get(dependency.from)! * dependency.weight!;
    if (!close(flow, counted[i]!.count, tolerance))
      expect.fail(
        `${dependency.from} → ${dependency.to}: steady flow ${flow}, observed ${counted[i]!.count}`,
      );
  });
}

describe('X-Ray: worked examples', () => {
  // A minute of traffic: outside callers (the client "api") send 600 requests to the api
  // service, which makes 1200 calls on orders and 60 on a service the graph does not list
  // (#9); orders makes 2400 on its table. Per second: 10, 20, 1 and 40. The api service is the
  // root, but its outside traffic is the client's edge: only the client takes arrivals. The
  // client (the users) and #9 (listed nowhere) are outside what X-Ray traced: external.
  it('a four-service graph over 60 seconds', () => {
    const mapped = xray.toStructure({
      Services: [
        {
          ReferenceId: 0,
          Name: 'api',
          Type: 'client',
          Edges: [{ ReferenceId: 1, SummaryStatistics: { TotalCount: 600 } }],
        },
        {
          ReferenceId: 1,
          Name: 'api',
          Type: 'AWS::ECS::Container',
          Root: true,
          Edges: [
            {
              ReferenceId: 2,
              SummaryStatistics: {
                OkCount: 1150,
                ErrorStatistics: { ThrottleCount: 10, OtherCount: 40, TotalCount: 50 },
                FaultStatistics: { OtherCount: 0, TotalCount: 0 },
                TotalCount: 1200,
                TotalResponseTime: 30.5,
              },
            },
            { ReferenceId: 9, SummaryStatistics: { TotalCount: 60 } },
          ],
        },
        {
          ReferenceId: 2,
          Name: 'orders',
          Type: 'AWS::Lambda',
          Edges: [{ ReferenceId: 3, SummaryStatistics: { TotalCount: 2400 } }],
        },
        { ReferenceId: 3, Name: 'orders-table', Type: 'AWS::DynamoDB::Table', Edges: [] },
      ],
      StartTime: 1568835392,
      EndTime: 1568835452,
    });
    expect(mapped).toEqual({
      nodes: [
        {
          referenceId: 0,
          name: 'api',
          type: 'client',
          external: true,
          id: 'api (client)',
          fanout: true,
          arrival: 10,
        },
        {
          referenceId: 1,
          name: 'api',
          type: 'AWS::ECS::Container',
          id: 'api (AWS::ECS::Container)',
          fanout: true,
        },
        { referenceId: 2, name: 'orders', type: 'AWS::Lambda', id: 'orders', fanout: true },
        {
          referenceId: 3,
          name: 'orders-table',
          type: 'AWS::DynamoDB::Table',
          id: 'orders-table',
          fanout: true,
        },
        { referenceId: 9, external: true, id: '#9', fanout: true },
      ],
      dependencies: [
        { totalCount: 600, from: 'api (client)', to: 'api (AWS::ECS::Container)', weight: 1 },
        {
          totalCount: 1200,
          okCount: 1150,
          errorCount: 50,
          faultCount: 0,
          throttleCount: 10,
          totalResponseTime: 30.5,
          observedLatency: { value: 30.5 / 1200, statistic: 'mean', unit: 'second' },
          from: 'api (AWS::ECS::Container)',
          to: 'orders',
          weight: 2,
        },
        { totalCount: 60, from: 'api (AWS::ECS::Container)', to: '#9', weight: 0.1 },
        { totalCount: 2400, from: 'orders', to: 'orders-table', weight: 2 },
      ],
      unit: 'second',
      warnings: [
        'several services are named "api": their ids add the type or the ReferenceId',
        'Services[1].Edges[1].ReferenceId: 9 is not among the services; it is a node of its own, "#9"',
      ],
    });
    expect(analyze(mapped).nodes.map((node) => node.throughput)).toEqual([10, 10, 20, 40, 1]);
  });

  // a and b only call each other (10 and 4 calls). b is the root, so it is their entry: it
  // takes its 4 calls as arrivals and processes 4 + 10 = 14; a processes 4.
  it('a root chooses the entry of a cycle nothing else calls', () => {
    const mapped = xray.toStructure([
      { ReferenceId: 5, Name: 'a', Edges: [{ ReferenceId: 6, SummaryStatistics: { TotalCount: 10 } }] },
      {
        ReferenceId: 6,
        Name: 'b',
        Root: true,
        Edges: [{ ReferenceId: 5, SummaryStatistics: { TotalCount: 4 } }],
      },
    ]);
    expect(mapped.nodes).toEqual([
      { referenceId: 5, name: 'a', id: 'a', fanout: true },
      { referenceId: 6, name: 'b', id: 'b', fanout: true, arrival: 4 },
    ]);
    expect(mapped.dependencies).toEqual([
      { totalCount: 10, from: 'a', to: 'b', weight: 2.5 },
      { totalCount: 4, from: 'b', to: 'a', weight: 4 / 14 },
    ]);
    expect(mapped.unit).toBe('window');
    expect(mapped.warnings).toEqual([
      'no StartTime and EndTime on the graph: one step is the window its counts cover; give the window (its length in seconds) for steps of one second',
      '"a", "b" call each other and nothing else calls them: "b" is taken as their entry (it gets the arrivals)',
      `1 entry has no count of its own requests in the document: its arrival is the largest count among its calls ("b": 4), ${ESTIMATE}`,
    ]);
    expectThroughputs(mapped, [4, 14]);
  });

  // A bare array of services states no time: given the window its counts cover, they are per
  // second. The graph's own StartTime and EndTime come first: a window beside them is not read.
  it('reads the window a bare array of services was counted over, and not beside the times', () => {
    const services = [
      { ReferenceId: 1, Name: 'web', Edges: [{ ReferenceId: 2, SummaryStatistics: { TotalCount: 120 } }] },
      { ReferenceId: 2, Name: 'api', Edges: [] },
    ];
    const bare = readGraph(services, 'auto', { window: 60 });
    expect(bare.unit).toBe('second');
    expect(bare.nodes.find((node) => node.id === 'web')!.arrival).toBe(2);
    expect(bare.warnings.some((warning) => warning.startsWith('no StartTime and EndTime'))).toBe(false);
    const timed = readGraph(
      { Services: services, StartTime: 1_700_000_000, EndTime: 1_700_000_120 },
      'auto',
      {
        window: 60,
      },
    );
    expect(timed.nodes.find((node) => node.id === 'web')!.arrival).toBe(1);
    expect(timed.warnings).toContain(
      'the graph states its own time span (120 s from StartTime to EndTime): the window given (60 s) is not read',
    );
    // A window that takes a count past a double names the option, not the document.
    expect(() => readGraph(services, 'auto', { window: 5e-324 })).toThrow('window: 5e-324 makes');
  });

  // Over a minute, the users (X-Ray's client node, whose own statistics are empty) sent 600
  // requests to web and 300 to api: 900 requests, each of which is one call, so 15 arrive a
  // second, not 10 (the busiest call). batch, which nothing calls, served 120 requests by its own
  // statistics and made 360 calls on db: 2 arrive a second and each makes 3 calls, not 6 with
  // 1 call each. Both arrivals come from the document's own counts: no estimate, no warning.
  it("takes an entry's arrival from the requests X-Ray counts for the node", () => {
    const mapped = xray.toStructure({
      StartTime: 0,
      EndTime: 60,
      Services: [
        {
          ReferenceId: 0,
          Name: 'users',
          Type: 'client',
          SummaryStatistics: {},
          Edges: [
            { ReferenceId: 1, SummaryStatistics: { TotalCount: 600 } },
            { ReferenceId: 2, SummaryStatistics: { TotalCount: 300 } },
          ],
        },
        { ReferenceId: 1, Name: 'web', Root: true, SummaryStatistics: { TotalCount: 600 }, Edges: [] },
        { ReferenceId: 2, Name: 'api', Root: true, SummaryStatistics: { TotalCount: 300 }, Edges: [] },
        {
          ReferenceId: 3,
          Name: 'batch',
          SummaryStatistics: { TotalCount: 120 },
          Edges: [{ ReferenceId: 4, SummaryStatistics: { TotalCount: 360 } }],
        },
        { ReferenceId: 4, Name: 'db', Edges: [] },
      ],
    });
    expect(mapped.nodes.map((node) => [node.id, node.arrival])).toEqual([
      ['users', 15],
      ['web', undefined],
      ['api', undefined],
      ['batch', 2],
      ['db', undefined],
    ]);
    expect(
      mapped.dependencies.map((dependency) => [dependency.from, dependency.to, dependency.weight]),
    ).toEqual([
      ['users', 'web', 10 / 15],
      ['users', 'api', 5 / 15],
      ['batch', 'db', 3],
    ]);
    expect(mapped.warnings).toEqual([]);
    expectThroughputs(mapped, [15, 10, 5, 2, 6]);
  });

  // Without any count the graph keeps its shape: weight 1 everywhere, nothing arrives.
  it('a graph without counts keeps its topology', () => {
    const mapped = xray.toStructure({
      Services: [
        { ReferenceId: 0, Name: 'web', Type: 'client', Edges: [{ ReferenceId: 1, SummaryStatistics: {} }] },
        { ReferenceId: 1, Name: 'web', Edges: [{ ReferenceId: 2 }] },
        { ReferenceId: 2, Name: 'web', Edges: [] },
      ],
    });
    expect(mapped).toEqual({
      nodes: [
        { referenceId: 0, name: 'web', type: 'client', external: true, id: 'web (client)', fanout: true },
        { referenceId: 1, name: 'web', id: 'web #1', fanout: true },
        { referenceId: 2, name: 'web', id: 'web #2', fanout: true },
      ],
      dependencies: [
        { from: 'web (client)', to: 'web #1', weight: 1 },
        { from: 'web #1', to: 'web #2', weight: 1 },
      ],
      unit: 'none',
      warnings: [
        NO_TRAFFIC,
        'several services are named "web": their ids add the type or the ReferenceId',
        'no edge has a SummaryStatistics.TotalCount: the structure keeps the topology, with weight 1 on every dependency',
      ],
    });
    compileStructure(mapped);
  });

  // Ids never collide: a service literally named like another's derived id keeps its name.
  it('ids stay unique', () => {
    const mapped = xray.toStructure([
      { ReferenceId: 0, Name: 'x (client)', Edges: [] },
      { ReferenceId: 1, Name: 'x', Type: 'client', Edges: [] },
      { ReferenceId: 2, Name: 'x', Type: 'AWS::Lambda', Edges: [{ ReferenceId: 7 }] },
      { ReferenceId: 3, Name: '#7', Edges: [] },
      { ReferenceId: 4, Edges: [] },
    ]);
    expect(mapped.nodes.map((node) => node.id)).toEqual([
      'x (client)',
      'x #1',
      'x (AWS::Lambda)',
      '#7',
      '#4',
      '#7 (2)',
    ]);
  });

  // SDKs serialise times as ISO strings: the span is still 60 s.
  it('ISO 8601 times', () => {
    const mapped = xray.toStructure({
      Services: [
        { ReferenceId: 0, Name: 'a', Edges: [{ ReferenceId: 0, SummaryStatistics: { TotalCount: 120 } }] },
      ],
      StartTime: '2019-09-18T19:36:32.000Z',
      EndTime: '2019-09-18T19:37:32.000Z',
    });
    expect(mapped.unit).toBe('second');
    // a calls itself 2 a second and takes those 2 as arrivals: it processes 4, weight 1/2.
    expect(mapped.nodes).toEqual([{ referenceId: 0, name: 'a', id: 'a', fanout: true, arrival: 2 }]);
    expect(mapped.dependencies).toEqual([{ totalCount: 120, from: 'a', to: 'a', weight: 0.5 }]);
  });

  // An empty graph is a valid answer.
  it('no services', () => {
    const empty = { Services: [], StartTime: 1, EndTime: 2 };
    expect(xray.detect(empty)).toBe(true);
    expect(xray.toStructure(empty)).toEqual({
      nodes: [],
      dependencies: [],
      unit: 'second',
      warnings: ['no services in the graph'],
    });
  });
});

describe('X-Ray: observed latency', () => {
  // Over a minute, the users sent 600 requests to shop, whose calls took 30 s in all as the
  // users saw them: 0.05 s each on average. shop's own statistics time the same 600 requests at
  // 27 s, 0.045 s each, and that includes its 1200 calls on db (6 s, 0.005 s each, two per
  // request: 0.01 s of the 0.045). These are what X-Ray measured, waiting and downstream calls
  // included: kept as observedLatency, never made a serviceTime, so the engine predicts no
  // response time from them.
  it('keeps the mean response times of services and edges, never as a serviceTime', () => {
    const mapped = xray.toStructure({
      StartTime: 0,
      EndTime: 60,
      Services: [
        {
          ReferenceId: 0,
          Name: 'users',
          Type: 'client',
          SummaryStatistics: {},
          Edges: [{ ReferenceId: 1, SummaryStatistics: { TotalCount: 600, TotalResponseTime: 30 } }],
        },
        {
          ReferenceId: 1,
          Name: 'shop',
          SummaryStatistics: { TotalCount: 600, TotalResponseTime: 27 },
          Edges: [{ ReferenceId: 2, SummaryStatistics: { TotalCount: 1200, TotalResponseTime: 6 } }],
        },
        // Served nothing in the window: no mean to take.
        { ReferenceId: 2, Name: 'db', SummaryStatistics: { TotalCount: 0, TotalResponseTime: 0 }, Edges: [] },
      ],
    });
    expect(mapped.nodes.map((node) => [node.id, node.observedLatency])).toEqual([
      ['users', undefined],
      ['shop', { value: 27 / 600, statistic: 'mean', unit: 'second' }],
      ['db', undefined],
    ]);
    expect(mapped.dependencies.map((d) => [d.from, d.to, d.totalResponseTime, d.observedLatency])).toEqual([
      ['users', 'shop', 30, { value: 0.05, statistic: 'mean', unit: 'second' }],
      ['shop', 'db', 6, { value: 0.005, statistic: 'mean', unit: 'second' }],
    ]);
    expect(mapped.nodes.some((node) => node.serviceTime !== undefined)).toBe(false);
    const result = analyze(mapped);
    expect(result.nodes.map((node) => node.responseTime)).toEqual([undefined, undefined, undefined]);
    // Shown beside what the model says: the node's own observed latency passes through.
    expect(result.nodes[1]!.observedLatency).toEqual({ value: 0.045, statistic: 'mean', unit: 'second' });
  });

  // shop lists db twice: 100 calls taking 2 s (0.02 s each) and 300 taking 3 s (0.01 s each).
  // One dependency carries the 400 calls; its mean is (2 + 3) / 400 = 0.0125 s, not the first
  // copy's 0.02.
  it('a repeated pair gets the mean over its copies', () => {
    const mapped = xray.toStructure([
      {
        ReferenceId: 0,
        Name: 'shop',
        Edges: [
          { ReferenceId: 1, SummaryStatistics: { TotalCount: 100, TotalResponseTime: 2 } },
          { ReferenceId: 1, SummaryStatistics: { TotalCount: 300, TotalResponseTime: 3 } },
        ],
      },
      { ReferenceId: 1, Name: 'db', Edges: [] },
    ]);
    expect(mapped.dependencies).toHaveLength(1);
    expect(mapped.dependencies[0]!.totalCount).toBe(400);
    expect(mapped.dependencies[0]!.observedLatency).toEqual({
      value: 5 / 400,
      statistic: 'mean',
      unit: 'second',
    });
  });

  // Two copies each 10 calls of 1e308 s in all: each mean is 1e307 s, and so is the pair's,
  // though the summed times pass the largest double.
  it("a repeated pair whose summed times pass a double gets its copies' mean", () => {
    const mapped = xray.toStructure([
      {
        ReferenceId: 0,
        Name: 'api',
        Edges: [
          { ReferenceId: 1, SummaryStatistics: { TotalCount: 10, TotalResponseTime: 1e308 } },
          { ReferenceId: 1, SummaryStatistics: { TotalCount: 30, TotalResponseTime: 1e308 } },
        ],
      },
      { ReferenceId: 1, Name: 'db', Edges: [] },
    ]);
    // 10 calls of 1e307 s and 30 of 1e308 / 30: (1e308 + 1e308) / 40 = 5e306, to rounding.
    const observed = mapped.dependencies[0]!.observedLatency as { value: number };
    expect(observed).toEqual({ value: expect.any(Number), statistic: 'mean', unit: 'second' });
    expect(Math.abs(observed.value / 5e306 - 1)).toBeLessThan(1e-15);
  });

  // A response time near the largest double over a count below 1: the mean is past it, and a
  // mean is what the structure keeps, so the document is refused naming the field.
  it('refuses a mean response time past the largest double, naming the field', () => {
    for (const where of ['service', 'edge'] as const) {
      const stats = { TotalCount: 1e-300, TotalResponseTime: 1e10 };
      const document = [
        {
          ReferenceId: 0,
          Name: 'api',
          ...(where === 'service' ? { SummaryStatistics: stats } : {}),
          Edges: [{ ReferenceId: 1, ...(where === 'edge' ? { SummaryStatistics: stats } : {}) }],
        },
        { ReferenceId: 1, Name: 'db', Edges: [] },
      ];
      const path = where === 'service' ? '[0]' : '[0].Edges[0]';
      expect(thrown(() => xray.toStructure(document)).message).toBe(
        `${path}.SummaryStatistics.TotalResponseTime: over a TotalCount of 1e-300 makes a mean response time larger than the largest number a result can hold (about 1.8e308), got 10000000000`,
      );
    }
  });

  // Grafana's test services: SampleSite served 3553 requests in 1427.793 s of response time,
  // about 0.402 s each, and its client's edge times the same requests the same way.
  it('Grafana: the real payload', () => {
    const mapped = xray.toStructure(fixture('grafana-xray-datasource-test-service-map-services.json'));
    const site = mapped.nodes.find((node) => node.id === 'SampleSite (AWS::ElasticBeanstalk::Environment)')!;
    expect(site.observedLatency).toEqual({ value: 1427.793 / 3553, statistic: 'mean', unit: 'second' });
    const edge = mapped.dependencies.find((d) => d.from === 'SampleSite (client)')!;
    expect(edge.observedLatency).toEqual({ value: 1427.793 / 3553, statistic: 'mean', unit: 'second' });
    expect(mapped.nodes.find((node) => node.id === 'SampleSite (client)')!.observedLatency).toBeUndefined();
  });
});

describe('X-Ray: the real payloads', () => {
  for (const { file, document } of fixturesIn(OWN)) {
    // The engine's steady state gives every service the calls observed into it, and every
    // dependency its observed count.
    it(`${file}: detected, mapped, and its steady state reproduces the counts`, () => {
      expect(xray.detect(document)).toBe(true);
      expectReproduced(document, xray.toStructure(document));
      expect(readGraph(document).format).toBe('xray');
    });
  }

  // The aws-cli example over 54 s: Scorekeep's edge goes to ReferenceId 1, not in Services.
  it('aws-cli: the unlisted target is a node of its own', () => {
    const mapped = xray.toStructure(fixture('aws-cli-example-get-service-graph-truncated.json'));
    expect(mapped.unit).toBe('second');
    expect(mapped.nodes).toEqual([
      {
        referenceId: 0,
        name: 'Scorekeep',
        type: 'AWS::ElasticBeanstalk::Environment',
        id: 'Scorekeep',
        fanout: true,
        arrival: 14 / 54,
      },
      { referenceId: 1, external: true, id: '#1', fanout: true },
    ]);
    expect(mapped.dependencies).toEqual([
      {
        totalCount: 14,
        okCount: 14,
        errorCount: 0,
        faultCount: 0,
        throttleCount: 0,
        totalResponseTime: 0.13,
        observedLatency: { value: 0.13 / 14, statistic: 'mean', unit: 'second' },
        from: 'Scorekeep',
        to: '#1',
        weight: 1,
      },
    ]);
    // Scorekeep has no statistics of its own in this example: its arrival is the estimate.
    expect(mapped.warnings).toEqual([
      'Services[0].Edges[0].ReferenceId: 1 is not among the services; it is a node of its own, "#1"',
      `1 entry has no count of its own requests in the document: its arrival is the largest count among its calls ("Scorekeep": ${14 / 54}), ${ESTIMATE}`,
    ]);
  });

  // Grafana's test services: two names used twice (told apart by type), an edge with empty
  // statistics (left out), and a root whose outside traffic comes through its client's edge:
  // SampleSite processes the client's 3553 calls, as its own statistics count.
  it('Grafana: shared names, an edge without a count, a root behind a client', () => {
    const mapped = xray.toStructure(fixture('grafana-xray-datasource-test-service-map-services.json'));
    expect(mapped.unit).toBe('window');
    expect(mapped.nodes.map((node) => [node.id, node.arrival])).toEqual([
      ['ProcessSQSRecord (AWS::Lambda)', 2],
      ['ProcessSQSRecord (AWS::Lambda::Function)', undefined],
      ['SampleSite (AWS::ElasticBeanstalk::Environment)', undefined],
      ['SampleSite (client)', 3553],
      ['https://sqs.us-east-1.amazonaws.com/123456789012/SampleQueue', undefined],
    ]);
    expect(mapped.warnings).toEqual([
      'several services are named "ProcessSQSRecord", "SampleSite": their ids add the type or the ReferenceId',
      '1 edge without a SummaryStatistics.TotalCount left out (no traffic to carry): [4].Edges[0]',
      'no StartTime and EndTime on the graph: one step is the window its counts cover; give the window (its length in seconds) for steps of one second',
    ]);
    const steady = new Map(analyze(mapped).nodes.map((node) => [node.id, node.throughput]));
    expect(steady.get('SampleSite (AWS::ElasticBeanstalk::Environment)')).toBe(3553);
  });

  // SampleSite's client stands for its users: 3553 requests arrive there. Given a default
  // capacity of 100, the users would be the bottleneck of their own traffic; marked external,
  // they get none, while SampleSite, a service of the application, does.
  it('Grafana: the client is external, so a default capacity stays off the users', () => {
    const mapped = xray.toStructure(fixture('grafana-xray-datasource-test-service-map-services.json'));
    expect(mapped.nodes.filter((node) => node.external === true).map((node) => node.id)).toEqual([
      'SampleSite (client)',
    ]);
    const applied = applySettings(mapped, { defaultCapacity: 100 }).nodes as MappedGraph['nodes'];
    expect(applied.map((node) => [node.id, node.capacity])).toEqual([
      ['ProcessSQSRecord (AWS::Lambda)', 100],
      ['ProcessSQSRecord (AWS::Lambda::Function)', 100],
      ['SampleSite (AWS::ElasticBeanstalk::Environment)', 100],
      ['SampleSite (client)', undefined],
      ['https://sqs.us-east-1.amazonaws.com/123456789012/SampleQueue', 100],
    ]);
  });

  // X-Ray's `remote` type is "a downstream service of indeterminate type": called, not traced.
  it('marks a remote service external', () => {
    const mapped = xray.toStructure([
      { ReferenceId: 0, Name: 'shop', Edges: [{ ReferenceId: 1, SummaryStatistics: { TotalCount: 5 } }] },
      { ReferenceId: 1, Name: 'api.partner.example', Type: 'remote', Edges: [] },
    ]);
    expect(mapped.nodes.map((node) => [node.id, node.external])).toEqual([
      ['shop', undefined],
      ['api.partner.example', true],
    ]);
  });
});

describe('X-Ray: detection', () => {
  for (const folder of others) {
    // Another format's document is never taken for an X-Ray graph.
    it(`detects none of the ${folder} fixtures`, () => {
      for (const { file, document } of fixturesIn(folder))
        expect(xray.detect(document), `${folder}/${file}`).toBe(false);
    });
  }

  // The envelope, or services with a numeric ReferenceId and an Edges array.
  it('decides on the first services', () => {
    expect(xray.detect({ Services: [] })).toBe(true);
    expect(xray.detect({ Services: [], StartTime: 1, EndTime: 2, ContainsOldGroupVersions: false })).toBe(
      true,
    );
    expect(xray.detect({ Services: [{ ReferenceId: 'x' }] })).toBe(true);
    expect(xray.detect({ Services: [], nodes: [] })).toBe(false);
    expect(xray.detect({ Services: [{ Name: 'a' }] })).toBe(false);
    expect(xray.detect({ Services: 'a' })).toBe(false);
    expect(xray.detect([])).toBe(false);
    expect(xray.detect([{ ReferenceId: 0, Name: 'a' }])).toBe(false);
    expect(xray.detect([{ ReferenceId: '0', Edges: [] }])).toBe(false);
    expect(
      xray.detect([
        { ReferenceId: 0, Edges: [] },
        { parent: 'a', child: 'b' },
      ]),
    ).toBe(false);
    expect(xray.detect([{ ReferenceId: 0, Edges: [] }])).toBe(true);
  });

  // detect never throws, whatever it is given.
  it('never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof xray.detect(value)).toBe('boolean');
      }),
    );
  });
});

describe('X-Ray: malformed documents', () => {
  const edge = (statistics: unknown) => ({ ReferenceId: 0, SummaryStatistics: statistics });
  const cases: Array<[string, unknown, string]> = [
    [
      'a ReferenceId that is a string',
      { Services: [{ ReferenceId: '0', Name: 'a', Edges: [] }] },
      'Services[0].ReferenceId: must be an integer, got the string "0"',
    ],
    [
      'Edges that are not an array',
      {
        Services: [
          { ReferenceId: 0, Edges: [] },
          { ReferenceId: 1, Edges: {} },
        ],
      },
      'Services[1].Edges: must be an array, got an object',
    ],
    [
      'an edge to a fractional ReferenceId',
      {
        Services: [
          { ReferenceId: 0, Edges: [] },
          { ReferenceId: 1, Edges: [] },
          { ReferenceId: 2, Edges: [{ ReferenceId: 1.5 }] },
        ],
      },
      'Services[2].Edges[0].ReferenceId: must be an integer, got 1.5',
    ],
    [
      'a negative count',
      { Services: [{ ReferenceId: 0, Edges: [edge({ TotalCount: -1 })] }] },
      'Services[0].Edges[0].SummaryStatistics.TotalCount: must be a finite number >= 0, got -1',
    ],
    [
      'a count that is a string',
      [{ ReferenceId: 0, Edges: [edge({ TotalCount: '5' })] }],
      '[0].Edges[0].SummaryStatistics.TotalCount: must be a finite number >= 0, got the string "5"',
    ],
    [
      'statistics that are not an object',
      [{ ReferenceId: 0, Edges: [edge([1])] }],
      '[0].Edges[0].SummaryStatistics: must be an object, got an array',
    ],
    [
      'two services with one ReferenceId',
      {
        Services: [
          { ReferenceId: 0, Edges: [] },
          { ReferenceId: 0, Edges: [] },
        ],
      },
      'Services[1].ReferenceId: duplicate ReferenceId 0 (first used by Services[0])',
    ],
    [
      'a name that is not a string',
      { Services: [{ ReferenceId: 0, Name: 5, Edges: [] }] },
      'Services[0].Name: must be a string, got 5',
    ],
    [
      'a service that is not an object',
      [{ ReferenceId: 0, Edges: [] }, 'x'],
      '[1]: must be an object (a service), got the string "x"',
    ],
    [
      'an edge that is not an object',
      [{ ReferenceId: 0, Edges: [null] }],
      '[0].Edges[0]: must be an object (an edge), got null',
    ],
    [
      'an end before the start',
      { Services: [], StartTime: 10, EndTime: 5 },
      'EndTime: must be later than StartTime, got 5 for a StartTime of 10',
    ],
    [
      'a start that is not a time',
      { Services: [], StartTime: 'yesterday', EndTime: 5 },
      'StartTime: must be a time (epoch seconds, or an ISO 8601 string), got the string "yesterday"',
    ],
    [
      'Services that are not an array',
      { Services: null },
      'Services: must be an array of services, got null',
    ],
    [
      'a negative TotalResponseTime on an edge',
      [{ ReferenceId: 0, Edges: [edge({ TotalCount: 2, TotalResponseTime: -1 })] }],
      '[0].Edges[0].SummaryStatistics.TotalResponseTime: must be a finite number of seconds >= 0, got -1',
    ],
    [
      "a service's TotalResponseTime that is a string",
      [{ ReferenceId: 0, SummaryStatistics: { TotalCount: 2, TotalResponseTime: '0.5' }, Edges: [] }],
      '[0].SummaryStatistics.TotalResponseTime: must be a finite number of seconds >= 0, got the string "0.5"',
    ],
  ];
  for (const [what, document, message] of cases) {
    // Each names the element at fault by its path in the document.
    it(what, () => {
      const error = thrown(() => xray.toStructure(document));
      expect(error.message).toBe(message);
      expect(error.path).toBe(message.slice(0, message.indexOf(':')));
    });
  }

  // Forced, the registry names the element the document misses.
  it('through the registry, forced', () => {
    const error = thrown(() => readGraph({ Services: [{ Name: 'a' }] }, 'xray'));
    expect(error.message).toBe('Services[0].ReferenceId: not xray: must be an integer, got nothing');
  });
});

describe('X-Ray: properties', () => {
  // Counts within three orders of magnitude (see the dependency-links property).
  const count = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ min: 1, max: 1000, noNaN: true }));
  const edge = fc.record({
    ReferenceId: fc.integer({ min: 0, max: 7 }),
    SummaryStatistics: fc.oneof(
      { weight: 4, arbitrary: fc.record({ TotalCount: count }) },
      { weight: 1, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  });
  const service = fc.record(
    {
      Name: fc.constantFrom('api', 'db', 'web'),
      Type: fc.constantFrom('client', 'AWS::Lambda'),
      Root: fc.constantFrom(true, false, null),
      // The service's own statistics: the requests it served, whatever its edges say.
      SummaryStatistics: fc.oneof(fc.record({ TotalCount: count }), fc.constant({})),
      Edges: fc.array(edge, { maxLength: 4 }),
    },
    { requiredKeys: ['Name', 'Edges'] },
  );
  const graph = fc
    .tuple(
      fc.array(service, { minLength: 1, maxLength: 6 }),
      fc.constantFrom('bare', 'envelope', 'timed'),
      fc.integer({ min: 1, max: 3600 }),
    )
    .map(([list, shape, span]) => {
      const services = list.map((entry, i) => ({ ReferenceId: i, ...entry }));
      if (shape === 'bare') return services;
      return shape === 'envelope'
        ? { Services: services }
        : { Services: services, StartTime: 1e9, EndTime: 1e9 + span };
    });

  // Any service graph maps to a structure the engine takes, with readable unique ids, whose
  // steady state reproduces the edges' counts (or, with no count at all, keeps the topology).
  it('random service graphs reproduce their counts', () => {
    fc.assert(
      fc.property(graph, (document) => {
        expect(xray.detect(document)).toBe(true);
        const mapped = xray.toStructure(document);
        compileStructure(mapped);
        for (const node of mapped.nodes)
          if (typeof node.name === 'string')
            expect(node.id === node.name || node.id.startsWith(`${node.name} `)).toBe(true);
        const services = (Array.isArray(document) ? document : document.Services) as Json[];
        const edges = services.flatMap((entry) => entry.Edges as Json[]);
        const anyCount = edges.some(
          (e) => typeof (e.SummaryStatistics as Json | undefined)?.TotalCount === 'number',
        );
        if (edges.length > 0 && !anyCount) {
          expect(mapped.unit).toBe('none');
          // Weight 1 a copy: an edge repeated k times is one dependency of weight k.
          expect(mapped.dependencies.every((d) => Number.isInteger(d.weight) && d.weight! >= 1)).toBe(true);
          expect(mapped.nodes.every((node) => node.arrival === undefined)).toBe(true);
          return;
        }
        expectReproduced(document, mapped);
      }),
      { numRuns: 1000 },
    );
  });
});
