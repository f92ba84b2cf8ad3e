/**
 * `npm run bench -- --only=spans`: a day of spans through connect. For each span format (OTLP
 * JSON, OTLP JSON Lines, Jaeger's /api/traces answer, Zipkin v2) the requests of one known
 * topology (test/formats/spans/traces.ts: `frontend` calls `api` twice and `auth` once, `api`
 * calls `db`; 11 spans a request), spread over a day, are served from 127.0.0.1 at 4 MiB, 16 MiB
 * and the largest that fits the decoded cap (64 MiB by default). Each registration runs in a
 * process of its own (bench/spans-connect.ts: dynalite in it, the connect use case fetching,
 * reading, mapping and storing), with the heap flags Lambda's Node.js bootstrap derives from the
 * connect function's memory, so its peak resident set is the registration's and a document that
 * needs more heap than the function has fails here as it would there. Talks to 127.0.0.1 only.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { FUNCTION_SIZING } from '../infra/functions';
import { readLimits } from '../lib/config/limits';
import { generate, type Span, toJaeger, toOtlp, toZipkin, workedExample } from '../test/formats/spans/traces';
import { type Column, renderTable } from './table';

export type SpanDocument = 'OTLP JSON' | 'OTLP JSON Lines' | 'Jaeger traces' | 'Zipkin v2';
const DOCUMENTS: readonly SpanDocument[] = ['OTLP JSON', 'OTLP JSON Lines', 'Jaeger traces', 'Zipkin v2'];

/** The window of the documents: a day, in seconds; the requests are spread evenly over it. */
const DAY_SECONDS = 86_400;
/** Spans on one JSON Lines line: the Collector's batch processor sends batches of 8,192. */
const LINE_SPANS = 8_192;
const MIB = 1024 * 1024;
const CHILD = fileURLToPath(new URL('./spans-connect.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SpansRun {
  document: SpanDocument;
  /** The target body size: `cap` for the largest that fits the decoded cap. */
  size: number | 'cap';
  requests: number;
  spans: number;
  bodyBytes: number;
  /** Fetch, read, map and store, in ms. */
  ms: number;
  spansPerSecond: number;
  /** The child's resident set before the registration, and its peak during it. */
  startRssBytes: number;
  peakRssBytes: number;
  registered: boolean;
  /** Why not, when it did not register (the error's message, or how the process ended). */
  error?: string;
  format?: string;
  nodes?: number;
  dependencies?: number;
}

export interface SpansResult {
  runs: SpansRun[];
  connectMemoryMb: number;
  capBytes: number;
  /** The V8 flags the registrations ran with. */
  heapFlags: string[];
}

/** The document of `requests` requests, as `document` writes it, and its span count. */
export function encode(document: SpanDocument, requests: number): { body: Buffer; spans: number } {
  const spacing = Math.floor((DAY_SECONDS * 1_000_000) / requests);
  const spans = generate(workedExample(), requests, spacing);
  return { body: Buffer.from(text(document, spans)), spans: spans.length };
}

function text(document: SpanDocument, spans: readonly Span[]): string {
  switch (document) {
    case 'OTLP JSON':
      return JSON.stringify(toOtlp(spans));
    case 'OTLP JSON Lines': {
      const lines: string[] = [];
      for (let i = 0; i < spans.length; i += LINE_SPANS)
        lines.push(JSON.stringify(toOtlp(spans.slice(i, i + LINE_SPANS))));
      return `${lines.join('\n')}\n`;
    }
    case 'Jaeger traces':
      return JSON.stringify(toJaeger(spans));
    case 'Zipkin v2':
      return JSON.stringify(toZipkin(spans));
  }
}

/**
 * The largest document of whole requests whose body is at most `bytes`: sizes grow linearly
 * with the requests (ids and times have fixed widths), so two small documents give the slope.
 */
export function largestWithin(
  document: SpanDocument,
  bytes: number,
): { body: Buffer; spans: number; requests: number } {
  const small = encode(document, 1_000).body.length;
  const slope = (encode(document, 2_000).body.length - small) / 1_000;
  let requests = 1_000 + Math.floor((bytes - small) / slope);
  for (;;) {
    const encoded = encode(document, requests);
    if (encoded.body.length <= bytes) return { ...encoded, requests };
    requests -= Math.ceil((encoded.body.length - bytes) / slope) + 1;
  }
}

/** The heap flags Lambda's Node.js bootstrap sets for `memoryMb`: a tenth for the young generation. */
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/** One registration in a child process (bench/spans-connect.ts), fetching `url`. */
function registerInChild(url: string, heapFlags: readonly string[]): Promise<Record<string, unknown>> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...heapFlags, '--import', 'tsx', CHILD, url, String(DAY_SECONDS)],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'pipe'] },
  );
  return new Promise((resolve) => {
    let text = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    // 'close', not 'exit': the result line may still be in the pipe when the process exits.
    child.once('close', (code, signal) => {
      const line = text.split('\n')[0] ?? '';
      if (line !== '') resolve(JSON.parse(line) as Record<string, unknown>);
      else resolve({ registered: false, error: `the process ended (${signal ?? `exit code ${code}`})` });
    });
  });
}

export async function benchSpans(
  options: { quick?: boolean; progress?: (message: string) => void } = {},
): Promise<SpansResult> {
  const capBytes = readLimits({}).maxDecodedBodyBytes;
  const connectMemoryMb = FUNCTION_SIZING.connect.memoryMb;
  const heapFlags = lambdaHeapFlags(connectMemoryMb);
  const sizes: ReadonlyArray<number | 'cap'> =
    options.quick === true ? [4 * MIB] : [4 * MIB, 16 * MIB, 'cap'];
  let served: { body: Buffer; type: string } = { body: Buffer.alloc(0), type: 'application/json' };
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': served.type, 'content-length': served.body.length });
    response.end(served.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const runs: SpansRun[] = [];
  try {
    for (const document of DOCUMENTS) {
      for (const size of sizes) {
        options.progress?.(
          `spans: ${document}, ${size === 'cap' ? 'the largest within the cap' : `${size / MIB} MiB`}`,
        );
        const { body, spans, requests } = largestWithin(document, size === 'cap' ? capBytes : size);
        served = {
          body,
          type: document === 'OTLP JSON Lines' ? 'application/x-ndjson' : 'application/json',
        };
        globalThis.gc?.();
        const outcome = await registerInChild(`http://127.0.0.1:${port}/spans`, heapFlags);
        const ms = Number(outcome.ms ?? Number.NaN);
        runs.push({
          document,
          size,
          requests,
          spans,
          bodyBytes: body.length,
          ms,
          spansPerSecond: spans / (ms / 1000),
          startRssBytes: Number(outcome.startRssBytes ?? Number.NaN),
          peakRssBytes: Number(outcome.peakRssBytes ?? Number.NaN),
          registered: outcome.registered === true,
          ...(typeof outcome.error === 'string' ? { error: outcome.error } : {}),
          ...(typeof outcome.format === 'string' ? { format: outcome.format } : {}),
          ...(typeof outcome.nodes === 'number' ? { nodes: outcome.nodes } : {}),
          ...(typeof outcome.dependencies === 'number' ? { dependencies: outcome.dependencies } : {}),
        });
        served = { body: Buffer.alloc(0), type: 'application/json' };
      }
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return { runs, connectMemoryMb, capBytes, heapFlags };
}

/** Whether a run registered within the connect function's memory (MB counted as 10^6 bytes). */
function fits(run: SpansRun, connectMemoryMb: number): boolean {
  return run.registered && run.peakRssBytes <= connectMemoryMb * 1e6;
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** The table of the runs, and per document the largest that registered within the memory. */
export function spansTable(result: SpansResult): { table: string; largest: string[] } {
  const columns: Column[] = [
    { header: 'document', align: 'left' },
    { header: 'spans', align: 'right' },
    { header: 'body', align: 'right' },
    { header: 'fetch, read, map, store', align: 'right' },
    { header: 'spans / s', align: 'right' },
    { header: 'memory before', align: 'right' },
    { header: 'peak memory', align: 'right' },
    { header: 'growth', align: 'right' },
    { header: 'registered', align: 'left' },
  ];
  const rows = result.runs.map((run) => [
    run.document,
    grouped.format(run.spans),
    `${(run.bodyBytes / MIB).toFixed(1)} MiB`,
    Number.isFinite(run.ms) ? `${grouped.format(run.ms)} ms` : '–',
    run.registered ? grouped.format(run.spansPerSecond) : '–',
    `${Math.round(run.startRssBytes / 1e6)} MB`,
    `${Math.round(run.peakRssBytes / 1e6)} MB`,
    `${Math.round((run.peakRssBytes - run.startRssBytes) / 1e6)} MB`,
    run.registered
      ? `yes: ${run.format}, ${run.nodes} nodes, ${run.dependencies} deps`
      : `no: ${run.error ?? 'unknown'}`,
  ]);
  const largest = DOCUMENTS.map((document) => {
    const best = result.runs
      .filter((run) => run.document === document && fits(run, result.connectMemoryMb))
      .sort((a, b) => b.bodyBytes - a.bodyBytes)[0];
    return best === undefined
      ? `${document}: none of the sizes registered within ${result.connectMemoryMb} MB`
      : `${document}: ${grouped.format(best.spans)} spans, ${(best.bodyBytes / MIB).toFixed(1)} MiB${best.size === 'cap' ? ' (the largest within the cap)' : ''}, peak ${Math.round(best.peakRssBytes / 1e6)} MB`;
  });
  return { table: renderTable(columns, rows), largest };
}
