/**
 * Contract checks 3 and 4 on a raw request body: present, within the size limits, decoded
 * from its `Content-Encoding`, UTF-8, JSON. Shared by the HTTP middleware and the engine CLI,
 * so a file gets exactly the answers the API would give.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { holdsMoreContainers } from '../text';
import { ApiError } from './errors';
import { checkedText, EMPTY_MESSAGE, parseJson, stripByteOrderMark, UTF8_MESSAGE } from './json-text';

export interface RequestBodyOptions {
  /** Largest body on the wire, in bytes (a base64 event body is measured after base64 decoding). */
  maxBytes: number;
  /** Largest body once its `Content-Encoding` is undone. Irrelevant for uncompressed bodies. */
  maxDecodedBytes: number;
  /** The event body is base64 (API Gateway's form for bodies without a text Content-Type). */
  isBase64Encoded?: boolean;
  /** The request's `Content-Encoding` header, if any. */
  contentEncoding?: string | undefined;
  /**
   * For the user routes: what the route takes, in words (`a JSON object { name }`). A body that
   * is not JSON is then the caller's mistake, 400 `INVALID_REQUEST` saying so, instead of the
   * engine's 500 `PAYLOAD_ERROR` (the seed's answer for `POST /api/engine` only).
   */
  expects?: string;
  /** What an empty body stands for on a route whose fields are all optional (`{}`); else it is refused. */
  empty?: unknown;
  /**
   * The most JSON objects and arrays the body may hold (`holdsMoreContainers`): what parsing
   * costs, which the byte limits alone do not bound (66 MB of `{}` inflate from 64 KB of gzip
   * and took 22 s to parse). Past it, 413 before parsing. None for the CLI, which has no clock.
   */
  maxContainers?: (textLength: number) => number;
}

/** The content codings a request body may use, as `Accept-Encoding` advertises them on a 415. */
export const REQUEST_CODINGS = ['gzip', 'br', 'deflate'] as const;
type RequestCoding = (typeof REQUEST_CODINGS)[number];

/** Parses a raw request body into a JSON value, or throws the contract's `ApiError`. */
export function parseJsonRequestBody(
  body: string | Uint8Array | undefined | null,
  options: RequestBodyOptions,
): unknown {
  const { expects } = options;
  const empty = body === undefined || body === null || body.length === 0;
  if (expects === undefined) {
    if (empty) throw new ApiError('PAYLOAD_ERROR', EMPTY_MESSAGE);
    return parseNonEmptyBody(body, options);
  }
  if (empty) {
    if (options.empty !== undefined) return options.empty;
    throw new ApiError('INVALID_REQUEST', `The request body is empty; send ${expects}.`);
  }
  try {
    return parseNonEmptyBody(body, options);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'PAYLOAD_ERROR') throw error;
    throw new ApiError('INVALID_REQUEST', `${error.message.replace(/\.$/, '')}; send ${expects}.`);
  }
}

function parseNonEmptyBody(body: string | Uint8Array, options: RequestBodyOptions): unknown {
  const size =
    typeof body !== 'string'
      ? body.byteLength
      : options.isBase64Encoded
        ? Buffer.byteLength(body, 'base64')
        : Buffer.byteLength(body, 'utf8');
  if (size > options.maxBytes) {
    // Compressing helps only where the body may decode to more than the wire limit (the engine's
    // and a registration's bodies); a user route's small body is held to the same size decoded.
    const advice =
      options.maxDecodedBytes <= options.maxBytes
        ? ` (the route takes ${options.maxBytes} bytes at most, compressed or not).`
        : options.contentEncoding === undefined
          ? ' or compress it (Content-Encoding: gzip, br or deflate, sent as application/octet-stream).'
          : '.';
    throw new ApiError(
      'LIMIT_EXCEEDED',
      `The request body is larger than the limit of ${options.maxBytes} bytes; send a smaller ${smallerWhat(options)}${advice}`,
    );
  }
  const codings = parseContentEncoding(options.contentEncoding);
  if (codings.length === 0 && typeof body === 'string' && !options.isBase64Encoded) {
    return parseJson(withinContainers(checkedText(stripByteOrderMark(body)), options.maxContainers));
  }
  const arrivedAsText = typeof body === 'string' && !options.isBase64Encoded;
  let bytes: Uint8Array =
    typeof body !== 'string' ? body : Buffer.from(body, options.isBase64Encoded ? 'base64' : 'utf8');
  // Codings are listed in the order they were applied, so they are undone from the last. The
  // decoded-size limit holds for all layers together: otherwise a header listing a coding
  // hundreds of times could make each layer inflate to the limit, multiplying the work.
  let budget = options.maxDecodedBytes;
  for (let i = codings.length - 1; i >= 0; i--) {
    bytes = decode(bytes, codings[i]!, budget, options, arrivedAsText);
    if (bytes.byteLength > budget) throw decodedTooLarge(options);
    budget -= bytes.byteLength;
  }
  return parseJson(withinContainers(checkedText(decodeUtf8(bytes)), options.maxContainers));
}

/** The text, unless it holds more objects and arrays than `maxContainers`: then 413. */
function withinContainers(text: string, maxContainers: ((textLength: number) => number) | undefined): string {
  const cap = maxContainers?.(text.length);
  if (cap !== undefined && holdsMoreContainers(text, cap)) {
    throw new ApiError(
      'LIMIT_EXCEEDED',
      `The request body holds more than ${cap} JSON objects and arrays, more than any structure ` +
        'within the limits needs, and parsing them would take too long; send a smaller one.',
    );
  }
  return text;
}

/**
 * The codings of a `Content-Encoding` header, in the order they were applied. `identity` (no
 * coding) is skipped; any coding we cannot undo is a 415 naming it, with `Accept-Encoding`
 * saying what would work (RFC 9110 §15.5.16).
 */
function parseContentEncoding(header: string | undefined): RequestCoding[] {
  if (header === undefined) return [];
  const codings: RequestCoding[] = [];
  for (const part of header.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '' || name === 'identity') continue;
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (!(REQUEST_CODINGS as readonly string[]).includes(coding)) {
      throw new ApiError(
        'UNSUPPORTED_CONTENT_ENCODING',
        `The request body's Content-Encoding ${JSON.stringify(name.slice(0, 40))} is not supported; ` +
          `send the body uncompressed or encoded with ${REQUEST_CODINGS.join(', ')}.`,
        { headers: { 'accept-encoding': REQUEST_CODINGS.join(', ') } },
      );
    }
    codings.push(coding as RequestCoding);
  }
  return codings;
}

// API Gateway decides by Content-Type alone whether a body reaches the function as text or
// as base64; compressed bytes sent as text are decoded as UTF-8 on the way and do not survive.
const TEXT_TYPE_HINT =
  ' Send a compressed body with a binary Content-Type such as application/octet-stream: with a ' +
  'text type (application/json, text/*) it is handed over as text, which breaks the compressed bytes.';

const CODING_NAMES: Record<RequestCoding, string> = { gzip: 'gzip', br: 'brotli', deflate: 'deflate' };

/**
 * Undoes one coding, stopping as soon as the output would pass `budget`, what is left of the
 * decoded-size limit (zlib checks `maxOutputLength` chunk by chunk), so a few kilobytes that
 * inflate to gigabytes cost at most the limit in memory and a fraction of a second.
 */
function decode(
  bytes: Uint8Array,
  coding: RequestCoding,
  budget: number,
  bodyOptions: RequestBodyOptions,
  arrivedAsText: boolean,
): Buffer {
  const options: ZlibOptions = { maxOutputLength: Math.max(budget, 1) };
  try {
    if (coding === 'gzip') return gunzipSync(bytes, options);
    if (coding === 'br') return brotliDecompressSync(bytes, options);
    return inflateDeflate(bytes, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw decodedTooLarge(bodyOptions);
    }
    throw new ApiError(
      'PAYLOAD_ERROR',
      `The request body is not valid ${CODING_NAMES[coding]} data although Content-Encoding says ${coding}.` +
        (arrivedAsText ? TEXT_TYPE_HINT : ''),
    );
  }
}

function decodedTooLarge(options: RequestBodyOptions): ApiError {
  return new ApiError(
    'LIMIT_EXCEEDED',
    `The request body decompresses to more than the limit of ${options.maxDecodedBytes} bytes (all its ` +
      `codings together); send a smaller ${smallerWhat(options)}.`,
  );
}

/** What a body too large should shrink: the engine's structure, or a user route's body. */
function smallerWhat(options: RequestBodyOptions): string {
  return options.expects === undefined ? 'structure' : 'body';
}

/** HTTP's `deflate` is the zlib format (RFC 9110 §8.4.1.2), but some clients send raw deflate: take both. */
function inflateDeflate(bytes: Uint8Array, options: ZlibOptions): Buffer {
  try {
    return inflateSync(bytes, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    return inflateRawSync(bytes, options);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    // TextDecoder drops a leading byte order mark, which RFC 8259 lets parsers ignore.
    return utf8.decode(bytes);
  } catch {
    throw new ApiError('PAYLOAD_ERROR', UTF8_MESSAGE);
  }
}
