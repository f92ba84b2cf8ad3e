/**
 * Reads a successful response as JSON: the Content-Type must say JSON, the body is decoded from
 * gzip or brotli as it streams in, and reading stops the moment the decoded body passes the cap,
 * so a small compressed answer that would inflate to gigabytes costs at most the cap.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { documentContainerCap, holdsMoreContainers, looksLikeJsonLines } from '../text';
import { OutboundError } from './errors';

/** What the request advertises in Accept-Encoding: exactly the codings `readJsonBody` can undo. */
export const ACCEPTED_ENCODINGS = 'gzip, br';

export interface JsonBodyOptions {
  /** Most bytes read, counted after decoding (and, for compressed bodies, also before). */
  maxBytes: number;
  /** Ends reading when the request's deadline passes. */
  signal: AbortSignal;
  /** Who answered, for messages: `the server at "api.example.com"`. */
  server: string;
  /**
   * Take JSON Lines too (one JSON value per line, as the OpenTelemetry Collector's file exporter
   * writes): its media types are accepted, and a body that is not one JSON document but is JSON
   * Lines comes back as `JsonLinesText`, for the caller to read line by line. Default false.
   */
  jsonLines?: boolean;
}

/** A body that is JSON Lines rather than one JSON document: its text, read within the same caps. */
export class JsonLinesText {
  constructor(readonly text: string) {}
}

/** The media types JSON Lines is served as (none is registered; these are the ones in use). */
const JSON_LINES_MEDIA_TYPES = new Set([
  'application/jsonl',
  'application/x-jsonl',
  'application/jsonlines',
  'application/x-jsonlines',
  'application/x-ndjson',
  'application/ndjson',
]);

/**
 * Media types worth naming when a server sends something other than JSON. Any other value is
 * not repeated: it was written by the server, which may have been sent the bearer token.
 */
const NAMED_MEDIA_TYPES = new Set([
  'text/html',
  'text/plain',
  'text/xml',
  'application/xml',
  'text/csv',
  'text/javascript',
  'application/javascript',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);
/** Protobuf (OTLP/HTTP's binary encoding, what an exporter sends by default): named, with what is read instead. */
const PROTOBUF_MEDIA_TYPES = new Set([
  'application/x-protobuf',
  'application/protobuf',
  'application/vnd.google.protobuf',
]);

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The parsed JSON value of a response body (or, with `jsonLines`, the text of a JSON Lines one),
 * or an `OutboundError`.
 */
export async function readJsonBody(
  response: { headers: IncomingHttpHeaders; body: Readable },
  options: JsonBodyOptions,
): Promise<unknown> {
  const jsonLines = options.jsonLines === true;
  checkJsonContentType(response.headers['content-type'], options.server, jsonLines);
  const coding = contentCoding(response.headers['content-encoding'], options.server);
  const overCap = new OutboundError(
    'UPSTREAM_ERROR',
    `The response from ${options.server} is larger than the limit of ${options.maxBytes} bytes.`,
  );
  // The bytes on the wire are capped as well as the decoded ones (`byteCap`), so a declared
  // length over the cap is refused before reading, whatever the coding.
  const declaredLength = Number(response.headers['content-length']);
  if (declaredLength > options.maxBytes) throw overCap;
  // Remembered rather than trusted to surface: on Node 20 and 22 a pipeline with a decoder in it
  // reports an error thrown by its last stage as a plain AbortError (Node 24, the project's and
  // Lambda's, reports the error itself; an Apple-silicon machine runs the local server on its
  // system Node, docs/local.md).
  let exceeded = false;
  const tooLarge = () => {
    // Stryker disable next-line BooleanLiteral: on Node 24 the pipeline rejects with overCap itself; the flag serves Node 20 and 22
    exceeded = true;
    return overCap;
  };

  // The reading ends when the pipeline does, or at once when the decoded body passes the cap or
  // the deadline passes: a pipeline whose last stage threw while the decoder held a large inflated
  // chunk (a 300 KB gzip of 300 MB) could stay pending for good, the deadline's signal with it,
  // and the request then ran to the function's own time limit.
  let stop: (reason: unknown) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const chunks: Buffer[] = [];
  let decodedBytes = 0;
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      decodedBytes += chunk.length;
      if (decodedBytes > options.maxBytes) {
        const error = tooLarge();
        stop(error);
        throw error;
      }
      chunks.push(chunk);
    }
  };
  // The deadline ends the reading as the pipeline's own signal would: an AbortError, the
  // deadline's reason its cause (the pipeline is not given the signal: this is the one way).
  const onDeadline = () =>
    stop(
      // Stryker disable next-line StringLiteral: no one reads the message (the fetch names its deadline in its own words)
      Object.assign(new Error('The operation was aborted'), {
        name: 'AbortError',
        cause: options.signal.reason,
      }),
    );
  if (options.signal.aborted) onDeadline();
  options.signal.addEventListener('abort', onDeadline);
  const stages: Transform[] =
    coding === 'identity'
      ? []
      : [byteCap(options.maxBytes, tooLarge), coding === 'gzip' ? createGunzip() : createBrotliDecompress()];
  try {
    const [cap, decoder] = stages;
    const piped =
      cap === undefined ? pipeline(response.body, collect) : pipeline(response.body, cap, decoder!, collect);
    // Whichever settles first decides; the other's outcome is the same failure, or none.
    piped.catch(() => {});
    stopped.catch(() => {});
    await Promise.race([piped, stopped]);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: on Node 24 the error is overCap already; the flag serves Node 20 and 22
    if (exceeded) throw overCap;
    if (isZlibDataError(error)) {
      throw new OutboundError(
        'UPSTREAM_INVALID',
        `The response from ${options.server} says Content-Encoding ${coding} but is not valid ${coding} data.`,
      );
    }
    throw error;
  } finally {
    options.signal.removeEventListener('abort', onDeadline);
    // Ends what a stopped pipeline left running; streams that ended already are left as they are.
    for (const stream of [response.body, ...stages]) stream.destroy();
  }
  return parseJsonText(Buffer.concat(chunks), options.server, jsonLines);
}

function checkJsonContentType(header: string | undefined, server: string, jsonLines: boolean): void {
  const mediaType = (header ?? '').split(';')[0]!.trim().toLowerCase();
  // RFC 6839: `application/vnd.example+json` and friends are JSON too.
  if (mediaType === 'application/json' || /^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(mediaType)) return;
  if (jsonLines && JSON_LINES_MEDIA_TYPES.has(mediaType)) return;
  const sent =
    mediaType === ''
      ? 'no Content-Type'
      : NAMED_MEDIA_TYPES.has(mediaType)
        ? `Content-Type ${mediaType}`
        : PROTOBUF_MEDIA_TYPES.has(mediaType)
          ? `Content-Type ${mediaType} (protobuf is not read; OTLP's JSON encoding is)`
          : 'a Content-Type that is not JSON';
  throw new OutboundError(
    'UPSTREAM_INVALID',
    `The response from ${server} has ${sent}; the URL must answer with application/json${jsonLines ? ' (or JSON Lines, application/jsonl or application/x-ndjson)' : ''}.`,
  );
}

type ContentCoding = 'identity' | 'gzip' | 'br';

function contentCoding(header: string | undefined, server: string): ContentCoding {
  const coding = header?.trim().toLowerCase() ?? '';
  if (coding === '' || coding === 'identity') return 'identity';
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  if (coding === 'br') return 'br';
  // Only gzip and br were asked for; anything else (stacked codings included) is the server's mistake.
  throw new OutboundError(
    'UPSTREAM_INVALID',
    `The response from ${server} uses a Content-Encoding other than the gzip or br that was asked for.`,
  );
}

/** Counts bytes on the wire too: a compressed stream can grow forever while decoding to almost nothing. */
function byteCap(maxBytes: number, tooLarge: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(tooLarge());
      else done(null, chunk);
    },
  });
}

/** zlib names its errors `Z_…` (gzip) and `ERR__ERROR_…` (brotli); a truncated stream is `Z_BUF_ERROR` in both. */
function isZlibDataError(error: unknown): boolean {
  // Stryker disable next-line OptionalChaining,StringLiteral: a failed pipeline always rejects with an Error, never undefined; one without a code is not zlib's either way
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  return code.startsWith('Z_') || code.startsWith('ERR__ERROR_');
}

function parseJsonText(bytes: Buffer, server: string, jsonLines: boolean): unknown {
  let text: string;
  try {
    // JSON on the wire is UTF-8 (RFC 8259); a leading byte-order mark is dropped.
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new OutboundError('UPSTREAM_INVALID', `The response from ${server} is not valid UTF-8 text.`);
  }
  const cap = documentContainerCap(text.length);
  if (holdsMoreContainers(text, cap)) {
    throw new OutboundError(
      'UPSTREAM_ERROR',
      `The response from ${server} holds more than ${cap} JSON objects and arrays, more than a graph ` +
        `or span document of its size holds; it was not read.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    if (jsonLines && looksLikeJsonLines(text)) return new JsonLinesText(text);
    // The parser's own message quotes the body, which the server wrote; it is not repeated.
    const what = text.trim() === '' ? 'is empty' : 'is not valid JSON';
    throw new OutboundError(
      'UPSTREAM_INVALID',
      // A document, not "an object": several formats are arrays (Zipkin's spans, its links).
      `The response from ${server} ${what}; expected a JSON document${jsonLines ? ' or JSON Lines' : ''}.`,
    );
  }
}
