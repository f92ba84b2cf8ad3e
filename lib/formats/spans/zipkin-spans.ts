/**
 * Zipkin v2 spans: a JSON array of spans `{ traceId, id, parentId?, name, kind?, timestamp,
 * duration, localEndpoint: { serviceName }, remoteEndpoint?, tags?, shared? }` (times in
 * microseconds), as Zipkin's `GET /api/v2/trace/{traceId}` answers and reporters `POST
 * /api/v2/spans`; or an array of such arrays, one per trace, as `GET /api/v2/traces` answers.
 *
 * Reading rules and decisions (the mapping itself is `span-graph.ts`, one rule for every span
 * format):
 * - A span's service is `localEndpoint.serviceName`; a span without one (Envoy's, in Zipkin's
 *   own test data) is the service `unknown`, with a warning.
 * - `kind` is `CLIENT`, `SERVER`, `PRODUCER` or `CONSUMER`; missing is a local span (no kind
 *   stated); anything else is a FormatError.
 * - **Shared ids.** An RPC's client and server halves may share one `id` (B3 propagation; the
 *   server half says `shared: true`): spans are keyed by their id and kind, and the server half's
 *   parent is the client half (its own `parentId` names the client's parent). A span whose
 *   `parentId` is that shared id is a child of the half in its own service (the server's, for the
 *   callee's local spans, and for a service calling itself, whose halves are both its own), as
 *   Zipkin's span tree places it. The pairing goes by kind, so a server
 *   half that lacks `shared` pairs all the same.
 * - `timestamp` (µs since the epoch) and `duration` (µs) are numbers >= 0 (or digit strings); a
 *   span without either (reported late or incomplete, as in Zipkin's SmartThings test data) is
 *   not timed. A 0 is none, as zipkin2.Span reads both (Apache-2.0, openzipkin/zipkin:
 *   `timestamp > 0 ? timestamp : null`, `duration > 0 ? duration : null`).
 * - **A span reported in parts** (Brave's `flush()` sends a span it has not finished, with its
 *   timestamp; the finish sends its duration) is merged into one, as Zipkin's `Trace.merge` does:
 *   parts share the trace, id, service and `shared` flag, and every other field (kind, parent,
 *   remote service, timestamp, duration, `localEndpoint`'s `ipv4`, `ipv6` and `port`) either
 *   agrees or is missing from one of them (`span-graph.ts`, "Spans reported in parts"). Two
 *   servers sharing an id behind a retrying proxy differ in their address: two spans.
 * - A span is in error when its tags have an `error` key, whatever its value (Zipkin's rule: the
 *   value is the message, and may be empty). `tags` must be an object.
 * - `remoteEndpoint.serviceName` names the remote service of a client or producer span. A span
 *   of no kind that has both endpoints' service names is a client span, as Zipkin's
 *   `DependencyLinker` reads it.
 * - Service names are lower-cased, as Zipkin's `Endpoint` stores them: `Web` and `web` are one.
 * - A Zipkin v1 span (`binaryAnnotations`, or endpoints only in annotations) is refused: this reads
 *   v2's JSON (`/api/v2/…`).
 * - Paths are `[3].localEndpoint.serviceName`, or `[0][3].parentId` in an array of traces.
 * - Detection: an array whose first element is an object with string `traceId` and `id` and no
 *   `binaryAnnotations`, or an array whose first element is an array of them. An empty array is
 *   not detected (every format with a bare array could claim it).
 */
import { describeValue, isRecord } from '../text';
import { FormatError, type GraphFormat } from '../types';
import { leading, nanosecondsAt, recordAt, Tally, textAt } from './read';
import { type SourceSpan, type SpanKind, type SpanPart, spanGraph } from './span-graph';

/** The name for a span without `localEndpoint.serviceName`, as the Zipkin UI shows it. */
const UNKNOWN_SERVICE = 'unknown';
const KINDS: ReadonlyMap<string, SpanKind> = new Map([
  ['CLIENT', 'client'],
  ['SERVER', 'server'],
  ['PRODUCER', 'producer'],
  ['CONSUMER', 'consumer'],
]);

function looksLikeSpan(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.traceId === 'string' &&
    typeof value.id === 'string' &&
    !Object.hasOwn(value, 'binaryAnnotations')
  );
}

function looksLikeTrace(value: unknown): boolean {
  return Array.isArray(value) && leading(value, looksLikeSpan);
}

export const zipkinSpans: GraphFormat = {
  name: 'zipkin-spans',
  reads: ['window', 'sampleRate'],
  detect(document) {
    return Array.isArray(document) && (leading(document, looksLikeSpan) || leading(document, looksLikeTrace));
  },
  toStructure(document, options) {
    if (!Array.isArray(document))
      throw new FormatError(
        '',
        `expected Zipkin v2 spans: an array of spans, or an array of traces (arrays of spans), got ${describeValue(document)}`,
      );
    const unnamed = new Tally();
    const spans: SourceSpan[] = [];
    // An array of traces when its first element is an array; of spans otherwise.
    if (Array.isArray(document[0])) {
      for (const [t, trace] of document.entries()) {
        if (!Array.isArray(trace))
          throw new FormatError(
            `[${t}]`,
            `must be a trace (an array of spans), as the first element is, got ${describeValue(trace)}`,
          );
        for (const [k, span] of trace.entries()) spans.push(readSpan(span, `[${t}][${k}]`, unnamed));
      }
    } else for (const [k, span] of document.entries()) spans.push(readSpan(span, `[${k}]`, unnamed));
    const warnings: string[] = [];
    if (unnamed.count > 0)
      warnings.push(
        `${unnamed.count === 1 ? '1 span has' : `${unnamed.count} spans have`} no localEndpoint.serviceName (first: ${unnamed.first}): ${unnamed.count === 1 ? 'it is' : 'they are'} the service "${UNKNOWN_SERVICE}"`,
      );
    return spanGraph(spans, options, { peerField: 'remoteEndpoint.serviceName', warnings });
  },
};

function readSpan(value: unknown, path: string, unnamed: Tally): SourceSpan {
  const span = recordAt(value, path, 'a span');
  if (Object.hasOwn(span, 'binaryAnnotations'))
    throw new FormatError(
      `${path}.binaryAnnotations`,
      'is a Zipkin v1 field: this format reads v2 spans (/api/v2/…, localEndpoint and kind)',
    );
  if (Array.isArray(span.annotations)) {
    const v1 = span.annotations.findIndex(
      (annotation) => isRecord(annotation) && Object.hasOwn(annotation, 'endpoint'),
    );
    if (v1 >= 0)
      throw new FormatError(
        `${path}.annotations[${v1}].endpoint`,
        'is a Zipkin v1 field: this format reads v2 spans (/api/v2/…, localEndpoint and kind)',
      );
  }
  const trace = textAt(span, 'traceId', path);
  const id = textAt(span, 'id', path);
  if (trace === undefined || trace === '')
    throw new FormatError(`${path}.traceId`, `must be a trace id (hex), got ${describeValue(span.traceId)}`);
  if (id === undefined || id === '')
    throw new FormatError(`${path}.id`, `must be a span id (hex), got ${describeValue(span.id)}`);
  const local = endpointName(span, 'localEndpoint', path);
  const named = local !== undefined && local !== '';
  if (!named) unnamed.add(path);
  const service = named ? local : UNKNOWN_SERVICE;
  const peer = endpointName(span, 'remoteEndpoint', path);
  // Zipkin writes no timestamp for one it does not know, and its model reads 0 as that (as OTLP's
  // 0 is read): not 1970, which made a window of decades.
  const stamped = nanosecondsAt(span, 'timestamp', path, 1000n, 'microseconds since the epoch');
  const start = stamped === 0n ? undefined : stamped;
  // A duration of 0 is none too: zipkin2.Span reads `duration > 0 ? duration : null` (shorter
  // ones "must be rounded up to 1 microsecond"), and merges a part whose duration is 0 as unset.
  const measured = nanosecondsAt(span, 'duration', path, 1000n, 'a duration in microseconds');
  const duration = measured === 0n ? undefined : measured;
  const tags = span.tags;
  if (tags !== undefined && tags !== null && !isRecord(tags))
    throw new FormatError(`${path}.tags`, `must be an object of tags, got ${describeValue(tags)}`);
  return {
    trace,
    id,
    parent: textAt(span, 'parentId', path),
    parentField: '.parentId',
    service,
    // A span of no kind that knows both ends is a client span, as Zipkin's DependencyLinker
    // reads it ("kind unset, but remoteEndpoint set are treated the same as client spans"): a
    // call on a database that Brave's instrumentation records without a kind.
    kind: kindAt(span, path) ?? (named && peer !== undefined && peer !== '' ? 'client' : undefined),
    start: duration === undefined ? undefined : start,
    end: start === undefined || duration === undefined ? undefined : start + duration,
    error: isRecord(tags) && Object.hasOwn(tags, 'error'),
    peer,
    path,
    part: spanPart(span, start, duration),
  };
}

/**
 * What merging a span's parts compares beyond the mapped fields. The address and port are read
 * as sent, where they have the type Zipkin gives them, and otherwise taken as missing: they only
 * tell parts apart, and a reader that refused a span for them would refuse what Zipkin shows.
 */
function spanPart(
  span: Record<string, unknown>,
  timestamp: bigint | undefined,
  duration: bigint | undefined,
): SpanPart {
  const endpoint = span.localEndpoint;
  const address = isRecord(endpoint) ? endpoint : {};
  return {
    shared: span.shared === true,
    timestamp,
    duration,
    ipv4: typeof address.ipv4 === 'string' ? address.ipv4 : undefined,
    ipv6: typeof address.ipv6 === 'string' ? address.ipv6 : undefined,
    port: typeof address.port === 'number' ? address.port : undefined,
  };
}

function kindAt(span: Record<string, unknown>, path: string): SpanKind | undefined {
  const value = span.kind;
  if (value === undefined || value === null) return undefined;
  const kind = typeof value === 'string' ? KINDS.get(value) : undefined;
  if (kind === undefined)
    throw new FormatError(
      `${path}.kind`,
      `must be "CLIENT", "SERVER", "PRODUCER" or "CONSUMER" (or left out), got ${describeValue(value)}`,
    );
  return kind;
}

/**
 * An endpoint's `serviceName`, lower-cased as Zipkin's model stores it (`zipkin2.Endpoint`:
 * `serviceName.toLowerCase(Locale.ROOT)`): reporters POST mixed case (the OpenTelemetry
 * Collector's Zipkin exporter keeps it), and `Web` and `web` are one service in Zipkin's UI and
 * dependency links, so they are one node here.
 */
function endpointName(span: Record<string, unknown>, key: string, path: string): string | undefined {
  const endpoint = span[key];
  if (endpoint === undefined || endpoint === null) return undefined;
  return textAt(
    recordAt(endpoint, `${path}.${key}`, 'an endpoint'),
    'serviceName',
    `${path}.${key}`,
  )?.toLowerCase();
}
