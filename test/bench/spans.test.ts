/**
 * The documents `npm run bench -- --only=spans` serves: each is read by its own format only, as
 * the topology it was generated from, and the largest within a size is exactly that (one more
 * request would not fit). The registrations themselves are the bench's to run.
 */
import { describe, expect, it } from 'vitest';
import { encode, lambdaHeapFlags, largestWithin, type SpanDocument } from '../../bench/spans';
import { detectedFormats, parseJsonLines, readGraph } from '../../lib/formats';

const FORMATS: Record<SpanDocument, string> = {
  'OTLP JSON': 'otlp-traces',
  'OTLP JSON Lines': 'otlp-traces',
  'Jaeger traces': 'jaeger-traces',
  'Zipkin v2': 'zipkin-spans',
};

describe.each(Object.entries(FORMATS) as Array<[SpanDocument, string]>)(
  'the bench document %s',
  (document, format) => {
    it('is the largest of whole requests within the size, detected by its own format only', () => {
      const bytes = 300_000;
      const { body, spans, requests } = largestWithin(document, bytes);
      expect(body.length).toBeLessThanOrEqual(bytes);
      expect(encode(document, requests + 1).body.length).toBeGreaterThan(bytes);
      // 11 spans a request (frontend, two calls on api, one on auth, api's on db).
      expect(spans).toBe(requests * 11);
      const text = body.toString('utf8');
      const parsed = document === 'OTLP JSON Lines' ? parseJsonLines(text) : JSON.parse(text);
      expect(detectedFormats(parsed)).toEqual([format]);
      const mapped = readGraph(parsed, 'auto', { window: 86_400 });
      expect(mapped.nodes.map((node) => node.id)).toEqual(['frontend', 'api', 'db', 'auth']);
      expect(mapped.dependencies.map((d) => [d.from, d.to, d.weight])).toEqual([
        ['frontend', 'api', 2],
        ['api', 'db', 1],
        ['frontend', 'auth', 1],
      ]);
    });
  },
);

describe('the heap flags of a registration', () => {
  // As Lambda's Node.js bootstrap derives them: a tenth of the memory for the young generation.
  it('are those the connect function gets for 1,024 MB', () => {
    expect(lambdaHeapFlags(1024)).toEqual(['--max-semi-space-size=51', '--max-old-space-size=922']);
  });
});
