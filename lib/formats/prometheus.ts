/**
 * Prometheus: the answer of the HTTP API's instant query (`GET /api/v1/query`), `{ status:
 * "success", data: { resultType: "vector", result: [{ metric: { <label>: "<value>", … }, value:
 * [<unix time>, "<sample>"] }] } }` (also its bare `data` object, `{ resultType, result }`), for a
 * query whose series are the calls between two services, each valued at calls per second:
 *
 *     sum by (client, server) (rate(traces_service_graph_request_total[5m]))
 *
 * over the service graph metrics of Grafana Tempo's metrics-generator, the OpenTelemetry
 * Collector's `servicegraph` connector or Grafana Alloy, or for an Istio mesh
 *
 *     sum by (source_workload, destination_workload) (rate(istio_requests_total{reporter="destination"}[5m]))
 *
 * Mapping rules and decisions:
 * - **Which labels name a call.** The `labels` option's `{ from, to }` when the caller gives it;
 *   otherwise the first known pair that some series carries both of: `client` and `server` (the
 *   service graph metrics), then `source_workload` and `destination_workload` (Istio). A series
 *   is a call from the service its `from` label names on the service its `to` label names; one
 *   whose value is the same for both is a service calling itself. An answer where no series
 *   carries the pair is refused at `data.result`, saying which labels were looked for and showing
 *   the first series' labels; so is an empty result (the query matched nothing: a misspelt metric,
 *   or no traffic in its range). A series without one of the two (Prometheus leaves out a label
 *   whose value is empty) is left out, with a warning that counts them and names the first.
 * - **Values** are strings (JSON has no NaN or infinities), read as decimal numbers: a rate per
 *   second, so one step is one second (`unit: 'second'`). `"NaN"`, `"+Inf"`, `"-Inf"`, a value
 *   that is not a decimal number, one past the largest double and a negative one are refused at
 *   `data.result[i].value[1]`, naming the series by its labels. A value must be `[<time>,
 *   "<sample>"]`; the time is not read. A native histogram's sample (`histogram` instead of
 *   `value`) is refused: a rate is one number.
 * - **Counters are refused.** A series that still carries a metric name ending in `_total`,
 *   `_count`, `_sum` or `_bucket` (without a `:`, which recording rules put in their names) is the
 *   counter itself, the answer of a bare selector: its value is a running total since its process
 *   started, not a rate. It is refused at `data.result[i].metric.__name__` with the query to send
 *   instead (`rate()` and `sum by` both drop the name).
 * - **Istio's reporter.** Every request in an Istio mesh is reported twice, by the proxy that sent
 *   it (`reporter="source"`) and by the one that received it (`reporter="destination"`), so the
 *   query must keep one (docs/connect.md: `reporter="destination"`, which also counts requests
 *   from outside the mesh). Where the answer shows it (the series keep their `reporter` label), a
 *   pair reported by both is refused at the second one's `reporter`; where the query summed the
 *   label away, only the docs can say it.
 * - **One call per pair.** Series of one pair (a query that kept other labels: instances, status
 *   codes, `failed`) are added, with a warning. The dependency keeps `rate`, the pair's summed value
 *   as sent, and `labels`, the labels every series of the pair has with the same value (besides the
 *   two that name the call), when there are any.
 * - **Nodes** are the label values, in the order first seen (each series' caller before its
 *   callee). `user` (the caller Tempo and the Collector give a request whose root span has no
 *   client: the users) and `unknown` (Istio's source outside the mesh, the Collector's callee that
 *   sent no spans) stand for what is outside the traced system: `external: true`, so a default
 *   capacity never reaches them.
 * - **Arrivals.** A service that no other service calls (a root client: `user`, `unknown`, an
 *   ingress gateway, a job) is an entry, and its arrival is its outgoing rate to other services
 *   (its calls on itself are requests it makes of itself, not ones that entered): it sends one
 *   call for each request that entered there. Exact for `user` and `unknown`, which stand for the
 *   requests themselves; for a service (a gateway, a job) it is exact when each request makes one
 *   call and an upper bound otherwise, and a warning names them. Services that only call each
 *   other, with no way in, get one entry, as for every call graph (`callGraphStructure`).
 * - **Weights** are calls per request (`callGraphStructure`, every service fan-out): a call's rate
 *   divided by the rate of the calls into its caller (its arrival, for an entry), so the engine's
 *   steady throughput of every service is the rate of the calls into it, and of every dependency
 *   its series' rate, exactly.
 * - **Options.** `sampleRate` divides every rate (service graph metrics computed from sampled
 *   spans count only the spans kept); `labels` names the pair. `window` is not read: the values are
 *   rates per second already (`readGraph` warns when it is given).
 * - The envelope's `warnings` and `infos` (a partial answer: a store that did not reply, a
 *   query near its limits) are passed on, first among the warnings.
 * - An answer with `status: "error"` is the server reporting a failure (a query that does not
 *   parse, a timeout): refused at `error` with its `errorType` and message. `resultType` `matrix`
 *   (a range query), `scalar` or `string` is refused at `data.resultType`, saying what to send.
 * - Detection: an object whose `status` is `"success"` and whose `data` is an object with a string
 *   `resultType` and a `result`, or whose `status` is `"error"` beside a string `errorType` or
 *   `error`; or the bare `data` object (a string `resultType` and a `result`). Never with `nodes`.
 */

import { MAX_TOTAL_LOAD } from '../engine';
import { callGraphStructure, type ObservedCall } from './call-graph';
import { describeValue, isRecord, memberPath, plural, quote, shortText } from './text';
import {
  FormatError,
  type GraphFormat,
  type ReadOptions,
  type SeriesLabels,
  sampleRatePastTheTotal,
} from './types';

/** The label pairs the format knows, in the order it looks for them. */
const KNOWN_PAIRS: readonly SeriesLabels[] = Object.freeze([
  { from: 'client', to: 'server' },
  { from: 'source_workload', to: 'destination_workload' },
]);
/** Names that stand for what is outside the traced system (the users, outside the mesh). */
const OUTSIDE: ReadonlySet<string> = new Set(['user', 'unknown']);
/** A decimal number, as Prometheus (and every store that speaks its API) writes a sample. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** The sample values JSON cannot hold as numbers, which Prometheus writes as these strings. */
const NOT_FINITE: ReadonlySet<string> = new Set(['NaN', '+Inf', '-Inf', 'Inf']);
/** The name of a counter's own series (a recording rule's name has a `:` and is read). */
const COUNTER_NAME = /^[^:]*_(?:total|count|sum|bucket)$/;
/** A histogram's parts that are not its count, and what their running totals count instead of calls. */
const HISTOGRAM_PART = /_(bucket|sum)$/;
const HISTOGRAM_PART_COUNTS: Readonly<Record<string, string>> = {
  bucket:
    'a running count of the calls up to one bound (le), each call counted again in every bucket above it',
  sum: 'a running total of what the calls measured (seconds, bytes), not of calls',
};
/**
 * Labels that only a histogram's bucket (`le`, its upper bound) or a summary's quantile carry:
 * the series is that part, whatever its name, which `rate()` and `sum by` drop.
 */
const PART_LABELS = ['le', 'quantile'] as const;
const PART_LABEL_COUNTS: Readonly<Record<(typeof PART_LABELS)[number], string>> = {
  le: 'the bound of a histogram\'s bucket: a bucket counts the calls up to its bound, so summed as calls the buckets count each call again in every bucket above it (only le="+Inf" counts each once)',
  quantile: "a summary's quantile: its value is a measured time or size, not a rate of calls",
};
/** The longest metric name a message repeats whole, in the query it suggests. */
const MAX_QUOTED_NAME = 100;
/** How many labels a message shows of a series. */
const SHOWN_LABELS = 6;
/** The query that gives the answer the format reads, for messages. */
const EXAMPLE_QUERY = 'sum by (client, server) (rate(traces_service_graph_request_total[5m]))';

interface Series {
  path: string;
  labels: Record<string, string>;
  value: number;
}

/** `data` of an answer (or the bare `data` object), and the prefix of its elements' paths. */
function dataOf(document: Record<string, unknown>): { data: unknown; at: string } {
  return Object.hasOwn(document, 'status')
    ? { data: document.data, at: 'data.' }
    : { data: document, at: '' };
}

function isResultData(value: unknown): boolean {
  return isRecord(value) && typeof value.resultType === 'string' && Object.hasOwn(value, 'result');
}

export const prometheus: GraphFormat = {
  name: 'prometheus',
  reads: ['sampleRate', 'labels'],
  detect(document) {
    if (!isRecord(document) || Object.hasOwn(document, 'nodes')) return false;
    if (document.status === 'success') return isResultData(document.data);
    if (document.status === 'error')
      return typeof document.errorType === 'string' || typeof document.error === 'string';
    return !Object.hasOwn(document, 'status') && isResultData(document);
  },
  toStructure(document, options) {
    const { sampleRate, labels } = checkOptions(options);
    if (!isRecord(document))
      throw new FormatError('', `expected a Prometheus query answer, got ${describeValue(document)}`);
    if (document.status === 'error') throw serverError(document);
    if (Object.hasOwn(document, 'status') && document.status !== 'success')
      throw new FormatError('status', `must be "success" or "error", got ${describeValue(document.status)}`);
    const { data, at } = dataOf(document);
    if (!isRecord(data))
      throw new FormatError(
        at === '' ? '' : 'data',
        `must be an object { resultType, result }, got ${describeValue(data)}`,
      );
    checkResultType(data.resultType, `${at}resultType`);
    if (!Array.isArray(data.result))
      throw new FormatError(`${at}result`, `must be an array of series, got ${describeValue(data.result)}`);
    const series = data.result.map((value, i) => readSeries(value, `${at}result[${i}]`, labels));
    const pair = labels ?? KNOWN_PAIRS.find((known) => series.some((one) => carries(one, known)));
    if (series.length === 0)
      throw new FormatError(
        `${at}result`,
        `holds no series: the query matched nothing (a misspelt metric name, or no traffic in its range); looked for ${lookedFor(labels)}`,
      );
    if (pair === undefined || !series.some((one) => carries(one, pair)))
      throw new FormatError(
        `${at}result`,
        `no series names a caller and a callee: looked for ${lookedFor(labels)}; the first series is ${seriesText(series[0]!.labels)}${labels === undefined ? '; name the labels with "labels": { "from", "to" }' : ''}`,
      );
    const mapped = mapCalls(series, pair, sampleRate);
    return { ...mapped, warnings: [...serverNotes(document), ...mapped.warnings] };
  },
};

/** What the server said beside its answer (`warnings`, `infos`), one warning each kind. */
function serverNotes(document: Record<string, unknown>): string[] {
  const notes: string[] = [];
  for (const [key, verb] of [
    ['warnings', 'warned'],
    ['infos', 'noted'],
  ] as const) {
    const list = document[key];
    if (!Array.isArray(list) || list.length === 0) continue;
    const first = typeof list[0] === 'string' ? quote(list[0]) : describeValue(list[0]);
    const more = list.length > 1 ? ` (and ${list.length - 1} more)` : '';
    notes.push(`${key}[0]: the Prometheus server ${verb} ${first}${more} beside its answer`);
  }
  return notes;
}

/** Checks the options a caller passes; a bad one is the caller's bug, not the document's. */
function checkOptions(options: ReadOptions | undefined): { sampleRate: number; labels?: SeriesLabels } {
  const sampleRate = options?.sampleRate ?? 1;
  if (!(typeof sampleRate === 'number' && sampleRate > 0 && sampleRate <= 1))
    throw new RangeError(`sampleRate must be a number in (0, 1], got ${String(sampleRate)}`);
  const labels = options?.labels;
  if (labels === undefined) return { sampleRate };
  const { from, to } = labels;
  if (!(typeof from === 'string' && typeof to === 'string' && from !== '' && to !== '' && from !== to))
    throw new RangeError('labels must name two different non-empty labels, { from, to }');
  return { sampleRate, labels: { from, to } };
}

/** `status: "error"`: the server's own words, `errorType` first. */
function serverError(document: Record<string, unknown>): FormatError {
  const kind = typeof document.errorType === 'string' ? ` (errorType ${quote(document.errorType)})` : '';
  const said = typeof document.error === 'string' ? quote(document.error) : describeValue(document.error);
  return new FormatError('error', `the Prometheus server answered with an error${kind}: ${said}`);
}

function checkResultType(resultType: unknown, path: string): void {
  if (resultType === 'vector') return;
  const instead = `send the answer of an instant query (GET /api/v1/query) such as ${EXAMPLE_QUERY}`;
  if (resultType === 'matrix')
    throw new FormatError(
      path,
      `is "matrix", the answer of a range query (GET /api/v1/query_range): a series of values over time, where one rate per series is read; ${instead}`,
    );
  if (resultType === 'scalar' || resultType === 'string')
    throw new FormatError(
      path,
      `is ${quote(resultType)}: one value without labels, where series of calls between services are read; ${instead}`,
    );
  throw new FormatError(path, `must be "vector" (an instant vector), got ${describeValue(resultType)}`);
}

function readSeries(value: unknown, path: string, option: SeriesLabels | undefined): Series {
  if (!isRecord(value))
    throw new FormatError(path, `must be an object (a series), got ${describeValue(value)}`);
  const metric = value.metric;
  if (!isRecord(metric))
    throw new FormatError(`${path}.metric`, `must be an object of labels, got ${describeValue(metric)}`);
  const labels: Record<string, string> = Object.create(null);
  for (const [key, label] of Object.entries(metric)) {
    if (typeof label !== 'string')
      throw new FormatError(`${path}.metric${member(key)}`, `must be a string, got ${describeValue(label)}`);
    labels[key] = label;
  }
  const name = labels.__name__;
  if (name !== undefined && COUNTER_NAME.test(name)) {
    const { from, to } = option ?? knownPairOf(labels);
    // Istio's series carry their reporter: the query to send keeps one of the two.
    // A histogram's buckets and sum count no calls (every bucket counts a call again, the sum
    // adds up seconds): its calls are the rate of its `_count`.
    const part = HISTOGRAM_PART.exec(name)?.[1];
    const counted = part === undefined ? name : `${name.slice(0, -part.length)}count`;
    const metric = counted.length > MAX_QUOTED_NAME ? '<metric>' : counted;
    const selector = labels.reporter === undefined ? metric : `${metric}{reporter="destination"}`;
    const what =
      part === undefined
        ? `the counter ${quote(name)} itself, whose value is a running total since its process started, not a rate: send the answer of a query of its rate`
        : `the histogram's ${part} ${quote(name)}, ${HISTOGRAM_PART_COUNTS[part]}: send the answer of a query of the rate of its count`;
    throw new FormatError(
      `${path}.metric.__name__`,
      `the series ${seriesText(labels)} is ${what}, such as sum by (${from}, ${to}) (rate(${selector}[5m]))`,
    );
  }
  // `rate()` drops the metric's name, not its labels: a bucket's `le` (or a summary's
  // `quantile`) still says what the series is. Summed as calls, a histogram's buckets counted
  // every call once per bucket at or above its time (2–3 times over on real bounds).
  // Only the +Inf bucket counts every call once: its rate is the count's
  // (`rate(x_bucket{le="+Inf"}[5m])`), and is read as a rate of calls.
  const part = PART_LABELS.find(
    (label) => labels[label] !== undefined && !(label === 'le' && labels[label] === '+Inf'),
  );
  if (part !== undefined) {
    const { from, to } = option ?? knownPairOf(labels);
    throw new FormatError(
      `${path}.metric${member(part)}`,
      `the series ${seriesText(labels)} carries ${part}, ${PART_LABEL_COUNTS[part]}; send the answer of a query of the rate of its count, such as sum by (${from}, ${to}) (rate(<metric>_count[5m]))`,
    );
  }
  if (value.value === undefined && value.histogram !== undefined)
    throw new FormatError(
      `${path}.histogram`,
      `is a native histogram's sample (series ${seriesText(labels)}): a rate of calls is one number; query the rate of a counter`,
    );
  const sample = value.value;
  if (Array.isArray(sample) && sample.length === 2 && typeof sample[1] !== 'string')
    throw new FormatError(
      `${path}.value[1]`,
      `must be the sample value as a string, as Prometheus writes it ("5", "NaN"), got ${describeValue(sample[1])}`,
    );
  if (!Array.isArray(sample) || sample.length !== 2)
    throw new FormatError(
      `${path}.value`,
      `must be [<unix time>, "<sample value>"], got ${describeValue(sample)}`,
    );
  const text = sample[1];
  const number = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isFinite(number) && number >= 0)) {
    const why = NOT_FINITE.has(text)
      ? 'not a number of calls (NaN and the infinities come of a division by 0, or of no samples)'
      : DECIMAL.test(text)
        ? 'a rate of calls is a finite number >= 0'
        : 'a sample value is a decimal number';
    throw new FormatError(
      `${path}.value[1]`,
      `is ${quote(text)} for the series ${seriesText(labels)}: ${why}`,
    );
  }
  return { path, labels, value: number };
}

/** Whether the series names both ends of a call (a label Prometheus leaves out is an empty one). */
function carries(series: Series, pair: SeriesLabels): boolean {
  return (series.labels[pair.from] ?? '') !== '' && (series.labels[pair.to] ?? '') !== '';
}

/** The known pair a counter's series carries (for the query its error suggests), else the first. */
function knownPairOf(labels: Record<string, string>): SeriesLabels {
  return (
    KNOWN_PAIRS.find((known) => Object.hasOwn(labels, known.from) && Object.hasOwn(labels, known.to)) ??
    KNOWN_PAIRS[0]!
  );
}

function lookedFor(labels: SeriesLabels | undefined): string {
  if (labels !== undefined)
    return `the labels ${quote(labels.from)} and ${quote(labels.to)} (the "labels" option)`;
  return '"client" and "server" (traces_service_graph_request_total of Tempo, the OpenTelemetry Collector, Alloy), or "source_workload" and "destination_workload" (Istio\'s istio_requests_total)';
}

/** A series as PromQL writes it: `{client="frontend", server="api"}`, long ones cut short. */
function seriesText(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  const shown = entries.slice(0, SHOWN_LABELS).map(([key, value]) => `${shortText(key)}=${quote(value)}`);
  return `{${shown.join(', ')}${entries.length > SHOWN_LABELS ? `, … (${entries.length} labels)` : ''}}`;
}

/** `.name`, or `["a b"]` for a key that is not an identifier. */
function member(key: string): string {
  return memberPath('', key, /^[A-Za-z_][A-Za-z0-9_]*$/);
}

interface PairTally {
  from: string;
  to: string;
  rate: number;
  first: Series;
  /** The labels every series of the pair has with one value (the pair's own left out). */
  shared: Map<string, string>;
  /** The reporter values seen, each with the path of its first series. */
  reporters: Map<string, string>;
}

function mapCalls(series: readonly Series[], pair: SeriesLabels, sampleRate: number) {
  const warnings: string[] = [];
  const order: string[] = [];
  const seen = new Set<string>();
  const see = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    order.push(id);
  };
  const pairs: PairTally[] = [];
  const byPair = new Map<string, PairTally>();
  let unnamed = 0;
  let unnamedPath = '';
  let repeated = 0;
  let repeatPath = '';
  for (const one of series) {
    if (!carries(one, pair)) {
      if (unnamed++ === 0) unnamedPath = one.path;
      continue;
    }
    const from = one.labels[pair.from]!;
    const to = one.labels[pair.to]!;
    see(from);
    see(to);
    const key = JSON.stringify([from, to]);
    let tally = byPair.get(key);
    if (tally === undefined) {
      const shared = new Map(Object.entries(one.labels));
      shared.delete(pair.from);
      shared.delete(pair.to);
      tally = { from, to, rate: 0, first: one, shared, reporters: new Map() };
      byPair.set(key, tally);
      pairs.push(tally);
    } else {
      if (repeated++ === 0) repeatPath = `${one.path} repeats the pair of ${tally.first.path}`;
      for (const [label, value] of tally.shared) if (one.labels[label] !== value) tally.shared.delete(label);
    }
    tally.rate += one.value;
    if (!Number.isFinite(tally.rate))
      throw new FormatError(
        one.path,
        `the rates of ${quote(from)} calling ${quote(to)} add up past the largest number a rate can have`,
      );
    const reporter = one.labels.reporter;
    if (reporter !== undefined && !tally.reporters.has(reporter)) {
      tally.reporters.set(reporter, one.path);
      if (tally.reporters.has('source') && tally.reporters.has('destination'))
        throw new FormatError(
          `${one.path}.metric.reporter`,
          `the calls of ${quote(from)} on ${quote(to)} are reported by both proxies (reporter "source" at ${tally.reporters.get('source')}, "destination" at ${tally.reporters.get('destination')}): every request would count twice; keep one in the query, reporter="destination"`,
        );
    }
  }
  if (unnamed > 0)
    warnings.push(
      `${plural(unnamed, 'series lacks', 'series lack')} the label ${quote(pair.from)} or ${quote(pair.to)} (first: ${unnamedPath}): left out, since ${unnamed === 1 ? 'it names' : 'they name'} no call`,
    );
  if (repeated > 0)
    warnings.push(
      `${plural(repeated, 'series repeats', 'series repeat')} a pair seen before (${repeatPath}): the query kept labels beside ${quote(pair.from)} and ${quote(pair.to)}, and the rates of a pair are added (sum by (${pair.from}, ${pair.to}) answers one series per pair)`,
    );

  const calledByOthers = new Set<string>();
  const sent = new Map<string, number>();
  for (const { from, to, rate } of pairs) {
    if (from !== to && rate > 0) calledByOthers.add(to);
    sent.set(from, (sent.get(from) ?? 0) + rate / sampleRate);
  }
  refuseSampleRatePastTheTotal(pairs, calledByOthers, sampleRate);
  const sending: string[] = [];
  const nodes = order.map((id) => {
    const node: { id: string; extra?: Record<string, unknown>; requests?: number } = { id };
    if (OUTSIDE.has(id)) node.extra = { external: true };
    if (!calledByOthers.has(id) && (sent.get(id) ?? 0) > 0) {
      // A root client sends one call for each request that entered there.
      node.requests = sent.get(id)!;
      if (!OUTSIDE.has(id)) sending.push(id);
    }
    return node;
  });
  const calls: ObservedCall[] = pairs.map(({ from, to, rate, first, shared }) => {
    const extra: Record<string, unknown> = { rate };
    if (shared.size > 0) extra.labels = Object.fromEntries(shared);
    return { from, to, count: rate / sampleRate, extra, path: first.path };
  });
  const mapped = callGraphStructure({ nodes, calls });
  if (sending.length > 0)
    warnings.push(
      `${sending.length === 1 ? '1 service is' : `${sending.length} services are`} called by no other (${listed(sending)}): each is an entry whose arrival is the sum of its calls' rates, exact when each request it takes makes one call (a gateway, a load generator) and an upper bound otherwise; set arrivals in settings where they are known`,
    );
  warnings.push(...mapped.warnings);
  return { nodes: mapped.nodes, dependencies: mapped.dependencies, unit: 'second' as const, warnings };
}

/**
 * Refuses a `sampleRate` so small that the rates divided by it make the entries' arrivals add up
 * past the engine's total (`MAX_TOTAL_LOAD`), or a call rate past a number, as the span formats
 * refuse it: the caller's option, not the document, whose rates fit at a sample rate of 1 (rates
 * past it even then are the document's, found as the engine reads them).
 */
function refuseSampleRatePastTheTotal(
  pairs: ReadonlyArray<{ from: string; rate: number }>,
  calledByOthers: ReadonlySet<string>,
  sampleRate: number,
): void {
  let arrivals = 0;
  let unsampled = 0;
  let pastANumber = false;
  for (const { from, rate } of pairs) {
    if (!Number.isFinite(rate / sampleRate)) pastANumber = true;
    if (calledByOthers.has(from)) continue;
    arrivals += rate / sampleRate;
    unsampled += rate;
  }
  if ((pastANumber || arrivals > MAX_TOTAL_LOAD) && unsampled <= MAX_TOTAL_LOAD)
    throw sampleRatePastTheTotal(sampleRate, 'call rates', MAX_TOTAL_LOAD);
}

/** `"a", "b", "c"` and, past three, `… (N in all)`. */
function listed(ids: readonly string[]): string {
  const shown = ids.slice(0, 3).map(quote).join(', ');
  return ids.length > 3 ? `${shown}, … (${ids.length} in all)` : shown;
}
