/**
 * The local server's sample traces (`/examples/traces.jsonl`): ten seconds of a checkout service,
 * as the OpenTelemetry Collector's file exporter writes them (OTLP/JSON, one export per line, an
 * export a second), for registering traces with `POST /api/connect` without a tracing backend.
 *
 * It is the README's latency story, measured: 200 requests enter `checkout`, one every 50 ms
 * (20 a second). Each takes 75 ms: 2.5 ms of its own, a 40 ms call on `payments`, three 10 ms
 * calls on `inventory` one after the other, 2.5 ms of its own again. Read with a window of 10 s,
 * `checkout` gets `arrival` 20 and `serviceTime` 0.005 (its self time), `payments` 0.04 and
 * `inventory` 0.01; the weights are 1 and 3. The numbers are whole nanoseconds, so they come
 * back exact.
 */

/** 2026-01-01T00:00:00Z in nanoseconds. */
const START_NS = 1_767_225_600_000_000_000n;
const MS = 1_000_000n;
const REQUESTS = 200;
const SPACING = 50n * MS;
const PER_EXPORT = 20;

interface SampleSpan {
  service: string;
  kind: 2 | 3;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  start: bigint;
  end: bigint;
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}

function request(index: number, spanIds: { next: number }): SampleSpan[] {
  const traceId = hex(index + 1, 32);
  const at = START_NS + BigInt(index) * SPACING;
  const id = () => hex(spanIds.next++, 16);
  const root = id();
  const spans: SampleSpan[] = [
    {
      service: 'checkout',
      kind: 2,
      traceId,
      spanId: root,
      parentSpanId: '',
      name: 'POST /checkout',
      start: at,
      end: at + 75n * MS,
    },
  ];
  const call = (service: string, name: string, from: bigint, length: bigint) => {
    const client = id();
    spans.push(
      {
        service: 'checkout',
        kind: 3,
        traceId,
        spanId: client,
        parentSpanId: root,
        name,
        start: from,
        end: from + length,
      },
      {
        service,
        kind: 2,
        traceId,
        spanId: id(),
        parentSpanId: client,
        name,
        start: from,
        end: from + length,
      },
    );
  };
  const own = (25n * MS) / 10n;
  call('payments', 'POST /charge', at + own, 40n * MS);
  for (let i = 0n; i < 3n; i++) call('inventory', 'GET /stock', at + own + 40n * MS + i * 10n * MS, 10n * MS);
  return spans;
}

/** One OTLP export: a ResourceSpans per service, in first-seen order. */
function toExport(spans: readonly SampleSpan[]): unknown {
  const services = [...new Set(spans.map((span) => span.service))];
  return {
    resourceSpans: services.map((service) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [
        {
          scope: { name: 'sample' },
          spans: spans
            .filter((span) => span.service === service)
            .map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId === '' ? {} : { parentSpanId: span.parentSpanId }),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: String(span.start),
              endTimeUnixNano: String(span.end),
            })),
        },
      ],
    })),
  };
}

/** The sample as JSON Lines text: an export per second, a newline after each. */
export function sampleTraces(): string {
  const spanIds = { next: 1 };
  const lines: string[] = [];
  for (let first = 0; first < REQUESTS; first += PER_EXPORT) {
    const spans: SampleSpan[] = [];
    for (let index = first; index < first + PER_EXPORT; index++) spans.push(...request(index, spanIds));
    lines.push(JSON.stringify(toExport(spans)));
  }
  return `${lines.join('\n')}\n`;
}
