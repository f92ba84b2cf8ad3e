/**
 * One known topology (span-graph.ts's worked example: 100 requests over 10 s into `frontend`,
 * which calls `api` twice and `auth` once; `api` calls `db`), written as each span format writes
 * it, read back: exact weights, arrivals (exact with the window given, within 1% without),
 * self times to 1e-9 s, error rates; then the engine's steady throughputs are the calls observed
 * per second, on every node and every dependency.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../lib/engine';
import { type MappedGraph, readGraph } from '../../../lib/formats';
import { generate, toJaeger, toOtlp, toZipkin, workedExample } from './traces';

const REQUESTS = 100;
/** µs between requests: 10 a second. */
const SPACING = 100_000;
const WINDOW = 10;

const spans = generate(workedExample(), REQUESTS, SPACING);

const encodings: Array<[string, unknown, string]> = [
  ['OTLP, kinds as numbers', toOtlp(spans), 'otlp-traces'],
  ['OTLP, kinds as names', toOtlp(spans, { names: true }), 'otlp-traces'],
  [
    'OTLP as JSON Lines, one export per line',
    [toOtlp(spans.slice(0, 500)), toOtlp(spans.slice(500))],
    'otlp-traces',
  ],
  ['Jaeger with span.kind tags', toJaeger(spans), 'jaeger-traces'],
  ['Jaeger without span.kind tags', toJaeger(spans, { kinds: false }), 'jaeger-traces'],
  ['Zipkin, one id per span', toZipkin(spans), 'zipkin-spans'],
  ['Zipkin, shared client and server ids', toZipkin(spans, { shared: true }), 'zipkin-spans'],
];

/**
 * The document with every span in it twice, as an exporter that retries a batch or a query that
 * reads two writes of it sends them: each list of spans (or of exports, traces) repeated whole.
 */
function sentTwice(document: unknown): unknown {
  if (Array.isArray(document)) return [...document, ...document];
  const object = document as Record<string, unknown[]>;
  const [key] = Object.keys(object).filter((name) => Array.isArray(object[name]));
  return { ...object, [key!]: [...object[key!]!, ...object[key!]!] };
}

function byId<T extends { id: string }>(list: readonly T[]): Record<string, T> {
  return Object.fromEntries(list.map((item) => [item.id, item]));
}

function weights(mapped: MappedGraph): Record<string, number | undefined> {
  return Object.fromEntries(mapped.dependencies.map((d) => [`${d.from} → ${d.to}`, d.weight]));
}

describe.each(encodings)('the worked example as %s', (_name, document, format) => {
  it('is read by its format', () => {
    expect(readGraph(document).format).toBe(format);
  });

  it('maps to the topology: weights, arrivals, self times and errors', () => {
    const mapped = readGraph(document, 'auto', { window: WINDOW });
    expect(mapped.unit).toBe('second');
    expect(mapped.nodes.map((node) => node.id)).toEqual(['frontend', 'api', 'db', 'auth']);
    expect(weights(mapped)).toEqual({ 'frontend → api': 2, 'api → db': 1, 'frontend → auth': 1 });
    const nodes = byId(mapped.nodes);
    expect(nodes.frontend!.arrival).toBe(10);
    for (const id of ['api', 'db', 'auth']) expect(nodes[id]!.arrival).toBeUndefined();
    const selfTimes = { frontend: 0.02, api: 0.008, db: 0.005, auth: 0.004 };
    for (const [id, time] of Object.entries(selfTimes)) {
      expect(Math.abs(nodes[id]!.serviceTime! - time), id).toBeLessThan(1e-9);
      expect(nodes[id]!.fanout).toBe(true);
      expect(nodes[id]!.exit).toBeUndefined();
    }
    expect(nodes.frontend!.entrySpans).toBe(100);
    expect(nodes.api!.entrySpans).toBe(200);
    expect(nodes.db!.errorRate).toBe(0.05);
    expect(nodes.frontend!.errorRate).toBe(0);
    // The observed latencies: what the requests took, downstream calls included.
    expect(nodes.frontend!.observedLatency).toEqual({ value: 0.05, statistic: 'mean', unit: 'second' });
    const calls = Object.fromEntries(mapped.dependencies.map((d) => [`${d.from} → ${d.to}`, d]));
    expect(calls['frontend → api']!.callCount).toBe(200);
    expect(calls['api → db']!.errorCount).toBe(10);
    expect((calls['frontend → api']!.observedLatency as { value: number }).value).toBeCloseTo(0.015, 12);
    expect(mapped.warnings).toEqual([]);
  });

  it('reproduces every observed count as the engine steady throughput', () => {
    const result = analyze(readGraph(document, 'auto', { window: WINDOW }));
    const throughput = Object.fromEntries(result.nodes.map((node) => [node.id, node.throughput]));
    expect(throughput.frontend).toBeCloseTo(10, 12);
    expect(throughput.api).toBeCloseTo(20, 12);
    expect(throughput.db).toBeCloseTo(20, 12);
    expect(throughput.auth).toBeCloseTo(10, 12);
    for (const dependency of result.dependencies)
      expect(dependency.throughput, `${dependency.from} → ${dependency.to}`).toBeCloseTo(
        (dependency.callCount as number) / WINDOW,
        12,
      );
    // Self times as service times, no servers: each node answers in its own time, and frontend's
    // latency is its own 20 ms plus its calls' (2 × (8 + 5) + 4).
    const frontend = result.nodes.find((node) => node.id === 'frontend')!;
    expect(frontend.latency).toBeCloseTo(0.05, 12);
  });

  it('without a window, takes the time the requests span, within 1%, and says so', () => {
    const mapped = readGraph(document);
    const arrival = byId(mapped.nodes).frontend!.arrival!;
    // 100 requests from the first start (0 s) to the last end (9.9 s + 50 ms).
    expect(arrival).toBeCloseTo(100 / 9.95, 12);
    expect(Math.abs(arrival / 10 - 1)).toBeLessThan(0.01);
    expect(mapped.warnings).toEqual([
      "no window given: the 100 requests that entered (spans with no parent in the document) are taken to arrive over the 9.95 s from the first one's start to the last one's end; give the window the spans were collected over for the exact rate",
    ]);
  });

  // Before, each repeated span counted again: twice the arrivals, calls and entry spans.
  it('reads every span sent twice once, and says so', () => {
    const once = readGraph(document, 'auto', { window: WINDOW });
    const twice = readGraph(sentTwice(document), 'auto', { window: WINDOW });
    expect(twice.nodes).toEqual(once.nodes);
    expect(twice.dependencies).toEqual(once.dependencies);
    expect(twice.warnings).toHaveLength(1);
    expect(twice.warnings[0]).toMatch(
      /^1,?\d{3} spans repeat an earlier span in every field read \(trace, id, parent, service, kind, times, error, remote service; first: .+ repeats .+\): the same span reported twice, read once \(the counts of any warning before this one include the repeats\)$/,
    );
  });

  it('counts the requests sampling dropped in the arrivals only', () => {
    const mapped = readGraph(document, 'auto', { window: WINDOW, sampleRate: 0.25 });
    expect(byId(mapped.nodes).frontend!.arrival).toBe(40);
    expect(weights(mapped)).toEqual({ 'frontend → api': 2, 'api → db': 1, 'frontend → auth': 1 });
    const result = analyze(mapped);
    for (const dependency of result.dependencies)
      expect(dependency.throughput).toBeCloseTo((dependency.callCount as number) / WINDOW / 0.25, 12);
  });
});
