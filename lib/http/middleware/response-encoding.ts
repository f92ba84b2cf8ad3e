import {
  type BrotliOptions,
  createBrotliCompress,
  createGzip,
  type Gzip,
  constants as zlib,
} from 'node:zlib';
import { ApiError } from '../../api/errors';
import { largestBinaryBody, lessToAskFor, responseFits } from '../../api/response-size';
import { withVary } from '../vary';
import { type HttpMiddleware, type HttpRequest, type RequestFacts, readHeader } from './types';

export type ContentCoding = 'br' | 'gzip';

export interface ResponseEncodingOptions {
  /** Largest response the function may return, base64 and JSON escaping included (Lambda's 6 MiB). */
  maxBytes: number;
  /** Bodies smaller than this go out as they are: compressing them saves nothing worth the CPU. */
  minBytes?: number;
  /** Brotli quality 0-11. 4 compresses JSON about as well as gzip -6 at a similar speed; 11 is far slower. */
  brotliQuality?: number;
  /** gzip level 1-9. */
  gzipLevel?: number;
  /**
   * What the 413 of a route that runs no engine advises, after "compressed, or" (none accepted)
   * or the codings tried. An engine request's own is what it could ask less of, from its facts
   * (`lessToAskFor`). Default: ask for less: a smaller structure.
   */
  advice?: string;
}

const defaults = {
  minBytes: 1024,
  brotliQuality: 4,
  gzipLevel: 6,
  advice: 'ask for less: a smaller structure',
};

/**
 * Compresses successful responses when the client's Accept-Encoding allows it, and enforces
 * the response limit on what the function actually returns: the base64 text of a compressed
 * body, the JSON-escaped text otherwise.
 *
 * The client's preferred coding is used when it prefers compression at all. When the body
 * does not fit the limit as it stands, every other coding the client accepts is tried too
 * (even ones it ranks below identity) before the answer is a 413. Each attempt stops as soon
 * as its output passes what could still fit, so a hopeless attempt costs only the part of the
 * body it got through, and no coding is tried twice. Error responses (built in `onError`) are
 * small and never pass through here.
 */
export function responseEncoding(opts: ResponseEncodingOptions): HttpMiddleware {
  const options = { ...defaults, ...opts };
  const limits = { maxResponseBytes: options.maxBytes };
  const budget = largestBinaryBody(limits);

  const responseEncodingAfter = async (request: HttpRequest): Promise<void> => {
    const response = request.response;
    if (response === undefined || response === null || typeof response.body !== 'string') return;
    response.headers = { ...response.headers, vary: withVary(response.headers.vary, 'Accept-Encoding') };
    const alreadyEncoded = response.isBase64Encoded === true || 'content-encoding' in response.headers;
    if (alreadyEncoded) {
      if (!responseFits(response.body, true, limits)) throw tooLarge([], options, request.context.facts);
      return;
    }

    const acceptEncoding = readHeader(request.event, 'accept-encoding');
    const rawFits = responseFits(response.body, false, limits);
    const tried: ContentCoding[] = [];
    const preferred =
      Buffer.byteLength(response.body, 'utf8') >= options.minBytes
        ? chooseContentCoding(acceptEncoding)
        : undefined;
    const fallbacks = rawFits ? [] : acceptedCodings(acceptEncoding);
    // The body's bytes only when a coding is tried: an answer sent as it is (or refused with no
    // coding to try) never copies them (an 81 MB answer's copy took some 300 ms).
    let raw: Buffer | undefined;
    for (const coding of unique([preferred, ...fallbacks])) {
      tried.push(coding);
      raw ??= Buffer.from(response.body, 'utf8');
      const compressed = await compressWithin(raw, coding, budget, options);
      if (compressed !== undefined && (compressed.length < raw.length || !rawFits)) {
        response.body = compressed.toString('base64');
        response.isBase64Encoded = true;
        response.headers['content-encoding'] = coding;
        return;
      }
      if (rawFits) return;
    }
    if (!rawFits) throw tooLarge(tried, options, request.context.facts);
  };

  return { after: responseEncodingAfter };
}

function unique(codings: ReadonlyArray<ContentCoding | undefined>): ContentCoding[] {
  const seen: ContentCoding[] = [];
  for (const coding of codings) if (coding !== undefined && !seen.includes(coding)) seen.push(coding);
  return seen;
}

/**
 * `raw` compressed with `coding`, or `undefined` as soon as the output passes `maxBytes`: the
 * compressor is stopped there instead of finishing a result that cannot be used.
 */
function compressWithin(
  raw: Buffer,
  coding: ContentCoding,
  maxBytes: number,
  options: typeof defaults,
): Promise<Buffer | undefined> {
  const stream: Gzip | ReturnType<typeof createBrotliCompress> =
    coding === 'gzip'
      ? createGzip({ level: options.gzipLevel })
      : createBrotliCompress(brotliOptions(raw, options));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => resolve(Buffer.concat(chunks, size)));
    stream.once('error', reject);
    stream.end(raw);
  });
}

function brotliOptions(raw: Buffer, options: typeof defaults): BrotliOptions {
  return {
    params: {
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_QUALITY]: options.brotliQuality,
      [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  };
}

/**
 * The 413 for a body over the limit. What to ask for less of is the request's own, as the
 * engine's refusal before the run says it (`lessToAskFor`), from the facts the engine function
 * records (its mode, and whether it compares); a route that runs no engine gives its own
 * `advice`.
 */
function tooLarge(
  tried: readonly ContentCoding[],
  options: { maxBytes: number; advice: string },
  facts: RequestFacts | undefined,
): ApiError {
  const limit = `the response limit of ${options.maxBytes} bytes`;
  const advice =
    facts?.mode === undefined
      ? options.advice
      : `ask for less: ${lessToAskFor({ mode: facts.mode, compare: facts.compare === true, stored: facts.stored === true })}`;
  const message =
    tried.length === 0
      ? `The result is larger than ${limit}. Send \`Accept-Encoding: br, gzip\` to receive it ` +
        `compressed, or ${advice}.`
      : `The result is larger than ${limit} even compressed with ${tried.join(' or ')}; ${advice}.`;
  return new ApiError('LIMIT_EXCEEDED', message);
}

/**
 * The coding to use for an Accept-Encoding header (RFC 9110 §12.5.3), or `undefined` for
 * none. q-values are honoured (`gzip;q=0` refuses gzip, `*` covers codings not listed), br
 * wins ties, and when `identity` is preferred over every coding we support, nothing is
 * compressed. A missing header means no compression: clients that can decode say so.
 * @internal test/http/middleware/response-encoding.test.ts tables Accept-Encoding headers against it.
 */
export function chooseContentCoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  const [best] = acceptedCodings(acceptEncoding);
  if (best === undefined) return undefined;
  const weights = parseAcceptEncoding(acceptEncoding ?? '');
  // Unlisted, identity is merely acceptable, not preferred: any acceptable coding beats it.
  // Identity wins only when the client prefers it outright.
  const identity = weights.get('identity') ?? weights.get('*') ?? 0;
  return weightOf(weights, best) >= identity ? best : undefined;
}

/** Every coding we support that the client accepts (q > 0), best first; br before gzip at equal q. */
export function acceptedCodings(acceptEncoding: string | undefined): ContentCoding[] {
  if (acceptEncoding === undefined) return [];
  const weights = parseAcceptEncoding(acceptEncoding);
  return (['br', 'gzip'] as const)
    .filter((coding) => weightOf(weights, coding) > 0)
    .sort((a, b) => weightOf(weights, b) - weightOf(weights, a));
}

function weightOf(weights: ReadonlyMap<string, number>, coding: string): number {
  return weights.get(coding) ?? weights.get('*') ?? 0;
}

/** Lower-cased coding → q. Entries with a malformed q are ignored, as the RFC says to. */
function parseAcceptEncoding(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [name = '', ...parameters] = entry.split(';').map((part) => part.trim());
    if (name === '') continue;
    let weight = 1;
    let malformed = false;
    for (const parameter of parameters) {
      const match = /^q\s*=\s*(\d+(?:\.\d{0,3})?)$/i.exec(parameter);
      if (match === null) {
        if (/^q\s*=/i.test(parameter)) malformed = true;
        continue;
      }
      weight = Number(match[1]);
      if (weight > 1) malformed = true;
    }
    if (malformed) continue;
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    // A coding listed twice keeps its highest weight.
    weights.set(coding, Math.max(weights.get(coding) ?? 0, weight));
  }
  return weights;
}
