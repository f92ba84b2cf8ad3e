/**
 * Zipkin v2 spans: every real payload (detected by this format alone, mapped, the engine
 * reproducing its counts), shared client and server ids, clock skew, remote services nothing
 * traced, arrays of traces, and malformed documents named by path.
 */
import { describe, expect, it } from 'vitest';
import { readGraph } from '../../../lib/formats';
import { zipkinSpans } from '../../../lib/formats/spans/zipkin-spans';
import { thrown } from '../fixtures';
import { detecting, expectObservedCounts, fixture, nodeOf, spanFixtures, weightsOf } from './checks';

const OWN = 'zipkin-spans';

/** A Zipkin v2 span of trace `1f`, times in µs. */
function z(fields: Record<string, unknown> & { id: string; service?: string }) {
  const { service, ...rest } = fields;
  return {
    traceId: '000000000000001f',
    name: 'op',
    ...(service === undefined ? {} : { localEndpoint: { serviceName: service } }),
    ...rest,
  };
}

describe('Zipkin fixtures', () => {
  it.each(spanFixtures(OWN).map((entry) => [entry.file, entry.document]))(
    '%s is detected as Zipkin spans alone and maps to counts the engine reproduces',
    (_file, document) => {
      expect(detecting(document)).toEqual([OWN]);
      const mapped = readGraph(document, 'auto', { window: 60 });
      expect(mapped.format).toBe(OWN);
      expectObservedCounts(mapped, 60);
    },
  );

  // Zipkin's skew test trace: servicea's client and serviceb's server share an id; serviceb's
  // local "async" span names that id as its parent; serviceb's clock runs 60 ms behind.
  it('reads the skew trace: shared ids pair, children go to their own service half', () => {
    const mapped = readGraph(fixture(OWN, 'zipkin-lens-testdata-skew.json'), 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'servicea → serviceb': 1 });
    // servicea: 99411 µs less its client span's 94539 µs.
    expect(nodeOf(mapped, 'servicea').serviceTime).toBeCloseTo(0.004872, 12);
    // serviceb: its server half, 93577 µs; the local async span is its own work.
    expect(nodeOf(mapped, 'serviceb').serviceTime).toBeCloseTo(0.093577, 12);
    expect(nodeOf(mapped, 'servicea').arrival).toBe(1);
    expect(mapped.warnings).toEqual([]);
  });

  it('reads the Yelp trace: remote services nothing traced are nodes outside the application', () => {
    const mapped = readGraph(fixture(OWN, 'zipkin-lens-testdata-yelp.json'));
    const external = mapped.nodes.filter((node) => node.external === true).map((node) => node.id);
    expect(external).toEqual(['blt', 'memcache', 'mysql']);
    expect(weightsOf(mapped)['mobile_api → memcache']).toBe(2);
    expect(weightsOf(mapped)['yelp-main → mysql']).toBe(2 / 3);
  });

  it('reads the Envoy span without a service name as "unknown"', () => {
    const mapped = readGraph(fixture(OWN, 'zipkin-lens-testdata-envoy.json'));
    expect(mapped.nodes.map((node) => node.id)).toEqual(['unknown']);
    expect(mapped.warnings[0]).toBe(
      '1 span has no localEndpoint.serviceName (first: [0]): it is the service "unknown"',
    );
  });

  it('reads the Kafka trace: a consumer of its own producer is a call on itself', () => {
    const mapped = readGraph(fixture(OWN, 'zipkin-lens-testdata-messaging-kafka.json'));
    expect(weightsOf(mapped)).toEqual({
      'servicea → kafka': 1.5,
      'servicea → serviceb': 0.75,
      'servicea → servicea': 0.75,
    });
  });
});

describe('Zipkin reading', () => {
  const call = (shared: boolean) => [
    z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 1_000_000, duration: 100_000 }),
    z({ id: 'b', parentId: 'a', kind: 'CLIENT', service: 'web', timestamp: 1_020_000, duration: 50_000 }),
    shared
      ? z({
          id: 'b',
          parentId: 'a',
          kind: 'SERVER',
          shared: true,
          service: 'api',
          timestamp: 1_025_000,
          duration: 40_000,
        })
      : z({ id: 'c', parentId: 'b', kind: 'SERVER', service: 'api', timestamp: 1_025_000, duration: 40_000 }),
    z({ id: 'd', parentId: shared ? 'b' : 'c', service: 'api', timestamp: 1_030_000, duration: 10_000 }),
  ];

  it('reads a shared id as one RPC, like two ids', () => {
    const shared = readGraph(call(true), 'auto', { window: 1 });
    expect(shared).toEqual(readGraph(call(false), 'auto', { window: 1 }));
    expect(weightsOf(shared)).toEqual({ 'web → api': 1 });
    expect(nodeOf(shared, 'web').serviceTime).toBeCloseTo(0.05, 12);
    expect(nodeOf(shared, 'api').serviceTime).toBeCloseTo(0.04, 12);
  });

  it('reads an array of traces like the spans in one array', () => {
    const other = call(false).map((span) => ({ ...span, traceId: '000000000000002e' }));
    const traces = readGraph([call(false), other], 'auto', { window: 2 });
    expect(traces).toEqual(readGraph([...call(false), ...other], 'auto', { window: 2 }));
    expect(nodeOf(traces, 'web').arrival).toBe(1);
    expect(zipkinSpans.detect([call(false), other])).toBe(true);
  });

  it('cuts a call that reaches outside its request to it, and says so', () => {
    // web's client span runs 30 ms past web's own span (a call left running, or skew).
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 1_000_000, duration: 100_000 }),
      z({ id: 'b', parentId: 'a', kind: 'CLIENT', service: 'web', timestamp: 1_080_000, duration: 50_000 }),
      z({ id: 'c', parentId: 'b', kind: 'SERVER', service: 'api', timestamp: 1_085_000, duration: 40_000 }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 1 });
    expect(nodeOf(mapped, 'web').serviceTime).toBeCloseTo(0.08, 12);
    expect(mapped.warnings).toEqual([
      '1 call reaches outside the request that made it (first under [0]; clock skew between hosts, or a call left running): only the time it overlaps the request is taken from its self time',
    ]);
  });

  // After Zipkin's own TraceTest.doesntMergeSharedSpansOnDifferentIPs (openzipkin/zipkin,
  // Apache-2.0), with times: frontend's client span b is reported in two parts (Brave's flush
  // with its timestamp, then its finish with its duration and an error tag), and two backend
  // servers behind a retrying proxy answer it under the same shared id, told apart by address.
  // The parts are one client span, 10–30 ms into frontend's 50 ms request: self time 30 ms. The
  // two servers stay two: two calls on backend, both through the failed client span.
  const flushed = [
    z({ id: 'a', kind: 'SERVER', service: 'frontend', timestamp: 1_000_000, duration: 50_000 }),
    z({
      id: 'b',
      parentId: 'a',
      kind: 'CLIENT',
      service: 'frontend',
      timestamp: 1_010_000,
      annotations: [{ timestamp: 1_030_000, value: 'brave.flush' }],
    }),
    {
      ...z({ id: 'b', parentId: 'a', kind: 'SERVER', shared: true, timestamp: 1_012_000, duration: 10_000 }),
      localEndpoint: { serviceName: 'backend', ipv4: '1.2.3.4' },
    },
    {
      ...z({ id: 'b', parentId: 'a', kind: 'SERVER', shared: true, timestamp: 1_015_000, duration: 10_000 }),
      localEndpoint: { serviceName: 'backend', ipv4: '1.2.3.5' },
    },
    z({
      id: 'b',
      parentId: 'a',
      kind: 'CLIENT',
      service: 'frontend',
      duration: 20_000,
      tags: { error: 'timeout' },
    }),
  ];

  it('merges the parts of a span reported in pieces, as Zipkin does, and says so', () => {
    const mapped = readGraph(flushed, 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'frontend → backend': 2 });
    expect(nodeOf(mapped, 'frontend').serviceTime).toBeCloseTo(0.03, 12);
    expect(nodeOf(mapped, 'backend').serviceTime).toBeCloseTo(0.01, 12);
    expect(mapped.dependencies[0]).toMatchObject({ callCount: 2, errorCount: 2 });
    expect(mapped.warnings).toEqual([
      '1 span is a part of an earlier span (the same trace, id, service and shared flag; no field differing, some missing from one of them; first: [4] completes [1]): a span reported in pieces, merged into one, as Zipkin merges them',
    ]);
    // The same as the client span reported whole, in the first part's place.
    const whole = [
      flushed[0],
      { ...flushed[1], duration: 20_000, tags: { error: 'timeout' } },
      flushed[2],
      flushed[3],
    ];
    expect({ ...mapped, warnings: [] }).toEqual(readGraph(whole, 'auto', { window: 1 }));
  });

  it('keeps two spans of one id that disagree in any field as two, and reads an exact repeat of a part once', () => {
    // Instrumentation reusing an id: two complete client spans of frontend under id b, at
    // different times. Neither completes the other, so both are calls (the repeated-id warning).
    const reused = [
      flushed[0],
      ...[1_010_000, 1_020_000].map((timestamp) =>
        z({
          id: 'b',
          parentId: 'a',
          kind: 'CLIENT',
          service: 'frontend',
          timestamp,
          duration: 5_000,
          remoteEndpoint: { serviceName: 'cache' },
        }),
      ),
    ];
    const mapped = readGraph(reused, 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'frontend → cache': 2 });
    expect(mapped.warnings.join('\n')).not.toContain('a part of an earlier span');
    // A part sent twice (a retried batch) is one part: merged once, its repeat read once.
    const retried = readGraph([...flushed, flushed[4]], 'auto', { window: 1 });
    expect(weightsOf(retried)).toEqual({ 'frontend → backend': 2 });
    expect(nodeOf(retried, 'frontend').serviceTime).toBeCloseTo(0.03, 12);
  });

  // Brave's Kafka consumer: orders (a request of 100 ms) produces a message; billing's `poll`
  // CONSUMER span lasts 1 µs, and the message's processing is a local span under it, 50 ms. The
  // consumer's request lasts until its own spans below it end: a service time of 50 ms, not 1 µs.
  it("reads a consumer's request to the end of its own work below it", () => {
    const t0 = 1_700_000_000_000_000;
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'orders', timestamp: t0, duration: 100_000 }),
      z({
        id: 'b',
        parentId: 'a',
        kind: 'PRODUCER',
        service: 'orders',
        timestamp: t0 + 10_000,
        duration: 2_000,
      }),
      z({
        id: 'c',
        parentId: 'b',
        kind: 'CONSUMER',
        service: 'billing',
        timestamp: t0 + 20_000,
        duration: 1,
      }),
      z({
        id: 'd',
        parentId: 'c',
        service: 'billing',
        name: 'on-message',
        timestamp: t0 + 20_001,
        duration: 50_000,
      }),
    ];
    const mapped = readGraph(spans, 'zipkin-spans', { window: 60 });
    expect(nodeOf(mapped, 'billing').serviceTime).toBeCloseTo(0.050001, 12);
    expect(weightsOf(mapped)).toEqual({ 'orders → billing': 1 });
  });

  // web takes a request (0–100 ms) and, in a span of no kind that names mysql as its remote end,
  // waits 60 ms on it: Zipkin's DependencyLinker reads such a span as a client span. So web calls
  // mysql once a request, and its self time is 40 ms (it read no call, and 100 ms).
  it('reads a span of no kind that knows both ends as a client span', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 1_700_000_000_000_000, duration: 100_000 }),
      z({
        id: 'b',
        parentId: 'a',
        service: 'web',
        remoteEndpoint: { serviceName: 'mysql', ipv4: '10.0.0.5', port: 3306 },
        timestamp: 1_700_000_000_010_000,
        duration: 60_000,
      }),
    ];
    const mapped = readGraph(spans, 'zipkin-spans', { window: 60 });
    expect(weightsOf(mapped)).toEqual({ 'web → mysql': 1 });
    expect(nodeOf(mapped, 'web').serviceTime).toBeCloseTo(0.04, 12);
    // A span of no kind without a remote service stays the service's own work.
    const local = readGraph(
      [spans[0], { ...spans[1], remoteEndpoint: { ipv4: '10.0.0.5' } }],
      'zipkin-spans',
      {
        window: 60,
      },
    );
    expect(local.dependencies).toEqual([]);
  });

  // Zipkin stores service names lower-cased (zipkin2.Endpoint): `Web` and `web` are one service,
  // and a call naming `API` is a call on the traced `api`, not on a service outside it.
  it('reads service names as Zipkin stores them, lower-cased', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'Web' }),
      z({ id: 'b', parentId: 'a', kind: 'CLIENT', service: 'Web', remoteEndpoint: { serviceName: 'API' } }),
      z({ id: 'c', parentId: 'b', kind: 'SERVER', service: 'api' }),
      { ...z({ id: 'd', kind: 'SERVER', service: 'web' }), traceId: '00000000000000ab' },
    ];
    const mapped = readGraph(spans, 'zipkin-spans', { window: 60 });
    expect(mapped.nodes.map((node) => node.id)).toEqual(['web', 'api']);
    expect(weightsOf(mapped)).toEqual({ 'web → api': 0.5 });
  });

  it('reads any error tag as an error, an empty message included', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', tags: { error: '' } }),
      z({ id: 'b', kind: 'SERVER', service: 'web', tags: { 'http.status_code': '200' } }),
    ];
    expect(nodeOf(readGraph(spans), 'web').errorRate).toBe(0.5);
  });

  // Zipkin's model reads a timestamp of 0 as none (its JSON leaves an unknown one out): read as
  // 1970, it made a window of 53 years beside a span of 2023, and arrivals of 1e-9 per second.
  it('reads a timestamp of 0 as none given', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 100 }),
      z({ id: 'b', kind: 'SERVER', service: 'web', timestamp: 1_700_000_000_000_000, duration: 300 }),
      z({ id: 'c', kind: 'SERVER', service: 'web', timestamp: 1_700_000_000_000_700, duration: 300 }),
    ];
    const mapped = readGraph(spans);
    // Three requests (the one without a time counted too) over the 1 ms from the first timed
    // start to the last end: 3,000 a second.
    expect(nodeOf(mapped, 'web').arrival).toBeCloseTo(3 / 0.001, 6);
  });

  // A duration of 0 is none too (zipkin2.Span: `duration > 0 ? duration : null`): read as 0 s, it
  // pulled the mean self time of two 10 ms requests down to 6.7 ms, with no warning.
  it('reads a duration of 0 as none given', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'api', timestamp: 1_700_000_000_000_000, duration: 10_000 }),
      z({ id: 'b', kind: 'SERVER', service: 'api', timestamp: 1_700_000_000_100_000, duration: 10_000 }),
      z({ id: 'c', kind: 'SERVER', service: 'api', timestamp: 1_700_000_000_050_000, duration: 0 }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 1 });
    expect(nodeOf(mapped, 'api').serviceTime).toBeCloseTo(0.01, 12);
    expect(nodeOf(mapped, 'api').arrival).toBe(3);
    expect(mapped.warnings).toContain(
      '1 span has no start or no end (first: [2]): it counts as requests and calls, not in the times',
    );
  });

  // Detection looks at the first span only: a bad second or third span made the document fit no
  // format, with no path, where a bad fourth was named.
  it('names a malformed span after the first by its path when the format is detected', () => {
    const first = z({ id: 'b', service: 'w' });
    for (const at of [1, 2, 3]) {
      const spans: unknown[] = [first, first, first, first];
      spans[at] = { traceId: 'a', id: 7 };
      expect(thrown(() => readGraph(spans)).message).toBe(`[${at}].id: must be a string, got 7`);
    }
  });

  it('is not an array of anything else', () => {
    expect(zipkinSpans.detect([])).toBe(false);
    expect(zipkinSpans.detect([[]])).toBe(false);
    expect(zipkinSpans.detect([{ traceId: 'a', id: 'b', binaryAnnotations: [] }])).toBe(false);
    expect(zipkinSpans.detect([{ parent: 'a', child: 'b', callCount: 1 }])).toBe(false);
    // Mapped (readGraph refuses an empty array by name, as it refuses every shape it does not
    // detect), an empty answer has no nodes.
    expect(zipkinSpans.toStructure([])).toEqual({
      nodes: [],
      dependencies: [],
      unit: 'window',
      warnings: ['no spans in the document'],
    });
  });

  it.each([
    [
      [z({ id: 'a', kind: 'RPC', service: 'web' })],
      '[0].kind',
      'must be "CLIENT", "SERVER", "PRODUCER" or "CONSUMER"',
    ],
    [
      [z({ id: 'a', service: 'web', timestamp: -1, duration: 1 })],
      '[0].timestamp',
      'must be microseconds since the epoch',
    ],
    [
      [z({ id: 'a', service: 'web', duration: 'long' })],
      '[0].duration',
      'must be a duration in microseconds',
    ],
    [[z({ id: '', service: 'web' })], '[0].id', 'must be a span id (hex), got the string ""'],
    [
      [z({ id: 'a', service: 'web', tags: ['error'] })],
      '[0].tags',
      'must be an object of tags, got an array',
    ],
    [[z({ id: 'a', localEndpoint: 'web' })], '[0].localEndpoint', 'must be an object (an endpoint)'],
    [[z({ id: 'a', service: 'web' }), 5], '[1]', 'must be an object (a span), got 5'],
    [[[z({ id: 'a', service: 'web' })], {}], '[1]', 'must be a trace (an array of spans)'],
    [
      [{ traceId: 'a', id: 'b', name: 'get', binaryAnnotations: [] }],
      '[0].binaryAnnotations',
      'is a Zipkin v1 field',
    ],
    [
      [
        {
          traceId: 'a',
          id: 'b',
          annotations: [{ timestamp: 1, value: 'cs', endpoint: { serviceName: 'web' } }],
        },
      ],
      '[0].annotations[0].endpoint',
      'is a Zipkin v1 field',
    ],
    [{ spans: [] }, '', 'expected Zipkin v2 spans'],
  ])('names the element at fault: %j', (document, path, message) => {
    const error = thrown(() => zipkinSpans.toStructure(document));
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
  });
});
