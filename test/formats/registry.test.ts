/**
 * The registry over every real payload: each is detected by exactly one format (never two), and
 * `auto` reads it in that format; what no format reads gets the error that says what was tried.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileStructure, PayloadError } from '../../lib/engine';
import { FORMAT_NAMES, FormatError, parseJsonLines, readGraph } from '../../lib/formats';
import { FORMATS } from '../../lib/formats/registry';

const fixtures = join(import.meta.dirname, 'fixtures');
// `.jsonl` (the Collector's file exporter) as connect and the CLI read it: one value per line.
const documents = readdirSync(fixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((folder) =>
    readdirSync(join(fixtures, folder.name))
      .filter((file) => file.endsWith('.json') || file.endsWith('.jsonl'))
      .map((file) => {
        const text = readFileSync(join(fixtures, folder.name, file), 'utf8');
        return {
          folder: folder.name,
          file,
          document: (file.endsWith('.jsonl') ? parseJsonLines(text) : JSON.parse(text)) as unknown,
        };
      }),
  );
const fixture = (folder: string, file: string) =>
  documents.find((entry) => entry.folder === folder && entry.file === file)!.document as Record<
    string,
    unknown
  >;

describe('the format registry', () => {
  it('lists every format once, the engine own first', () => {
    expect(FORMAT_NAMES[0]).toBe('native');
    expect(new Set(FORMAT_NAMES).size).toBe(FORMAT_NAMES.length);
    expect([...FORMAT_NAMES].sort()).toEqual(
      [
        'backstage',
        'cytoscape',
        'dependency-links',
        'jaeger-traces',
        'jgf',
        'native',
        'node-link',
        'otlp-traces',
        'prometheus',
        'xray',
        'zipkin-spans',
      ].sort(),
    );
    // The list the API names (kept apart from the modules) is the registry's, in its order.
    expect(FORMATS.map((format) => format.name)).toEqual(FORMAT_NAMES);
  });

  // An option the format does not read changes nothing and is said to be ignored.
  it('warns of options the format does not read', () => {
    const links = { data: [{ parent: 'a', child: 'b', callCount: 1 }] };
    const plain = readGraph(links);
    const given = readGraph(links, 'auto', { labels: { from: 'a', to: 'b' } });
    expect(given.nodes).toEqual(plain.nodes);
    expect(given.warnings).toEqual([
      ...plain.warnings,
      'the option labels is not read by the dependency-links format (it reads window and sampleRate): ignored',
    ]);
    const xray = [{ ReferenceId: 1, Name: 'web', Edges: [] }];
    expect(readGraph(xray, 'auto', { window: 60, sampleRate: 0.5 }).warnings).toContain(
      'the option sampleRate is not read by the xray format (it reads window): ignored',
    );
    expect(readGraph(links, 'auto', { window: undefined }).warnings).toEqual(plain.warnings);
  });

  it.each(documents.map((entry) => [`${entry.folder}/${entry.file}`, entry]))(
    '%s is detected by exactly its own format',
    (_name, entry) => {
      const detecting = FORMATS.filter((format) => format.detect(entry.document)).map(
        (format) => format.name,
      );
      expect(detecting).toEqual([entry.folder]);
    },
  );

  // A document no format reads: the error lists what was tried and what the document looked like.
  it('says what it tried when nothing fits', () => {
    expect(() => readGraph({ services: [], version: 2 })).toThrow(FormatError);
    expect(() => readGraph({ services: [], version: 2 })).toThrow(
      'no known format fits this document (an object with keys "services", "version"); tried ' +
        FORMAT_NAMES.join(', '),
    );
    expect(() => readGraph([1, 2])).toThrow(/an array of 2, the first number/);
    expect(() => readGraph('text')).toThrow(/\(a string\)/);
  });

  // A Cytoscape graph and a JGF graph in one document: two formats claim it, so `auto` names both
  // instead of guessing, and `format` picks one.
  it('names the formats when two claim a document', () => {
    const document = {
      elements: { nodes: [{ data: { id: 'a' } }], edges: [] },
      graphs: [{ nodes: [{ id: 'b' }], edges: [] }],
    };
    expect(() => readGraph(document)).toThrow(
      'the document fits more than one format (cytoscape, jgf): an object with keys "elements", "graphs"; send "format" to say which',
    );
    expect(readGraph(document, 'jgf').nodes).toEqual([{ id: 'b' }]);
    expect(readGraph(document, 'cytoscape').nodes).toEqual([{ id: 'a' }]);
  });

  // The span and metric formats too: an OTLP export carrying a Jaeger answer's `data`, or a
  // Prometheus result's fields, is claimed by both and named, never guessed at.
  it('names the span and metric formats when two claim a document', () => {
    const otlp = fixture('otlp-traces', 'otel-proto-examples-trace.json');
    const jaeger = fixture('jaeger-traces', 'jaeger-ui-trace-graph-test-trace.json');
    const up = fixture('prometheus', 'prometheus-docs-instant-query-up.json');
    const both = { resourceSpans: otlp.resourceSpans, data: [jaeger] };
    expect(() => readGraph(both)).toThrow(
      'the document fits more than one format (otlp-traces, jaeger-traces): an object with keys "resourceSpans", "data"; send "format" to say which',
    );
    expect(readGraph(both, 'jaeger-traces').format).toBe('jaeger-traces');
    expect(readGraph(both, 'otlp-traces').format).toBe('otlp-traces');
    const metrics = { ...(up.data as object), resourceSpans: otlp.resourceSpans };
    expect(() => readGraph(metrics)).toThrow(
      'the document fits more than one format (otlp-traces, prometheus): an object with keys "resultType", "result", "resourceSpans"; send "format" to say which',
    );
  });

  // A named format that does not fit says so, with the element it missed.
  it('names the forced format that does not fit', () => {
    expect(() => readGraph({ nodes: [], dependencies: [] }, 'xray')).toThrow(/^not xray: /);
    expect(() => readGraph({ data: null }, 'jaeger-traces')).toThrow(
      'data: not jaeger-traces: must be an array of traces or a trace, got null',
    );
  });

  // An empty answer that two formats share (Jaeger's traces and links both answer `{ data: [] }`
  // for a quiet window; Zipkin's spans and links both `[]`) is not detected, and so not read
  // without a name; named, it is that format's, with nothing in it.
  it('reads an empty answer in the format named', () => {
    const quiet = { data: [], total: 0, limit: 0, offset: 0, errors: null };
    expect(readGraph(quiet, 'jaeger-traces')).toMatchObject({
      format: 'jaeger-traces',
      nodes: [],
      dependencies: [],
      warnings: ['no spans in the document'],
    });
    expect(readGraph([], 'zipkin-spans')).toMatchObject({ format: 'zipkin-spans', nodes: [] });
    expect(readGraph(quiet, 'dependency-links')).toMatchObject({ format: 'dependency-links', nodes: [] });
    expect(readGraph([], 'dependency-links')).toMatchObject({ format: 'dependency-links', nodes: [] });
  });
});

// Documents built to sit between formats: fixtures' top-level fields mixed, a fixture's
// fields dropped or joined by another's, whole fixtures wrapped or listed. However they are
// put together, at most one format claims a document.
describe('detection on documents between formats', () => {
  const objects = documents
    .map((entry) => entry.document)
    .filter(
      (document): document is Record<string, unknown> =>
        typeof document === 'object' && document !== null && !Array.isArray(document),
    );
  const fields = objects.flatMap((document) => Object.entries(document));
  const anyFixture = fc.constantFrom(...documents.map((entry) => entry.document));
  const mixed = fc.oneof(
    // Some fields of several fixtures, in one object.
    fc
      .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: 6, selector: ([key]) => key })
      .map((entries) => Object.fromEntries(entries)),
    // One fixture with fields dropped and others added.
    fc
      .tuple(
        fc.constantFrom(...objects),
        fc.array(fc.boolean(), { maxLength: 12 }),
        fc.array(fc.constantFrom(...fields), { maxLength: 3 }),
      )
      .map(([document, keep, added]) => ({
        ...Object.fromEntries(Object.entries(document).filter((_, i) => keep[i] ?? true)),
        ...Object.fromEntries(added),
      })),
    // Fixtures put in a list, or under a field.
    fc.array(anyFixture, { minLength: 1, maxLength: 3 }),
    fc
      .tuple(
        fc.constantFrom('data', 'graph', 'elements', 'items', 'Services', 'nodes', 'payload'),
        anyFixture,
      )
      .map(([key, document]) => ({ [key]: document })),
    // The first elements of one fixture's lists, under another's keys.
    fc
      .tuple(fc.constantFrom(...fields), fc.constantFrom(...fields))
      .map(([[key], [, value]]) => ({ [key]: value })),
    fc.jsonValue(),
  );

  // Real tools never mix two formats' fields; a document that does is named, not guessed at.
  // Whatever it is, reading it gives a structure the engine accepts or a FormatError, never a
  // crash, and `auto` never chooses between two formats that claim it.
  it('reads one format, refuses a mix by name, and never crashes', () => {
    fc.assert(
      fc.property(mixed, (document) => {
        const claiming = FORMATS.filter((format) => format.detect(document)).map((format) => format.name);
        let read: ReturnType<typeof readGraph> | undefined;
        try {
          read = readGraph(document);
        } catch (error) {
          if (!(error instanceof FormatError)) throw error;
          if (claiming.length > 1 && claiming[0] !== 'native')
            expect(error.message).toContain(`fits more than one format (${claiming.join(', ')})`);
          return;
        }
        expect(claiming[0] === 'native' || claiming.length === 1, claiming.join(', ')).toBe(true);
        expect(read.format).toBe(claiming[0]);
        try {
          compileStructure(read);
        } catch (error) {
          // A structure the engine refuses (connect answers 422 naming the element).
          if (!(error instanceof PayloadError)) throw error;
        }
      }),
      { numRuns: 2000 },
    );
  });

  // Each format alone on the same documents: its mapping either fits or throws a FormatError.
  it.each(FORMAT_NAMES.map((name) => [name]))('%s maps or refuses any of them by name', (name) => {
    const format = FORMATS.find((candidate) => candidate.name === name)!;
    fc.assert(
      fc.property(mixed, (document) => {
        try {
          compileStructure(format.toStructure(document));
        } catch (error) {
          if (!(error instanceof FormatError) && !(error instanceof PayloadError)) throw error;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("a source's own error, read in the format named", () => {
  // A stored Jaeger system's refresh reads in its format; the query answering with its outage
  // (`errors`, nothing read) is that format's answer, refused with Jaeger's words, not said
  // "not jaeger-traces".
  it.each(['jaeger-traces', 'dependency-links', 'auto'] as const)(
    'refuses it in %s with its words alone',
    (format) => {
      for (const document of [
        { data: null, total: 0, limit: 0, offset: 0, errors: [{ code: 500, msg: 'storage unavailable' }] },
        { data: [], errors: [{ code: 500, msg: 'storage unavailable' }] },
      ]) {
        let refused: unknown;
        try {
          readGraph(document, format);
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(FormatError);
        expect((refused as FormatError).message).toBe(
          'errors[0]: the source answered with an error (code 500): "storage unavailable"',
        );
      }
    },
  );
});
