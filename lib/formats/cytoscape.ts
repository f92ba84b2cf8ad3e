/**
 * Cytoscape.js elements JSON, and Kiali's graph API (`GET /api/namespaces/graph`), which answers
 * in that shape with traffic on it.
 *
 * Shapes read (each element is `{ data: {…} }`; its other fields — `position`, `selected`,
 * `classes`, … — are UI state and are dropped):
 * - `{ elements: { nodes: [...], edges: [...] } }` (`cy.json()`, Kiali; a missing or null list is
 *   empty), paths `elements.nodes[2].data.id`;
 * - `{ elements: [...] }`, one list of elements: `group: "nodes" | "edges"`, or without `group`
 *   an edge is an element whose data has `source` or `target` (Cytoscape's own rule), paths
 *   `elements[2].data.id`;
 * - bare `{ nodes: [...], edges: [...] }` (paths `nodes[2]…`) and a bare array of elements (paths
 *   `[2]…`). Detection is strict here, since `{ nodes, edges }` is also node-link's shape: the
 *   first node (and first edge) must be a `{ data: {…} }` object and there must be a node; a bare
 *   array must start with one. A top-level `elements` is Cytoscape's own key: a list, or an
 *   object with `nodes`, whose first elements (if any) are `{ data }` objects, is enough.
 *
 * Kiali or plain? Kiali when the document carries Kiali's top-level `graphType` (a string) or
 * `timestamp` and `duration` (numbers) — every Kiali answer has all three — or, for Kiali's
 * elements sent without that envelope, when every node has a Kiali `nodeType` (app, service,
 * workload, unknown, aggregate, box) and a string `namespace`. A `nodeType` alone does not make
 * a Kiali graph: plain Cytoscape data may use that name for its own.
 *
 * Plain Cytoscape.js (no traffic; unit `none`): every node is a node with its `data.id` as id
 * (a non-empty string), compound parents included — they are nodes in Cytoscape, edges may
 * join them, and a child's `parent` stays on it as an extra field; every edge is a dependency
 * `source → target` with the engine's default weight (1, left out), no arrivals, no fan-out.
 * Edge ids are not needed (Cytoscape generates them) and are kept as an extra `id` when given.
 * The first warning says there is no traffic to analyze until arrivals are set.
 *
 * Kiali (rates per second; unit `second`, Kiali's `duration` is only the window they were
 * averaged over):
 * - Box nodes (`nodeType: "box"` or an `isBox` flag) group others in the UI and are not
 *   services: skipped, with a warning. An edge that touches one is malformed (Kiali never draws
 *   one): FormatError. A child's `parent` (the box's hash) is kept as an extra field.
 * - Ids are hashes, so each node's id is a readable name: `namespace/service` (nodeType
 *   service), `namespace/app` plus `/version` when it carries one and the graph is not an `app`
 *   graph (app), `namespace/workload` (workload), `namespace/aggregate=value` (aggregate),
 *   `unknown` (unknown); a node of another type takes the first of its service, workload or app
 *   fields, and a node with none of them keeps its hash. When the nodes name more than one
 *   cluster (Kiali's placeholder cluster `unknown` does not count), each name gets its
 *   cluster in front, `cluster:namespace/app/version`, except nodes in no known cluster. The
 *   hash is kept as the extra field `kialiId`; edges' `source`/`target` (hashes) are translated.
 * - Unique ids: names that several nodes would share get the node's type appended,
 *   `bookinfo/reviews (service)` beside `bookinfo/reviews (app)` (an app graph with service
 *   nodes injected); any name still taken, by an earlier node or by another node's name, gets
 *   ` #2`, ` #3`, … (the smallest free number), in document order.
 * - Traffic: an edge's `traffic` is one `{ protocol, rates, responses }`. Requests per second
 *   are `rates.http` for protocol `http` and `rates.grpc` for `grpc` (the `http3xx`, `http5xx`,
 *   … rates are parts of `http`, and percentages are not rates of their own). A `tcp` edge
 *   measures bytes per second, not requests, so it carries no calls: tcp edges (and edges of any
 *   protocol other than http and grpc) are left out of the dependencies with a warning naming
 *   them, since a fan-out dependency with any weight would invent calls; their nodes stay, and
 *   a node reached only over tcp has no request throughput. An http or grpc edge whose rate is
 *   0 or missing (an idle edge), or an edge without `traffic`, is left out by the call-graph
 *   mapping with its warning. The rest go through `callGraphStructure` (every service fan-out,
 *   weight = calls per request the caller processes, entries get an `arrival`); `isRoot: true`
 *   marks an entry.
 * - Arrivals: a node's `traffic` rates are the sums of its edges' (`httpOut` is every http
 *   request it sent), so an entry — a traffic source, nothing calls it over http or grpc: the
 *   `unknown` source, a gateway, a job — sent one call for each request that entered there; its
 *   arrival is its own `httpOut` + `grpcOut` less its calls on itself (`unknown` sending 50 to
 *   each of two services takes 100, not 50). An entry without a `traffic` array gets the
 *   call-graph estimate, its busiest call, with the warning that says so.
 * - `external: true` marks the nodes outside the mesh or of Kiali's own making, which a default
 *   capacity must not reach (`applySettings`): the `unknown` source, the `unknown` destination
 *   service, the egress clusters (`PassthroughCluster`, `BlackHoleCluster`) and `MESH_EXTERNAL`
 *   service entries (`isExternal`); not `isOutside` nodes (other namespaces of the mesh).
 * - Observed latency: Kiali's response-time appender puts `responseTime` on an edge, a string of
 *   milliseconds (`"12"`, Kiali's `EdgeData.ResponseTime`, written `%.0f`): a percentile of the
 *   successful requests' durations, measured by the callee's proxy where it reports (so the
 *   callee's work, its queue and its own downstream calls included), for the percentile the
 *   graph request's `responseTime` option asked for (`avg`, `50`, `95` or `99`; default `95`).
 *   The answer does not say which, so it is kept as Kiali's default, `observedLatency: { value,
 *   statistic: 'p95', unit: 'millisecond' }`, on the dependency (a request with another
 *   `responseTime` option changes what the number means). Never a `serviceTime`, and never made
 *   one. A `responseTime` that is not a number or numeric string, finite and >= 0, is a
 *   FormatError; the field itself is not kept beside it (the engine's own `responseTime` is a
 *   prediction). Percentiles do not add: repeated calls of one pair keep the first copy's that has one.
 * - Every rate (on edges and in the nodes' `traffic` arrays) must be a number or numeric string
 *   (`"20.00"`), finite and >= 0. Kept as extra fields: on a node its data as given (with
 *   `traffic`, the `[{ protocol, rates }]` array), on a dependency its data plus `protocol` and
 *   `rates` as given (`responses`, a histogram per code and flag, is dropped).
 *
 * Extra fields never use the engine's own names: a data field named like one (`weight`,
 * `load`, `capacity`, `flow`, … — the benchmark graph has `data.weight`) is kept as
 * `original_weight`, as every format keeps them, with a warning. Plain edges repeating a pair
 * are merged into one dependency whose weight is their number (`repeated-pairs.ts`); Kiali's
 * repeated calls are merged by the call-graph mapping, rates added. Malformed input — an element that is not
 * `{ data: {…} }`, a node without a string id, a duplicate id (the second is named), an edge
 * whose source or target is not a node's id, a bad rate — throws FormatError with the path in
 * the source document.
 */
import type { DependencyInput, NodeInput } from '../engine/types';
import { callGraphStructure, type ObservedCall } from './call-graph';
import { NO_TRAFFIC_WARNING } from './no-traffic';
import { mergeRepeatedPairs, repeatedPairsWarning } from './repeated-pairs';
import {
  copyExtras,
  DEPENDENCY_FIELDS,
  describeValue,
  isRecord,
  memberPath,
  NODE_FIELDS,
  plural,
  quote,
  type Renamed,
  renameWarnings,
} from './text';
import { FormatError, type GraphFormat, type MappedGraph, type ObservedLatency } from './types';

const KIALI_NODE_TYPES: ReadonlySet<unknown> = new Set([
  'app',
  'service',
  'workload',
  'unknown',
  'aggregate',
  'box',
]);
/** Kiali's name for a cluster (or namespace, app, …) it could not tell. */
const KIALI_UNKNOWN = 'unknown';
/**
 * Istio's egress clusters, which Kiali shows as services: `PassthroughCluster` is traffic to a
 * host the mesh does not know, `BlackHoleCluster` traffic the mesh refused to send out.
 */
const EGRESS_CLUSTERS: ReadonlySet<unknown> = new Set(['PassthroughCluster', 'BlackHoleCluster']);
/** Protocols whose rate counts requests, and the rate key that does. */
const REQUEST_RATE: ReadonlyMap<string, string> = new Map([
  ['http', 'http'],
  ['grpc', 'grpc'],
]);
/** How many elements a warning names before "and N more". */
const NAMED_IN_WARNING = 3;
/** Longest part of a source string repeated in a message. */
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `path.key`, or `path["odd key"]` for a key that is not an identifier. */
function member(path: string, key: string): string {
  return memberPath(path, key, IDENTIFIER);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A list of names for a warning: the first few, then how many more. */
function someOf(names: readonly string[]): string {
  const shown = names.slice(0, NAMED_IN_WARNING).join(', ');
  return names.length > NAMED_IN_WARNING ? `${shown} and ${names.length - NAMED_IN_WARNING} more` : shown;
}

// ---------------------------------------------------------------------------------------------
// Detection

function looksLikeElement(value: unknown): boolean {
  return (
    isRecord(value) &&
    isRecord(value.data) &&
    (value.group === undefined || value.group === 'nodes' || value.group === 'edges')
  );
}

/** An element list as detection accepts it: absent, null, empty, or starting with an element. */
function looksLikeList(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (Array.isArray(value) && (value.length === 0 || looksLikeElement(value[0])))
  );
}

function detect(document: unknown): boolean {
  try {
    if (Array.isArray(document)) return document.length > 0 && looksLikeElement(document[0]);
    if (!isRecord(document)) return false;
    if (Object.hasOwn(document, 'elements')) {
      const elements = document.elements;
      if (Array.isArray(elements)) return looksLikeList(elements);
      return (
        isRecord(elements) &&
        Object.hasOwn(elements, 'nodes') &&
        looksLikeList(elements.nodes) &&
        looksLikeList(elements.edges)
      );
    }
    // Bare `{ nodes, edges }`: node-link's shape too, so only with `{ data }` elements.
    const { nodes, edges } = document;
    return (
      Array.isArray(nodes) &&
      nodes.length > 0 &&
      looksLikeElement(nodes[0]) &&
      Array.isArray(edges) &&
      looksLikeList(edges)
    );
  } catch {
    // A hostile getter or proxy: not this format.
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Elements

interface Element {
  /** The element's path in the source document (`elements.nodes[2]`). */
  path: string;
  data: Record<string, unknown>;
}

interface Elements {
  nodes: Element[];
  edges: Element[];
  /** The object holding the Kiali envelope fields, if any. */
  top: Record<string, unknown> | undefined;
}

function elementAt(value: unknown, path: string): Element {
  if (!isRecord(value))
    throw new FormatError(path, `must be an element { data: {…} }, got ${describeValue(value)}`);
  if (!isRecord(value.data))
    throw new FormatError(`${path}.data`, `must be an object, got ${describeValue(value.data)}`);
  return { path, data: value.data };
}

/** `nodes` or `edges` of the object forms: an array of elements; absent or null is empty. */
function collection(value: unknown, path: string): Element[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new FormatError(path, `must be an array of elements, got ${describeValue(value)}`);
  return value.map((item, index) => elementAt(item, `${path}[${index}]`));
}

/** One list of nodes and edges, told apart by `group`, or without it by `source`/`target`. */
function mixedList(list: readonly unknown[], base: string): Pick<Elements, 'nodes' | 'edges'> {
  const nodes: Element[] = [];
  const edges: Element[] = [];
  list.forEach((item, index) => {
    const path = `${base}[${index}]`;
    const element = elementAt(item, path);
    const group = (item as Record<string, unknown>).group;
    if (group === 'nodes') nodes.push(element);
    else if (group === 'edges') edges.push(element);
    else if (group !== undefined)
      throw new FormatError(`${path}.group`, `must be "nodes" or "edges", got ${describeValue(group)}`);
    else if (element.data.source !== undefined || element.data.target !== undefined) edges.push(element);
    else nodes.push(element);
  });
  return { nodes, edges };
}

function elementsOf(document: unknown): Elements {
  if (Array.isArray(document)) return { ...mixedList(document, ''), top: undefined };
  if (!isRecord(document))
    throw new FormatError(
      '',
      `must be an object with "elements", an object with "nodes" and "edges" of { data } elements, or an array of elements, got ${describeValue(document)}`,
    );
  if (Object.hasOwn(document, 'elements')) {
    const elements = document.elements;
    if (Array.isArray(elements)) return { ...mixedList(elements, 'elements'), top: document };
    if (!isRecord(elements))
      throw new FormatError(
        'elements',
        `must be an object with "nodes" and "edges" or an array of elements, got ${describeValue(elements)}`,
      );
    return {
      nodes: collection(elements.nodes, 'elements.nodes'),
      edges: collection(elements.edges, 'elements.edges'),
      top: document,
    };
  }
  if (!Array.isArray(document.nodes))
    throw new FormatError(
      'nodes',
      `must be an array of elements (or the document an object with "elements"), got ${describeValue(document.nodes)}`,
    );
  return {
    nodes: collection(document.nodes, 'nodes'),
    edges: collection(document.edges, 'edges'),
    top: document,
  };
}

/** The element's `data.id`: a non-empty string. */
function idOf(element: Element): string {
  const id = element.data.id;
  if (typeof id !== 'string' || id === '')
    throw new FormatError(`${element.path}.data.id`, `must be a non-empty string, got ${describeValue(id)}`);
  return id;
}

/** Node ids to the path of their element, refusing a duplicate (naming the second). */
function indexIds<T>(
  nodes: readonly Element[],
  value: (element: Element, id: string) => T,
): Map<string, T & { path: string }> {
  const byId = new Map<string, T & { path: string }>();
  for (const node of nodes) {
    const id = idOf(node);
    const first = byId.get(id);
    if (first !== undefined)
      throw new FormatError(
        `${node.path}.data.id`,
        `duplicate id ${quote(id)} (first used by ${first.path})`,
      );
    byId.set(id, { ...value(node, id), path: node.path });
  }
  return byId;
}

/** `data.source` or `data.target`: the id of a known node. */
function endpointOf<T>(edge: Element, end: 'source' | 'target', byId: ReadonlyMap<string, T>): T {
  const path = `${edge.path}.data.${end}`;
  const id = edge.data[end];
  if (typeof id !== 'string' || id === '')
    throw new FormatError(path, `must be a non-empty string, got ${describeValue(id)}`);
  const node = byId.get(id);
  if (node === undefined) throw new FormatError(path, `unknown node ${quote(id)}`);
  return node;
}

/**
 * The data's fields minus `skip`, with any engine-owned name kept as `original_<name>` (counted in
 * `renamed`), as every format keeps them.
 */
function extrasOf(
  data: Record<string, unknown>,
  skip: readonly string[],
  owned: ReadonlySet<string>,
  renamed: Renamed,
  element: string,
): Array<[string, unknown]> {
  const kept: Record<string, unknown> = {};
  copyExtras(kept, data, skip, owned, renamed, element);
  return Object.entries(kept);
}

// ---------------------------------------------------------------------------------------------
// Plain Cytoscape.js

function plainStructure({ nodes, edges }: Elements): MappedGraph {
  const byId = indexIds(nodes, (_, id) => ({ id }));
  const renamed: Renamed = new Map();
  // Object.fromEntries defines keys as data, so a field named `__proto__` stays a field.
  const mappedNodes = nodes.map(
    (node) =>
      Object.fromEntries([
        ['id', idOf(node)],
        ...extrasOf(node.data, ['id'], NODE_FIELDS, renamed, 'node'),
      ]) as NodeInput,
  );
  const merged = mergeRepeatedPairs(
    edges.map((edge) => {
      const from = endpointOf(edge, 'source', byId).id;
      const to = endpointOf(edge, 'target', byId).id;
      return Object.fromEntries([
        ['from', from],
        ['to', to],
        ...extrasOf(edge.data, ['source', 'target'], DEPENDENCY_FIELDS, renamed, 'edge'),
      ]) as DependencyInput;
    }),
  );
  const warnings = [
    NO_TRAFFIC_WARNING,
    ...repeatedPairsWarning(merged, 'edge', (index) => edges[index]!.path),
    ...renameWarnings(renamed),
  ];
  return { nodes: mappedNodes, dependencies: merged.dependencies, unit: 'none', warnings };
}

// ---------------------------------------------------------------------------------------------
// Kiali

function isKiali({ nodes, top }: Elements): boolean {
  if (
    top !== undefined &&
    (typeof top.graphType === 'string' ||
      (typeof top.timestamp === 'number' && typeof top.duration === 'number'))
  )
    return true;
  return (
    nodes.length > 0 &&
    nodes.every((node) => KIALI_NODE_TYPES.has(node.data.nodeType) && typeof node.data.namespace === 'string')
  );
}

function isBox(data: Record<string, unknown>): boolean {
  return (
    data.nodeType === 'box' ||
    (data.isBox !== undefined && data.isBox !== null && data.isBox !== false && data.isBox !== '')
  );
}

/** A rate as Kiali sends it (`"20.00"`) or as a number: finite and >= 0. */
function rateAt(value: unknown, path: string): number {
  const rate =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && NUMERIC.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(rate) || rate < 0)
    throw new FormatError(
      path,
      `must be a finite rate >= 0, a number or a numeric string such as "20.00", got ${describeValue(value)}`,
    );
  return rate;
}

/**
 * An edge's `data.responseTime` (Kiali's response-time appender: milliseconds, a percentile,
 * the 95th unless the graph request asked otherwise) as the observed latency it is; undefined
 * when the edge has none.
 */
function observedLatencyOf(edge: Element): ObservedLatency | undefined {
  const value = edge.data.responseTime;
  if (value === undefined || value === null) return undefined;
  const milliseconds =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && NUMERIC.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(milliseconds) || milliseconds < 0)
    throw new FormatError(
      `${edge.path}.data.responseTime`,
      `must be a finite number of milliseconds >= 0, a number or a numeric string such as "12", got ${describeValue(value)}`,
    );
  return { value: milliseconds, statistic: 'p95', unit: 'millisecond' };
}

/** Checks every rate in `rates` (when present) and returns them as numbers by key. */
function ratesAt(rates: unknown, path: string): Map<string, number> {
  const parsed = new Map<string, number>();
  if (rates === undefined || rates === null) return parsed;
  if (!isRecord(rates))
    throw new FormatError(path, `must be an object of rates, got ${describeValue(rates)}`);
  for (const [key, value] of Object.entries(rates)) parsed.set(key, rateAt(value, member(path, key)));
  return parsed;
}

/**
 * A node's `traffic`, an array of `{ protocol, rates }` with every rate checked, read for the
 * requests per second the node sends: its `httpOut` plus its `grpcOut` (undefined without a
 * `traffic` array; Kiali leaves out a rate that is 0). Kiali adds each edge's rate to its
 * source's `…Out` and its target's `…In`, so a node that nothing calls over http or grpc — a
 * traffic source, `isRoot` in Kiali's words: the `unknown` source, a gateway, a job — sends one
 * call for each request that entered there, and that is the count its arrival comes from.
 */
function sentRequests(node: Element): number | undefined {
  const traffic = node.data.traffic;
  const path = `${node.path}.data.traffic`;
  if (traffic === undefined || traffic === null) return undefined;
  if (!Array.isArray(traffic))
    throw new FormatError(path, `must be an array of { protocol, rates }, got ${describeValue(traffic)}`);
  let sent = 0;
  traffic.forEach((entry, index) => {
    if (!isRecord(entry))
      throw new FormatError(
        `${path}[${index}]`,
        `must be an object { protocol, rates }, got ${describeValue(entry)}`,
      );
    const rates = ratesAt(entry.rates, `${path}[${index}].rates`);
    const key = typeof entry.protocol === 'string' ? REQUEST_RATE.get(entry.protocol) : undefined;
    if (key !== undefined) sent += rates.get(`${key}Out`) ?? 0;
  });
  return sent;
}

interface EdgeTraffic {
  /** Requests per second; undefined for a protocol that does not count requests (tcp). */
  requests: number | undefined;
  protocol: string | undefined;
  extra: Array<[string, unknown]>;
}

function edgeTraffic(edge: Element): EdgeTraffic {
  const traffic = edge.data.traffic;
  const path = `${edge.path}.data.traffic`;
  if (traffic === undefined || traffic === null) return { requests: 0, protocol: undefined, extra: [] };
  if (!isRecord(traffic))
    throw new FormatError(
      path,
      `must be an object { protocol, rates, responses }, got ${describeValue(traffic)}`,
    );
  const protocol = traffic.protocol;
  if (typeof protocol !== 'string' || protocol === '')
    throw new FormatError(`${path}.protocol`, `must be a non-empty string, got ${describeValue(protocol)}`);
  const rates = ratesAt(traffic.rates, `${path}.rates`);
  const key = REQUEST_RATE.get(protocol);
  const extra: Array<[string, unknown]> = [['protocol', protocol]];
  if (traffic.rates !== undefined) extra.push(['rates', traffic.rates]);
  return { requests: key === undefined ? undefined : (rates.get(key) ?? 0), protocol, extra };
}

/**
 * Whether a Kiali node stands for something outside the mesh, or is one Kiali invents, so that a
 * default capacity must not reach it (`external: true`): the `unknown` node (the source of the
 * requests that enter from outside), a destination Kiali could not tell (a service named
 * `unknown`), an egress cluster and a service entry Kiali locates `MESH_EXTERNAL` (an object
 * `{ location }`, or the location alone as older Kiali wrote it). `isOutside` is not enough — it
 * is a service of a namespace the graph was not asked for, inside the mesh — nor is `isRoot` —
 * a traffic source may be the user's own gateway or job.
 */
function isExternal(data: Record<string, unknown>): boolean {
  if (data.nodeType === 'unknown') return true;
  if (data.nodeType === 'service' && (data.service === KIALI_UNKNOWN || EGRESS_CLUSTERS.has(data.service)))
    return true;
  const entry = data.isServiceEntry;
  return (isRecord(entry) ? entry.location : entry) === 'MESH_EXTERNAL';
}

/** A node's readable name from its own fields, before clusters and disambiguation. */
function readableName(data: Record<string, unknown>, graphType: unknown): string | undefined {
  const namespace = nonEmptyString(data.namespace);
  const inNamespace = (name: string | undefined) =>
    name === undefined ? undefined : namespace === undefined ? name : `${namespace}/${name}`;
  switch (data.nodeType) {
    case 'service':
      return inNamespace(nonEmptyString(data.service));
    case 'app': {
      const app = nonEmptyString(data.app);
      const version = graphType === 'app' ? undefined : nonEmptyString(data.version);
      return inNamespace(app === undefined || version === undefined ? app : `${app}/${version}`);
    }
    case 'workload':
      return inNamespace(nonEmptyString(data.workload));
    case 'aggregate': {
      const aggregate = nonEmptyString(data.aggregate);
      const value = nonEmptyString(data.aggregateValue);
      return inNamespace(
        aggregate === undefined || value === undefined ? aggregate : `${aggregate}=${value}`,
      );
    }
    case 'unknown':
      return KIALI_UNKNOWN;
    default:
      return inNamespace(
        nonEmptyString(data.service) ?? nonEmptyString(data.workload) ?? nonEmptyString(data.app),
      );
  }
}

/** Readable, unique ids for the (non-box) nodes, in order (rules in the module comment). */
function readableIds(nodes: readonly Element[], hashes: readonly string[], graphType: unknown): string[] {
  const clusters = new Set<string>();
  for (const node of nodes) {
    const cluster = nonEmptyString(node.data.cluster);
    if (cluster !== undefined && cluster !== KIALI_UNKNOWN) clusters.add(cluster);
  }
  const bases = nodes.map((node, index) => {
    const name = readableName(node.data, graphType);
    if (name === undefined) return hashes[index]!;
    const cluster = nonEmptyString(node.data.cluster);
    return clusters.size > 1 && cluster !== undefined && cluster !== KIALI_UNKNOWN
      ? `${cluster}:${name}`
      : name;
  });
  const shared = new Map<string, number>();
  for (const base of bases) shared.set(base, (shared.get(base) ?? 0) + 1);
  const used = new Set<string>();
  // A name some other node might still claim: one in use, or any node's base name.
  const taken = (name: string) => used.has(name) || shared.has(name);
  return bases.map((base, index) => {
    const nodeType = nonEmptyString(nodes[index]!.data.nodeType);
    let name = base;
    if (shared.get(base)! > 1 && nodeType !== undefined) name = `${base} (${nodeType})`;
    if (name === base ? used.has(name) : taken(name)) {
      let suffix = 2;
      while (taken(`${name} #${suffix}`)) suffix++;
      name = `${name} #${suffix}`;
    }
    used.add(name);
    return name;
  });
}

function kialiStructure(elements: Elements): MappedGraph {
  const byHash = indexIds(elements.nodes, (node) => ({ box: isBox(node.data), name: '' }));
  const services = elements.nodes.filter((node) => !byHash.get(node.data.id as string)!.box);
  const boxes = elements.nodes.length - services.length;
  const hashes = services.map((node) => node.data.id as string);
  const names = readableIds(services, hashes, elements.top?.graphType);
  hashes.forEach((hash, index) => {
    byHash.get(hash)!.name = names[index]!;
  });
  const renamed: Renamed = new Map();
  const graphNodes = services.map((node, index) => {
    const sent = sentRequests(node);
    return {
      id: names[index]!,
      root: node.data.isRoot === true,
      ...(sent === undefined ? {} : { requests: sent }),
      // The hash (and the mark) last, so a source field of the same name cannot replace them.
      extra: Object.fromEntries([
        ...extrasOf(node.data, ['id'], NODE_FIELDS, renamed, 'node'),
        ['kialiId', hashes[index]],
        ...(isExternal(node.data) ? [['external', true] as [string, unknown]] : []),
      ]),
    };
  });

  const calls: ObservedCall[] = [];
  const leftOut = new Map<string, string[]>();
  for (const edge of elements.edges) {
    const ends = (['source', 'target'] as const).map((end) => {
      const node = endpointOf(edge, end, byHash);
      if (node.box)
        throw new FormatError(
          `${edge.path}.data.${end}`,
          `${quote(edge.data[end] as string)} is a box (${node.path}), a grouping and not a service: no edge may touch one`,
        );
      return node.name;
    });
    const [from, to] = ends as [string, string];
    const traffic = edgeTraffic(edge);
    const observed = observedLatencyOf(edge);
    if (traffic.requests === undefined) {
      const list = leftOut.get(traffic.protocol!) ?? [];
      list.push(`${from} → ${to}`);
      leftOut.set(traffic.protocol!, list);
      continue;
    }
    const extra = Object.fromEntries([
      ...extrasOf(
        edge.data,
        ['id', 'source', 'target', 'traffic', 'responseTime'],
        DEPENDENCY_FIELDS,
        renamed,
        'edge',
      ),
      ...traffic.extra,
      ...(edge.data.id === undefined ? [] : [['kialiId', edge.data.id] as [string, unknown]]),
      ...(observed === undefined ? [] : [['observedLatency', observed] as [string, unknown]]),
    ]);
    calls.push({ from, to, count: traffic.requests, extra, path: edge.path });
  }

  const mapped = callGraphStructure({ nodes: graphNodes, calls });
  const warnings: string[] = [];
  if (boxes > 0) warnings.push(`${plural(boxes, 'box node')} skipped (Kiali's groupings, not services)`);
  for (const [protocol, named] of leftOut) {
    const why =
      protocol === 'tcp'
        ? 'tcp rates are bytes per second, not requests'
        : 'only http and grpc rates count requests';
    warnings.push(`${plural(named.length, `${protocol} edge`)} left out (${why}): ${someOf(named)}`);
  }
  warnings.push(...mapped.warnings, ...renameWarnings(renamed));
  return { nodes: mapped.nodes, dependencies: mapped.dependencies, unit: 'second', warnings };
}

export const cytoscape: GraphFormat = {
  name: 'cytoscape',
  detect,
  toStructure(document) {
    const elements = elementsOf(document);
    return isKiali(elements) ? kialiStructure(elements) : plainStructure(elements);
  },
};
