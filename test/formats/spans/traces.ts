/**
 * Traces generated from a known topology, and small encoders that write them as each span format
 * does (OTLP/JSON, Jaeger's /api/traces answer, Zipkin v2), so one set of requests with known
 * rates, calls and self times can be read back through every format.
 */

/** What one request does in a service: it takes `duration` µs and makes `calls` meanwhile. */
export interface Work {
  service: string;
  /** µs, the server span's duration. */
  duration: number;
  calls?: readonly Call[];
  /** Whether the request numbered `request` (0, 1, …) fails here. */
  fails?: (request: number) => boolean;
}

export interface Call {
  /** µs after the caller's start that its client span starts. */
  at: number;
  /** µs, the client span's duration. */
  client: number;
  /** µs after the client span's start that the callee's server span starts. */
  delay: number;
  callee: Work;
}

/** A span of a generated trace, before any format writes it. */
export interface Span {
  traceId: string;
  spanId: string;
  parentId?: string;
  service: string;
  kind: 'server' | 'client';
  /** µs since the epoch. */
  start: number;
  duration: number;
  error: boolean;
}

/** 2023-11-14 22:13:20 UTC in µs: nanoseconds past 2^53, as real OTLP times are. */
const EPOCH_US = 1_700_000_000_000_000;

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}

/**
 * `requests` requests entering `root`'s service, the i-th at `EPOCH_US + i × spacing` µs, each a
 * trace of its own. Client spans are the caller's; the callee's server span is their child.
 */
export function generate(root: Work, requests: number, spacing: number): Span[] {
  const spans: Span[] = [];
  let next = 1;
  for (let request = 0; request < requests; request++) {
    const traceId = hex(request + 1, 32);
    const visit = (work: Work, start: number, parentId: string | undefined): void => {
      const spanId = hex(next++, 16);
      spans.push({
        traceId,
        spanId,
        ...(parentId === undefined ? {} : { parentId }),
        service: work.service,
        kind: 'server',
        start,
        duration: work.duration,
        error: work.fails?.(request) ?? false,
      });
      for (const call of work.calls ?? []) {
        const clientId = hex(next++, 16);
        spans.push({
          traceId,
          spanId: clientId,
          parentId: spanId,
          service: work.service,
          kind: 'client',
          start: start + call.at,
          duration: call.client,
          error: false,
        });
        visit(call.callee, start + call.at + call.delay, clientId);
      }
    };
    visit(root, EPOCH_US + request * spacing, undefined);
  }
  return spans;
}

/**
 * The worked example of `lib/formats/spans/span-graph.ts`: `frontend` (50 ms) calls `api` twice
 * (5–20 ms and 25–40 ms) and `auth` once (10–15 ms); `api` (14 ms) calls `db` (5 ms) once, for
 * 6 ms; `auth` takes 4 ms. Self times: frontend 20 ms, api 8 ms, db 5 ms, auth 4 ms. Every tenth
 * request fails at its first `db` call.
 */
export function workedExample(): Work {
  let dbCalls = 0;
  const db: Work = { service: 'db', duration: 5_000, fails: () => dbCalls++ % 20 === 0 };
  const api: Work = {
    service: 'api',
    duration: 14_000,
    calls: [{ at: 3_000, client: 6_000, delay: 500, callee: db }],
  };
  const auth: Work = { service: 'auth', duration: 4_000 };
  return {
    service: 'frontend',
    duration: 50_000,
    calls: [
      { at: 5_000, client: 15_000, delay: 500, callee: api },
      { at: 10_000, client: 5_000, delay: 500, callee: auth },
      { at: 25_000, client: 15_000, delay: 500, callee: api },
    ],
  };
}

const OTLP_KINDS = { server: 2, client: 3 } as const;
const OTLP_KIND_NAMES = { server: 'SPAN_KIND_SERVER', client: 'SPAN_KIND_CLIENT' } as const;

/**
 * The spans as one OTLP/JSON export: a ResourceSpans per service (in first-seen order), times as
 * decimal strings of nanoseconds, `kind` as the enum's number or (`names`) its name.
 */
export function toOtlp(spans: readonly Span[], options: { names?: boolean } = {}) {
  const byService = new Map<string, Span[]>();
  for (const span of spans) {
    const own = byService.get(span.service);
    if (own === undefined) byService.set(span.service, [span]);
    else own.push(span);
  }
  return {
    resourceSpans: [...byService].map(([service, own]) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [
        {
          scope: { name: 'generated' },
          spans: own.map((span) => ({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentId ?? '',
            name: `${span.kind} ${span.service}`,
            kind: options.names === true ? OTLP_KIND_NAMES[span.kind] : OTLP_KINDS[span.kind],
            startTimeUnixNano: `${BigInt(span.start) * 1000n}`,
            endTimeUnixNano: `${BigInt(span.start + span.duration) * 1000n}`,
            status: span.error ? { code: 2 } : {},
          })),
        },
      ],
    })),
  };
}

/**
 * The spans as Jaeger's `/api/traces` answer: one trace per trace id, a process per service,
 * `CHILD_OF` references, and the `span.kind` tag unless `kinds` is false.
 */
export function toJaeger(spans: readonly Span[], options: { kinds?: boolean } = {}) {
  const traces = new Map<string, Span[]>();
  for (const span of spans) {
    const own = traces.get(span.traceId);
    if (own === undefined) traces.set(span.traceId, [span]);
    else own.push(span);
  }
  return {
    data: [...traces].map(([traceID, own]) => {
      const processes: Record<string, { serviceName: string; tags: unknown[] }> = {};
      const processOf = new Map<string, string>();
      for (const span of own)
        if (!processOf.has(span.service)) {
          const id = `p${processOf.size + 1}`;
          processOf.set(span.service, id);
          processes[id] = { serviceName: span.service, tags: [] };
        }
      return {
        traceID,
        spans: own.map((span) => ({
          traceID,
          spanID: span.spanId,
          operationName: `${span.kind} ${span.service}`,
          references:
            span.parentId === undefined ? [] : [{ refType: 'CHILD_OF', traceID, spanID: span.parentId }],
          startTime: span.start,
          duration: span.duration,
          tags: [
            ...(options.kinds === false ? [] : [{ key: 'span.kind', type: 'string', value: span.kind }]),
            ...(span.error ? [{ key: 'error', type: 'bool', value: true }] : []),
          ],
          logs: [],
          processID: processOf.get(span.service),
          warnings: null,
        })),
        processes,
        warnings: null,
      };
    }),
    total: 0,
    limit: 0,
    offset: 0,
    errors: null,
  };
}

/**
 * The spans as Zipkin v2 JSON (a bare array). With `shared`, each server span takes its client
 * span's id (B3 propagation), says `shared: true` and names the client's parent, as Zipkin
 * reports an RPC whose halves share an id.
 */
export function toZipkin(spans: readonly Span[], options: { shared?: boolean } = {}) {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const sharedId = new Map<string, string>();
  if (options.shared === true)
    for (const span of spans)
      if (span.kind === 'server' && span.parentId !== undefined) sharedId.set(span.spanId, span.parentId);
  const idOf = (spanId: string) => sharedId.get(spanId) ?? spanId;
  return spans.map((span) => {
    const shared = sharedId.has(span.spanId);
    const parentId = shared ? byId.get(span.parentId!)!.parentId : span.parentId;
    return {
      traceId: span.traceId,
      ...(parentId === undefined ? {} : { parentId: idOf(parentId) }),
      id: idOf(span.spanId),
      kind: span.kind.toUpperCase(),
      name: `${span.kind} ${span.service}`,
      timestamp: span.start,
      duration: span.duration,
      localEndpoint: { serviceName: span.service },
      ...(span.error ? { tags: { error: 'failed' } } : {}),
      ...(shared ? { shared: true } : {}),
    };
  });
}
