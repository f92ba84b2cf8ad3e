/**
 * Jaeger trace JSON: the query service's `GET /api/traces` and `GET /api/traces/{id}` answers
 * (`{ data: [trace, …], total, limit, offset, errors }`), what the Jaeger UI downloads and
 * uploads (that envelope, `{ data: trace }`, a bare array of traces, or one trace), each trace
 * `{ traceID, spans: [{ traceID, spanID, operationName, references: [{ refType, traceID,
 * spanID }], startTime, duration, tags: [{ key, type, value }], processID }], processes: { p1: {
 * serviceName, tags } } }`, times in microseconds.
 *
 * Reading rules and decisions (the mapping itself is `span-graph.ts`, one rule for every span
 * format):
 * - A span's service is its process's `serviceName`: the process `processID` names in the
 *   trace's `processes`, or the span's own `process` (the JSON model's embedded form). A
 *   `processID` the trace does not list is a FormatError; a process without a service name is
 *   the service `unknown` (warning).
 * - A span's parent is the Jaeger UI's: its first `CHILD_OF` reference to a span of its own trace,
 *   else its first `FOLLOWS_FROM` one (the parent did not wait: its time is not taken from the
 *   parent's self time, the call still counts). References to other traces are links, not
 *   parents. Without a reference in its trace, the deprecated `parentSpanID` field is read. A
 *   `refType` other than those two is a FormatError.
 * - `traceID` missing on a span is its trace's; ids are strings, matched as sent (hex without
 *   regard to case). The UI's own test traces use ids such as `span-1`, so any string is an id.
 * - `startTime` (µs since the epoch) and `duration` (µs) are numbers >= 0 (or digit strings);
 *   a span without either is not timed, nor one whose `startTime` is 0 (an unset start, as
 *   Jaeger's conversion from OTLP writes it; a duration of 0 is a span under a microsecond).
 * - The `span.kind` tag (`server`, `client`, `producer`, `consumer`, `internal`, any case) is
 *   the kind; without it the kind is not stated, and the mapping infers what it needs (a span
 *   whose parent is in another service is an entry; one with a child in another service is the
 *   client side of that call). Any other value is not a kind either (warning).
 * - A span is in error when its `error` tag is `true` (or the string `"true"`), or its
 *   `otel.status_code` tag is `ERROR` (spans converted from OTLP).
 * - The `peer.service` tag names the remote service of a client or producer span.
 * - Detection: a trace is an object with a `spans` array and either a `processes` object or a
 *   `traceID` string. The document is detected when it is one, holds one (or an array whose
 *   first element is one) under `data`, or is an array whose first element is one. An
 *   empty `{ data: [] }` is not detected: it is also the dependency links' empty answer, which
 *   that format reads (no nodes either way); so is `{ data: null, errors }`, Jaeger's failure.
 * - Jaeger's `errors` (`jaeger-envelope.ts`), read in this format too, as a stored system's
 *   refresh reads it: an error with no traces (`data` null or empty) is the query failing, a
 *   `FormatError` at `errors[0]` with its message; an error beside traces (some trace ids not
 *   found), a warning.
 */
import { envelopeErrors } from '../jaeger-envelope';
import { describeValue, isRecord, memberPath } from '../text';
import { FormatError, type GraphFormat } from '../types';
import { leading, listAt, nanosecondsAt, recordAt, Tally, textAt } from './read';
import { normalId, type SourceSpan, type SpanKind, spanGraph } from './span-graph';

/** The name for a process without a service name. */
const UNKNOWN_SERVICE = 'unknown';
const KINDS: ReadonlySet<string> = new Set(['server', 'client', 'producer', 'consumer', 'internal']);

function looksLikeTrace(value: unknown): boolean {
  return (
    isRecord(value) &&
    Array.isArray(value.spans) &&
    (isRecord(value.processes) || typeof value.traceID === 'string') &&
    !Object.hasOwn(value, 'nodes')
  );
}

/** The traces and the path prefix of each, when the document has them. */
function tracesOf(document: unknown): { traces: readonly unknown[]; at: (i: number) => string } | undefined {
  if (Array.isArray(document)) return { traces: document, at: (i) => `[${i}]` };
  if (!isRecord(document)) return undefined;
  if (Array.isArray(document.data)) return { traces: document.data, at: (i) => `data[${i}]` };
  if (isRecord(document.data)) return { traces: [document.data], at: () => 'data' };
  if (Array.isArray(document.spans)) return { traces: [document], at: () => '' };
  return undefined;
}

interface Notes {
  unnamed: Tally;
  unknownKind: Tally;
}

export const jaegerTraces: GraphFormat = {
  name: 'jaeger-traces',
  reads: ['window', 'sampleRate'],
  detect(document) {
    if (Array.isArray(document)) return leading(document, looksLikeTrace);
    if (!isRecord(document)) return false;
    if (Array.isArray(document.data)) return leading(document.data, looksLikeTrace);
    if (isRecord(document.data)) return looksLikeTrace(document.data);
    return looksLikeTrace(document);
  },
  toStructure(document, options) {
    const found = tracesOf(document);
    if (found === undefined) {
      envelopeErrors(document, 0, 'traces');
      if (isRecord(document) && Object.hasOwn(document, 'data'))
        throw new FormatError(
          'data',
          `must be an array of traces or a trace, got ${describeValue(document.data)}`,
        );
      throw new FormatError(
        '',
        'expected Jaeger traces: { data: [trace, …] } as /api/traces answers, an array of traces, or one trace { traceID, spans, processes }',
      );
    }
    const notes: Notes = { unnamed: new Tally(), unknownKind: new Tally() };
    const spans: SourceSpan[] = [];
    for (const [i, trace] of found.traces.entries()) readTrace(trace, found.at(i), spans, notes);
    const warnings = envelopeErrors(document, spans.length, 'traces');
    const { unnamed, unknownKind } = notes;
    if (unnamed.count > 0)
      warnings.push(
        `${unnamed.count === 1 ? '1 process has' : `${unnamed.count} processes have`} no serviceName (first: ${unnamed.first}): ${unnamed.count === 1 ? 'its' : 'their'} spans are the service "${UNKNOWN_SERVICE}"`,
      );
    if (unknownKind.count > 0)
      warnings.push(
        `${unknownKind.count === 1 ? '1 span has' : `${unknownKind.count} spans have`} a span.kind tag that is not server, client, producer, consumer or internal (first: ${unknownKind.first}): read as no kind stated`,
      );
    return spanGraph(spans, options, { peerField: 'the peer.service tag', warnings });
  },
};

function readTrace(value: unknown, at: string, spans: SourceSpan[], notes: Notes): void {
  const trace = recordAt(value, at, 'a trace');
  const dot = at === '' ? '' : `${at}.`;
  // Every trace has its spans (Jaeger writes `"spans": []` for none): an array of objects without
  // them is some other document, never an empty system.
  if (!Array.isArray(trace.spans)) {
    const answer = Array.isArray(trace.data) || isRecord(trace.data);
    throw new FormatError(
      `${dot}spans`,
      `must be an array of spans (a trace is { traceID, spans, processes }), got ${describeValue(trace.spans)}${answer ? `; ${at === '' ? 'the document' : at} is an /api/traces answer itself: send one answer, or its traces in one array` : ''}`,
    );
  }
  const traceId = textAt(trace, 'traceID', at) ?? '';
  const processes = trace.processes;
  if (processes !== undefined && processes !== null && !isRecord(processes))
    throw new FormatError(
      `${dot}processes`,
      `must be an object of processes by id, got ${describeValue(processes)}`,
    );
  const services = new Map<string, string>();
  const serviceOf = (process: unknown, path: string): string => {
    const name = textAt(recordAt(process, path, 'a process'), 'serviceName', path);
    if (name !== undefined && name !== '') return name;
    notes.unnamed.add(path);
    return UNKNOWN_SERVICE;
  };
  listAt(trace, 'spans', at).forEach((spanValue, k) => {
    const path = `${dot}spans[${k}]`;
    const span = recordAt(spanValue, path, 'a span');
    let service: string;
    if (span.process !== undefined && span.process !== null)
      service = serviceOf(span.process, `${path}.process`);
    else {
      const processId = textAt(span, 'processID', path);
      if (processId === undefined)
        throw new FormatError(
          `${path}.processID`,
          'must name one of the trace\'s processes (or the span must carry its "process")',
        );
      const known = services.get(processId);
      if (known !== undefined) service = known;
      else {
        if (!isRecord(processes) || !Object.hasOwn(processes, processId))
          throw new FormatError(
            `${path}.processID`,
            `names no process of the trace: ${describeValue(processId)} is not among ${dot}processes`,
          );
        service = serviceOf(processes[processId], memberPath(`${dot}processes`, processId));
        services.set(processId, service);
      }
    }
    spans.push(readSpan(span, path, traceId, service, notes));
  });
}

function readSpan(
  span: Record<string, unknown>,
  path: string,
  traceId: string,
  service: string,
  notes: Notes,
): SourceSpan {
  const trace = textAt(span, 'traceID', path) ?? traceId;
  const { parent, parentField, follows } = parentOf(span, path, trace);
  // A start of 0 is none, not 1970 (a window of decades): Jaeger's conversion from OTLP writes an
  // unset start as 0, and OTLP and Zipkin read their 0 the same way.
  const stamped = nanosecondsAt(span, 'startTime', path, 1000n, 'microseconds since the epoch');
  const start = stamped === 0n ? undefined : stamped;
  const duration = nanosecondsAt(span, 'duration', path, 1000n, 'a duration in microseconds');
  const tags = readTags(listAt(span, 'tags', path), `${path}.tags`);
  let kind: SpanKind | undefined;
  const kindTag = tags.get('span.kind');
  if (kindTag !== undefined) {
    const name = typeof kindTag.value === 'string' ? kindTag.value.toLowerCase() : '';
    if (KINDS.has(name)) kind = name as SpanKind;
    else notes.unknownKind.add(kindTag.path);
  }
  const error = tags.get('error')?.value;
  const status = tags.get('otel.status_code')?.value;
  const peer = tags.get('peer.service')?.value;
  return {
    trace,
    id: textAt(span, 'spanID', path) ?? '',
    parent,
    parentField,
    follows,
    service,
    kind,
    start: duration === undefined ? undefined : start,
    end: start === undefined || duration === undefined ? undefined : start + duration,
    error: error === true || error === 'true' || status === 'ERROR',
    peer: typeof peer === 'string' ? peer : undefined,
    path,
  };
}

/** The span's parent: its first CHILD_OF reference in its trace, else its first FOLLOWS_FROM one. */
function parentOf(
  span: Record<string, unknown>,
  path: string,
  trace: string,
): { parent?: string; parentField?: string; follows: boolean } {
  let childOf = -1;
  let followsFrom = -1;
  const ids: string[] = [];
  const references = listAt(span, 'references', path);
  for (let r = 0; r < references.length; r++) {
    const refPath = `${path}.references[${r}]`;
    const reference = recordAt(references[r], refPath, 'a reference');
    const refType = reference.refType;
    if (refType !== 'CHILD_OF' && refType !== 'FOLLOWS_FROM')
      throw new FormatError(
        `${refPath}.refType`,
        `must be "CHILD_OF" or "FOLLOWS_FROM", got ${describeValue(refType)}`,
      );
    const spanId = textAt(reference, 'spanID', refPath);
    if (spanId === undefined)
      throw new FormatError(`${refPath}.spanID`, 'must be the id of the span referred to, got nothing');
    ids.push(spanId);
    const refTrace = textAt(reference, 'traceID', refPath);
    // Another trace's span is no parent here; the same trace id padded to 128 bits is this trace.
    if (refTrace !== undefined && normalId(refTrace) !== normalId(trace)) continue;
    if (refType === 'CHILD_OF') {
      if (childOf < 0) childOf = r;
    } else if (followsFrom < 0) followsFrom = r;
  }
  const chosen = childOf >= 0 ? childOf : followsFrom;
  if (chosen >= 0)
    return {
      parent: ids[chosen]!,
      parentField: chosen === 0 ? '.references[0].spanID' : `.references[${chosen}].spanID`,
      follows: chosen !== childOf,
    };
  const deprecated = textAt(span, 'parentSpanID', path);
  if (deprecated !== undefined) return { parent: deprecated, parentField: '.parentSpanID', follows: false };
  return { follows: false };
}

/** The tags by key (the first of each key), with their paths. */
function readTags(tags: readonly unknown[], path: string): Map<string, { value: unknown; path: string }> {
  const byKey = new Map<string, { value: unknown; path: string }>();
  tags.forEach((value, t) => {
    const tag = recordAt(value, `${path}[${t}]`, 'a tag { key, type, value }');
    const key = tag.key;
    if (typeof key !== 'string')
      throw new FormatError(`${path}[${t}].key`, `must be a string, got ${describeValue(key)}`);
    if (!byKey.has(key)) byKey.set(key, { value: tag.value, path: `${path}[${t}]` });
  });
  return byKey;
}
