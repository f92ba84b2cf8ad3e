/**
 * Every format, in the order `auto` tries them (the engine's own first). Adding a format is one
 * module, its fixtures and one line here.
 */
import { backstage } from './backstage';
import { cytoscape } from './cytoscape';
import { dependencyLinks } from './dependency-links';
import { jgf } from './jgf';
import { native } from './native';
import { nodeLink } from './node-link';
import { prometheus } from './prometheus';
import { jaegerTraces } from './spans/jaeger-traces';
import { otlpTraces } from './spans/otlp';
import { zipkinSpans } from './spans/zipkin-spans';
import {
  FORMAT_NAMES,
  FormatError,
  type FormatName,
  type GraphFormat,
  type MappedGraph,
  type ReadOptionName,
  type ReadOptions,
} from './types';
import { xray } from './xray';

/** @internal test/formats/registry.test.ts checks that no two formats detect one payload. */
export const FORMATS: readonly GraphFormat[] = Object.freeze([
  native,
  dependencyLinks,
  cytoscape,
  nodeLink,
  jgf,
  backstage,
  xray,
  otlpTraces,
  jaegerTraces,
  zipkinSpans,
  prometheus,
]);

/**
 * The formats whose shape the document has, in the order `auto` tries them: what `readGraph`
 * chooses among (none: it refuses the document; two: it names them, unless the first is the
 * engine's own). The CLI asks first, to leave a body no format claims to the engine's own checks.
 */
export function detectedFormats(document: unknown): FormatName[] {
  return FORMATS.filter((candidate) => candidate.detect(document)).map((candidate) => candidate.name);
}

/** A mapped document and the format that read it. */
export interface ReadGraph extends MappedGraph {
  format: FormatName;
}

/**
 * Reads `document` in `format`, or with `auto` in the format that detects it: the engine's own
 * when it does, else the one other format that does. When none does, the error says which
 * formats were tried and what the document looked like; when two do, it names them (the caller
 * picks with `format`); a forced format that does not fit names that format and the element it
 * missed. `options` say what the document does not (a span format's window and sampling rate).
 */
export function readGraph(
  document: unknown,
  format: FormatName | 'auto' = 'auto',
  options?: ReadOptions,
): ReadGraph {
  if (format !== 'auto') {
    const chosen = FORMATS.find((candidate) => candidate.name === format)!;
    if (!chosen.detect(document)) {
      // Mapping it anyway names the first element that does not fit, in the format's own words.
      let mapped: MappedGraph;
      try {
        mapped = chosen.toStructure(document, options);
      } catch (error) {
        if (error instanceof FormatError && !error.reportedBySource) {
          throw new FormatError(error.path, `not ${format}: ${messageOf(error)}`);
        }
        throw error;
      }
      // An empty answer the format reads (Jaeger's `{ data: [] }`, Zipkin's `[]`), which its
      // detection leaves alone since another format's empty answer looks the same: named, it is
      // this format's.
      if (mapped.nodes.length === 0) return withOptionWarnings(chosen, mapped, options);
      throw new FormatError('', `not ${format}: the document does not have its shape (${shapeOf(document)})`);
    }
    return read(chosen, document, options);
  }
  const claiming = FORMATS.filter((candidate) => candidate.detect(document));
  // The engine's own format is exact (both arrays present) and always wins; among the others a
  // document two of them claim (it carries, say, both `elements` and `graphs`) is not guessed at.
  const chosen =
    claiming[0]?.name === 'native' ? claiming[0] : claiming.length === 1 ? claiming[0] : undefined;
  if (chosen !== undefined) return read(chosen, document, options);
  if (claiming.length > 1) {
    throw new FormatError(
      '',
      `the document fits more than one format (${claiming.map((candidate) => candidate.name).join(', ')}): ${shapeOf(document)}; send "format" to say which`,
    );
  }
  throw new FormatError(
    '',
    `no known format fits this document (${shapeOf(document)}); tried ${FORMAT_NAMES.join(', ')}`,
  );
}

/** The document in `format`, with a warning for each option given that the format does not read. */
function read(format: GraphFormat, document: unknown, options: ReadOptions | undefined): ReadGraph {
  return withOptionWarnings(format, format.toStructure(document, options), options);
}

/** `mapped`, read in `format`, with a warning for each option given that the format does not read. */
function withOptionWarnings(
  format: GraphFormat,
  mapped: MappedGraph,
  options: ReadOptions | undefined,
): ReadGraph {
  const unread = (Object.keys(options ?? {}) as ReadOptionName[]).filter(
    (name) => options![name] !== undefined && !(format.reads ?? []).includes(name),
  );
  if (unread.length === 0) return { format: format.name, ...mapped };
  const reads = format.reads ?? [];
  const warning = `${unread.length === 1 ? 'the option' : 'the options'} ${unread.join(' and ')} ${unread.length === 1 ? 'is' : 'are'} not read by the ${format.name} format (${reads.length === 0 ? 'it reads none' : `it reads ${reads.join(' and ')}`}): ignored`;
  return { format: format.name, ...mapped, warnings: [...mapped.warnings, warning] };
}

function messageOf(error: FormatError): string {
  return error.path === '' ? error.message : error.message.slice(error.path.length + 2);
}

/** What the document looked like, for an error: its type, or an object's first top-level keys. */
function shapeOf(document: unknown): string {
  if (Array.isArray(document)) {
    const first = document[0];
    return document.length === 0
      ? 'an empty array'
      : `an array of ${document.length}, the first ${typeof first === 'object' && first !== null ? `with keys ${keysOf(first)}` : typeof first}`;
  }
  if (typeof document === 'object' && document !== null) return `an object with keys ${keysOf(document)}`;
  return document === null ? 'null' : `a ${typeof document}`;
}

function keysOf(value: object): string {
  const keys = Object.keys(value);
  if (keys.length === 0) return '(none)';
  const shown = keys.slice(0, 8).map((key) => JSON.stringify(key.length > 30 ? `${key.slice(0, 29)}…` : key));
  return `${shown.join(', ')}${keys.length > 8 ? `, … (${keys.length} in all)` : ''}`;
}
