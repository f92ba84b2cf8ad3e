/**
 * The rules every span format shares (`lib/formats/spans/span-graph.ts`), on small documents
 * (written as Zipkin v2, the shortest of the three): orphans, circles of parent links, calls of
 * a service on itself, calls on traced services whose span is missing, untimed spans, the window
 * and the sampling rate.
 */
import { describe, expect, it } from 'vitest';
import { readGraph } from '../../../lib/formats';
import { spanGraph } from '../../../lib/formats/spans/span-graph';
import { expectObservedCounts, nodeOf, weightsOf } from './checks';

/**
 * A Zipkin span; its `timestamp`, µs from the test's start, is written from 2023-11-14 on (Zipkin
 * reads a timestamp of 0 as none given).
 */
function z(fields: Record<string, unknown> & { id: string; service: string }) {
  const { service, timestamp, ...rest } = fields;
  return {
    traceId: '00000000000000aa',
    name: 'op',
    localEndpoint: { serviceName: service },
    ...(typeof timestamp === 'number' ? { timestamp: EPOCH_US + timestamp } : {}),
    ...rest,
  };
}

const EPOCH_US = 1_700_000_000_000_000;

/** One request of web (100 ms, span a) whose client span b (10–60 ms) api answers (span c, 20–50 ms). */
function webCallsApi() {
  return [
    z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: EPOCH_US, duration: 100_000 }),
    z({
      id: 'b',
      parentId: 'a',
      kind: 'CLIENT',
      service: 'web',
      timestamp: EPOCH_US + 10_000,
      duration: 50_000,
    }),
    z({
      id: 'c',
      parentId: 'b',
      kind: 'SERVER',
      service: 'api',
      timestamp: EPOCH_US + 20_000,
      duration: 30_000,
    }),
  ];
}

describe('the span mapping', () => {
  // A trace cut off before its root was exported: checkout's two client spans to postgres and an
  // internal span name the same missing parent. One request (its span missing), from the first
  // start to the last end, calling postgres twice: 1/60 a second and a weight of 2 (each span
  // taken as a request made it 3/60 and 2/3). Two server spans under one missing parent stay two
  // requests: a caller's client span was their parent.
  it('takes the spans of one service under one missing parent as one request', () => {
    const spans = [
      z({
        id: 'b',
        parentId: 'a1',
        kind: 'CLIENT',
        service: 'checkout',
        remoteEndpoint: { serviceName: 'postgres' },
        timestamp: 0,
        duration: 10_000,
      }),
      z({
        id: 'c',
        parentId: 'a1',
        kind: 'CLIENT',
        service: 'checkout',
        remoteEndpoint: { serviceName: 'postgres' },
        timestamp: 20_000,
        duration: 10_000,
      }),
      z({ id: 'd', parentId: 'a1', service: 'checkout', timestamp: 30_000, duration: 20_000 }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 60 });
    expect(nodeOf(mapped, 'checkout').arrival).toBeCloseTo(1 / 60, 15);
    expect(nodeOf(mapped, 'checkout').entrySpans).toBe(1);
    expect(weightsOf(mapped)).toEqual({ 'checkout → postgres': 2 });
    // 0–50 ms, 20 ms of it in the two calls.
    expect(nodeOf(mapped, 'checkout').serviceTime).toBeCloseTo(0.03, 12);
    expect(mapped.warnings).toContain(
      '3 spans of one service name the same parent that is not in the document, in 1 group (first: [0].parentId): each group is one request whose span is missing (a trace cut off), taken from the first start among them to the last end',
    );
    const servers = [
      z({ id: 'b', parentId: 'a1', kind: 'SERVER', service: 'api', timestamp: 0, duration: 10_000 }),
      z({ id: 'c', parentId: 'a1', kind: 'SERVER', service: 'api', timestamp: 20_000, duration: 10_000 }),
    ];
    expect(nodeOf(readGraph(servers, 'auto', { window: 60 }), 'api').arrival).toBeCloseTo(2 / 60, 15);
    // Spans of two services under one missing parent are no one request's work: each stays a
    // request of its own, and no span is made up (two made-up spans shared the missing id, and a
    // warning said the document repeated it).
    const mixed = [
      z({ id: 'b', parentId: 'a1', kind: 'CLIENT', service: 'web', timestamp: 0, duration: 10_000 }),
      z({ id: 'c', parentId: 'a1', service: 'web', timestamp: 20_000, duration: 10_000 }),
      z({ id: 'd', parentId: 'a1', service: 'batch', timestamp: 0, duration: 10_000 }),
    ];
    const read = readGraph(mixed, 'auto', { window: 60 });
    expect(nodeOf(read, 'web').arrival).toBeCloseTo(2 / 60, 15);
    expect(read.warnings.some((warning) => warning.includes('repeat'))).toBe(false);
    // A server span of another service under it too: it stays a request of api's own (a made-up
    // web span became its parent, and api's request a call from web).
    const withServer = [
      ...mixed.slice(0, 2),
      z({ id: 'e', parentId: 'a1', kind: 'SERVER', service: 'api', timestamp: 0, duration: 10_000 }),
    ];
    const served = readGraph(withServer, 'auto', { window: 60 });
    expect(nodeOf(served, 'api').arrival).toBeCloseTo(1 / 60, 15);
    expect(served.dependencies).toEqual([]);
  });

  it('takes an orphan as a request entering its service', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 10_000 }),
      z({ id: 'b', parentId: 'gone', kind: 'SERVER', service: 'api', timestamp: 0, duration: 10_000 }),
      z({ id: 'c', parentId: 'a', kind: 'SERVER', service: 'api', timestamp: 2_000, duration: 5_000 }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 1 });
    expect(nodeOf(mapped, 'api').arrival).toBe(1);
    // web waited for api (no client span between them) 5 of its 10 ms.
    expect(nodeOf(mapped, 'web').serviceTime).toBeCloseTo(0.005, 12);
    expect(weightsOf(mapped)).toEqual({ 'web → api': 1 });
    expect(mapped.warnings).toEqual([
      '1 span names a parent that is not in the document (first: [1].parentId): the traces are incomplete, and each such span is taken as a request entering its service (it counts in the arrivals)',
    ]);
    expectObservedCounts(mapped, 1);
  });

  it('cuts a circle of parent links at its first span', () => {
    const spans = [
      z({ id: 'a', parentId: 'c', kind: 'SERVER', service: 'web' }),
      z({ id: 'b', parentId: 'a', kind: 'SERVER', service: 'api' }),
      z({ id: 'c', parentId: 'b', kind: 'SERVER', service: 'db' }),
      z({ id: 'd', parentId: 'd', kind: 'SERVER', service: 'db' }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'web → api': 1, 'api → db': 1 });
    expect(nodeOf(mapped, 'web').arrival).toBe(1);
    expect(nodeOf(mapped, 'db').arrival).toBe(1);
    expect(mapped.warnings).toContain(
      '2 spans are in a circle of parent links (first: [0]): the link is cut there, and the span taken as a request entering its service',
    );
    expectObservedCounts(mapped, 1);
  });

  it('makes a server span under a client span of its own service a call on itself', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'api', timestamp: 0, duration: 100_000 }),
      z({ id: 'b', parentId: 'a', kind: 'CLIENT', service: 'api', timestamp: 10_000, duration: 50_000 }),
      z({ id: 'c', parentId: 'b', kind: 'SERVER', service: 'api', timestamp: 15_000, duration: 40_000 }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'api → api': 0.5 });
    expect(nodeOf(mapped, 'api').entrySpans).toBe(2);
    // (100 − 50) and 40 ms.
    expect(nodeOf(mapped, 'api').serviceTime).toBeCloseTo(0.045, 12);
    expectObservedCounts(mapped, 1);
  });

  // The same call as Zipkin reports it, one id shared by its two halves (both of api), and a call
  // on db made while the inner request is served: that call's parent is the server half, as in
  // Zipkin's own span tree, whichever half the document lists first. Self times: the outer
  // request 100 − 50 = 50 ms, the inner 40 − 20 = 20 ms: 35 ms on average (45 ms when the call
  // went to the client half, which listed first made it the inner request's time).
  it('gives the children of a call on itself, its halves sharing one id, to the server half', () => {
    const outer = z({ id: 'a', kind: 'SERVER', service: 'api', timestamp: 0, duration: 100_000 });
    const clientHalf = z({
      id: 'b',
      parentId: 'a',
      kind: 'CLIENT',
      service: 'api',
      timestamp: 10_000,
      duration: 50_000,
    });
    const serverHalf = z({
      id: 'b',
      parentId: 'a',
      kind: 'SERVER',
      service: 'api',
      shared: true,
      timestamp: 15_000,
      duration: 40_000,
    });
    const dbCall = z({
      id: 'c',
      parentId: 'b',
      kind: 'CLIENT',
      service: 'api',
      timestamp: 20_000,
      duration: 20_000,
    });
    const db = z({
      id: 'c',
      parentId: 'b',
      kind: 'SERVER',
      service: 'db',
      shared: true,
      timestamp: 22_000,
      duration: 16_000,
    });
    for (const halves of [
      [clientHalf, serverHalf],
      [serverHalf, clientHalf],
    ]) {
      const mapped = readGraph([outer, ...halves, dbCall, db], 'auto', { window: 1 });
      expect(weightsOf(mapped)).toEqual({ 'api → api': 0.5, 'api → db': 0.5 });
      expect(nodeOf(mapped, 'api').serviceTime).toBeCloseTo(0.035, 12);
    }
  });

  // Zipkin pads ids to 16 or 32 hex digits, and instrumentation that mixes 64- and 128-bit trace
  // ids sends the 128-bit one with a high half of zeros: the same trace, the same span ids.
  it('matches ids without regard to their leading zeros', () => {
    const mapped = readGraph(
      [
        z({ id: '0000000000000a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 10_000 }),
        {
          ...z({ id: 'B', parentId: 'A', kind: 'CLIENT', service: 'web', timestamp: 1_000, duration: 4_000 }),
          traceId: '000000000000000000000000000000aa',
        },
        {
          ...z({
            id: '000000000000000b',
            parentId: 'a',
            kind: 'SERVER',
            service: 'api',
            timestamp: 1_000,
            duration: 4_000,
          }),
          traceId: 'AA',
        },
      ],
      'auto',
      { window: 1 },
    );
    expect(weightsOf(mapped)).toEqual({ 'web → api': 1 });
    expect(mapped.warnings).toEqual([]);
  });

  it('counts a call on a traced service whose span is missing, and says so', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web' }),
      z({ id: 'b', parentId: 'a', kind: 'CLIENT', service: 'web', remoteEndpoint: { serviceName: 'api' } }),
      z({ id: 'c', kind: 'SERVER', service: 'api' }),
    ];
    const mapped = readGraph(spans);
    expect(weightsOf(mapped)).toEqual({ 'web → api': 1 });
    expect(nodeOf(mapped, 'api').external).toBeUndefined();
    expect(nodeOf(mapped, 'api').untracedRequests).toBe(1);
    expect(mapped.warnings).toContain(
      "1 call on traced services has no span of the callee (first: [1], named by remoteEndpoint.serviceName): each is counted as a request its callee took untraced, so the callee's throughput is above its entry spans, and its calls per request are over both",
    );
  });

  // web's SDK client span (b, naming api) wraps its HTTP client span (b2, naming api too, as a
  // host-based peer-service mapping names both), which api's server span answers. One call: b is
  // answered two levels below it (it was counted again as a request api took untraced, doubling
  // api's throughput). An outer span naming another service than the one answering under it
  // (db) is still a call on that one, untraced.
  it('counts a client span wrapping the answered one once', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 100_000 }),
      z({
        id: 'b',
        parentId: 'a',
        kind: 'CLIENT',
        service: 'web',
        remoteEndpoint: { serviceName: 'api' },
        timestamp: 5_000,
        duration: 80_000,
      }),
      z({
        id: 'b2',
        parentId: 'b',
        kind: 'CLIENT',
        service: 'web',
        remoteEndpoint: { serviceName: 'api' },
        timestamp: 10_000,
        duration: 60_000,
      }),
      z({ id: 'c', parentId: 'b2', kind: 'SERVER', service: 'api', timestamp: 20_000, duration: 40_000 }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 60 });
    expect(weightsOf(mapped)).toEqual({ 'web → api': 1 });
    expect(nodeOf(mapped, 'api')).not.toHaveProperty('untracedRequests');
    expect(mapped.warnings).toEqual([]);
    const otherName: Record<string, unknown>[] = [...spans];
    otherName[1] = { ...spans[1]!, remoteEndpoint: { serviceName: 'db' } };
    expect(weightsOf(readGraph(otherName, 'auto', { window: 60 }))).toEqual({
      'web → api': 1,
      'web → db': 1,
    });
  });

  // One request: web's server span calls api (a server span under web's client span), and api
  // calls web back, named by remoteEndpoint.serviceName, with no span of web under it (sampled
  // out). Over entry spans alone both weights were 1: a loop of gain 1, read as unbounded traffic.
  // web took 2 requests (1 traced) and called api once: 0.5 a request; api took 1 and called web
  // once. Over the 60 s window, web processes 2 and api 1, the counts observed.
  it('counts a call back on a traced service as a request of its own, not a loop of gain 1', () => {
    const spans = [
      ...webCallsApi(),
      z({
        id: 'd',
        parentId: 'c',
        kind: 'CLIENT',
        service: 'api',
        remoteEndpoint: { serviceName: 'web' },
        timestamp: EPOCH_US + 25_000,
        duration: 10_000,
      }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 60 });
    expect(weightsOf(mapped)).toEqual({ 'web → api': 0.5, 'api → web': 1 });
    expect(nodeOf(mapped, 'web').untracedRequests).toBe(1);
    expect(nodeOf(mapped, 'api')).not.toHaveProperty('untracedRequests');
    expectObservedCounts(mapped, 60);
  });

  // web calls api (traced) and itself (named by remoteEndpoint.serviceName, its server span
  // sampled out): a self-call, and a request web took untraced, as a call on api would be. It
  // was dropped ("names no other service"), and web read 1 request over the window, not 2.
  it('counts a call on its own service with no span under it as an untraced self-call', () => {
    const spans = [
      ...webCallsApi(),
      z({
        id: 'd',
        parentId: 'a',
        kind: 'CLIENT',
        service: 'web',
        remoteEndpoint: { serviceName: 'web' },
        timestamp: EPOCH_US + 40_000,
        duration: 20_000,
      }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 10 });
    expect(weightsOf(mapped)).toEqual({ 'web → api': 0.5, 'web → web': 0.5 });
    expect(nodeOf(mapped, 'web').untracedRequests).toBe(1);
    expectObservedCounts(mapped, 10);
  });

  // web's 100 ms request does local work (a span of no kind: Zipkin has no INTERNAL) during which
  // search consumes a message it was sent (a consumer span under that local span): nobody waited
  // for the consumer, so the local span is no call and web's self time is all 100 ms, as OTLP and
  // Jaeger read the same spans. It read 50 ms (the local span taken as the client side of a call).
  it('takes no span of no kind for a call when only a consumer answers it', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: EPOCH_US, duration: 100_000 }),
      z({ id: 'b', parentId: 'a', service: 'web', timestamp: EPOCH_US + 10_000, duration: 50_000 }),
      z({
        id: 'c',
        parentId: 'b',
        kind: 'CONSUMER',
        service: 'search',
        timestamp: EPOCH_US + 20_000,
        duration: 10_000,
      }),
    ];
    const mapped = readGraph(spans, 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'web → search': 1 });
    expect(nodeOf(mapped, 'web').serviceTime).toBeCloseTo(0.1, 12);
  });

  it('counts untimed spans as requests and calls, not in the times', () => {
    const spans = [
      z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 10_000 }),
      z({ id: 'b', kind: 'SERVER', service: 'web', timestamp: 1_000_000, duration: 30_000 }),
      z({ id: 'c', parentId: 'b', kind: 'SERVER', service: 'api' }),
    ];
    const mapped = readGraph(spans);
    expect(nodeOf(mapped, 'web').arrival).toBe(2 / 1.03);
    expect(nodeOf(mapped, 'web').serviceTime).toBeCloseTo(0.02, 12);
    expect(nodeOf(mapped, 'api').serviceTime).toBeUndefined();
    expect(mapped.warnings).toEqual([
      "no window given: the 2 requests that entered (spans with no parent in the document) are taken to arrive over the 1.03 s from the first one's start to the last one's end; give the window the spans were collected over for the exact rate",
      '1 span has no start or no end (first: [2]): it counts as requests and calls, not in the times',
      '1 service has no serviceTime ("api"): none of its requests is timed, or they took no time of their own; set one in settings where it is known',
    ]);
  });

  it('counts per document when the requests carry no times', () => {
    const mapped = readGraph([z({ id: 'a', kind: 'SERVER', service: 'web' })], 'auto', { sampleRate: 0.5 });
    expect(mapped.unit).toBe('window');
    expect(nodeOf(mapped, 'web').arrival).toBe(2);
    expect(mapped.warnings).toEqual([
      'no window given, and the requests that entered carry no times: one step is the whole document (unit "window"), and no serviceTime is given; give the window the spans were collected over',
      '1 span has no start or no end (first: [0]): it counts as requests and calls, not in the times',
    ]);
  });

  // web's request reported twice, and api's server half of a shared id twice: read once each.
  // A span that repeats an id but not its times is another span, and stays one.
  it('reads an exact repeat once, and keeps a repeat that differs as a span of its own', () => {
    const web = z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 10_000 });
    const client = z({
      id: 'b',
      parentId: 'a',
      kind: 'CLIENT',
      service: 'web',
      timestamp: 1_000,
      duration: 4_000,
    });
    const server = z({
      id: 'b',
      parentId: 'a',
      kind: 'SERVER',
      service: 'api',
      timestamp: 1_000,
      duration: 4_000,
    });
    const shared = readGraph([web, client, server, { ...web }, { ...server, id: 'B' }], 'auto', {
      window: 1,
    });
    expect(nodeOf(shared, 'web').entrySpans).toBe(1);
    expect(nodeOf(shared, 'api').entrySpans).toBe(1);
    expect(weightsOf(shared)).toEqual({ 'web → api': 1 });
    expect(shared.warnings).toEqual([
      '2 spans repeat an earlier span in every field read (trace, id, parent, service, kind, times, error, remote service; first: [3] repeats [0]): the same span reported twice, read once (the counts of any warning before this one include the repeats)',
    ]);

    const later = readGraph([web, { ...web, duration: 12_000 }], 'auto', { window: 1 });
    expect(nodeOf(later, 'web').entrySpans).toBe(2);
    expect(later.warnings[0]).toMatch(/^1 span repeats the id of another span of its trace/);

    // Three requests under one id (instrumentation reusing it), the second sent again: two repeat
    // the id and stay spans, one repeats a span and is read once.
    const reused = [0, 20_000, 40_000].map((timestamp) => ({ ...web, timestamp: EPOCH_US + timestamp }));
    const again = readGraph([...reused, { ...reused[1]! }], 'auto', { window: 1 });
    expect(nodeOf(again, 'web').entrySpans).toBe(3);
    expect(again.warnings[0]).toMatch(
      /^1 span repeats an earlier span in every field read \(.+; first: \[3\] repeats \[1\]\)/,
    );
    expect(again.warnings[1]).toMatch(/^2 spans repeat the id of another span of its trace/);

    // Twelve under one id (past the eight compared one by one, so by their signatures), the
    // tenth and then the second sent again: both read once.
    const many = Array.from({ length: 12 }, (_, i) => ({ ...web, timestamp: EPOCH_US + i * 20_000 }));
    const both = readGraph([...many, { ...many[9]! }, { ...many[1]! }], 'auto', { window: 1 });
    expect(nodeOf(both, 'web').entrySpans).toBe(12);
    expect(both.warnings[0]).toMatch(
      /^2 spans repeat an earlier span in every field read \(.+; first: \[12\] repeats \[9\]\)/,
    );
  });

  // Instrumentation that reuses one id, children naming it: a child takes the first other span
  // of its own service, else the first other server half, else the first other. Server spans
  // under one id, web and api in turn, every span but the first naming it: each web span past
  // the first is work inside web's first request (a server span under a server span of its own
  // service), each api span inside api's first, and api's first names api's second, which names
  // it back: a circle, cut there, so api's first is a request too. The same at 6 spans and at
  // 100,000, where finding the parents took a pass over the id's spans per child (some 2 hours
  // here, the server blocked meanwhile); it is one pass now.
  it('gives the children of a widely reused id their parents in one pass over its spans', () => {
    const reused = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        ...z({
          id: 'ab',
          kind: 'SERVER',
          service: i % 2 === 0 ? 'web' : 'api',
          timestamp: i * 10,
          duration: 1,
        }),
        ...(i === 0 ? {} : { parentId: 'ab' }),
      }));
    for (const count of [6, 100_000]) {
      const graph = readGraph(reused(count), 'auto', { window: 1 });
      expect(graph.dependencies).toEqual([]);
      expect([nodeOf(graph, 'web').entrySpans, nodeOf(graph, 'api').entrySpans]).toEqual([1, 1]);
      expect(graph.warnings).toEqual([
        '1 span is in a circle of parent links (first: [1]): the link is cut there, and the span taken as a request entering its service',
        `${count - 1} spans repeat the id of another span of its trace, not as the server half of a client span ([1] repeats the id of [0]): each is kept as a span of its own, and a span naming that id as its parent gets the first of them in its own service (a server span first)`,
      ]);
    }
  });

  it('refuses options out of range', () => {
    const notes = { peerField: 'x', warnings: [] };
    expect(() => spanGraph([], { window: 0 }, notes)).toThrow(RangeError);
    expect(() => spanGraph([], { window: Number.POSITIVE_INFINITY }, notes)).toThrow(
      'window must be a finite number of seconds > 0, got Infinity',
    );
    expect(() => spanGraph([], { sampleRate: 1.5 }, notes)).toThrow(
      'sampleRate must be a number in (0, 1], got 1.5',
    );
    expect(() => spanGraph([], { sampleRate: 0 }, notes)).toThrow(RangeError);
    // In range, but too small for the requests read with them: the arrivals would pass the
    // engine's total (1e300), so the option is named, not the document.
    const request = z({ id: 'a', kind: 'SERVER', service: 'web', timestamp: 0, duration: 10 });
    expect(() => readGraph([request], 'auto', { window: 1e-301 })).toThrow(
      expect.objectContaining({ name: 'ReadOptionError', option: 'window' }),
    );
    expect(() => readGraph([request], 'auto', { sampleRate: 5e-324 })).toThrow(
      "sampleRate: 5e-324 makes the services' arrivals add up to more than 1e+300, the largest total the engine accepts; give the share of traces sampled, from 0 to 1",
    );
    // With both given, the one that passes it: the window named the sample rate's fault before.
    expect(() => readGraph([request], 'auto', { window: 60, sampleRate: 1e-320 })).toThrow(
      expect.objectContaining({ name: 'ReadOptionError', option: 'sampleRate' }),
    );
    expect(() => readGraph([request], 'auto', { window: 1e-301, sampleRate: 0.5 })).toThrow(
      expect.objectContaining({ name: 'ReadOptionError', option: 'window' }),
    );
    expect(readGraph([request], 'auto', { window: 1e-299 }).nodes[0]!.arrival).toBe(1e299);
    expect(spanGraph([], { window: 5, sampleRate: 1 }, notes).unit).toBe('second');
  });
});
