/**
 * Spans onto the open model: one rule for every span format (OTLP, Jaeger, Zipkin). Each format
 * module reads its own document into a list of `SourceSpan`s (ids, parent, service, kind,
 * times in nanoseconds, error, the remote service a span names) and this module maps that list;
 * no format decides anything below on its own.
 *
 * Mapping rules and decisions:
 * - **Nodes are services**, in the order of their first span in the document, then the services
 *   that spans only name as the remote end of a call (below), in the order first named.
 * - **Parents.** A span's parent is the span of the same trace with the id it names (ids that are
 *   hex digits compare without regard to case; an empty id, or one of zeros, is no id: nothing
 *   can name that span as its parent, and a parent id of zeros makes a root). A parent id that no span
 *   of the document has makes the span an **orphan**: the trace is incomplete (spans sampled out,
 *   lost, or outside the query), so the orphan is taken as a request entering its service, and a
 *   warning counts them; but spans of one service other than server and consumer spans that name
 *   one missing parent are the work of one request, given a span standing for the missing one
 *   (`withMissingParents`). Parent links that go round in a circle are cut at the span that comes
 *   first in the document, which becomes an entry point too (warning).
 * - **Repeated span ids.** In one trace, a server or consumer span that shares its id with a
 *   client or producer span is the other half of one RPC (Zipkin's `shared` span; Jaeger before
 *   its `SpanIDDeduper` adjuster): its parent is that client half. A span naming a repeated id as
 *   its parent gets the span of its own service among them, else the server half, else the first
 *   one in the document. Any other repeat of an id is kept as a span of its own (warning),
 *   except an **exact repeat**: a span equal to an earlier one of its trace and id in every field
 *   read here (parent, service, kind, start, end, error, remote service, `FOLLOWS_FROM`, and a
 *   Zipkin span's `part`) is that span reported twice (an exporter's retry, a query reading two
 *   writes of it) and is read once (warning), as Jaeger's query deduplicates spans with equal
 *   hashes. A span without an id cannot be told from another, so a repeat of one still counts.
 * - **Spans reported in parts** (Zipkin only: a reader gives `part` where its format does this;
 *   Brave's `flush()` reports a span it has not finished, and the finish reports the rest). A
 *   span that repeats its trace and id with the same service and shared flag, whose every field
 *   either agrees with an earlier span of that id or is missing from one of the two (kind,
 *   parent, remote service, timestamp, duration, the local address and port), and that is not
 *   an exact repeat, is a part of that span: the two are merged into one, in the place of the
 *   first, each missing field taken from the other and in error if either part is (warning), as
 *   Zipkin's own `Trace.merge` merges the parts of a span. Two spans that disagree in any field
 *   stay two spans (instrumentation reusing an id; two servers behind a retrying proxy sharing
 *   one, told apart by their addresses), and a server half (`shared`) never merges with its
 *   client half. Only the first eight spans of an id are looked at, so an id repeated a
 *   million times costs a million short looks, not a million squared.
 * - **Entry spans.** An entry span of a service is one whose parent is absent or belongs to
 *   another service: a request the service took. A server or consumer span whose parent is a
 *   client or producer span of its own service is an entry span too (the service called itself:
 *   a self-dependency); otherwise spans whose parent is in their own service are its internal
 *   work (handlers, database statements, its client spans).
 * - **Calls.** Every entry span whose parent is in service A is a call from A on its service B
 *   (the parent may be A's client or producer span, or any span of A when A had no client
 *   instrumentation). A client or producer span that no traced span answers (no entry span
 *   below it: straight under it, or under the caller's own spans below it, such as the HTTP
 *   client span an SDK's client span wraps, of the service it names when it names one) but that names its remote service (Zipkin's `remoteEndpoint.serviceName`, the
 *   `peer.service` tag or attribute) is a call on that service: a service the document has no
 *   span of (a database, a broker, a SaaS) becomes a node with `external: true` (a default
 *   capacity never reaches it); a call naming a traced service whose span is missing is counted
 *   on it all the same, as a request it took untraced (sampled out, an uninstrumented route),
 *   with a warning. A client span that reaches nothing and names nothing
 *   draws no dependency (warning), unless it is itself an entry span: HotROD reports its Redis
 *   and MySQL calls as services of their own, whose requests are such client spans.
 * - **Dependencies** come in the order the document first shows each call (the callee's entry
 *   span, or the client span that names a service nothing traced), one per pair of services.
 * - **Fan-out.** Every node is `fanout: true` (a request completes where it is processed and
 *   becomes calls on the callees), with no `exit`: that is how `call-graph.ts` and every call-graph
 *   format complete requests, and the engine refuses `exit` on a fan-out node. A dependency's
 *   `weight` is the calls from A on B divided by A's requests (its entry spans, and the calls on A
 *   seen only from their callers): calls per request A processes.
 * - **Arrivals.** A service's `arrival` is its entry spans without a parent in the document (roots,
 *   orphans, cut circles) divided by the window in seconds, and divided again by the sampling
 *   rate (`ReadOptions.sampleRate`) to count the traces sampling dropped. Every other entry span
 *   of the service is a call from another service, so with these arrivals the engine's steady
 *   throughput of every service is its requests per second (entry spans, and calls on it seen
 *   only from the caller) and the throughput of every dependency its calls per second, exactly
 *   the counts observed (a sampling rate scales them all alike). Weights are ratios and are not scaled.
 * - **The window** is `ReadOptions.window` (seconds) when the caller knows it (the query's
 *   lookback, a file's period); one step is one second (`unit: 'second'`). Without it, it is the
 *   time from the first request's start to the last one's end (requests: the entry spans that
 *   take arrivals), named in a warning: a short sample overstates the rate a little, since the
 *   traffic went on before and after it. When those requests carry no times, or their times span
 *   no time at all, the counts are per document (`unit: 'window'`), and no `serviceTime` is given
 *   (a second is not a step then).
 * - **`serviceTime`** (seconds) is the mean **self time** of the service's timed entry spans: the
 *   span's duration (a consumer span's until the last of its service's own spans below it ends:
 *   Brave's Kafka `poll` span lasts a microsecond, the message's processing is a local span under
 *   it) less the time covered by the calls it waited for. Those are, among its own
 *   spans below it (its children, and theirs, down to where another service's span starts): the
 *   client and producer spans, and spans of no stated kind that have a child in another service
 *   that is no consumer span nor linked as `FOLLOWS_FROM` (Jaeger without a `span.kind` tag, a
 *   Zipkin local span: they are its client side); and where a span of its own
 *   (the entry span included) has another service's span as a direct child without a client span
 *   between them, that child's span. Overlapping calls count once (the union of their
 *   intervals), and only the part inside the entry span counts: a call that reaches outside it
 *   (clock skew between hosts, a call left running) is cut to it, and a warning counts them, so a
 *   self time is never negative. A call linked as `FOLLOWS_FROM` (Jaeger), or a consumer span
 *   straight under a span of the request (OpenTelemetry's child of an asynchronous request), made
 *   nobody wait and covers nothing, but a client or producer span before it still does. No `servers`, no
 *   capacity: a measured self time says nothing about how many instances serve the requests.
 *   A service none of whose entry spans is timed, or whose self times are all 0, gets none
 *   (warning). A service named only by its callers' client spans (`external: true`) gets the
 *   mean duration of those calls as its `serviceTime` (and `observedLatency`): the time its
 *   callers waited for it, network included, which their self times leave out, so that an entry's
 *   latency through it is not short by that much.
 * - **Errors.** `errorRate` on a node is its entry spans in error (OTLP status `ERROR`, Jaeger's
 *   `error` tag, Zipkin's `error` tag) over its entry spans; `entrySpans` is how many there were
 *   in the document (before any sampling scale). A dependency keeps `callCount` and `errorCount`
 *   (a call whose client span or whose callee's entry span is in error), as dependency links do.
 * - **Observed latencies** (`observedLatency`, `statistic: 'mean'`, `unit: 'second'`, as X-Ray's):
 *   on a node the mean duration of its timed entry spans (waiting and downstream calls
 *   included), on a dependency the mean duration of the calls as the caller saw them (its client
 *   or producer span, or the span of no stated kind the call went through; else, where the caller
 *   had no client span, the callee's entry span). Never a `serviceTime` (see docs/connect.md).
 * - **Repeats in words.** Every warning counts what it found and names the first element's path
 *   (`data[0].spans[3].references[0].spanID`), so a million orphans are one line.
 * - **Times.** Readers give nanoseconds since the epoch as BigInt (OTLP's nanoseconds pass 2^53,
 *   so they are never rounded to a double); offsets from the earliest start are exact doubles
 *   below 2^53 ns (104 days). A span without a start or an end (a Zipkin span reported late, a
 *   Jaeger v3 snapshot) counts as a request or a call, but not in the times (warning); a span
 *   that ends before it starts lasts 0 (warning).
 *
 * Worked example (the test `test/formats/spans/topology.test.ts` builds it in every format): over
 * a window of 10 s, `frontend` takes 100 requests. Each lasts 50 ms; it calls `api` twice, at
 * 5–20 ms and 25–40 ms, and `auth` once at 10–15 ms (during the first `api` call). Each `api`
 * request lasts 14 ms and calls `db` once for 6 ms; `db` takes 5 ms, `auth` 4 ms. Then:
 * frontend's calls cover 5–20 and 25–40 ms (`auth` overlaps the first), 30 ms, so its self time
 * is 20 ms; api's is 14 − 6 = 8 ms; db's 5 ms, auth's 4 ms. Nodes: `frontend` `arrival` 100 / 10 =
 * 10, `serviceTime` 0.02; `api` 0.008; `db` 0.005; `auth` 0.004. Weights: frontend → api 200 /
 * 100 = 2, frontend → auth 100 / 100 = 1, api → db 200 / 200 = 1. The engine's steady throughputs
 * are then frontend 10, api 20, auth 10, db 20 requests a second: the spans observed, per second.
 */
import type { DependencyInput, NodeInput } from '../../engine/types';
import { plural, quote } from '../text';
import type { MappedGraph, ObservedLatency, ReadOptions } from '../types';
import { countScale, refuseScaledPastTheTotal } from '../window';

export type SpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

/** One span as a format module reads it, in the format's own document order. */
export interface SourceSpan {
  /** The trace id as sent (`''` when the span has none). */
  trace: string;
  /** The span id as sent (`''`, or zeros, when it has none: nothing can name it as a parent). */
  id: string;
  /** The parent's span id; absent or `''` for a root. */
  parent?: string | undefined;
  /**
   * Where the parent is named, after `path` (`.references[0].spanID`), for the orphan warning
   * (a suffix, so a million spans do not each build their field's path).
   */
  parentField?: string | undefined;
  /** The parent link is Jaeger's `FOLLOWS_FROM`: the parent did not wait for this span. */
  follows?: boolean | undefined;
  /** The service the span belongs to (non-empty). */
  service: string;
  /** The span's kind; absent when the source does not say (OTLP `UNSPECIFIED`, no tag). */
  kind?: SpanKind | undefined;
  /** Start and end, nanoseconds since the epoch; either absent when the span is not timed. */
  start?: bigint | undefined;
  end?: bigint | undefined;
  error: boolean;
  /** The remote service the span names as the other end of its call, when it names one. */
  peer?: string | undefined;
  /** The span's path in the document (`resourceSpans[0].scopeSpans[0].spans[4]`). */
  path: string;
  /**
   * What a format whose spans may come in parts (Zipkin) says of the span beyond the fields
   * above, to merge the parts (see "Spans reported in parts" above); absent in other formats.
   */
  part?: SpanPart | undefined;
}

/** A span's fields as one part of it was sent, each possibly missing (`SourceSpan.part`). */
export interface SpanPart {
  /** Zipkin's `shared`: the server half of an RPC whose id its client half has. */
  shared: boolean;
  /** Nanoseconds since the epoch, and the duration in nanoseconds, as the part sent them. */
  timestamp?: bigint | undefined;
  duration?: bigint | undefined;
  /** The local endpoint's address and port, which tell two servers sharing one id apart. */
  ipv4?: string | undefined;
  ipv6?: string | undefined;
  port?: number | undefined;
}

export interface SpanNotes {
  /** The field a span names its remote service by, in the format's words, for a warning. */
  peerField: string;
  /** What the reader found worth saying (unnamed services, unknown tags), first among the warnings. */
  warnings: readonly string[];
  /** Set once the parts of spans are merged (`withMergedParts`), so the merged list is not merged again. */
  partsMerged?: boolean;
  /** Set once orphans of one missing parent are given it (`withMissingParents`). */
  parentsGiven?: boolean;
}

/** How many names or paths a warning lists before it only counts them. */
const LISTED = 3;

const NO_PARENT = -1;
const MISSING_PARENT = -2;
const CUT_PARENT = -3;

const HEX = /^[0-9a-fA-F]+$/;
const LEADING_ZEROS = /^0+/;

/**
 * An id as spans are matched by it: hex without regard to case or leading zeros (Zipkin pads an
 * id to 16 or 32 digits, and a 128-bit trace id whose high half is zero names the 64-bit one, as
 * instrumentation that mixes the two sends them); zeros are no id (`''`).
 */
export function normalId(id: string | undefined): string {
  if (id === undefined || id === '') return '';
  if (!HEX.test(id)) return id;
  // All zeros leave nothing: no id.
  return id.toLowerCase().replace(LEADING_ZEROS, '');
}

function callKind(kind: SpanKind | undefined): boolean {
  return kind === 'client' || kind === 'producer';
}

function serveKind(kind: SpanKind | undefined): boolean {
  return kind === 'server' || kind === 'consumer';
}

/**
 * Everything the mapping reads of a span but its trace and id, as one string: two spans of one
 * trace and id with the same signature are one span reported twice (what `sameSpan` compares).
 * Built only for spans whose id repeats in their trace.
 */
function signature(span: SourceSpan): string {
  return JSON.stringify([
    normalId(span.parent),
    span.service,
    span.kind ?? null,
    span.start === undefined ? null : String(span.start),
    span.end === undefined ? null : String(span.end),
    span.error,
    span.peer ?? null,
    span.follows === true,
    partSignature(span.part),
  ]);
}

/** A part's own fields (`SpanPart`) for `signature`: two parts that differ in them are not one span sent twice. */
function partSignature(part: SpanPart | undefined): unknown {
  if (part === undefined) return null;
  const { shared, timestamp, duration, ipv4, ipv6, port } = part;
  return [shared, String(timestamp), String(duration), ipv4 ?? null, ipv6 ?? null, port ?? null];
}

/** Two spans' parts (`SpanPart`) alike in every field, or neither span sent in parts. */
function sameParts(a: SpanPart | undefined, b: SpanPart | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.shared === b.shared &&
    a.timestamp === b.timestamp &&
    a.duration === b.duration &&
    a.ipv4 === b.ipv4 &&
    a.ipv6 === b.ipv6 &&
    a.port === b.port
  );
}

/** Two spans of one trace and id that say the same in every other field the mapping reads (and, sent in parts, in every field of their parts). */
function sameSpan(a: SourceSpan, b: SourceSpan): boolean {
  // The cheap fields first: the usual pair under one id, an RPC's client and server halves,
  // differ in kind.
  return (
    a.kind === b.kind &&
    a.service === b.service &&
    a.start === b.start &&
    a.end === b.end &&
    a.error === b.error &&
    a.peer === b.peer &&
    (a.follows === true) === (b.follows === true) &&
    normalId(a.parent) === normalId(b.parent) &&
    sameParts(a.part, b.part)
  );
}

/**
 * Spans by trace and id: the first span of each id, and the later ones chained after it (a
 * repeated id is rare; a million spans must not each hold an array).
 */
class IdChains {
  readonly #traces = new Map<string, Map<string, number>>();
  /** The next span of the same trace and id, −1 at a chain's end. */
  readonly next: Int32Array;
  /** By a chain's first span: its last span. */
  readonly #last: Int32Array;

  constructor(length: number) {
    this.next = new Int32Array(length).fill(-1);
    this.#last = new Int32Array(length);
  }

  /** The first span of `trace` with `id` (both as `normalId` gives them), if any yet. */
  first(trace: string, id: string): number | undefined {
    return this.#traces.get(trace)?.get(id);
  }

  /** Span `i` of `trace` with `id`, after the chain from `first` (or starting one). */
  add(trace: string, id: string, i: number, first: number | undefined): void {
    if (first === undefined) {
      this.#last[i] = i;
      let byId = this.#traces.get(trace);
      if (byId === undefined) {
        byId = new Map();
        this.#traces.set(trace, byId);
      }
      byId.set(id, i);
    } else {
      this.next[this.#last[first]!] = i;
      this.#last[first] = i;
    }
  }
}

/** Spans of one id compared one by one up to this many; past it, by their signatures in a set. */
const COMPARED_ONE_BY_ONE = 8;

/**
 * Finds exact repeats among the spans of one id (a chain from its first span). A short chain
 * (an RPC's two halves, a retry) is compared span by span; one that grows past
 * `COMPARED_ONE_BY_ONE` (instrumentation reusing an id) gets a set of signatures, filled once,
 * so each further span is one lookup however many share the id.
 */
class RepeatedIds {
  readonly #seen = new Map<number, Set<string>>();

  /** Whether `span`, whose id's spans so far are the chain from `first`, repeats one of them; records it. */
  repeats(spans: readonly SourceSpan[], first: number, next: Int32Array, span: SourceSpan): boolean {
    let set = this.#seen.get(first);
    if (set === undefined) {
      let length = 0;
      for (let j = first; j !== -1 && length < COMPARED_ONE_BY_ONE; j = next[j]!, length++)
        if (sameSpan(spans[j]!, span)) return true;
      if (length < COMPARED_ONE_BY_ONE) return false;
      set = new Set();
      for (let j = first; j !== -1; j = next[j]!) set.add(signature(spans[j]!));
      this.#seen.set(first, set);
    }
    const own = signature(span);
    if (set.has(own)) return true;
    set.add(own);
    return false;
  }
}

/** Two values of one field that a span's parts may each have or lack: equal, or one missing. */
function agree<T>(a: T | undefined, b: T | undefined): boolean {
  return a === undefined || b === undefined || a === b;
}

/** A parent id as parts are compared by it: `undefined` where the part names none. */
function parentOf(span: SourceSpan): string | undefined {
  const parent = normalId(span.parent);
  return parent === '' ? undefined : parent;
}

/**
 * Whether `later`, of the same trace and id as `earlier`, is another part of that span: the same
 * service and shared flag, every other field agreeing or missing from one of them, and some
 * field differing (two parts alike in every field are an exact repeat, which the repeat rule reads).
 */
function completes(earlier: SourceSpan, later: SourceSpan): boolean {
  const a = earlier.part;
  const b = later.part;
  if (a === undefined || b === undefined) return false;
  if (a.shared !== b.shared || earlier.service !== later.service) return false;
  if (
    !(
      agree(earlier.kind, later.kind) &&
      agree(parentOf(earlier), parentOf(later)) &&
      agree(earlier.peer, later.peer) &&
      agree(a.timestamp, b.timestamp) &&
      agree(a.duration, b.duration) &&
      agree(a.ipv4, b.ipv4) &&
      agree(a.ipv6, b.ipv6) &&
      agree(a.port, b.port)
    )
  )
    return false;
  return !sameSpan(earlier, later);
}

/** The span `earlier` and its part `later` as one: each field the first lacks taken from the second. */
function mergedParts(earlier: SourceSpan, later: SourceSpan): SourceSpan {
  const a = earlier.part!;
  const b = later.part!;
  const timestamp = a.timestamp ?? b.timestamp;
  const duration = a.duration ?? b.duration;
  // As a reader times a span: from its timestamp, for its duration, when it has both.
  const timed = timestamp !== undefined && duration !== undefined;
  return {
    ...earlier,
    parent: parentOf(earlier) === undefined ? later.parent : earlier.parent,
    kind: earlier.kind ?? later.kind,
    peer: earlier.peer ?? later.peer,
    error: earlier.error || later.error,
    start: timed ? timestamp : undefined,
    end: timed ? timestamp + duration : undefined,
    part: {
      shared: a.shared,
      timestamp,
      duration,
      ipv4: a.ipv4 ?? b.ipv4,
      ipv6: a.ipv6 ?? b.ipv6,
      port: a.port ?? b.port,
    },
  };
}

/**
 * The first of the first `COMPARED_ONE_BY_ONE` spans of an id (the chain from `first` in
 * `spans`) that `span` is a part of, or −1.
 */
function partOf(spans: readonly SourceSpan[], first: number, next: Int32Array, span: SourceSpan): number {
  let length = 0;
  for (let j = first; j !== -1 && length < COMPARED_ONE_BY_ONE; j = next[j]!, length++)
    if (completes(spans[j]!, span)) return j;
  return -1;
}

/**
 * `spans` in order, less each span of an id seen before that `absorbs` takes: it is given the
 * spans kept so far, the chain of that id's kept spans (from `first`, linked by `next`) and the
 * span, and answers whether the span is dropped (folded into a kept one, or left out).
 */
function keptByRepeatedId(
  spans: readonly SourceSpan[],
  absorbs: (kept: SourceSpan[], first: number, next: Int32Array, span: SourceSpan) => boolean,
): SourceSpan[] {
  const kept: SourceSpan[] = [];
  const chains = new IdChains(spans.length);
  for (const span of spans) {
    const id = normalId(span.id);
    if (id !== '') {
      const trace = normalId(span.trace);
      const first = chains.first(trace, id);
      if (first !== undefined && absorbs(kept, first, chains.next, span)) continue;
      chains.add(trace, id, kept.length, first);
    }
    kept.push(span);
  }
  return kept;
}

/**
 * The graph of `spans` with the parts of each span merged into one (see the rules above), and a
 * warning that counts them. Called only once a part is found, so a document without any pays nothing.
 */
function withMergedParts(
  spans: readonly SourceSpan[],
  options: ReadOptions | undefined,
  notes: SpanNotes,
): MappedGraph {
  let merged = 0;
  let firstPath = '';
  const kept = keptByRepeatedId(spans, (earlier, first, next, span) => {
    const into = partOf(earlier, first, next, span);
    if (into < 0) return false;
    if (merged++ === 0) firstPath = `${span.path} completes ${earlier[into]!.path}`;
    earlier[into] = mergedParts(earlier[into]!, span);
    return true;
  });
  const warning = `${plural(merged, 'span')} ${merged === 1 ? 'is a part' : 'are parts'} of an earlier span (the same trace, id, service and shared flag; no field differing, some missing from one of them; first: ${firstPath}): a span reported in pieces, merged into one, as Zipkin merges them`;
  return spanGraph(kept, options, { ...notes, warnings: [...notes.warnings, warning], partsMerged: true });
}

/**
 * The graph of `spans` with every exact repeat left out (see the rules above), and a warning
 * that counts them. Called only once one is found, so a document without any pays nothing.
 */
function withoutExactRepeats(
  spans: readonly SourceSpan[],
  options: ReadOptions | undefined,
  notes: SpanNotes,
): MappedGraph {
  const repeatedIds = new RepeatedIds();
  let dropped = 0;
  let firstPath = '';
  const kept = keptByRepeatedId(spans, (earlier, first, next, span) => {
    if (!repeatedIds.repeats(earlier, first, next, span)) return false;
    if (dropped++ === 0) firstPath = `${span.path} repeats ${repeated(earlier, first, next, span)}`;
    return true;
  });
  const warning = `${plural(dropped, 'span')} ${dropped === 1 ? 'repeats' : 'repeat'} an earlier span in every field read (trace, id, parent, service, kind, times, error, remote service; first: ${firstPath}): the same span reported twice, read once (the counts of any warning before this one include the repeats)`;
  return spanGraph(kept, options, { ...notes, warnings: [...notes.warnings, warning] });
}

/** The path of the kept span, on the chain from `first`, that `span` repeats (for the warning, once). */
function repeated(kept: readonly SourceSpan[], first: number, next: Int32Array, span: SourceSpan): string {
  for (let j = first; j !== -1; j = next[j]!) if (sameSpan(kept[j]!, span)) return kept[j]!.path;
  return '';
}

interface DependencyTally {
  from: number;
  to: number;
  calls: number;
  errors: number;
  latencySum: number;
  latencyCount: number;
}

/**
 * Of the orphans (`orphans`: spans whose parent the document lacks), spans of one service, other
 * than server and consumer spans, that name one missing parent (in one trace) are the work of
 * one request whose span is missing (the trace was cut off: its root still running when the
 * exporter's file rotated, or lost): for each such group of two or more, a span standing for the missing one is
 * added, of their service, from the earliest start among them to the latest end, in error if
 * any of them is. Taken one by one, three spans under one missing parent were three requests,
 * and the calls two of them made were 2/3 a request instead of 2. `undefined` when there is no
 * such group.
 */
function withMissingParents(
  spans: readonly SourceSpan[],
  orphans: readonly number[],
): { spans: SourceSpan[]; groups: number; grouped: number } | undefined {
  const groups = new Map<string, SourceSpan[]>();
  for (const i of orphans) {
    const span = spans[i]!;
    const key = `${normalId(span.trace)}\u0000${normalId(span.parent)}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [span]);
    else group.push(span);
  }
  const added: SourceSpan[] = [];
  let grouped = 0;
  for (const group of groups.values()) {
    // The missing span was one span of one service: spans of two services under it are no one
    // request's work alone, and stay requests of their own; so does a server or consumer span
    // under it, a request whatever its missing parent was (a caller's client span: two server
    // spans under one are two requests), and the spans beside it.
    if (group.length < 2 || group.some((span) => span.service !== group[0]!.service || serveKind(span.kind)))
      continue;
    grouped += group.length;
    const first = group[0]!;
    let start: bigint | undefined;
    let end: bigint | undefined;
    for (const span of group) {
      if (span.start === undefined || span.end === undefined) continue;
      if (start === undefined || span.start < start) start = span.start;
      if (end === undefined || span.end > end) end = span.end;
    }
    added.push({
      trace: first.trace,
      id: first.parent!,
      service: first.service,
      start,
      end,
      error: group.some((span) => span.error),
      path: `${first.path}${first.parentField ?? ''}`,
    });
  }
  return added.length === 0 ? undefined : { spans: [...spans, ...added], groups: added.length, grouped };
}

/** The structure for `spans`: see the rules above. */
export function spanGraph(
  spans: readonly SourceSpan[],
  options: ReadOptions | undefined,
  notes: SpanNotes,
): MappedGraph {
  // A bad option is the caller's bug, not the document's (a RangeError).
  const { window: givenWindow, sampleRate } = countScale(options);
  const n = spans.length;
  const warnings: string[] = [...notes.warnings];
  if (n === 0) warnings.push('no spans in the document');

  // Services, in the order of their first span.
  const serviceIndex = new Map<string, number>();
  const serviceNames: string[] = [];
  const service = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const name = spans[i]!.service;
    let index = serviceIndex.get(name);
    if (index === undefined) {
      index = serviceNames.length;
      serviceIndex.set(name, index);
      serviceNames.push(name);
    }
    service[i] = index;
  }

  const chains = new IdChains(n);
  const nextSame = chains.next;
  const traceOf: string[] = new Array(n);
  const repeatedFirsts: number[] = [];
  const repeatedIds = new RepeatedIds();
  for (let i = 0; i < n; i++) {
    const span = spans[i]!;
    const trace = normalId(span.trace);
    traceOf[i] = trace;
    const id = normalId(span.id);
    if (id === '') continue;
    const first = chains.first(trace, id);
    if (first !== undefined) {
      // Rare (a repeated id), so parts and repeats are looked for only here.
      if (notes.partsMerged !== true && span.part !== undefined && partOf(spans, first, nextSame, span) >= 0)
        return withMergedParts(spans, options, notes);
      if (repeatedIds.repeats(spans, first, nextSame, span))
        return withoutExactRepeats(spans, options, notes);
      if (nextSame[first] === -1) repeatedFirsts.push(first);
    }
    chains.add(trace, id, i, first);
  }
  const groupOf = (first: number): number[] => {
    const group: number[] = [];
    for (let i = first; i !== -1; i = nextSame[i]!) group.push(i);
    return group;
  };

  // Shared ids: the server half of an RPC is the child of its client half.
  const sharedParent = new Int32Array(n).fill(-1);
  let repeated = 0;
  let repeatPath = '';
  for (const first of repeatedFirsts) {
    const group = groupOf(first);
    const client = group.find((i) => callKind(spans[i]!.kind));
    let paired = 0;
    if (client !== undefined)
      for (const i of group)
        if (serveKind(spans[i]!.kind)) {
          sharedParent[i] = client;
          paired++;
        }
    const extra = group.length - 1 - paired;
    if (extra > 0) {
      if (repeated === 0)
        repeatPath = `${spans[group[1]!]!.path} repeats the id of ${spans[group[0]!]!.path}`;
      repeated += extra;
    }
  }

  // Parents.
  const parents = new RepeatedIdParents(nextSame, spans, service);
  const parent = new Int32Array(n);
  let orphans = 0;
  let orphanPath = '';
  for (let i = 0; i < n; i++) {
    if (sharedParent[i]! >= 0) {
      parent[i] = sharedParent[i]!;
      continue;
    }
    const span = spans[i]!;
    const named = normalId(span.parent);
    if (named === '') {
      parent[i] = NO_PARENT;
      continue;
    }
    const first = chains.first(traceOf[i]!, named);
    if (first === undefined) {
      parent[i] = MISSING_PARENT;
      if (orphans++ === 0) orphanPath = `${span.path}${span.parentField ?? ''}`;
      continue;
    }
    parent[i] = nextSame[first] === -1 ? first : parents.pick(first, i);
  }
  if (orphans > 1 && notes.parentsGiven !== true) {
    const orphaned: number[] = [];
    for (let i = 0; i < n; i++) if (parent[i] === MISSING_PARENT) orphaned.push(i);
    const given = withMissingParents(spans, orphaned);
    if (given !== undefined) {
      const warning = `${plural(given.grouped, 'span')} of one service name the same parent that is not in the document, in ${plural(given.groups, 'group')} (first: ${given.spans[n]!.path}): each group is one request whose span is missing (a trace cut off), taken from the first start among them to the last end`;
      return spanGraph(given.spans, options, {
        ...notes,
        warnings: [...notes.warnings, warning],
        parentsGiven: true,
      });
    }
  }
  const cut = cutCircles(parent);
  if (cut.length > 0)
    warnings.push(
      `${plural(cut.length, 'span')} ${cut.length === 1 ? 'is' : 'are'} in a circle of parent links (first: ${spans[cut[0]!]!.path}): the link is cut there, and the span taken as a request entering its service`,
    );

  // Children, in document order (compressed rows).
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (parent[i]! >= 0) childStart[parent[i]! + 1]!++;
  for (let i = 0; i < n; i++) childStart[i + 1]! += childStart[i]!;
  const children = new Int32Array(childStart[n]!);
  const fill = childStart.slice(0, n);
  for (let i = 0; i < n; i++) if (parent[i]! >= 0) children[fill[parent[i]!]!++] = i;

  // Entry spans.
  const entry = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    entry[i] =
      p < 0 || service[p] !== service[i] || (serveKind(spans[i]!.kind) && callKind(spans[p]!.kind)) ? 1 : 0;
  }
  const answered = new Uint8Array(n);
  // Answered by a span its request waits for: not a consumer span (asynchronous work), nor one
  // linked as FOLLOWS_FROM. A span of no stated kind is the client side of a call it waits for
  // only then: above a consumer it was the caller's own work (Zipkin has no INTERNAL kind, and
  // read 50 ms of a 100 ms request as a call where OTLP and Jaeger read none).
  const waitedOn = new Uint8Array(n);
  /** Whether the span's parent waited for it: not asynchronous work (a consumer, a FOLLOWS_FROM). */
  const waitedFor = (i: number) => spans[i]!.kind !== 'consumer' && spans[i]!.follows !== true;
  // A call is answered by a span of the service it names anywhere under it in the caller's own
  // spans, not only straight under it: an SDK's client span wrapping the HTTP client span that
  // the callee answers names the callee too (a host-based peer-service mapping), and counted as
  // unanswered it was the same call twice. `stamp` stops a walk where one for the same callee
  // passed before, so deep chains of a service's own spans are walked once per callee.
  const stamp = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (entry[i] !== 1 || p < 0) continue;
    answered[p] = 1;
    if (waitedFor(i)) waitedOn[p] = 1;
    const callee = spans[i]!.service;
    for (let up = parent[p]!; up >= 0 && service[up] === service[p] && entry[up] !== 1; up = parent[up]!) {
      if (stamp[up] === service[i]) break;
      stamp[up] = service[i]!;
      const named = spans[up]!.peer;
      if (callKind(spans[up]!.kind) && (named === undefined || named === '' || named === callee))
        answered[up] = 1;
    }
  }

  // Times, as offsets in nanoseconds from the earliest start.
  let base: bigint | undefined;
  for (const span of spans)
    if (span.start !== undefined && span.end !== undefined && (base === undefined || span.start < base))
      base = span.start;
  const timed = new Uint8Array(n);
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  let untimed = 0;
  let untimedPath = '';
  let backwards = 0;
  let backwardsPath = '';
  for (let i = 0; i < n; i++) {
    const span = spans[i]!;
    if (span.start === undefined || span.end === undefined) {
      if (untimed++ === 0) untimedPath = span.path;
      continue;
    }
    timed[i] = 1;
    start[i] = Number(span.start - base!);
    end[i] = Number(span.end - base!);
    if (end[i]! < start[i]!) {
      end[i] = start[i]!;
      if (backwards++ === 0) backwardsPath = span.path;
    }
  }

  // Per service: entry spans, roots, errors, self and total times.
  const services = serviceNames.length;
  const entries = new Float64Array(services);
  const roots = new Float64Array(services);
  const errors = new Float64Array(services);
  const timedEntries = new Float64Array(services);
  const selfSum = new Float64Array(services);
  const durationSum = new Float64Array(services);
  let firstRoot = Number.POSITIVE_INFINITY;
  let lastRoot = Number.NEGATIVE_INFINITY;
  let timedRoots = 0;
  let outside = 0;
  let outsidePath = '';
  const calls = new Intervals();
  const stack: number[] = [];
  /** The latest end among request `e`'s span and its service's own timed spans below it. */
  const ownSpansEnd = (e: number): number => {
    let last = end[e]!;
    const below = [e];
    while (below.length > 0) {
      const local = below.pop()!;
      if (timed[local] === 1 && end[local]! > last) last = end[local]!;
      for (let k = childStart[local]!; k < childStart[local + 1]!; k++)
        if (entry[children[k]!] !== 1) below.push(children[k]!);
    }
    return last;
  };
  for (let e = 0; e < n; e++) {
    if (entry[e] !== 1) continue;
    const s = service[e]!;
    entries[s]!++;
    if (spans[e]!.error) errors[s]!++;
    if (parent[e]! < 0) {
      roots[s]!++;
      if (timed[e] === 1) {
        timedRoots++;
        if (start[e]! < firstRoot) firstRoot = start[e]!;
        if (end[e]! > lastRoot) lastRoot = end[e]!;
      }
    }
    if (timed[e] !== 1) continue;
    // The calls this request waited for, among its own service's spans below it.
    // A message's processing can outlast its consumer span: Brave's Kafka consumer reports a
    // `poll` span of a microsecond and the work in a local span under it. So a consumer's
    // request lasts until the last of its own spans below it ends (its 50 ms of work was read as
    // 1 µs). A server's request ends with its span: work it leaves running after it answers is
    // none of the request's.
    const requestEnd = spans[e]!.kind === 'consumer' ? ownSpansEnd(e) : end[e]!;
    calls.clear(start[e]!, requestEnd);
    stack.length = 0;
    stack.push(e);
    while (stack.length > 0) {
      const local = stack.pop()!;
      const kind = spans[local]!.kind;
      const call =
        local !== e &&
        timed[local] === 1 &&
        (callKind(kind) || (kind === undefined && waitedOn[local] === 1));
      if (call) calls.add(start[local]!, end[local]!);
      for (let k = childStart[local]!; k < childStart[local + 1]!; k++) {
        const child = children[k]!;
        if (entry[child] !== 1) stack.push(child);
        // Another service's span straight under one of this request's own: waited for, unless it
        // is asynchronous work (a FOLLOWS_FROM link; a consumer span, OpenTelemetry's child of
        // an asynchronous request, which the OTLP and Zipkin readings took from the self time
        // where Jaeger's FOLLOWS_FROM of the same spans did not).
        else if (!call && timed[child] === 1 && waitedFor(child)) calls.add(start[child]!, end[child]!);
      }
    }
    if (calls.outside > 0 && outside === 0) outsidePath = spans[e]!.path;
    outside += calls.outside;
    const duration = requestEnd - start[e]!;
    timedEntries[s]!++;
    durationSum[s]! += duration;
    selfSum[s]! += duration - calls.covered();
  }
  // Calls, in the order first made; services only named by a call come after the traced ones.
  const nodeNames = [...serviceNames];
  const nodeIndex = new Map(serviceIndex);
  const external: number[] = [];
  const tallies: DependencyTally[] = [];
  const tallyOf = new Map<number, Map<number, DependencyTally>>();
  const tally = (from: number, to: number): DependencyTally => {
    let byTo = tallyOf.get(from);
    if (byTo === undefined) {
      byTo = new Map();
      tallyOf.set(from, byTo);
    }
    let found = byTo.get(to);
    if (found === undefined) {
      found = { from, to, calls: 0, errors: 0, latencySum: 0, latencyCount: 0 };
      byTo.set(to, found);
      tallies.push(found);
    }
    return found;
  };
  // Per traced service, the calls on it seen only from the caller's side (named by the peer
  // field, no span of its own under them): requests it took that were not traced.
  const untracedRequests = new Float64Array(services);
  let peerOnTraced = 0;
  let peerOnTracedPath = '';
  let unanswered = 0;
  let unansweredPath = '';
  for (let i = 0; i < n; i++) {
    const span = spans[i]!;
    const p = parent[i]!;
    if (entry[i] === 1 && p >= 0) {
      const call = tally(service[p]!, service[i]!);
      call.calls++;
      // The caller's side of the call: its client or producer span, or a span of no stated kind
      // below its entry span (the client side the mapping infers); else the callee's span.
      const parentKind = spans[p]!.kind;
      const clientSide = callKind(parentKind) || (parentKind === undefined && entry[p] !== 1);
      if (span.error || (clientSide && spans[p]!.error)) call.errors++;
      const timedBy = clientSide && timed[p] === 1 ? p : timed[i] === 1 ? i : -1;
      if (timedBy >= 0) {
        call.latencySum += end[timedBy]! - start[timedBy]!;
        call.latencyCount++;
      }
    }
    if (!callKind(span.kind) || answered[i] === 1) continue;
    const peer = span.peer;
    // A client span that is itself a request of its service (HotROD reports its Redis and MySQL
    // calls as services of their own, naming themselves) is that service's work, not a call.
    if (entry[i] === 1 && peer === span.service) continue;
    if (peer === undefined || peer === '') {
      if (entry[i] !== 1 && unanswered++ === 0) unansweredPath = span.path;
      continue;
    }
    // A call on its own service whose request was not traced is a self-call like any other
    // (it was dropped, where the same call on another traced service counted).
    let to = nodeIndex.get(peer);
    if (to === undefined) {
      to = nodeNames.length;
      nodeIndex.set(peer, to);
      nodeNames.push(peer);
      external.push(to);
    } else if (to < services) {
      untracedRequests[to]!++;
      if (peerOnTraced++ === 0) peerOnTracedPath = span.path;
    }
    const call = tally(service[i]!, to);
    call.calls++;
    if (span.error) call.errors++;
    if (timed[i] === 1) {
      call.latencySum += end[i]! - start[i]!;
      call.latencyCount++;
    }
  }

  // The window.
  let windowSeconds = givenWindow;
  const arriving = roots.reduce((sum, count) => sum + count, 0);
  if (windowSeconds === undefined && n > 0) {
    if (timedRoots > 0 && lastRoot > firstRoot) {
      windowSeconds = (lastRoot - firstRoot) / 1e9;
      warnings.push(
        `no window given: the ${plural(arriving, 'request')} that entered (spans with no parent in the document) ${arriving === 1 ? 'is' : 'are'} taken to arrive over the ${windowSeconds} s from the first one's start to the last one's end; give the window the spans were collected over for the exact rate`,
      );
    } else
      warnings.push(
        `no window given, and the requests that entered ${timedRoots === 0 ? 'carry no times' : 'all start and end at one instant'}: one step is the whole document (unit "window"), and no serviceTime is given; give the window the spans were collected over`,
      );
  }
  const perSecond = windowSeconds !== undefined;

  if (orphans > 0)
    warnings.push(
      `${plural(orphans, 'span names', 'spans name')} a parent that is not in the document (first: ${orphanPath}): the traces are incomplete, and each such span is taken as a request entering its service (it counts in the arrivals)`,
    );
  if (repeated > 0)
    warnings.push(
      `${plural(repeated, 'span repeats', 'spans repeat')} the id of another span of its trace, not as the server half of a client span (${repeatPath}): each is kept as a span of its own, and a span naming that id as its parent gets the first of them in its own service (a server span first)`,
    );
  if (untimed > 0)
    warnings.push(
      `${plural(untimed, 'span has', 'spans have')} no start or no end (first: ${untimedPath}): ${untimed === 1 ? 'it counts' : 'they count'} as requests and calls, not in the times`,
    );
  if (backwards > 0)
    warnings.push(
      `${plural(backwards, 'span ends', 'spans end')} before ${backwards === 1 ? 'it starts' : 'they start'} (first: ${backwardsPath}): taken to last 0 s`,
    );
  if (outside > 0)
    warnings.push(
      `${plural(outside, 'call reaches', 'calls reach')} outside the request that made ${outside === 1 ? 'it' : 'them'} (first under ${outsidePath}; clock skew between hosts, or a call left running): only the time ${outside === 1 ? 'it overlaps' : 'they overlap'} the request is taken from its self time`,
    );
  if (external.length > 0)
    warnings.push(
      `${external.length === 1 ? '1 service' : `${external.length} services`} with no span of ${external.length === 1 ? 'its' : 'their'} own ${external.length === 1 ? 'is' : 'are'} named by ${notes.peerField} on client or producer spans that nothing traced answers (${listed(external.map((index) => nodeNames[index]!))}): each is a node of its own with external: true`,
    );
  if (peerOnTraced > 0)
    warnings.push(
      `${plural(peerOnTraced, 'call')} on traced services ${peerOnTraced === 1 ? 'has' : 'have'} no span of the callee (first: ${peerOnTracedPath}, named by ${notes.peerField}): each is counted as a request its callee took untraced, so the callee's throughput is above its entry spans, and its calls per request are over both`,
    );
  if (unanswered > 0)
    warnings.push(
      `${plural(unanswered, 'client or producer span', 'client or producer spans')} ${unanswered === 1 ? 'reaches' : 'reach'} no traced span and ${unanswered === 1 ? 'names' : 'name'} no other service by ${notes.peerField} (first: ${unansweredPath}): no dependency is drawn, and ${unanswered === 1 ? 'its' : 'their'} time is still not the caller's own`,
    );

  // An untraced service's time is what its callers waited for it: their calls' mean duration.
  // Taken from the callers' self times, it would otherwise be nobody's, and every latency through
  // it short by that much.
  const waitedSum = new Float64Array(nodeNames.length);
  const waitedCount = new Float64Array(nodeNames.length);
  for (const call of tallies) {
    if (call.to < services) continue;
    waitedSum[call.to]! += call.latencySum;
    waitedCount[call.to]! += call.latencyCount;
  }

  // Nodes.
  const untimedServices: string[] = [];
  const nodes: NodeInput[] = nodeNames.map((id, index) => {
    const node: NodeInput = { id, fanout: true };
    if (index >= services) {
      node.external = true;
      if (waitedCount[index]! > 0) {
        const waited = waitedSum[index]! / waitedCount[index]!;
        if (perSecond && waited > 0) node.serviceTime = waited / 1e9;
        node.observedLatency = seconds(waited);
      }
      return node;
    }
    const arrival = roots[index]! / sampleRate / (perSecond ? windowSeconds! : 1);
    if (arrival > 0) node.arrival = arrival;
    if (perSecond) {
      const serviceTime = timedEntries[index]! > 0 ? selfSum[index]! / timedEntries[index]! / 1e9 : 0;
      if (serviceTime > 0) node.serviceTime = serviceTime;
      else untimedServices.push(id);
    }
    node.entrySpans = entries[index]!;
    // Its requests beyond its spans (calls on it named only by their callers), when there are any.
    if (untracedRequests[index]! > 0) node.untracedRequests = untracedRequests[index]!;
    node.errorRate = errors[index]! / entries[index]!;
    if (timedEntries[index]! > 0) node.observedLatency = seconds(durationSum[index]! / timedEntries[index]!);
    return node;
  });
  const window = perSecond && givenWindow !== undefined ? givenWindow : undefined;
  let requestsSeen = 0;
  for (let index = 0; index < services; index++) requestsSeen += roots[index]!;
  refuseScaledPastTheTotal(nodes, { window, sampleRate }, 'spans were collected', {
    windowAlone: window === undefined ? requestsSeen : requestsSeen / window,
    asSent: requestsSeen,
  });
  if (untimedServices.length > 0)
    warnings.push(
      `${untimedServices.length === 1 ? '1 service has' : `${untimedServices.length} services have`} no serviceTime (${listed(untimedServices)}): none of ${untimedServices.length === 1 ? 'its' : 'their'} requests is timed, or they took no time of their own; set one in settings where it is known`,
    );

  const dependencies: DependencyInput[] = tallies.map((call) => {
    const dependency: DependencyInput = {
      from: nodeNames[call.from]!,
      to: nodeNames[call.to]!,
      // Calls per request the caller took, traced or not: a call on it seen only from its caller
      // is a request too. Over its entry spans alone, a call back the other way with no span
      // under it (sampled out) made a loop of gain 1, and the engine read the traffic unbounded.
      weight: call.calls / (entries[call.from]! + untracedRequests[call.from]!),
      callCount: call.calls,
      errorCount: call.errors,
    };
    if (call.latencyCount > 0) dependency.observedLatency = seconds(call.latencySum / call.latencyCount);
    return dependency;
  });
  return { nodes, dependencies, unit: perSecond ? 'second' : 'window', warnings };
}

/** A mean time in nanoseconds as the observed latency the formats keep. */
function seconds(nanoseconds: number): ObservedLatency {
  return { value: nanoseconds / 1e9, statistic: 'mean', unit: 'second' };
}

/** `"a", "b", "c"` and, past three, `… (N in all)`. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).map(quote).join(', ');
  return names.length > LISTED ? `${shown}, … (${names.length} in all)` : shown;
}

/**
 * The span a child names by a repeated id: the first other server half (a `SERVER` or `CONSUMER`
 * span) of the child's own service, else the first other span of its service, else the first
 * other server half, else the first other in the document (never the
 * child itself, which cannot be its own parent: a span naming only itself is a circle of one).
 * Each id's spans are summed up once, at its first child (the first two of each service, of the
 * server halves, and of all), so that a document whose every span names one id costs a pass over
 * them, not one per child: 24,000 such spans took 28 s before, and blocked the server meanwhile.
 */
class RepeatedIdParents {
  readonly #summaries = new Map<number, IdSummary>();

  constructor(
    private readonly next: Int32Array,
    private readonly spans: readonly SourceSpan[],
    private readonly service: Int32Array,
  ) {}

  /** The parent of `child`, which names the id whose spans start at `first` (two or more). */
  pick(first: number, child: number): number {
    const summary = this.#summaryOf(first);
    const other = (pair: FirstTwo | undefined) =>
      pair === undefined ? -1 : pair[0] !== child ? pair[0] : pair[1];
    const ownServing = other(summary.servingByService.get(this.service[child]!));
    if (ownServing >= 0) return ownServing;
    const own = other(summary.byService.get(this.service[child]!));
    if (own >= 0) return own;
    const serving = other(summary.serving);
    return serving >= 0 ? serving : other(summary.all);
  }

  #summaryOf(first: number): IdSummary {
    let summary = this.#summaries.get(first);
    if (summary === undefined) {
      summary = { servingByService: new Map(), byService: new Map(), serving: [-1, -1], all: [-1, -1] };
      for (let i = first; i !== -1; i = this.next[i]!) {
        const service = this.service[i]!;
        addFirstTwo(firstTwoOf(summary.byService, service), i);
        if (serveKind(this.spans[i]!.kind)) {
          addFirstTwo(firstTwoOf(summary.servingByService, service), i);
          addFirstTwo(summary.serving, i);
        }
        addFirstTwo(summary.all, i);
      }
      this.#summaries.set(first, summary);
    }
    return summary;
  }
}

/** The first two spans of a kind, in document order (−1: none). */
type FirstTwo = [number, number];

interface IdSummary {
  servingByService: Map<number, FirstTwo>;
  byService: Map<number, FirstTwo>;
  serving: FirstTwo;
  all: FirstTwo;
}

function firstTwoOf(byService: Map<number, FirstTwo>, service: number): FirstTwo {
  let pair = byService.get(service);
  if (pair === undefined) {
    pair = [-1, -1];
    byService.set(service, pair);
  }
  return pair;
}

function addFirstTwo(pair: FirstTwo, i: number): void {
  if (pair[0] < 0) pair[0] = i;
  else if (pair[1] < 0) pair[1] = i;
}

/**
 * Cuts every circle of parent links at its member that comes first in the document (that span
 * gets `CUT_PARENT`); returns the spans cut, in document order. Iterative: a chain of a million
 * spans must not overflow the stack.
 */
function cutCircles(parent: Int32Array): number[] {
  const n = parent.length;
  // 0: not seen, 1: on the current walk, 2: done.
  const state = new Uint8Array(n);
  const cut: number[] = [];
  const walk: number[] = [];
  for (let i = 0; i < n; i++) {
    if (state[i] !== 0) continue;
    walk.length = 0;
    let at = i;
    while (at >= 0 && state[at] === 0) {
      state[at] = 1;
      walk.push(at);
      at = parent[at]!;
    }
    if (at >= 0 && state[at] === 1) {
      // A circle: the walk from `at` on.
      let first = at;
      for (let k = walk.indexOf(at); k < walk.length; k++) if (walk[k]! < first) first = walk[k]!;
      parent[first] = CUT_PARENT;
      cut.push(first);
    }
    for (const visited of walk) state[visited] = 2;
  }
  return cut.sort((a, b) => a - b);
}

/**
 * The calls one request waited for, cut to the request's own `[from, to]`: how much of that time
 * they cover (overlapping calls once), and how many reached outside it. Starts and ends are kept
 * in typed arrays and sorted apart (the union's length needs no pairing: a sweep over both counts
 * the calls open at each instant), so a request with a million calls sorts numbers, not pairs.
 */
class Intervals {
  private starts = new Float64Array(16);
  private ends = new Float64Array(16);
  private size = 0;
  private from = 0;
  private to = 0;
  outside = 0;

  clear(from: number, to: number): void {
    this.size = 0;
    this.outside = 0;
    this.from = from;
    this.to = to;
  }

  add(start: number, end: number): void {
    if (start < this.from || end > this.to) this.outside++;
    const a = Math.max(start, this.from);
    const b = Math.min(end, this.to);
    if (!(b > a)) return;
    if (this.size === this.starts.length) {
      const starts = new Float64Array(this.size * 2);
      const ends = new Float64Array(this.size * 2);
      starts.set(this.starts);
      ends.set(this.ends);
      this.starts = starts;
      this.ends = ends;
    }
    this.starts[this.size] = a;
    this.ends[this.size] = b;
    this.size++;
  }

  /** The time covered, each instant once. */
  covered(): number {
    const n = this.size;
    if (n === 0) return 0;
    if (n === 1) return this.ends[0]! - this.starts[0]!;
    const starts = this.starts.subarray(0, n).sort();
    const ends = this.ends.subarray(0, n).sort();
    let time = 0;
    let open = 0;
    let since = 0;
    let i = 0;
    let j = 0;
    while (j < n) {
      if (i < n && starts[i]! <= ends[j]!) {
        if (open++ === 0) since = starts[i]!;
        i++;
      } else {
        if (--open === 0) time += ends[j]! - since;
        j++;
      }
    }
    return time;
  }
}
