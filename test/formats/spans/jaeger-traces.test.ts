/**
 * Jaeger trace JSON: every real payload (detected by this format alone, never by the dependency
 * links that also come as `{ data: [...] }`, mapped, the engine reproducing its counts), numbers
 * worked out from the payloads, FOLLOWS_FROM, kinds inferred without `span.kind`, the shapes the
 * Jaeger UI reads, and malformed documents named by path.
 */
import { describe, expect, it } from 'vitest';
import { readGraph } from '../../../lib/formats';
import { dependencyLinks } from '../../../lib/formats/dependency-links';
import { jaegerTraces } from '../../../lib/formats/spans/jaeger-traces';
import { fixturesIn, thrown } from '../fixtures';
import { detecting, expectObservedCounts, fixture, nodeOf, spanFixtures, weightsOf } from './checks';

const OWN = 'jaeger-traces';

interface SpanFields {
  id: string;
  parent?: string;
  refType?: string;
  process: string;
  start: number;
  duration: number;
  tags?: Array<{ key: string; type: string; value: unknown }>;
}

/** One trace in `/api/traces`' envelope; processes `p1`… by service name. */
function trace(spans: SpanFields[], services: Record<string, string>) {
  const traceID = '7d4e2f1a9c3b5e60';
  return {
    data: [
      {
        traceID,
        spans: spans.map((span) => ({
          traceID,
          spanID: span.id,
          operationName: 'op',
          references:
            span.parent === undefined
              ? []
              : [{ refType: span.refType ?? 'CHILD_OF', traceID, spanID: span.parent }],
          startTime: span.start,
          duration: span.duration,
          tags: span.tags ?? [],
          processID: span.process,
        })),
        processes: Object.fromEntries(
          Object.entries(services).map(([id, serviceName]) => [id, { serviceName, tags: [] }]),
        ),
      },
    ],
  };
}

const kind = (value: string) => ({ key: 'span.kind', type: 'string', value });

describe('Jaeger trace fixtures', () => {
  it.each(spanFixtures(OWN).map((entry) => [entry.file, entry.document]))(
    '%s is detected as Jaeger traces alone and maps to counts the engine reproduces',
    (_file, document) => {
      expect(detecting(document)).toEqual([OWN]);
      const mapped = readGraph(document, 'auto', { window: 60 });
      expect(mapped.format).toBe(OWN);
      expectObservedCounts(mapped, 60);
    },
  );

  it('never takes dependency links for traces, nor traces for links', () => {
    for (const { document } of fixturesIn('dependency-links'))
      expect(jaegerTraces.detect(document)).toBe(false);
    for (const { document } of spanFixtures(OWN)) expect(dependencyLinks.detect(document)).toBe(false);
    // An empty answer is both; the dependency links read it (no nodes either way).
    expect(detecting({ data: [], total: 0, limit: 0, offset: 0, errors: null })).toEqual([
      'dependency-links',
    ]);
    expect(jaegerTraces.toStructure({ data: [] }).nodes).toEqual([]);
  });

  // The Jaeger UI's trace graph test: span.kind tags, a producer whose consumer FOLLOWS_FROM it,
  // two client spans that reach nothing traced, ids such as "span-1".
  it('reads the UI trace graph test: FOLLOWS_FROM is a call, client spans are waiting', () => {
    const mapped = readGraph(fixture(OWN, 'jaeger-ui-trace-graph-test-trace.json'), 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'service1 → service2': 2 });
    // 390 ms less its client and producer spans: 33 + 66 + 37 + 20 ms, none overlapping.
    expect(nodeOf(mapped, 'service1').serviceTime).toBeCloseTo(0.234, 12);
    // A server span of 20 ms (its child has no kind and calls nothing: its own work) and a
    // consumer span of 200 ms.
    expect(nodeOf(mapped, 'service2').serviceTime).toBeCloseTo(0.11, 12);
    expect(mapped.warnings).toEqual([
      "2 client or producer spans reach no traced span and name no other service by the peer.service tag (first: spans[1]): no dependency is drawn, and their time is still not the caller's own",
    ]);
  });

  // Jaeger's converter test trace: the id "2" twice, a reference to another trace, and a span
  // with CHILD_OF and FOLLOWS_FROM references to the same parent.
  it('reads the converter test trace: references to other traces are not parents', () => {
    const mapped = readGraph(fixture(OWN, 'jaeger-uimodel-converter-ui-01.json'));
    expect(weightsOf(mapped)).toEqual({ 'service-x → service-y': 1 });
    expect(nodeOf(mapped, 'service-x').entrySpans).toBe(2);
    expect(nodeOf(mapped, 'service-x').errorRate).toBe(0.5);
    expect(mapped.warnings).toContain(
      '1 span repeats the id of another span of its trace, not as the server half of a client span (spans[1] repeats the id of spans[0]): each is kept as a span of its own, and a span naming that id as its parent gets the first of them in its own service (a server span first)',
    );
  });

  it('reads the GenAI trace of the UI: ten services, calls per request', () => {
    const mapped = readGraph(fixture(OWN, 'jaeger-ui-timeline-genai-test-trace.json'));
    expect(mapped.nodes).toHaveLength(10);
    expect(weightsOf(mapped)['coding-agent → mcp-gateway']).toBe(7);
    expect(weightsOf(mapped)['mcp-gateway → auth-service']).toBe(1);
    expect(nodeOf(mapped, 'k8s-api').errorRate).toBe(1 / 3);
  });

  // The same trace through Jaeger's /api/transform: microseconds where OTLP had nanoseconds.
  it('reads a trace as OTLP gave it, to the microsecond', () => {
    const jaeger = readGraph(fixture(OWN, 'jaeger-ui-oltp2jaeger-multi-out.json'), 'auto', { window: 1 });
    const otlp = readGraph(fixture('otlp-traces', 'jaeger-ui-otlp2jaeger-multi-in-combined.json'), 'auto', {
      window: 1,
    });
    expect(jaeger.nodes.map((node) => node.id)).toEqual(otlp.nodes.map((node) => node.id));
    for (const [i, node] of jaeger.nodes.entries())
      expect(Math.abs(node.serviceTime! - otlp.nodes[i]!.serviceTime!)).toBeLessThan(1e-6);
  });
});

describe('Jaeger trace reading', () => {
  const services = { p1: 'web', p2: 'search' };

  // search's 20 ms span straight under web's 100 ms request: web waited for it as a CHILD_OF
  // server span (80 ms of its own), not as a FOLLOWS_FROM, nor as a consumer span (OpenTelemetry's
  // child of an asynchronous request: the OTLP and Zipkin readings of the same spans took it
  // from web's self time, where Jaeger's FOLLOWS_FROM did not). Each is a call all the same.
  it('counts a FOLLOWS_FROM call or a consumer span without making the caller wait for it', () => {
    const spans = (refType: string, spanKind: string): SpanFields[] => [
      { id: 'a', process: 'p1', start: 1_000_000, duration: 100_000, tags: [kind('server')] },
      {
        id: 'b',
        parent: 'a',
        refType,
        process: 'p2',
        start: 1_010_000,
        duration: 20_000,
        tags: [kind(spanKind)],
      },
    ];
    const read = (refType: string, spanKind: string) =>
      readGraph(trace(spans(refType, spanKind), services), 'auto', { window: 1 });
    for (const [refType, spanKind, self] of [
      ['FOLLOWS_FROM', 'consumer', 0.1],
      ['FOLLOWS_FROM', 'server', 0.1],
      ['CHILD_OF', 'consumer', 0.1],
      ['CHILD_OF', 'server', 0.08],
    ] as const) {
      const mapped = read(refType, spanKind);
      expect(weightsOf(mapped)).toEqual({ 'web → search': 1 });
      expect(nodeOf(mapped, 'web').serviceTime, `${refType} ${spanKind}`).toBeCloseTo(self, 12);
    }
  });

  it('infers the kinds it needs when span.kind is missing', () => {
    // web's request (no kind) → its span with no kind that search answers (its client side) →
    // search's request; and an internal span of web that calls nothing.
    const spans: SpanFields[] = [
      { id: 'a', process: 'p1', start: 1_000_000, duration: 100_000 },
      { id: 'b', parent: 'a', process: 'p1', start: 1_010_000, duration: 30_000 },
      { id: 'c', parent: 'b', process: 'p2', start: 1_015_000, duration: 20_000 },
      { id: 'd', parent: 'a', process: 'p1', start: 1_050_000, duration: 40_000 },
    ];
    const mapped = readGraph(trace(spans, services), 'auto', { window: 1 });
    expect(weightsOf(mapped)).toEqual({ 'web → search': 1 });
    expect(nodeOf(mapped, 'web').serviceTime).toBeCloseTo(0.07, 12);
    expect(mapped.dependencies[0]!.observedLatency).toEqual({
      value: 0.03,
      statistic: 'mean',
      unit: 'second',
    });
  });

  // Jaeger's conversion from OTLP writes an unset start as 0: no time, as OTLP and Zipkin read
  // theirs, not 1970 (the window came out as 1.7e9 s and the rate nine orders of magnitude low).
  // Two timed requests 1 s apart, 100 ms each, set the window (1.1 s); the one with a start of 0
  // counts as a request all the same: 3 / 1.1 s.
  it('reads a startTime of 0 as no time, not 1970', () => {
    const spans: SpanFields[] = [
      { id: 'a', process: 'p1', start: 1_700_000_000_000_000, duration: 100_000 },
      { id: 'b', process: 'p1', start: 1_700_000_001_000_000, duration: 100_000 },
      { id: 'c', process: 'p1', start: 0, duration: 100_000 },
    ];
    const mapped = readGraph(trace(spans, services));
    expect(nodeOf(mapped, 'web').arrival).toBeCloseTo(3 / 1.1, 12);
    expect(mapped.warnings).toContain(
      '1 span has no start or no end (first: data[0].spans[2]): it counts as requests and calls, not in the times',
    );
  });

  it('reads the error tag, true or "true", and otel.status_code ERROR', () => {
    const spans: SpanFields[] = [
      { id: 'a', process: 'p1', start: 0, duration: 10, tags: [{ key: 'error', type: 'bool', value: true }] },
      {
        id: 'b',
        process: 'p1',
        start: 0,
        duration: 10,
        tags: [{ key: 'error', type: 'string', value: 'true' }],
      },
      {
        id: 'c',
        process: 'p1',
        start: 0,
        duration: 10,
        tags: [{ key: 'otel.status_code', type: 'string', value: 'ERROR' }],
      },
      {
        id: 'd',
        process: 'p1',
        start: 0,
        duration: 10,
        tags: [{ key: 'error', type: 'bool', value: false }],
      },
    ];
    expect(nodeOf(readGraph(trace(spans, services)), 'web').errorRate).toBe(0.75);
  });

  it('reads every shape the Jaeger UI loads alike', () => {
    const envelope = fixture(OWN, 'jaeger-ui-trace-graph-test-trace.json');
    const single = readGraph(envelope);
    expect(readGraph({ data: [envelope] }).nodes).toEqual(single.nodes);
    expect(readGraph({ data: envelope }).nodes).toEqual(single.nodes);
    // The same trace loaded twice is the same spans, read once (an exact repeat, said in a warning).
    const twice = readGraph([envelope, envelope]);
    expect(twice.nodes).toEqual(single.nodes);
    expect(twice.warnings).toHaveLength(single.warnings.length + 1);
    expect(twice.warnings[0]).toMatch(
      /^11 spans repeat an earlier span in every field read \(.+; first: \[1\]\.spans\[0\] repeats \[0\]\.spans\[0\]\)/,
    );
  });

  // The query service reports what it could not read in `errors`: with nothing read it failed
  // (its storage down), and a refresh must keep the structure it has rather than read the outage
  // as a system of no services; beside traces, some of them are missing (a trace id not found).
  it("refuses Jaeger's error answer with its message, and warns of an error beside traces", () => {
    const failed = [
      { data: null, total: 0, limit: 0, offset: 0, errors: [{ code: 500, msg: 'storage unavailable' }] },
      { data: [], errors: [{ code: 500, msg: 'storage unavailable' }] },
      {
        data: [{ traceID: 't', spans: [], processes: {} }],
        errors: [{ code: 500, msg: 'storage unavailable' }],
      },
    ];
    for (const document of failed) {
      const error = thrown(() => jaegerTraces.toStructure(document));
      expect(error.path).toBe('errors[0]');
      expect(error.message).toBe(
        'errors[0]: the source answered with an error (code 500): "storage unavailable"',
      );
    }
    const envelope = fixture(OWN, 'jaeger-ui-trace-graph-test-trace.json');
    const whole = jaegerTraces.toStructure({ data: [envelope], errors: null });
    const partial = jaegerTraces.toStructure({
      data: [envelope],
      errors: [{ code: 404, msg: 'trace not found' }],
    });
    expect(partial.nodes).toEqual(whole.nodes);
    expect(partial.warnings).toEqual([
      'errors[0]: the source reported an error (code 404): "trace not found" beside its traces',
      ...whole.warnings,
    ]);
    expect(jaegerTraces.toStructure({ data: [envelope], errors: [] }).warnings).toEqual(whole.warnings);
  });

  // Every trace has its spans array (Jaeger writes [] for none): an array of objects without one
  // is another document (OTLP's file export, Zipkin's spans), never an empty system; two
  // /api/traces answers in one array are said to be such. `{ data: [] }` and `[]` stay empty.
  it('refuses what is no trace rather than read it as no spans', () => {
    expect(thrown(() => readGraph([{ traceId: 'x' }], 'jaeger-traces')).message).toBe(
      '[0].spans: not jaeger-traces: must be an array of spans (a trace is { traceID, spans, processes }), got nothing',
    );
    const answers = [{ data: [{ traceID: 'a', spans: [], processes: {} }], total: 0 }];
    expect(thrown(() => readGraph(answers, 'jaeger-traces')).message).toBe(
      '[0].spans: not jaeger-traces: must be an array of spans (a trace is { traceID, spans, processes }), got nothing; [0] is an /api/traces answer itself: send one answer, or its traces in one array',
    );
    expect(readGraph({ data: [] }, 'jaeger-traces').nodes).toEqual([]);
    expect(readGraph([], 'jaeger-traces').nodes).toEqual([]);
  });

  it('reads a span.kind it does not know as no kind, and says so', () => {
    const spans: SpanFields[] = [{ id: 'a', process: 'p1', start: 0, duration: 10, tags: [kind('gateway')] }];
    expect(readGraph(trace(spans, services)).warnings).toContain(
      '1 span has a span.kind tag that is not server, client, producer, consumer or internal (first: data[0].spans[0].tags[0]): read as no kind stated',
    );
  });

  // A 64-bit trace id padded to 128 bits names the same trace (instrumentation that mixes the two
  // sends both): a reference with the padded id was taken for another trace's span, and the call
  // A → B was lost without a word.
  it('takes a reference whose trace id is the same id padded with zeros as this trace', () => {
    const document = {
      traceID: 'A3CE929D0E0E4736',
      spans: [
        { spanID: 'a1', startTime: 0, duration: 10, process: { serviceName: 'A' } },
        {
          spanID: 'b1',
          references: [{ refType: 'CHILD_OF', traceID: '0000000000000000a3ce929d0e0e4736', spanID: 'a1' }],
          startTime: 1,
          duration: 5,
          process: { serviceName: 'B' },
        },
        {
          spanID: 'c1',
          references: [{ refType: 'CHILD_OF', traceID: '1000000000000000a3ce929d0e0e4736', spanID: 'a1' }],
          startTime: 2,
          duration: 5,
          process: { serviceName: 'C' },
        },
      ],
    };
    const mapped = readGraph(document);
    expect(weightsOf(mapped)).toEqual({ 'A → B': 1 });
    // C's parent is in another trace: C is where its requests arrive.
    expect(nodeOf(mapped, 'C').arrival).toBeGreaterThan(0);
    expect(nodeOf(mapped, 'B').arrival).toBeUndefined();
  });

  it('reads the embedded process and the deprecated parentSpanID', () => {
    const document = {
      traceID: 'abc',
      spans: [
        { traceID: 'abc', spanID: '1', startTime: 0, duration: 10, process: { serviceName: 'web' } },
        {
          traceID: 'abc',
          spanID: '2',
          parentSpanID: '1',
          startTime: 1,
          duration: 5,
          process: { serviceName: 'db' },
        },
      ],
    };
    expect(weightsOf(readGraph(document))).toEqual({ 'web → db': 1 });
  });

  it.each([
    [
      trace([{ id: 'a', process: 'p9', start: 0, duration: 1 }], { p1: 'web' }),
      'data[0].spans[0].processID',
      'names no process of the trace: the string "p9" is not among data[0].processes',
    ],
    [
      trace([{ id: 'a', parent: 'b', refType: 'PARENT', process: 'p1', start: 0, duration: 1 }], {
        p1: 'web',
      }),
      'data[0].spans[0].references[0].refType',
      'must be "CHILD_OF" or "FOLLOWS_FROM", got the string "PARENT"',
    ],
    [
      trace([{ id: 'a', process: 'p1', start: -5, duration: 1 }], { p1: 'web' }),
      'data[0].spans[0].startTime',
      'must be microseconds since the epoch',
    ],
    [
      {
        data: [
          {
            traceID: 'x',
            spans: [{ spanID: '1', references: [{ refType: 'CHILD_OF' }], processID: 'p1' }],
            processes: { p1: { serviceName: 'a' } },
          },
        ],
      },
      'data[0].spans[0].references[0].spanID',
      'must be the id of the span referred to',
    ],
    [{ data: 5 }, 'data', 'must be an array of traces or a trace, got 5'],
    [
      { traceID: 'x', spans: [{ spanID: '1', processID: 'p1' }], processes: [] },
      'processes',
      'must be an object of processes by id',
    ],
    [
      { traceID: 'x', spans: [{ spanID: '1', tags: [{ value: 1 }], process: { serviceName: 'a' } }] },
      'spans[0].tags[0].key',
      'must be a string',
    ],
  ])('names the element at fault: %j', (document, path, message) => {
    const error = thrown(() => jaegerTraces.toStructure(document));
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
  });

  // A process id of a million characters is named by its two ends, bracketed (its path repeated
  // it whole: a 1 MB error from connect, a registration or the CLI).
  it('names a process by a long id by its ends', () => {
    const id = `p${'x'.repeat(1_000_000)}`;
    const document = {
      data: [
        {
          traceID: 't1',
          spans: [
            {
              traceID: 't1',
              spanID: 'a',
              operationName: 'x',
              references: [],
              startTime: 1,
              duration: 1,
              processID: id,
            },
          ],
          processes: { [id]: 5 },
        },
      ],
    };
    const error = thrown(() => jaegerTraces.toStructure(document));
    expect(error.path).toBe(`data[0].processes["p${'x'.repeat(127)}…${'x'.repeat(127)}"]`);
    expect(error.message.length).toBeLessThan(1_000);
  });
});
