/**
 * OTLP/JSON traces: the OTLP/HTTP JSON encoding of `ExportTraceServiceRequest` (= `TracesData`),
 * `{ resourceSpans: [{ resource: { attributes }, scopeSpans: [{ scope, spans }] }] }`, as an SDK
 * or a Collector sends it and the Collector's file exporter writes it (one object per line: see
 * `parseJsonLines`); also Jaeger v3's `GET /api/v3/traces/{id}` and `/api/v3/traces` answers,
 * which wrap it as `{ result: { resourceSpans } }`.
 *
 * Reading rules and decisions (the mapping itself is `span-graph.ts`, one rule for every span
 * format):
 * - The document is one such object, or an array of them: what a JSON Lines file (the
 *   Collector's file exporter, the Jaeger UI's OTLP upload) becomes once each line is parsed.
 *   `parseJsonLines` does that for a caller holding the raw text; a line that is not JSON is a
 *   FormatError naming its line number. Paths then start with the element's index (`[2]`).
 * - A span's service is its resource's `service.name` attribute (a string, or any scalar value
 *   written as text). A resource without one is `unknown_service`, the name the OpenTelemetry
 *   SDKs give it, with a warning.
 * - `scopeSpans`, or `instrumentationLibrarySpans` (the field's name before OTLP 0.15); a missing
 *   or null list is empty.
 * - `traceId`, `spanId`, `parentSpanId` are strings (hex in OTLP/JSON; any string links, base64
 *   included, as long as the document is consistent); a missing id is none, and an empty or
 *   missing `parentSpanId` makes a root. Links (`links`) are not parents and are not read.
 * - `kind` is the enum's number (0 unspecified, 1 internal, 2 server, 3 client, 4 producer,
 *   5 consumer) or its name (`SPAN_KIND_SERVER`); anything else is a FormatError.
 *   Unspecified is a kind not stated.
 * - `startTimeUnixNano` and `endTimeUnixNano` are decimal strings (proto3's JSON for 64-bit
 *   integers, read exactly as BigInt: the nanoseconds are past 2^53) or JSON numbers; 0, missing
 *   or null is not set (proto3 leaves zeros out), and such a span is not timed.
 * - `status.code` 2 or `STATUS_CODE_ERROR` is an error; 0, 1 and their names are not; any other
 *   value is a FormatError.
 * - The `peer.service` attribute names the remote service of a client or producer span.
 * - Detection: an object with a `resourceSpans` array (or a `result` object holding one) whose
 *   first element is an object (an empty one only with no other field beside it), or an array
 *   whose first element is such an object or an export of another signal (`resourceMetrics`,
 *   `resourceLogs`, `resourceProfiles`: a Collector's file exporter serving several pipelines),
 *   with at least one export of spans. The other signals' exports are left out, with a warning.
 */
import { describeValue, isRecord } from '../text';
import { FormatError, type GraphFormat } from '../types';
import { leading, listAt, nanosecondsAt, recordAt, Tally, textAt } from './read';
import { type SourceSpan, type SpanKind, spanGraph } from './span-graph';

/** The OpenTelemetry SDKs' name for a service that did not set `service.name`. */
const UNKNOWN_SERVICE = 'unknown_service';
const KINDS: ReadonlyArray<SpanKind | undefined> = [
  undefined,
  'internal',
  'server',
  'client',
  'producer',
  'consumer',
];
const KIND_NAMES: ReadonlyMap<string, SpanKind | undefined> = new Map([
  ['SPAN_KIND_UNSPECIFIED', undefined],
  ['SPAN_KIND_INTERNAL', 'internal'],
  ['SPAN_KIND_SERVER', 'server'],
  ['SPAN_KIND_CLIENT', 'client'],
  ['SPAN_KIND_PRODUCER', 'producer'],
  ['SPAN_KIND_CONSUMER', 'consumer'],
]);
const STATUS_NAMES: ReadonlyMap<string, number> = new Map([
  ['STATUS_CODE_UNSET', 0],
  ['STATUS_CODE_OK', 1],
  ['STATUS_CODE_ERROR', 2],
]);

/** The `resourceSpans` of one export and the path it sits at, when `value` is one. */
function exportOf(value: unknown): { resourceSpans: readonly unknown[]; at: string } | undefined {
  if (!isRecord(value)) return undefined;
  if (Array.isArray(value.resourceSpans)) return { resourceSpans: value.resourceSpans, at: 'resourceSpans' };
  if (isRecord(value.result) && Array.isArray(value.result.resourceSpans))
    return { resourceSpans: value.result.resourceSpans, at: 'result.resourceSpans' };
  return undefined;
}

function looksLikeExport(value: unknown): boolean {
  const found = exportOf(value);
  if (found === undefined || Object.hasOwn(value as object, 'nodes')) return false;
  if (found.resourceSpans.length > 0) return leading(found.resourceSpans, isRecord);
  const holder = found.at === 'resourceSpans' ? value : (value as Record<string, unknown>).result;
  return Object.keys(holder as object).length === 1;
}

/**
 * An OTLP export of another signal (metrics, logs, profiles), as a Collector's `file` exporter
 * writes beside the traces' when one exporter serves several pipelines: the fields it holds.
 */
const OTHER_SIGNALS = ['resourceMetrics', 'resourceLogs', 'resourceProfiles'];

function otherSignalOf(value: unknown): string | undefined {
  if (!isRecord(value) || Object.hasOwn(value, 'resourceSpans')) return undefined;
  return OTHER_SIGNALS.find((field) => Array.isArray(value[field]));
}

export const otlpTraces: GraphFormat = {
  name: 'otlp-traces',
  reads: ['window', 'sampleRate'],
  detect(document) {
    // A file of exports (JSON Lines): traces, maybe beside other signals' exports.
    if (Array.isArray(document))
      return (
        leading(document, (value) => looksLikeExport(value) || otherSignalOf(value) !== undefined) &&
        document.some(looksLikeExport)
      );
    return looksLikeExport(document);
  },
  toStructure(document, options) {
    const exports: Array<{ value: unknown; prefix: string }> = Array.isArray(document)
      ? document.map((value, i) => ({ value, prefix: `[${i}].` }))
      : [{ value: document, prefix: '' }];
    const spans: SourceSpan[] = [];
    const unnamed = new Tally();
    const otherSignals = new Tally();
    const signalsSkipped = new Set<string>();
    for (const { value, prefix } of exports) {
      const found = exportOf(value);
      const signal = prefix === '' ? undefined : otherSignalOf(value);
      if (found === undefined && signal !== undefined) {
        otherSignals.add(prefix.slice(0, -1));
        signalsSkipped.add(signal);
        continue;
      }
      if (found === undefined)
        throw new FormatError(
          prefix === '' ? '' : prefix.slice(0, -1),
          `expected an OTLP export, an object with a "resourceSpans" array (or one under "result"), got ${isRecord(value) ? 'an object without one' : describeValue(value)}`,
        );
      for (const [r, resourceSpans] of found.resourceSpans.entries())
        readResourceSpans(resourceSpans, `${prefix}${found.at}[${r}]`, spans, unnamed);
    }
    const warnings: string[] = [];
    if (otherSignals.count > 0)
      warnings.push(
        `${otherSignals.count === 1 ? '1 export holds' : `${otherSignals.count} exports hold`} another signal (${[...signalsSkipped].join(', ')}; first: ${otherSignals.first}): left out, only spans are read`,
      );
    if (unnamed.count > 0)
      warnings.push(
        `${unnamed.count === 1 ? '1 resource has' : `${unnamed.count} resources have`} no service.name attribute (first: ${unnamed.first}): ${unnamed.count === 1 ? 'its' : 'their'} spans are the service "${UNKNOWN_SERVICE}", as the OpenTelemetry SDKs name it`,
      );
    return spanGraph(spans, options, { peerField: 'the peer.service attribute', warnings });
  },
};

function readResourceSpans(value: unknown, path: string, spans: SourceSpan[], unnamed: Tally): void {
  const resourceSpans = recordAt(value, path, 'a ResourceSpans');
  let service: string | undefined;
  const resource = resourceSpans.resource;
  if (resource !== undefined && resource !== null) {
    const attributes = listAt(
      recordAt(resource, `${path}.resource`, 'a Resource'),
      'attributes',
      `${path}.resource`,
    );
    service = attributeText(attributes, 'service.name', `${path}.resource.attributes`);
  }
  if (service === undefined || service === '') {
    unnamed.add(`${path}.resource`);
    service = UNKNOWN_SERVICE;
  }
  // Both names are read: an exporter between the two versions may send an empty list under one.
  for (const scopesKey of ['scopeSpans', 'instrumentationLibrarySpans'])
    listAt(resourceSpans, scopesKey, path).forEach((scope, s) => {
      const scopePath = `${path}.${scopesKey}[${s}]`;
      listAt(recordAt(scope, scopePath, 'a ScopeSpans'), 'spans', scopePath).forEach((span, k) => {
        spans.push(readSpan(span, `${scopePath}.spans[${k}]`, service));
      });
    });
}

function readSpan(value: unknown, path: string, service: string): SourceSpan {
  const span = recordAt(value, path, 'a Span');
  const start = nanosecondsAt(span, 'startTimeUnixNano', path, 1n, 'nanoseconds since the epoch');
  const end = nanosecondsAt(span, 'endTimeUnixNano', path, 1n, 'nanoseconds since the epoch');
  const peer = attributeText(listAt(span, 'attributes', path), 'peer.service', `${path}.attributes`);
  return {
    trace: textAt(span, 'traceId', path) ?? '',
    id: textAt(span, 'spanId', path) ?? '',
    parent: textAt(span, 'parentSpanId', path),
    parentField: '.parentSpanId',
    service,
    kind: kindAt(span, path),
    // proto3 leaves a zero out: a time of 0 is one not set.
    start: start === 0n ? undefined : start,
    end: end === 0n ? undefined : end,
    error: statusCode(span, path) === 2,
    peer,
    path,
  };
}

function kindAt(span: Record<string, unknown>, path: string): SpanKind | undefined {
  const value = span.kind;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < KINDS.length)
    return KINDS[value];
  if (typeof value === 'string' && KIND_NAMES.has(value)) return KIND_NAMES.get(value);
  throw new FormatError(
    `${path}.kind`,
    `must be a SpanKind, a number from 0 to 5 or a name such as "SPAN_KIND_SERVER", got ${describeValue(value)}`,
  );
}

function statusCode(span: Record<string, unknown>, path: string): number {
  const status = span.status;
  if (status === undefined || status === null) return 0;
  const code = recordAt(status, `${path}.status`, 'a Status').code;
  if (code === undefined || code === null) return 0;
  if (code === 0 || code === 1 || code === 2) return code;
  if (typeof code === 'string' && STATUS_NAMES.has(code)) return STATUS_NAMES.get(code)!;
  throw new FormatError(
    `${path}.status.code`,
    `must be a StatusCode, 0, 1 or 2 or a name such as "STATUS_CODE_ERROR", got ${describeValue(code)}`,
  );
}

/**
 * The value of attribute `key` as text (a string, or a number or boolean written out), or
 * `undefined` when the list has no such attribute. `path` is the list's.
 */
function attributeText(attributes: readonly unknown[], key: string, path: string): string | undefined {
  for (const [i, attribute] of attributes.entries()) {
    const keyValue = recordAt(attribute, `${path}[${i}]`, 'a KeyValue');
    if (keyValue.key !== key) continue;
    const value = keyValue.value;
    if (!isRecord(value))
      throw new FormatError(`${path}[${i}].value`, `must be an AnyValue object, got ${describeValue(value)}`);
    for (const field of ['stringValue', 'intValue', 'doubleValue', 'boolValue']) {
      const scalar = value[field];
      if (typeof scalar === 'string') return scalar;
      if (typeof scalar === 'number' || typeof scalar === 'boolean') return String(scalar);
    }
    throw new FormatError(
      `${path}[${i}].value`,
      `must hold a stringValue (the ${key} is a name), got ${describeValue(value)}`,
    );
  }
  return undefined;
}

/**
 * The values of a JSON Lines text (the Collector's file exporter, one OTLP export per line):
 * one per line that is not blank, in order. A UTF-8 byte order mark before the first line and a
 * carriage return before each newline are dropped. A line that is not JSON is a FormatError at
 * `line <n>` (counting from 1, blank lines included); the value of line n is then not always
 * element n − 1, since blank lines give none. `POST /api/connect` (and a refresh) reads a JSON
 * Lines answer with it, and so does the CLI a JSON Lines file.
 *
 * Every line holds an object or an array (an export, a trace's spans), whose count the decoded
 * answer's container cap bounds; a line of anything else is refused at once. A 65 KB gzip of
 * 33 million lines `1` split into as many strings and values first: 1.3 GB, past the connect
 * function's memory. The text is read line by line, never split whole.
 */
export function parseJsonLines(text: string): unknown[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const values: unknown[] = [];
  let line = 0;
  for (let start = 0; start <= body.length; ) {
    const newline = body.indexOf('\n', start);
    const end = newline < 0 ? body.length : newline;
    line++;
    const content = body.slice(start, end > start && body.charCodeAt(end - 1) === 13 ? end - 1 : end).trim();
    start = end + 1;
    if (content === '') continue;
    if (content[0] !== '{' && content[0] !== '[') {
      throw new FormatError(
        `line ${line}`,
        'is not a JSON object or array: a JSON Lines export holds one on each line (an export, a trace)',
      );
    }
    try {
      values.push(JSON.parse(content));
    } catch {
      throw new FormatError(
        `line ${line}`,
        'is not JSON: a JSON Lines text holds one JSON value on each line (a document spread over several lines is JSON, not JSON Lines)',
      );
    }
  }
  return values;
}
