/**
 * OTLP/JSON traces: every real payload (detected by this format alone, mapped, the engine
 * reproducing its counts), numbers checked against the payloads by hand, nanoseconds past 2^53,
 * kinds as numbers and names, JSON Lines, the Jaeger v3 envelope, and malformed documents named
 * by path.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../lib/engine';
import { FormatError, parseJsonLines, readGraph } from '../../../lib/formats';
import { otlpTraces } from '../../../lib/formats/spans/otlp';
import { thrown } from '../fixtures';
import {
  detecting,
  expectObservedCounts,
  fixture,
  nodeOf,
  spanFixtures,
  unionLength,
  weightsOf,
} from './checks';

const OWN = 'otlp-traces';

/** One export of `spans` in service `service` (each span an OTLP Span object). */
function exportOf(service: string | undefined, spans: unknown[]) {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: service === undefined ? [] : [{ key: 'service.name', value: { stringValue: service } }],
        },
        scopeSpans: [{ scope: { name: 'test' }, spans }],
      },
    ],
  };
}

function span(fields: Record<string, unknown>) {
  return { traceId: '0af7651916cd43dd8448eb211c80319c', name: 'op', ...fields };
}

describe('OTLP fixtures', () => {
  it.each(spanFixtures(OWN).map((entry) => [entry.file, entry.document]))(
    '%s is detected as OTLP alone and maps to counts the engine reproduces',
    (_file, document) => {
      expect(detecting(document)).toEqual([OWN]);
      const mapped = readGraph(document, 'auto', { window: 60 });
      expect(mapped.format).toBe(OWN);
      expectObservedCounts(mapped, 60);
    },
  );

  // Jaeger's HotROD demo as Jaeger v3 serves it (`{ result: { resourceSpans } }`): frontend calls
  // customer once, driver once and route ten times; driver calls Redis 14 times, customer MySQL
  // once. HotROD reports Redis and MySQL as services of their own (client spans).
  describe('HotROD, one trace through the Jaeger v3 API', () => {
    const document = fixture(OWN, 'jaeger-ui-v3-get-trace-response-hotrod.json') as {
      result: { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, string>> }> }> };
    };
    const raw = document.result.resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((s) => s.spans),
    );
    const byId = new Map(raw.map((s) => [s.spanId!, s]));
    const interval = (s: Record<string, string>) =>
      [BigInt(s.startTimeUnixNano!), BigInt(s.endTimeUnixNano!)] as const;
    /** Self time of server span `id`, in seconds, with its direct children as the calls. */
    const selfTime = (id: string) => {
      const [start, end] = interval(byId.get(id)!);
      const calls = raw.filter((s) => s.parentSpanId === id).map(interval);
      return Number(end - start - unionLength(calls)) / 1e9;
    };

    it('has the calls per request of the demo', () => {
      const mapped = readGraph(document);
      expect(mapped.format).toBe(OWN);
      expect(weightsOf(mapped)).toEqual({
        'frontend → driver': 1,
        'frontend → route': 10,
        'customer → mysql': 1,
        'driver → redis-manual': 14,
        'frontend → customer': 1,
      });
      expect(mapped.nodes.map((node) => node.id)).toEqual([
        'frontend',
        'driver',
        'route',
        'mysql',
        'redis-manual',
        'customer',
      ]);
      // One request, over its own 0.702608277 s.
      expect(nodeOf(mapped, 'frontend').arrival).toBe(1 / 0.702608277);
      expect(nodeOf(mapped, 'redis-manual').errorRate).toBe(3 / 14);
    });

    it('has the self times the spans give, worked out apart from the module', () => {
      const mapped = readGraph(document);
      // frontend's server span less its 12 client spans (three rounds of route calls overlap).
      expect(nodeOf(mapped, 'frontend').serviceTime).toBeCloseTo(selfTime('c8d93156b47cd010'), 12);
      expect(nodeOf(mapped, 'frontend').serviceTime).toBeCloseTo(0.006845356, 12);
      // driver and customer have no client spans: the Redis and MySQL spans are their children.
      expect(nodeOf(mapped, 'driver').serviceTime).toBeCloseTo(selfTime('12c2cadb3c59f584'), 12);
      expect(nodeOf(mapped, 'customer').serviceTime).toBeCloseTo(selfTime('2947f6da1a6168d0'), 12);
      expect(nodeOf(mapped, 'mysql').serviceTime).toBeCloseTo(0.257310354, 12);
    });
  });

  // The OTLP repository's own example: one server span whose parent is not in the document,
  // times as JSON numbers, ids in capitals.
  it('reads the opentelemetry-proto example: an orphan is a request entering', () => {
    const mapped = readGraph(fixture(OWN, 'otel-proto-examples-trace.json'), 'auto', { window: 1 });
    expect(mapped.nodes).toEqual([
      {
        id: 'my.service',
        fanout: true,
        arrival: 1,
        serviceTime: 1,
        entrySpans: 1,
        errorRate: 0,
        observedLatency: { value: 1, statistic: 'mean', unit: 'second' },
      },
    ]);
    expect(mapped.warnings).toEqual([
      '1 span names a parent that is not in the document (first: resourceSpans[0].scopeSpans[0].spans[0].parentSpanId): the traces are incomplete, and each such span is taken as a request entering its service (it counts in the arrivals)',
    ]);
  });

  // The specification's file exporter example: four lines, eight root spans without ids or a
  // service name, half of them in error; their times differ in the last nanoseconds.
  it('reads the file exporter example of the specification, to the nanosecond', () => {
    const mapped = readGraph(fixture(OWN, 'otel-spec-file-exporter-example.jsonl'));
    const node = nodeOf(mapped, 'unknown_service');
    // From 1581452772000000321 to 1581452773000004789 ns.
    expect(node.arrival).toBe(8 / 1.000004468);
    expect(node.errorRate).toBe(0.5);
    expect(mapped.warnings[0]).toBe(
      '4 resources have no service.name attribute (first: [0].resourceSpans[0].resource): their spans are the service "unknown_service", as the OpenTelemetry SDKs name it',
    );
  });

  // One file exporter serving the traces, metrics and logs pipelines writes all three into one
  // file (the specification says a file holds one signal): the spans are read, as from the traces
  // alone, and the other exports are left out with a warning, wherever they sit.
  it('reads the spans of a file of several signals, leaving the others out', () => {
    const mixed = readGraph(fixture(OWN, 'otel-spec-file-exporter-mixed-signals.jsonl'));
    const traces = readGraph(fixture(OWN, 'otel-spec-file-exporter-example.jsonl'));
    expect(mixed.format).toBe('otlp-traces');
    expect(mixed.nodes).toEqual(traces.nodes);
    expect(mixed.warnings).toEqual([
      '2 exports hold another signal (resourceMetrics, resourceLogs; first: [1]): left out, only spans are read',
      ...traces.warnings,
    ]);
    // A file of metrics alone is no traces file.
    const lines = fixture(OWN, 'otel-spec-file-exporter-mixed-signals.jsonl') as unknown[];
    expect(() => readGraph([lines[1], lines[4]])).toThrow(/^no known format fits this document/);
  });

  it('reads the Jaeger UI JSON Lines upload like its combined form', () => {
    const lines = readGraph(fixture(OWN, 'jaeger-ui-otlp2jaeger-multi-in.jsonl'));
    const combined = readGraph(fixture(OWN, 'jaeger-ui-otlp2jaeger-multi-in-combined.json'));
    expect(lines.nodes).toEqual(combined.nodes);
    expect(lines.dependencies).toEqual(combined.dependencies);
  });

  // A Jaeger v3 snapshot: a span without times or a service name, in error.
  it('reads an untimed span per document', () => {
    const mapped = readGraph(fixture(OWN, 'jaeger-apiv3-snapshot-get-trace.json'));
    expect(mapped.unit).toBe('window');
    expect(mapped.nodes).toEqual([
      { id: 'unknown_service', fanout: true, arrival: 1, entrySpans: 1, errorRate: 1 },
    ]);
  });
});

describe('OTLP reading', () => {
  it('subtracts nanoseconds past 2^53 exactly', () => {
    // A 3 ns request that waits 1 ns for a call: at 1.7e18 a double cannot tell these apart.
    const document = exportOf('api', [
      span({
        spanId: '00f067aa0ba902b7',
        kind: 2,
        startTimeUnixNano: '1700000000000000001',
        endTimeUnixNano: '1700000000000000004',
      }),
      span({
        spanId: '00f067aa0ba902b8',
        parentSpanId: '00f067aa0ba902b7',
        kind: 3,
        startTimeUnixNano: '1700000000000000002',
        endTimeUnixNano: '1700000000000000003',
      }),
    ]);
    const mapped = readGraph(document, 'auto', { window: 1 });
    expect(nodeOf(mapped, 'api').serviceTime).toBe(2e-9);
    expect(nodeOf(mapped, 'api').observedLatency).toEqual({ value: 3e-9, statistic: 'mean', unit: 'second' });
  });

  // An exporter between the two protocol versions may send an empty list under the new name
  // beside the spans under the old one: they were read as no spans at all.
  it('reads the spans under instrumentationLibrarySpans beside an empty scopeSpans', () => {
    for (const scopeSpans of [[], null]) {
      const mapped = readGraph({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'web' } }] },
            scopeSpans,
            instrumentationLibrarySpans: [
              { spans: [span({ spanId: 'a1', kind: 2, startTimeUnixNano: 1e9, endTimeUnixNano: 2e9 })] },
            ],
          },
        ],
      });
      expect(nodeOf(mapped, 'web').entrySpans).toBe(1);
      expect(mapped.warnings).not.toContain('no spans in the document');
    }
  });

  it('reads kinds as numbers or names, and status codes as numbers or names', () => {
    const build = (serverKind: unknown, clientKind: unknown, status: unknown) => [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'web' } }] },
        instrumentationLibrarySpans: [
          {
            spans: [
              span({ spanId: 'a1', kind: serverKind, startTimeUnixNano: 1e9, endTimeUnixNano: 2e9 }),
              span({
                spanId: 'a2',
                parentSpanId: 'a1',
                kind: clientKind,
                startTimeUnixNano: 1.2e9,
                endTimeUnixNano: 1.7e9,
              }),
            ],
          },
        ],
      },
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'db' } }] },
        scopeSpans: [
          {
            spans: [
              span({
                spanId: 'b1',
                parentSpanId: 'a2',
                kind: serverKind,
                status: { code: status },
                startTimeUnixNano: 1.3e9,
                endTimeUnixNano: 1.6e9,
              }),
            ],
          },
        ],
      },
    ];
    const byNumber = readGraph({ resourceSpans: build(2, 3, 2) }, 'auto', { window: 10 });
    const byName = readGraph(
      { resourceSpans: build('SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'STATUS_CODE_ERROR') },
      'auto',
      { window: 10 },
    );
    expect(byName).toEqual(byNumber);
    expect(nodeOf(byNumber, 'web').serviceTime).toBeCloseTo(0.5, 12);
    expect(nodeOf(byNumber, 'db').errorRate).toBe(1);
    expect(byNumber.dependencies).toEqual([
      {
        from: 'web',
        to: 'db',
        weight: 1,
        callCount: 1,
        errorCount: 1,
        observedLatency: { value: 0.5, statistic: 'mean', unit: 'second' },
      },
    ]);
  });

  it('makes a named callee nothing traced a node of its own, outside the application', () => {
    const document = exportOf('checkout', [
      span({ spanId: 'c1', kind: 'SPAN_KIND_SERVER', startTimeUnixNano: '1000', endTimeUnixNano: '5000' }),
      span({
        spanId: 'c2',
        parentSpanId: 'c1',
        kind: 'SPAN_KIND_CLIENT',
        startTimeUnixNano: '2000',
        endTimeUnixNano: '3000',
        attributes: [{ key: 'peer.service', value: { stringValue: 'postgres' } }],
      }),
    ]);
    const mapped = readGraph(document, 'auto', { window: 1 });
    expect(mapped.nodes.map((node) => node.id)).toEqual(['checkout', 'postgres']);
    // checkout waited 1 µs for postgres: out of its own 4 µs (its self time, 3 µs), and postgres's
    // time, so a request through it still takes 4 µs in the model.
    expect(nodeOf(mapped, 'postgres')).toEqual({
      id: 'postgres',
      fanout: true,
      external: true,
      serviceTime: 1e-6,
      observedLatency: { value: 1e-6, statistic: 'mean', unit: 'second' },
    });
    expect(weightsOf(mapped)).toEqual({ 'checkout → postgres': 1 });
    expect(nodeOf(mapped, 'checkout').serviceTime).toBe(3e-6);
    expect(analyze({ nodes: mapped.nodes, dependencies: mapped.dependencies }).nodes[0]!.latency).toBeCloseTo(
      4e-6,
      18,
    );
    expect(mapped.warnings).toContain(
      '1 service with no span of its own is named by the peer.service attribute on client or producer spans that nothing traced answers ("postgres"): each is a node of its own with external: true',
    );
  });

  it('takes a span that ends before it starts to last 0 s', () => {
    const document = exportOf('api', [
      span({ spanId: 'a1', kind: 2, startTimeUnixNano: '2000000000', endTimeUnixNano: '1000000000' }),
      span({ spanId: 'a2', kind: 2, startTimeUnixNano: '3000000000', endTimeUnixNano: '4000000000' }),
    ]);
    const mapped = readGraph(document, 'auto', { window: 10 });
    expect(nodeOf(mapped, 'api').serviceTime).toBe(0.5);
    expect(mapped.warnings).toEqual([
      '1 span ends before it starts (first: resourceSpans[0].scopeSpans[0].spans[0]): taken to last 0 s',
    ]);
  });

  it('reads an empty export as no nodes', () => {
    expect(otlpTraces.detect({ resourceSpans: [] })).toBe(true);
    expect(readGraph({ resourceSpans: [] })).toEqual({
      format: OWN,
      nodes: [],
      dependencies: [],
      unit: 'window',
      warnings: ['no spans in the document'],
    });
    expect(readGraph({ resourceSpans: [] }, 'auto', { window: 60 }).unit).toBe('second');
    // An empty list beside other fields is not an export.
    expect(otlpTraces.detect({ resourceSpans: [], nodes: [] })).toBe(false);
  });

  it.each([
    [exportOf('a', [5]), 'resourceSpans[0].scopeSpans[0].spans[0]', 'must be an object (a Span), got 5'],
    [
      exportOf('a', [span({ kind: 7 })]),
      'resourceSpans[0].scopeSpans[0].spans[0].kind',
      'must be a SpanKind',
    ],
    [
      exportOf('a', [span({ kind: 'SERVER' })]),
      'resourceSpans[0].scopeSpans[0].spans[0].kind',
      'got the string "SERVER"',
    ],
    [
      exportOf('a', [span({ traceId: 12 })]),
      'resourceSpans[0].scopeSpans[0].spans[0].traceId',
      'must be a string, got 12',
    ],
    [
      exportOf('a', [span({ startTimeUnixNano: '1.5e18' })]),
      'resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano',
      'must be nanoseconds since the epoch',
    ],
    [
      exportOf('a', [span({ endTimeUnixNano: -1 })]),
      'resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano',
      'got -1',
    ],
    [
      exportOf('a', [span({ status: { code: 'ERROR' } })]),
      'resourceSpans[0].scopeSpans[0].spans[0].status.code',
      'must be a StatusCode',
    ],
    [
      { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: 'web' }] } }] },
      'resourceSpans[0].resource.attributes[0].value',
      'must be an AnyValue object, got the string "web"',
    ],
    [
      { resourceSpans: [{ scopeSpans: {} }] },
      'resourceSpans[0].scopeSpans',
      'must be an array, got an object',
    ],
    [
      { result: { resourceSpans: [null] } },
      'result.resourceSpans[0]',
      'must be an object (a ResourceSpans), got null',
    ],
    [[exportOf('a', []), { spans: [] }], '[1]', 'expected an OTLP export'],
  ])('names the element at fault: %j', (document, path, message) => {
    const error = thrown(() => otlpTraces.toStructure(document));
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
  });
});

describe('parseJsonLines', () => {
  it('parses one value per line, skipping blank lines, a byte order mark and carriage returns', () => {
    expect(parseJsonLines('\uFEFF{"a":1}\r\n\n  \n[2]\n')).toEqual([{ a: 1 }, [2]]);
    expect(parseJsonLines('')).toEqual([]);
  });

  // An export or a trace on each line: a line of anything else is refused at once, so 33 million
  // lines of `1` (a 65 KB gzip) are never split into strings and values (1.3 GB before).
  it('refuses a line that holds no object or array at once, and reads blank lines without keeping them', () => {
    const ones = '1\n'.repeat(1_000_000);
    const error = thrown(() => parseJsonLines(`{"a":1}\n${ones}`));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.message).toBe(
      'line 2: is not a JSON object or array: a JSON Lines export holds one on each line (an export, a trace)',
    );
    expect(parseJsonLines(`${'\r\n'.repeat(1_000_000)}{"b":2}`)).toEqual([{ b: 2 }]);
  });

  it('names the line that is not JSON, counting blank ones', () => {
    const error = thrown(() => parseJsonLines('{"a":1}\n\n{"resourceSpans": [\n]}'));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.path).toBe('line 3');
    expect(error.message).toBe(
      'line 3: is not JSON: a JSON Lines text holds one JSON value on each line (a document spread over several lines is JSON, not JSON Lines)',
    );
  });
});
