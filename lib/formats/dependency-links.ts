/**
 * Dependency links: Jaeger's `GET /api/dependencies` (`{ data: [{ parent, child, callCount }],
 * total, limit, offset, errors }`, or its bare `data` array as the Jaeger UI serves it), Zipkin
 * v2's `GET /api/v2/dependencies` (a bare array of `{ parent, child, callCount?, errorCount? }`)
 * and Jaeger v3's `GET /api/v3/dependencies` (`{ dependencies: [...] }`).
 *
 * Mapping rules and decisions:
 * - Nodes are the parent and child names, in the order first seen (each link's parent before its
 *   child, links in document order). A link from a name to itself is a self-call.
 * - Links for the same parent and child are merged (by `callGraphStructure`, as for every call
 *   graph): their `callCount`s are added, and so is every other field that is a number in both
 *   (`errorCount`); any other field keeps its first value.
 * - `callGraphStructure` maps the calls (every service fan-out, entries get `arrival`, weight =
 *   calls per request the caller processes), so the steady throughput reproduces the counts. A
 *   cycle that nothing outside it calls has no entry there: the member with its busiest call
 *   (ties: the first seen) is made its entry (`closedCycleEntries`), with a warning.
 * - Links count calls, never the requests a service takes, so every entry's arrival is the
 *   call-graph estimate: the largest count among its calls, a lower bound on its requests (the
 *   weights of its calls upper bounds), named in a warning.
 * - The source's fields stay on the dependency (`callCount`, `errorCount`, v3's `source`, …),
 *   but not `parent` and `child` (they are `from` and `to`); a field the engine owns on a
 *   dependency (`from`, `to`, `weight`, `flow`) is kept as `original_<name>` with a warning, as
 *   every format keeps them.
 * - Unit: the counts cover a window the answer does not state (Jaeger's `endTs`/`lookback` are
 *   query parameters), so one step is that window: `unit: 'window'`. Given that window's length
 *   (`ReadOptions.window`, seconds: the lookback asked for), every count is divided by it and one
 *   step is one second (`unit: 'second'`), so service times and SLOs in seconds mean what they
 *   say. The links are counted from the spans the tracer kept: given the share it kept
 *   (`ReadOptions.sampleRate`), every count is divided by it too. The counts kept on the
 *   dependencies (`callCount`, `errorCount`) stay as sent.
 * - A missing or null `callCount` is 0 (no traffic): `callGraphStructure` leaves the link out,
 *   with a warning. A missing or null `errorCount` is 0, as Zipkin omits it when 0. An
 *   `errorCount` above `callCount` is kept as sent (Zipkin's own test data has one).
 * - Counts may be JSON numbers, or strings of decimal digits: proto3's JSON mapping writes
 *   Jaeger v3's `uint64 call_count` as a string ("12"). Digits alone are unambiguous, so any
 *   link may use them; anything else in a string ("1e3", "-1", "12.5", " 12") is refused.
 * - Jaeger's `errors` (`jaeger-envelope.ts`): an error with no links (`data` null or empty) is the
 *   source reporting a failure, a `FormatError` at `errors[0]`; an error beside links, a warning.
 * - An empty answer with no error (`{ data: [] }`, `{ dependencies: [] }`) is valid: no nodes,
 *   and a warning.
 *   A bare empty array is not detected (every format with a bare array could claim it).
 * - Detection: a bare array, `data` or `dependencies` (with no `nodes` beside it, which is the
 *   engine's own format) whose first elements are objects with string `parent` and `child`; an
 *   empty or failed answer only when the object holds nothing but the envelope's fields.
 */
import { callGraphStructure, type ObservedCall } from './call-graph';
import { envelopeErrors, isFailedAnswer, onlyEnvelopeKeys } from './jaeger-envelope';
import { copyExtras, DEPENDENCY_FIELDS, describeValue, isRecord, type Renamed, renameWarnings } from './text';
import { FormatError, type GraphFormat } from './types';
import { countScale, refuseScaledPastTheTotal, scaledCount } from './window';

/** What the window is the length of, in the options' messages. */
const COUNTED = 'links were counted';

/** How many leading elements `detect` looks at. */
const DETECT_SAMPLE = 3;
const LINK_NAMES = ['parent', 'child'];
const DIGITS = /^[0-9]+$/;

function looksLikeLink(value: unknown): boolean {
  return isRecord(value) && typeof value.parent === 'string' && typeof value.child === 'string';
}

function leadingLinks(list: readonly unknown[]): boolean {
  if (list.length === 0) return false;
  for (let i = 0; i < Math.min(list.length, DETECT_SAMPLE); i++) if (!looksLikeLink(list[i])) return false;
  return true;
}

/** The links and the path they sit at (`''` for a bare array), when the document has them. */
function linksOf(document: unknown): { links: readonly unknown[]; at: string } | undefined {
  if (Array.isArray(document)) return { links: document, at: '' };
  if (!isRecord(document)) return undefined;
  if (Array.isArray(document.data)) return { links: document.data, at: 'data' };
  if (Array.isArray(document.dependencies) && !Object.hasOwn(document, 'nodes'))
    return { links: document.dependencies, at: 'dependencies' };
  return undefined;
}

export const dependencyLinks: GraphFormat = {
  name: 'dependency-links',
  detect(document) {
    if (Array.isArray(document)) return leadingLinks(document);
    if (!isRecord(document)) return false;
    if (Array.isArray(document.data)) {
      return document.data.length === 0 ? onlyEnvelopeKeys(document) : leadingLinks(document.data);
    }
    if (Array.isArray(document.dependencies) && !Object.hasOwn(document, 'nodes')) {
      return document.dependencies.length === 0
        ? Object.keys(document).length === 1
        : leadingLinks(document.dependencies);
    }
    return isFailedAnswer(document);
  },
  reads: ['window', 'sampleRate'],
  toStructure(document, options) {
    const scale = countScale(options);
    const found = linksOf(document);
    if (found === undefined) {
      envelopeErrors(document, 0, 'links');
      if (isRecord(document) && Object.hasOwn(document, 'data'))
        throw new FormatError('data', `must be an array of links, got ${describeValue(document.data)}`);
      throw new FormatError(
        '',
        'expected an array of { parent, child, callCount } links, or an object holding one under "data" or "dependencies"',
      );
    }
    const { links, at } = found;
    const order: string[] = [];
    const seen = new Set<string>();
    const renamed: Renamed = new Map();
    const see = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      order.push(name);
    };
    const calls: ObservedCall[] = links.map((link, i) => {
      const path = `${at}[${i}]`;
      if (!isRecord(link))
        throw new FormatError(
          path,
          `must be an object with "parent" and "child", got ${describeValue(link)}`,
        );
      const parent = nameAt(link, 'parent', path);
      const child = nameAt(link, 'child', path);
      const count = countAt(link, 'callCount', path);
      const extra: Record<string, unknown> = {};
      copyExtras(extra, link, LINK_NAMES, DEPENDENCY_FIELDS, renamed, 'link');
      extra.callCount = count;
      if (link.errorCount !== undefined) extra.errorCount = countAt(link, 'errorCount', path);
      see(parent);
      see(child);
      return { from: parent, to: child, count: scaledCount(count, scale, COUNTED), extra, path };
    });

    const mapped = callGraphStructure({ nodes: order.map((id) => ({ id })), calls });
    refuseScaledPastTheTotal(mapped.nodes, scale, COUNTED);
    const warnings = envelopeErrors(document, links.length, 'links');
    if (links.length === 0) warnings.push('no dependencies in the window');
    warnings.push(...mapped.warnings, ...renameWarnings(renamed));
    return {
      nodes: mapped.nodes,
      dependencies: mapped.dependencies,
      unit: scale.window === undefined ? 'window' : 'second',
      warnings,
    };
  },
};

function nameAt(link: Record<string, unknown>, key: string, path: string): string {
  const value = link[key];
  if (typeof value !== 'string' || value === '')
    throw new FormatError(`${path}.${key}`, `must be a non-empty string, got ${describeValue(value)}`);
  return value;
}

/** A count: a finite number >= 0, or a string of decimal digits; missing or null is 0. */
function countAt(link: Record<string, unknown>, key: string, path: string): number {
  const value = link[key];
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string' && DIGITS.test(value)) return Number(value);
  throw new FormatError(`${path}.${key}`, `must be a finite number >= 0, got ${describeValue(value)}`);
}
