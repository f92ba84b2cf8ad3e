import { getEventListeners } from 'node:events';
/**
 * `readJsonBody` on its own: the headers and bytes a server can send, read from an in-memory
 * stream, as `fetchJson` hands them over after the status line. The HTTP round trips are in
 * fetch-json.test.ts; these pin the rules one answer at a time.
 */
import { PassThrough, Readable } from 'node:stream';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OutboundError } from '../../lib/outbound/errors';
import { JsonLinesText, readJsonBody } from '../../lib/outbound/response-body';

const SERVER = 'the server at "api.example.com"';
const GRAPH = { nodes: [{ id: 'A' }], dependencies: [] };
const GRAPH_BYTES = Buffer.from(JSON.stringify(GRAPH));

function read(
  headers: Record<string, string>,
  body: Buffer | Readable,
  options: { maxBytes?: number; signal?: AbortSignal; jsonLines?: boolean } = {},
): Promise<unknown> {
  return readJsonBody(
    { headers, body: body instanceof Readable ? body : Readable.from([body]) },
    {
      maxBytes: options.maxBytes ?? 1_000_000,
      signal: options.signal ?? new AbortController().signal,
      server: SERVER,
      ...(options.jsonLines === undefined ? {} : { jsonLines: options.jsonLines }),
    },
  );
}

async function failureOf(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => {
      throw new Error('expected an OutboundError');
    },
    (e: unknown) => e,
  );
  if (error instanceof OutboundError) return error;
  throw error;
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('Content-Type', () => {
  // The media type is read case-insensitively, with its parameters and spaces around it dropped.
  it.each([
    'application/json',
    'Application/JSON',
    ' application/json ; charset=utf-8',
    'application/problem+json',
  ])('accepts %j', async (type) => {
    await expect(read({ 'content-type': type }, GRAPH_BYTES)).resolves.toEqual(GRAPH);
  });

  // `+json` must end the subtype, and the type must be application/.
  it.each(['text/vnd.x+json', 'xapplication/vnd.x+json', 'application/vnd.x+jsonp', 'application/json5'])(
    'refuses %j',
    async (type) => {
      expect((await failureOf(read({ 'content-type': type }, GRAPH_BYTES))).code).toBe('UPSTREAM_INVALID');
    },
  );

  // Common media types are named, so the caller sees what the URL answered with.
  it.each([
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
  ])('names %s', async (type) => {
    const error = await failureOf(read({ 'content-type': `${type}; charset=utf-8` }, GRAPH_BYTES));
    expect(error.message).toBe(
      `The response from ${SERVER} has Content-Type ${type}; the URL must answer with application/json.`,
    );
  });

  // OTLP/HTTP's default encoding is protobuf: named, with the encoding that is read instead.
  it.each(['application/x-protobuf', 'application/protobuf'])(
    'names %s and says what is read instead',
    async (type) => {
      const error = await failureOf(read({ 'content-type': type }, GRAPH_BYTES));
      expect(error.message).toBe(
        `The response from ${SERVER} has Content-Type ${type} (protobuf is not read; OTLP's JSON encoding is); the URL must answer with application/json.`,
      );
    },
  );

  // Any other value was written by the server, which may have been sent the token: not repeated.
  it('does not repeat a media type it has no name for', async () => {
    const error = await failureOf(read({ 'content-type': 'application/x-secret-tok' }, GRAPH_BYTES));
    expect(error.message).toBe(
      `The response from ${SERVER} has a Content-Type that is not JSON; the URL must answer with application/json.`,
    );
  });

  // No Content-Type at all (or an empty one) is said so.
  it.each<Record<string, string>>([{}, { 'content-type': '' }])(
    'names a missing Content-Type (%j)',
    async (headers) => {
      const error = await failureOf(read(headers, GRAPH_BYTES));
      expect(error.message).toBe(
        `The response from ${SERVER} has no Content-Type; the URL must answer with application/json.`,
      );
    },
  );
});

describe('Content-Encoding', () => {
  // No coding, an empty header, or `identity`: the bytes are the JSON.
  it.each(['', 'identity', ' Identity '])('reads %j as plain bytes', async (coding) => {
    await expect(read({ ...JSON_TYPE, 'content-encoding': coding }, GRAPH_BYTES)).resolves.toEqual(GRAPH);
  });

  // `x-gzip` is gzip's old name (RFC 9110 §8.4.1.3).
  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['GZIP', gzipSync],
    ['br', brotliCompressSync],
  ])('decodes %s', async (coding, compress) => {
    await expect(read({ ...JSON_TYPE, 'content-encoding': coding }, compress(GRAPH_BYTES))).resolves.toEqual(
      GRAPH,
    );
  });

  // Only gzip and br are asked for: deflate, or two codings stacked, is the server's mistake.
  it.each(['deflate', 'gzip, br', 'compress'])('refuses %j', async (coding) => {
    const error = await failureOf(read({ ...JSON_TYPE, 'content-encoding': coding }, GRAPH_BYTES));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toBe(
      `The response from ${SERVER} uses a Content-Encoding other than the gzip or br that was asked for.`,
    );
  });

  // Bytes that are not the coding they claim: brotli's errors are named differently from gzip's.
  it.each(['gzip', 'br'])('refuses plain bytes labelled %s', async (coding) => {
    const error = await failureOf(read({ ...JSON_TYPE, 'content-encoding': coding }, GRAPH_BYTES));
    expect(error.message).toBe(
      `The response from ${SERVER} says Content-Encoding ${coding} but is not valid ${coding} data.`,
    );
  });
});

describe('the size cap', () => {
  const cap = GRAPH_BYTES.length;

  // Exactly the cap is allowed, in every coding and counted on both sides of the decoder.
  it('accepts a body of exactly the cap', async () => {
    await expect(read(JSON_TYPE, GRAPH_BYTES, { maxBytes: cap })).resolves.toEqual(GRAPH);
    const declared = { ...JSON_TYPE, 'content-length': String(cap) };
    await expect(read(declared, GRAPH_BYTES, { maxBytes: cap })).resolves.toEqual(GRAPH);
    const gzipped = gzipSync(GRAPH_BYTES);
    const gzip = { ...JSON_TYPE, 'content-encoding': 'gzip' };
    // The compressed form is longer than the JSON here, so it is the bytes on the wire that meet the cap.
    expect(gzipped.length).toBeGreaterThan(cap);
    await expect(read(gzip, gzipped, { maxBytes: gzipped.length })).resolves.toEqual(GRAPH);
  });

  // One byte over, decoded.
  it('refuses a body one byte over the cap', async () => {
    const error = await failureOf(read(JSON_TYPE, GRAPH_BYTES, { maxBytes: cap - 1 }));
    expect(error.message).toBe(`The response from ${SERVER} is larger than the limit of ${cap - 1} bytes.`);
  });

  // A compressed stream is capped on the wire too: here it decodes to exactly the cap, but
  // gzip's stored blocks and header make it longer than that to download.
  it('refuses compressed bytes over the cap even when they decode to less', async () => {
    const stored = gzipSync(GRAPH_BYTES, { level: 0 });
    const error = await failureOf(
      read({ ...JSON_TYPE, 'content-encoding': 'gzip' }, stored, { maxBytes: cap }),
    );
    expect(error.message).toContain(`larger than the limit of ${cap} bytes`);
  });

  // A declared length over the cap is refused before a byte is read, whatever the coding: the
  // wire bytes are capped too. This body never arrives, so only the header can refuse it.
  it.each(['identity', 'gzip', 'br'])(
    'refuses a declared length over the cap at once (%s)',
    async (coding) => {
      const neverEnds = new PassThrough();
      const headers = { ...JSON_TYPE, 'content-encoding': coding, 'content-length': String(cap + 1) };
      const error = await failureOf(read(headers, neverEnds, { maxBytes: cap }));
      expect(error.message).toContain(`larger than the limit of ${cap} bytes`);
    },
  );
});

// What parsing costs is the objects and arrays, not the bytes: 40,000 bytes of gzip that inflate
// to 12 MB of `{}` (4 million) would take seconds to parse, past the one for every 12 characters
// (and 100,000) a graph or span document holds. Refused unparsed; a real document of the same
// size, and braces inside its strings, are read.
describe('the objects and arrays', () => {
  it('refuses a document with more than one for every 12 characters, and 100,000', async () => {
    const bomb = `[${new Array(4_000_000).fill('{}').join(',')}]`;
    const error = await failureOf(
      read({ ...JSON_TYPE, 'content-encoding': 'gzip' }, gzipSync(bomb), { maxBytes: 64 * 1024 * 1024 }),
    );
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe(
      `The response from ${SERVER} holds more than 1100000 JSON objects and arrays, more than a graph or span document of its size holds; it was not read.`,
    );
    const spans = `[${new Array(200_000).fill('{"traceId":"a","id":"b","name":"get","tags":{"http.method":"GET"}}').join(',')}]`;
    await expect(read(JSON_TYPE, Buffer.from(spans), { maxBytes: 64 * 1024 * 1024 })).resolves.toHaveLength(
      200_000,
    );
    const quoted = `{"note":"${'{}'.repeat(4_000_000)}"}`;
    await expect(
      read(JSON_TYPE, Buffer.from(quoted), { maxBytes: 64 * 1024 * 1024 }),
    ).resolves.toHaveProperty('note');
  });
});

describe('the deadline', () => {
  // A body that stops arriving is given up on when the signal fires, in every coding.
  it.each(['identity', 'gzip'])('stops reading a stalled %s body when the signal aborts', async (coding) => {
    const stalled = new PassThrough();
    stalled.write(coding === 'gzip' ? gzipSync(GRAPH_BYTES).subarray(0, 10) : GRAPH_BYTES.subarray(0, 5));
    const deadline = new AbortController();
    const reading = read({ ...JSON_TYPE, 'content-encoding': coding }, stalled, { signal: deadline.signal });
    setTimeout(() => deadline.abort(), 20);
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
  });

  // The deadline's signal lives as long as the whole fetch, redirects included: a reading leaves
  // no listener on it, however it ends, and a signal already aborted stops it before any byte.
  it('leaves no listener on the deadline, and stops at once on one already passed', async () => {
    const deadline = new AbortController();
    for (const coding of ['identity', 'gzip']) {
      const body = coding === 'gzip' ? gzipSync(GRAPH_BYTES) : GRAPH_BYTES;
      await expect(
        read({ ...JSON_TYPE, 'content-encoding': coding }, body, { signal: deadline.signal }),
      ).resolves.toEqual(GRAPH);
      await expect(
        read({ ...JSON_TYPE, 'content-encoding': coding }, body, { signal: deadline.signal, maxBytes: 10 }),
      ).rejects.toThrow('larger than the limit');
    }
    expect(getEventListeners(deadline.signal, 'abort')).toEqual([]);
    deadline.abort();
    const stalled = new PassThrough();
    await expect(read(JSON_TYPE, stalled, { signal: deadline.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(stalled.destroyed).toBe(true);
  });
});

describe('the text', () => {
  // JSON is UTF-8; bytes that are not are refused rather than decoded into replacement characters.
  it('refuses bytes that are not UTF-8', async () => {
    const error = await failureOf(read(JSON_TYPE, Buffer.from([0x22, 0xff, 0xfe, 0x22])));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toBe(`The response from ${SERVER} is not valid UTF-8 text.`);
  });

  // A leading byte-order mark is dropped.
  it('drops a byte-order mark', async () => {
    await expect(
      read(JSON_TYPE, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), GRAPH_BYTES])),
    ).resolves.toEqual(GRAPH);
  });

  // An empty body (or only white space) is named as such; anything else as not JSON.
  it.each([
    ['', 'is empty'],
    [' \n\t', 'is empty'],
    ['{"nodes": [', 'is not valid JSON'],
  ])('names %j: %s', async (text, what) => {
    const error = await failureOf(read(JSON_TYPE, Buffer.from(text)));
    expect(error.message).toBe(`The response from ${SERVER} ${what}; expected a JSON document.`);
  });
});

describe('JSON Lines', () => {
  const LINES = '{"resourceSpans":[]}\r\n\n{"resourceSpans":[]}\n';

  // Asked for, a body of one JSON value per line comes back as its text, for the caller to read
  // line by line (lib/formats' parseJsonLines); one JSON document is parsed as before.
  it('hands over a JSON Lines body as its text', async () => {
    const body = await read(JSON_TYPE, Buffer.from(LINES), { jsonLines: true });
    expect(body).toBeInstanceOf(JsonLinesText);
    expect((body as JsonLinesText).text).toBe(LINES);
    await expect(read(JSON_TYPE, GRAPH_BYTES, { jsonLines: true })).resolves.toEqual(GRAPH);
    // One line, with a newline after it, is one JSON document.
    await expect(read(JSON_TYPE, Buffer.from('{"a":1}\n'), { jsonLines: true })).resolves.toEqual({ a: 1 });
  });

  it.each([
    'application/jsonl',
    'application/x-ndjson',
    'Application/X-NDJSON; charset=utf-8',
    'application/jsonlines',
  ])('accepts %j when asked for', async (type) => {
    const body = await read({ 'content-type': type }, Buffer.from(LINES), { jsonLines: true });
    expect(body).toBeInstanceOf(JsonLinesText);
    expect((await failureOf(read({ 'content-type': type }, Buffer.from(LINES)))).message).toBe(
      `The response from ${SERVER} has a Content-Type that is not JSON; the URL must answer with application/json.`,
    );
  });

  it('names JSON Lines among what the URL may answer, when asked for', async () => {
    const error = await failureOf(
      read({ 'content-type': 'text/html' }, Buffer.from(LINES), { jsonLines: true }),
    );
    expect(error.message).toBe(
      `The response from ${SERVER} has Content-Type text/html; the URL must answer with application/json (or JSON Lines, application/jsonl or application/x-ndjson).`,
    );
  });

  // Not asked for, or not JSON Lines: not valid JSON, as before. A document spread over lines
  // whose first line is not a value on its own is JSON with a mistake, not JSON Lines; so is one
  // line of two values.
  it.each([
    [LINES, false],
    ['{\n  "nodes": [\n', true],
    ['{"a":1} {"b":2}', true],
    ['{"a":1} x\n{"b":2}', true],
  ])('refuses %j as not valid JSON (asked for JSON Lines: %s)', async (text, jsonLines) => {
    const error = await failureOf(read(JSON_TYPE, Buffer.from(text), { jsonLines }));
    expect(error.message).toBe(
      `The response from ${SERVER} is not valid JSON; expected a JSON document${jsonLines ? ' or JSON Lines' : ''}.`,
    );
  });

  // The caps are those of any body: counted on the bytes before any line is read.
  it('keeps to the cap', async () => {
    const error = await failureOf(read(JSON_TYPE, Buffer.from(LINES), { jsonLines: true, maxBytes: 10 }));
    expect(error.code).toBe('UPSTREAM_ERROR');
  });
});
