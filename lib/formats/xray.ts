/**
 * AWS X-Ray service graphs: `GetServiceGraph`'s `{ Services: [...], StartTime, EndTime, … }`
 * (also `GetTraceGraph`'s `{ Services }`), or a bare array of its `Service` objects (as the
 * Grafana X-Ray data source handles them).
 *
 * Mapping rules and decisions:
 * - One node per service, in document order; edges name their target by `ReferenceId` (an
 *   integer, unique among the services). A node's id is its `Name` when no other service has that
 *   name; services that share a name are told apart by their type, `Name (Type)` (a client and
 *   the service it calls: `SampleSite (client)`), or, when that is not unique either, by
 *   `Name #ReferenceId`; a service without a name is `#ReferenceId`. Ids never collide: an id
 *   already taken gets ` (2)`, ` (3)`, … The node keeps `referenceId`, `name` and `type`.
 *   Missing or null `Edges` is a service without edges.
 * - An edge to a `ReferenceId` that no service has (the aws-cli example has one) makes that
 *   target a node of its own, `#ReferenceId`, with a warning.
 * - `external: true` marks the nodes outside the traced application, which a default capacity
 *   must not reach (`applySettings`): a `client` (the users), a `remote` service (called but
 *   not traced) and a target no service lists.
 * - An edge's traffic is `SummaryStatistics.TotalCount`; the dependency keeps `totalCount`,
 *   `okCount`, `errorCount`, `faultCount`, `throttleCount` and `totalResponseTime` as sent.
 * - Observed latency: `TotalResponseTime` is the sum of the response times, in seconds, of the
 *   `TotalCount` completed requests. Where both are there and the count is above 0, the mean is
 *   kept as `observedLatency: { value: TotalResponseTime / TotalCount, statistic: 'mean', unit:
 *   'second' }`: on the node from the service's own statistics (the requests it served, timed
 *   by the service, its calls downstream included), on the dependency from the edge's (the
 *   callee's response time as its caller saw it). It is what was measured, queueing and
 *   downstream calls included, never a `serviceTime` (the time one request occupies one
 *   server), and is never made one: it is shown beside the engine's prediction. Repeated edges
 *   of one pair get the mean over all their copies. `TotalResponseTime` that is not a finite
 *   number >= 0 is a FormatError.
 * - `callGraphStructure` maps the calls (every service fan-out, entries get `arrival`, weight =
 *   calls per request the caller processes), so the steady throughput reproduces the counts.
 * - An entry's arrival is what X-Ray counts for the node itself: a service's own
 *   `SummaryStatistics.TotalCount` (the requests it served), or for a `client` node, whose
 *   statistics X-Ray leaves empty, the calls it made (it stands for the users and sends each of
 *   their requests once), less its calls on itself. A service without statistics (the aws-cli
 *   example's) gets the call-graph estimate, its busiest call, with the warning that says so.
 * - `Root: true` does not add arrivals to a service that others call: X-Ray counts the requests a
 *   root takes from outside on the edge from its `client` node, so an arrival there would count
 *   them twice (in the Grafana test data `SampleSite` is a root, its client's edge brings 3553
 *   calls and its own statistics count 3553). A service nothing calls is an entry anyway. `Root`
 *   chooses the entry of a cycle that nothing outside it calls (without a root there: the member
 *   with the busiest call, as for dependency links).
 * - An edge without `SummaryStatistics` or without `TotalCount` (a client's edge often has `{}`)
 *   carries no count: it is left out, with a warning. When no edge in the document has a count,
 *   the structure keeps the topology instead: weight 1 on every dependency, no arrivals,
 *   `unit: 'none'`, and first the warning that there is nothing to analyze until arrivals are set.
 * - Unit: with `StartTime` and `EndTime` on the graph (epoch seconds as the API's JSON and the
 *   CLI give them, or ISO 8601 strings as an SDK's `Date` serialises), counts are divided by
 *   `EndTime − StartTime` and one step is one second (`unit: 'second'`); without them (a bare
 *   array of services) by the window the caller gives (`ReadOptions.window`, seconds), and
 *   without that one step is the window the counts cover (`unit: 'window'`). A window given
 *   beside the graph's own times is not read (warning).
 * - Detection: an object with a `Services` array whose first elements are objects with a
 *   `ReferenceId` (an empty `Services` only beside the envelope's own fields), or a bare array
 *   whose first elements have a numeric `ReferenceId` and an `Edges` array.
 */
import { callGraphStructure, type ObservedCall } from './call-graph';
import { NO_TRAFFIC_WARNING } from './no-traffic';
import { mergeRepeatedPairs, repeatedPairsWarning } from './repeated-pairs';
import { describeValue, isRecord, quote } from './text';
import { FormatError, type GraphFormat, type MappedGraph, type ObservedLatency } from './types';
import { countScale, refuseScaledPastTheTotal, scaledCount } from './window';

/** X-Ray's type for the node that stands for the callers of a root service. */
const CLIENT = 'client';
/**
 * The types X-Ray gives nodes outside the traced application: `client`, the callers of a root
 * service (the users), and `remote`, "a downstream service of indeterminate type" (one the
 * application calls without tracing it). Their nodes are marked `external: true`.
 */
const OUTSIDE_TYPES: ReadonlySet<string | undefined> = new Set([CLIENT, 'remote']);
/** What the window is the length of, in the options' messages. */
const COUNTED = 'graph counted';

const ENVELOPE = new Set(['Services', 'StartTime', 'EndTime', 'ContainsOldGroupVersions', 'NextToken']);
/** How many leading services `detect` looks at. */
const DETECT_SAMPLE = 3;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;
/** How many element paths a warning lists before it only counts them. */
const LISTED_PATHS = 3;

function servicesOf(document: unknown): { services: readonly unknown[]; at: string } | undefined {
  if (Array.isArray(document)) return { services: document, at: '' };
  if (isRecord(document) && Array.isArray(document.Services))
    return { services: document.Services, at: 'Services' };
  return undefined;
}

interface Edge {
  path: string;
  target: number;
  count: number | undefined;
  /** The edge's `TotalResponseTime`: the sum of its calls' response times, in seconds. */
  responseTime: number | undefined;
  extra: Record<string, unknown>;
}

interface Service {
  path: string;
  referenceId: number;
  name: string | undefined;
  type: string | undefined;
  root: boolean;
  /** The service's own `SummaryStatistics.TotalCount`: the requests it served. */
  count: number | undefined;
  /** The service's own `TotalResponseTime`: the sum of its requests' response times, seconds. */
  responseTime: number | undefined;
  edges: Edge[];
}

export const xray: GraphFormat = {
  name: 'xray',
  detect(document) {
    if (Array.isArray(document)) {
      if (document.length === 0) return false;
      return document
        .slice(0, DETECT_SAMPLE)
        .every(
          (service) =>
            isRecord(service) && typeof service.ReferenceId === 'number' && Array.isArray(service.Edges),
        );
    }
    if (!isRecord(document) || !Array.isArray(document.Services)) return false;
    const services: unknown[] = document.Services;
    if (services.length === 0) return Object.keys(document).every((key) => ENVELOPE.has(key));
    return services
      .slice(0, DETECT_SAMPLE)
      .every((service) => isRecord(service) && Object.hasOwn(service, 'ReferenceId'));
  },
  reads: ['window'],
  toStructure(document, options) {
    const given = countScale(options).window;
    const found = servicesOf(document);
    if (found === undefined) {
      if (isRecord(document) && Object.hasOwn(document, 'Services'))
        throw new FormatError(
          'Services',
          `must be an array of services, got ${describeValue(document.Services)}`,
        );
      throw new FormatError(
        '',
        'expected an X-Ray service graph: an object with a "Services" array, or an array of services',
      );
    }
    const services = found.services.map((service, i) => readService(service, `${found.at}[${i}]`));
    const byReference = new Map<number, Service>();
    for (const service of services) {
      const first = byReference.get(service.referenceId);
      if (first !== undefined)
        throw new FormatError(
          `${service.path}.ReferenceId`,
          `duplicate ReferenceId ${service.referenceId} (first used by ${first.path})`,
        );
      byReference.set(service.referenceId, service);
    }
    const stated = isRecord(document) ? timeSpan(document) : undefined;
    // The graph's own StartTime and EndTime first; without them, the window the caller gives.
    const span = stated ?? given;
    const warnings: string[] = [];
    if (stated !== undefined && given !== undefined && given !== stated)
      warnings.push(
        `the graph states its own time span (${stated} s from StartTime to EndTime): the window given (${given} s) is not read`,
      );
    if (services.length === 0) warnings.push('no services in the graph');

    // Edges to services the document does not list: their targets become nodes of their own.
    const missing = new Map<number, string>();
    for (const service of services)
      for (const edge of service.edges)
        if (!byReference.has(edge.target) && !missing.has(edge.target)) missing.set(edge.target, edge.path);
    const ids = nodeIds(services, [...missing.keys()], warnings);
    for (const [reference, path] of missing)
      warnings.push(
        `${path}.ReferenceId: ${reference} is not among the services; it is a node of its own, ${quote(ids.get(reference)!)}`,
      );

    const nodes = [
      ...services.map((service) => ({ id: ids.get(service.referenceId)!, extra: nodeExtra(service) })),
      ...[...missing.keys()].map((reference) => ({
        id: ids.get(reference)!,
        // The document does not list it: a node of the mapping's own, outside what X-Ray traced.
        extra: { referenceId: reference, external: true },
      })),
    ];
    const edges = services.flatMap((service) =>
      service.edges.map((edge) => ({
        from: ids.get(service.referenceId)!,
        to: ids.get(edge.target)!,
        edge,
      })),
    );
    if (edges.length > 0 && edges.every(({ edge }) => edge.count === undefined)) {
      warnings.push(
        'no edge has a SummaryStatistics.TotalCount: the structure keeps the topology, with weight 1 on every dependency',
      );
      return topology(nodes, edges, warnings);
    }
    pairLatencies(edges);
    const uncounted = edges.filter(({ edge }) => edge.count === undefined).map(({ edge }) => edge.path);
    if (uncounted.length > 0) warnings.push(uncountedWarning(uncounted));
    if (span === undefined)
      warnings.push(
        'no StartTime and EndTime on the graph: one step is the window its counts cover; give the window (its length in seconds) for steps of one second',
      );
    const calls: ObservedCall[] = edges
      .filter(({ edge }) => edge.count !== undefined)
      .map(({ from, to, edge }) => ({
        from,
        to,
        count: scaledCount(edge.count!, { window: span, sampleRate: 1 }, COUNTED),
        extra: edge.extra,
        path: edge.path,
      }));
    const roots = new Set(
      services.filter((service) => service.root).map((service) => ids.get(service.referenceId)!),
    );
    const perStep = (count: number) => scaledCount(count, { window: span, sampleRate: 1 }, COUNTED);
    const requests = new Map<string, number>();
    for (const service of services) {
      const count = ownRequests(service);
      if (count !== undefined) requests.set(ids.get(service.referenceId)!, perStep(count));
    }
    // X-Ray counts a root's outside traffic on the edge from its client node, so `Root` only
    // picks the entry of a cycle nothing outside calls (callGraphStructure), never adds arrivals.
    const mapped = callGraphStructure({
      nodes: nodes.map((node) => ({
        ...node,
        ...(roots.has(node.id) ? { preferredEntry: true } : {}),
        ...(requests.has(node.id) ? { requests: requests.get(node.id)! } : {}),
      })),
      calls,
    });
    if (stated === undefined && given !== undefined)
      refuseScaledPastTheTotal(mapped.nodes, { window: given, sampleRate: 1 }, COUNTED);
    warnings.push(...mapped.warnings);
    return {
      nodes: mapped.nodes,
      dependencies: mapped.dependencies,
      unit: span === undefined ? 'window' : 'second',
      warnings,
    };
  },
};

function readService(value: unknown, path: string): Service {
  if (!isRecord(value))
    throw new FormatError(path, `must be an object (a service), got ${describeValue(value)}`);
  const referenceId = integerAt(value, 'ReferenceId', path);
  const name = optionalText(value, 'Name', path);
  const type = optionalText(value, 'Type', path);
  const edgesValue = value.Edges;
  if (edgesValue !== undefined && edgesValue !== null && !Array.isArray(edgesValue))
    throw new FormatError(`${path}.Edges`, `must be an array, got ${describeValue(edgesValue)}`);
  const edges = (edgesValue ?? []).map((edge: unknown, j: number) => readEdge(edge, `${path}.Edges[${j}]`));
  const count = totalCount(value.SummaryStatistics, path);
  const responseTime = totalResponseTime(value.SummaryStatistics, path);
  checkMean(responseTime, count, path);
  return { path, referenceId, name, type, root: value.Root === true, count, responseTime, edges };
}

/**
 * `SummaryStatistics.TotalCount` of a service or an edge: a finite number >= 0, or undefined
 * where the statistics or the count are missing or null (a client's are often `{}`).
 */
function totalCount(stats: unknown, path: string): number | undefined {
  if (stats === undefined || stats === null) return undefined;
  if (!isRecord(stats))
    throw new FormatError(`${path}.SummaryStatistics`, `must be an object, got ${describeValue(stats)}`);
  const total = stats.TotalCount;
  if (total === undefined || total === null) return undefined;
  if (typeof total !== 'number' || !Number.isFinite(total) || total < 0)
    throw new FormatError(
      `${path}.SummaryStatistics.TotalCount`,
      `must be a finite number >= 0, got ${describeValue(total)}`,
    );
  return total;
}

function readEdge(value: unknown, path: string): Edge {
  if (!isRecord(value))
    throw new FormatError(path, `must be an object (an edge), got ${describeValue(value)}`);
  const target = integerAt(value, 'ReferenceId', path);
  const stats = value.SummaryStatistics;
  const extra: Record<string, unknown> = {};
  const count = totalCount(stats, path);
  const responseTime = totalResponseTime(stats, path);
  checkMean(responseTime, count, path);
  if (!isRecord(stats)) return { path, target, count, responseTime, extra };
  const total = stats.TotalCount;
  const errors = isRecord(stats.ErrorStatistics) ? stats.ErrorStatistics : {};
  const faults = isRecord(stats.FaultStatistics) ? stats.FaultStatistics : {};
  keep(extra, 'totalCount', total);
  keep(extra, 'okCount', stats.OkCount);
  keep(extra, 'errorCount', errors.TotalCount);
  keep(extra, 'faultCount', faults.TotalCount);
  keep(extra, 'throttleCount', errors.ThrottleCount);
  keep(extra, 'totalResponseTime', stats.TotalResponseTime);
  const observed = observedLatency(responseTime, count);
  if (observed !== undefined) extra.observedLatency = observed;
  return { path, target, count, responseTime, extra };
}

/**
 * `SummaryStatistics.TotalResponseTime`: the sum of the completed requests' response times, in
 * seconds; a finite number >= 0, or undefined where the statistics or the sum are missing or null.
 */
function totalResponseTime(stats: unknown, path: string): number | undefined {
  if (!isRecord(stats)) return undefined;
  const total = stats.TotalResponseTime;
  if (total === undefined || total === null) return undefined;
  if (typeof total !== 'number' || !Number.isFinite(total) || total < 0)
    throw new FormatError(
      `${path}.SummaryStatistics.TotalResponseTime`,
      `must be a finite number of seconds >= 0, got ${describeValue(total)}`,
    );
  return total;
}

/**
 * Refuses a `TotalResponseTime` whose mean over `TotalCount` is past the largest double (a sum
 * near it over a count below 1): the mean is what the structure keeps, and it must be a number.
 */
function checkMean(responseTime: number | undefined, count: number | undefined, path: string): void {
  if (responseTime === undefined || count === undefined || count === 0) return;
  if (!Number.isFinite(responseTime / count))
    throw new FormatError(
      `${path}.SummaryStatistics.TotalResponseTime`,
      `over a TotalCount of ${count} makes a mean response time larger than the largest number a result can hold (about 1.8e308), got ${responseTime}`,
    );
}

/** What X-Ray observed: the mean response time in seconds, where requests were counted and timed. */
function observedLatency(
  responseTime: number | undefined,
  count: number | undefined,
): ObservedLatency | undefined {
  if (responseTime === undefined || count === undefined || count === 0) return undefined;
  return meanLatency(responseTime / count);
}

/** A mean response time in seconds, as X-Ray's `observedLatency`. */
function meanLatency(value: number): ObservedLatency {
  return { value, statistic: 'mean', unit: 'second' };
}

/**
 * Repeated edges of one pair become one dependency (`callGraphStructure`, which adds their
 * counts and keeps the first copy's other fields): each copy's `observedLatency` becomes the
 * mean over every copy that was counted and timed, so the one kept is the pair's.
 */
function pairLatencies(edges: ReadonlyArray<{ from: string; to: string; edge: Edge }>): void {
  const sums = new Map<string, { time: number; count: number; copies: Edge[] }>();
  const keyOf = (from: string, to: string) => JSON.stringify([from, to]);
  for (const { from, to, edge } of edges) {
    const key = keyOf(from, to);
    const sum = sums.get(key) ?? { time: 0, count: 0, copies: [] };
    sum.copies.push(edge);
    if (edge.extra.observedLatency !== undefined) {
      sum.time += edge.responseTime!;
      sum.count += edge.count!;
    }
    sums.set(key, sum);
  }
  for (const { from, to, edge } of edges) {
    const sum = sums.get(keyOf(from, to))!;
    if (sum.copies.length === 1) continue;
    if (sum.count === 0) {
      delete edge.extra.observedLatency;
      continue;
    }
    const mean = sum.time / sum.count;
    edge.extra.observedLatency = meanLatency(Number.isFinite(mean) ? mean : meanOfMeans(sum.copies));
  }
}

/**
 * The mean over copies whose summed times (or counts) pass the largest double: each copy's own
 * mean (finite: `checkMean`) weighted by its share of the requests, so it lies within theirs.
 */
function meanOfMeans(copies: readonly Edge[]): number {
  const timed = copies.filter((copy) => copy.extra.observedLatency !== undefined);
  const largest = Math.max(...timed.map((copy) => copy.count!));
  let share = 0;
  for (const copy of timed) share += copy.count! / largest;
  let mean = 0;
  for (const copy of timed) mean += (copy.count! / largest / share) * (copy.responseTime! / copy.count!);
  return mean;
}

/**
 * The requests X-Ray counts for a service itself: its `SummaryStatistics.TotalCount` (what it
 * served); for a client, which X-Ray gives no statistics (`{}`), the calls it made, since a
 * client stands for the users and sends each of their requests once. Undefined for a service
 * without statistics: its arrival, should it be an entry, is estimated from its calls.
 */
function ownRequests(service: Service): number | undefined {
  if (service.count !== undefined || service.type !== CLIENT) return service.count;
  let sent = 0;
  for (const edge of service.edges) sent += edge.count ?? 0;
  return sent;
}

function keep(extra: Record<string, unknown>, key: string, value: unknown): void {
  if (typeof value === 'number' && Number.isFinite(value)) extra[key] = value;
}

function integerAt(holder: Record<string, unknown>, key: string, path: string): number {
  const value = holder[key];
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new FormatError(`${path}.${key}`, `must be an integer, got ${describeValue(value)}`);
  return value;
}

/** A string field that may be missing or null (then `undefined`, as is an empty string). */
function optionalText(holder: Record<string, unknown>, key: string, path: string): string | undefined {
  const value = holder[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new FormatError(`${path}.${key}`, `must be a string, got ${describeValue(value)}`);
  return value;
}

function nodeExtra(service: Service): Record<string, unknown> {
  const extra: Record<string, unknown> = { referenceId: service.referenceId };
  if (service.name !== undefined) extra.name = service.name;
  if (service.type !== undefined) extra.type = service.type;
  if (OUTSIDE_TYPES.has(service.type)) extra.external = true;
  const observed = observedLatency(service.responseTime, service.count);
  if (observed !== undefined) extra.observedLatency = observed;
  return extra;
}

/**
 * Readable unique ids: plain names first (they never change), then the services sharing a name
 * (`Name (Type)`, else `Name #ReferenceId`), then targets no service lists (`#ReferenceId`).
 */
function nodeIds(
  services: readonly Service[],
  missing: readonly number[],
  warnings: string[],
): Map<number, string> {
  const nameCount = new Map<string, number>();
  for (const { name } of services)
    if (name !== undefined) nameCount.set(name, (nameCount.get(name) ?? 0) + 1);
  const shared = services.filter(({ name }) => name !== undefined && nameCount.get(name)! > 1);
  const labelCount = new Map<string, number>();
  for (const { name, type } of shared)
    if (type !== undefined)
      labelCount.set(`${name} (${type})`, (labelCount.get(`${name} (${type})`) ?? 0) + 1);
  const taken = new Set<string>();
  const ids = new Map<number, string>();
  const claim = (reference: number, candidates: readonly string[]) => {
    let id = candidates.find((candidate) => !taken.has(candidate));
    for (let n = 2; id === undefined; n++) {
      const candidate = `${candidates[candidates.length - 1]} (${n})`;
      if (!taken.has(candidate)) id = candidate;
    }
    taken.add(id);
    ids.set(reference, id);
  };
  for (const { name, referenceId } of services)
    if (name !== undefined && nameCount.get(name) === 1) claim(referenceId, [name]);
  for (const { name, type, referenceId } of services) {
    if (ids.has(referenceId)) continue;
    if (name === undefined) {
      claim(referenceId, [`#${referenceId}`]);
      continue;
    }
    const label = `${name} (${type})`;
    claim(
      referenceId,
      type !== undefined && labelCount.get(label) === 1
        ? [label, `${name} #${referenceId}`]
        : [`${name} #${referenceId}`],
    );
  }
  for (const reference of missing) claim(reference, [`#${reference}`]);
  const sharedNames = [...nameCount].filter(([, count]) => count > 1).map(([name]) => name);
  if (sharedNames.length > 0)
    warnings.push(
      `several services are named ${sharedNames.slice(0, LISTED_PATHS).map(quote).join(', ')}${sharedNames.length > LISTED_PATHS ? `, … (${sharedNames.length} names in all)` : ''}: their ids add the type or the ReferenceId`,
    );
  return ids;
}

/** The graph's time span in seconds, when it states one. */
function timeSpan(document: Record<string, unknown>): number | undefined {
  const start = timeAt(document, 'StartTime');
  const end = timeAt(document, 'EndTime');
  if (start === undefined || end === undefined) return undefined;
  if (!(end > start))
    throw new FormatError(
      'EndTime',
      `must be later than StartTime, got ${describeValue(document.EndTime)} for a StartTime of ${describeValue(document.StartTime)}`,
    );
  return end - start;
}

/** Epoch seconds, from a number or an ISO 8601 string; missing or null is `undefined`. */
function timeAt(document: Record<string, unknown>, key: string): number | undefined {
  const value = document[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && ISO_TIME.test(value)) {
    const milliseconds = Date.parse(value);
    if (Number.isFinite(milliseconds)) return milliseconds / 1000;
  }
  throw new FormatError(
    key,
    `must be a time (epoch seconds, or an ISO 8601 string), got ${describeValue(value)}`,
  );
}

function uncountedWarning(paths: readonly string[]): string {
  const listed = paths.slice(0, LISTED_PATHS).join(', ');
  const more = paths.length > LISTED_PATHS ? `, … (${paths.length} in all)` : '';
  return `${paths.length} edge${paths.length === 1 ? '' : 's'} without a SummaryStatistics.TotalCount left out (no traffic to carry): ${listed}${more}`;
}

/** No counts at all: the services and their edges, weight 1, nothing arriving. */
function topology(
  nodes: ReadonlyArray<{ id: string; extra: Record<string, unknown> }>,
  edges: ReadonlyArray<{ from: string; to: string; edge: Edge }>,
  warnings: string[],
): MappedGraph {
  const merged = mergeRepeatedPairs(
    edges.map(({ from, to, edge }) => ({ ...edge.extra, from, to, weight: 1 })),
  );
  return {
    nodes: nodes.map((node) => ({ ...node.extra, id: node.id, fanout: true })),
    dependencies: merged.dependencies,
    unit: 'none',
    warnings: [
      NO_TRAFFIC_WARNING,
      ...warnings,
      ...repeatedPairsWarning(merged, 'edge', (index) => edges[index]!.edge.path),
    ],
  };
}
