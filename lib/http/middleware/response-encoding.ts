import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { ApiError } from '../../api/errors';
import { responseFits } from '../../api/response-size';
import { type HttpMiddleware, type HttpRequest, readHeader, requestFacts } from './types';

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
}

const defaults = { minBytes: 1024, brotliQuality: 4, gzipLevel: 6 };

/**
 * Compresses successful responses when the client's Accept-Encoding allows it (br preferred
 * over gzip at equal q), then enforces the response limit on what the function actually
 * returns: the base64 text for a compressed body, the JSON-escaped text otherwise. Error
 * responses (built in `onError`) are small and never pass through here.
 */
export function responseEncoding(opts: ResponseEncodingOptions): HttpMiddleware {
  const options = { ...defaults, ...opts };

  const responseEncodingAfter = (request: HttpRequest): void => {
    const response = request.response;
    if (response === undefined || response === null || typeof response.body !== 'string') return;
    response.headers = { ...response.headers, vary: 'Accept-Encoding' };

    const alreadyEncoded = response.isBase64Encoded === true || 'content-encoding' in response.headers;
    const raw = alreadyEncoded ? undefined : Buffer.from(response.body, 'utf8');
    const coding =
      raw !== undefined && raw.length >= options.minBytes
        ? chooseContentCoding(readHeader(request.event, 'accept-encoding'))
        : undefined;
    if (raw !== undefined && coding !== undefined) {
      const compressed = compress(raw, coding, options);
      if (compressed.length < raw.length) {
        response.body = compressed.toString('base64');
        response.isBase64Encoded = true;
        response.headers['content-encoding'] = coding;
        requestFacts(request).contentEncoding = coding;
      }
    }

    if (
      !responseFits(response.body, response.isBase64Encoded === true, { maxResponseBytes: options.maxBytes })
    ) {
      throw tooLarge(
        response.isBase64Encoded === true ? (coding ?? 'an encoding') : undefined,
        options.maxBytes,
      );
    }
  };

  return { after: responseEncodingAfter };
}

function compress(raw: Buffer, coding: ContentCoding, options: typeof defaults): Buffer {
  if (coding === 'gzip') return gzipSync(raw, { level: options.gzipLevel });
  return brotliCompressSync(raw, {
    params: {
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_QUALITY]: options.brotliQuality,
      [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
}

function tooLarge(codingUsed: string | undefined, maxBytes: number): ApiError {
  const limit = `the response limit of ${maxBytes} bytes`;
  const message =
    codingUsed === undefined
      ? `The result is larger than ${limit}. Send \`Accept-Encoding: gzip\` (or br) to receive it ` +
        'compressed, or ask for less: fewer ticks or a smaller structure.'
      : `The result is larger than ${limit} even compressed with ${codingUsed}; ask for less: ` +
        'fewer ticks or a smaller structure.';
  return new ApiError('LIMIT_EXCEEDED', message);
}

/**
 * The coding to use for an Accept-Encoding header (RFC 9110 §12.5.3), or `undefined` for
 * none. q-values are honoured (`gzip;q=0` refuses gzip, `*` covers codings not listed), br
 * wins ties, and when `identity` is preferred over every coding we support, nothing is
 * compressed. A missing header means no compression: clients that can decode say so.
 */
export function chooseContentCoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const weights = parseAcceptEncoding(acceptEncoding);
  const weightOf = (coding: string): number => weights.get(coding) ?? weights.get('*') ?? 0;
  // Unlisted, identity is merely acceptable, not preferred: any acceptable coding beats it.
  const identity = weights.get('identity') ?? weights.get('*') ?? 0;
  let best: ContentCoding | undefined;
  let bestWeight = 0;
  for (const coding of ['br', 'gzip'] as const) {
    const weight = weightOf(coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  // Identity wins only when the client prefers it outright; when identity is refused
  // (`identity;q=0`) but nothing else is acceptable either, the body still goes out as is.
  return best !== undefined && bestWeight >= identity ? best : undefined;
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
