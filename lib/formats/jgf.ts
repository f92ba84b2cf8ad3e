/**
 * JSON Graph Format (jsongraphformat.info), versions 1 and 2: `{ graph: {...} }` or
 * `{ graphs: [...] }`. Version 1 lists `nodes` as an array of `{ id, label?, metadata? }`;
 * version 2 keys them by id (`{ "<id>": { label?, metadata? } }`). Both list
 * `edges: [{ source, target, relation?, directed?, label?, metadata? }]`.
 *
 * Detection: a top-level object with no `nodes` of its own whose `graph` is an object holding
 * `nodes` (an array or an object), or whose `graphs` is an array whose first element is such an
 * object, and which the engine's own format does not claim (a `graph` container holding
 * `nodes` and `dependencies` arrays is the engine's).
 *
 * Mapping:
 * - **Which graph.** `graph` (a `graphs` beside it is left out, with a warning); else
 *   `graphs[0]`, with a warning saying how many other graphs were left out (graphs are separate,
 *   and their ids may repeat across them). An empty `graphs` is refused.
 * - **Direction.** `directed` defaults to true (v1's `null` too). `"directed": false` on the graph is refused,
 *   naming `graph.directed` (or `graphs[0].directed`), and so is `false` on an edge (naming
 *   that edge's `directed`): an undirected graph does not say which way work flows.
 * - **Nodes.** Version 1: `id` must be a non-empty string or a number (a number becomes its
 *   decimal string), unique (the second is named). Version 2: the key is the id (an empty key
 *   is refused), the value must be an object, and the nodes come in the object's key order as
 *   parsed JSON keeps it (integer-like keys first, in numeric order). Every other field (`label`, `metadata`, …) is
 *   kept as it came.
 * - **Edges.** `source` → `target`, each a node id of the graph (a number is read as its
 *   decimal string); an unknown id is refused. `relation`, `label`, `metadata`, `id`,
 *   `directed` and any other field are kept. Edges repeating a pair are merged into one
 *   dependency whose weight is their number (`repeated-pairs.ts`), with a warning.
 * - **Hyperedges.** A hyperedge joins sets of nodes; the engine's dependencies join two. A graph
 *   with `hyperedges` and no `edges` is refused, naming `graph.hyperedges` (rather than read as
 *   nodes without a single dependency); beside `edges` they are left out with a warning.
 * - **No traffic.** JGF carries none (a `metadata.value` or `metadata.weight` means whatever its
 *   author chose), so every dependency keeps the engine's default weight 1, no node gets an
 *   arrival or fan-out, and the unit is `none`; the first warning says there is nothing to
 *   analyze until arrivals are set.
 * - **Containment.** A graph may say its edges are not calls but containment or hierarchy: a
 *   `relation` such as `contains`, `part_of`, `child_of`, `member_of`, `is_a`; Flux's resource
 *   graphs' `metadata.subsystem: "containment"` or `metadata.name: { containment: … }`; or a
 *   graph `type` of `containment`, `hierarchy` or `tree`. Such edges are still read as
 *   dependencies, source → target, and one warning says how many there are, the first, and that
 *   they were read as calls.
 * - A field whose name the engine owns (`load`, `capacity`, `weight`, `from`, …) is kept as
 *   `original_<name>` with a warning, so it is never read as an engine number.
 */
import type { DependencyInput, NodeInput } from '../engine/types';
import { native } from './native';
import { NO_TRAFFIC_WARNING } from './no-traffic';
import { mergeRepeatedPairs, repeatedPairsWarning } from './repeated-pairs';
import {
  copyExtras,
  DEPENDENCY_FIELDS,
  describeValue,
  idText,
  isRecord,
  memberPath,
  NODE_FIELDS,
  plural,
  quote,
  type Renamed,
  renameWarnings,
} from './text';
import { FormatError, type GraphFormat, type MappedGraph } from './types';

export const jgf: GraphFormat = {
  name: 'jgf',
  detect(document) {
    try {
      if (!isRecord(document) || Object.hasOwn(document, 'nodes') || native.detect(document)) return false;
      if (document.graph !== undefined) return isGraph(document.graph);
      return Array.isArray(document.graphs) && isGraph(document.graphs[0]);
    } catch {
      // A hostile getter or proxy (never parsed JSON): not this format.
      return false;
    }
  },
  toStructure(document) {
    if (!isRecord(document)) {
      throw new FormatError(
        '',
        `must be an object with a "graph" object or a "graphs" array, got ${describeValue(document)}`,
      );
    }
    const warnings: string[] = [];
    let graph: unknown;
    let path: string;
    if (document.graph !== undefined) {
      graph = document.graph;
      path = 'graph';
      if (document.graphs !== undefined)
        warnings.push('"graphs" is left out: the document also has "graph", which is read');
    } else if (Array.isArray(document.graphs)) {
      if (document.graphs.length === 0)
        throw new FormatError('graphs', 'is empty: there is no graph to read');
      graph = document.graphs[0];
      path = 'graphs[0]';
      const others = document.graphs.length - 1;
      if (others > 0) {
        warnings.push(
          `only graphs[0] is read; ${plural(others, 'other graph')} (graphs[1]${others > 1 ? ` to graphs[${others}]` : ''}) ${others === 1 ? 'is' : 'are'} left out`,
        );
      }
    } else {
      throw new FormatError(
        document.graphs === undefined ? '' : 'graphs',
        document.graphs === undefined
          ? 'must have a "graph" object or a "graphs" array'
          : `must be an array of graphs, got ${describeValue(document.graphs)}`,
      );
    }
    if (!isRecord(graph)) throw new FormatError(path, `must be a graph object, got ${describeValue(graph)}`);
    return mapGraph(graph, path, warnings);
  },
};

/** A JGF graph: an object with `nodes` (array in v1, object in v2) that is not the engine's container. */
function isGraph(graph: unknown): boolean {
  return (
    isRecord(graph) &&
    (Array.isArray(graph.nodes) || isRecord(graph.nodes)) &&
    !Array.isArray(graph.dependencies)
  );
}

function mapGraph(graph: Record<string, unknown>, path: string, warnings: string[]): MappedGraph {
  checkDirected(graph.directed, `${path}.directed`);
  const renamed: Renamed = new Map();
  const nodes: NodeInput[] = [];
  const known = new Map<string, string>();
  const addNode = (id: string, fields: Record<string, unknown>, at: string, idPath: string) => {
    const first = known.get(id);
    if (first !== undefined)
      throw new FormatError(idPath, `duplicate id ${quote(id)} (first used by ${first})`);
    known.set(id, at);
    const node: NodeInput = { id };
    copyExtras(node, fields, at === idPath ? [] : ['id'], NODE_FIELDS, renamed, 'node');
    nodes.push(node);
  };

  const given = graph.nodes;
  if (Array.isArray(given)) {
    given.forEach((node: unknown, i) => {
      const nodePath = `${path}.nodes[${i}]`;
      if (!isRecord(node)) throw new FormatError(nodePath, `must be an object, got ${describeValue(node)}`);
      addNode(idText(node.id, `${nodePath}.id`), node, nodePath, `${nodePath}.id`);
    });
  } else if (isRecord(given)) {
    for (const key of Object.keys(given)) {
      const nodePath = memberPath(`${path}.nodes`, key);
      if (key.length === 0)
        throw new FormatError(nodePath, 'is keyed by an empty id: a node id must be non-empty');
      const node = given[key];
      if (!isRecord(node)) throw new FormatError(nodePath, `must be an object, got ${describeValue(node)}`);
      addNode(key, node, nodePath, nodePath);
    }
  } else if (given !== undefined) {
    throw new FormatError(
      `${path}.nodes`,
      `must be an array (version 1) or an object keyed by id (version 2), got ${describeValue(given)}`,
    );
  }

  const hyperedges = Array.isArray(graph.hyperedges) ? graph.hyperedges.length : 0;
  const edges = graph.edges;
  if (edges === undefined && hyperedges > 0) {
    throw new FormatError(
      `${path}.hyperedges`,
      'are not read: a hyperedge joins sets of nodes and the engine\'s dependencies join two; send the graph with "edges"',
    );
  }
  if (hyperedges > 0) {
    warnings.push(`${path}.hyperedges: ${plural(hyperedges, 'hyperedge')} left out (only "edges" are read)`);
  }
  if (edges !== undefined && !Array.isArray(edges)) {
    throw new FormatError(`${path}.edges`, `must be an array, got ${describeValue(edges)}`);
  }

  const joined: DependencyInput[] = (edges ?? []).map((edge: unknown, e) => {
    const edgePath = `${path}.edges[${e}]`;
    if (!isRecord(edge)) throw new FormatError(edgePath, `must be an object, got ${describeValue(edge)}`);
    checkDirected(edge.directed, `${edgePath}.directed`);
    const dependency: DependencyInput = {
      from: endOf(edge.source, `${edgePath}.source`, known),
      to: endOf(edge.target, `${edgePath}.target`, known),
    };
    copyExtras(dependency, edge, ['source', 'target'], DEPENDENCY_FIELDS, renamed, 'edge');
    return dependency;
  });
  const merged = mergeRepeatedPairs(joined);
  const containing = containmentWarning(graph, path);
  warnings.push(...repeatedPairsWarning(merged, 'edge', (e) => `${path}.edges[${e}]`));
  warnings.push(...renameWarnings(renamed));
  return {
    nodes,
    dependencies: merged.dependencies,
    unit: 'none',
    warnings: [NO_TRAFFIC_WARNING, ...containing, ...warnings],
  };
}

/**
 * Relations that say one node holds, belongs to or classifies another — containment and
 * hierarchy, not calls — compared without case or separators (`part_of`, `isPartOf`, `part-of`).
 */
const CONTAINMENT_RELATIONS: ReadonlySet<string> = new Set([
  'contains',
  'containedby',
  'containedin',
  'haspart',
  'partof',
  'ispartof',
  'haschild',
  'childof',
  'ischildof',
  'parentof',
  'isparentof',
  'hasparent',
  'hasmember',
  'memberof',
  'ismemberof',
  'belongsto',
  'subclassof',
  'superclassof',
  'isa',
]);

/** Graph types that say the whole graph is a tree of containment or hierarchy. */
const CONTAINMENT_GRAPH_TYPES: ReadonlySet<string> = new Set(['containment', 'hierarchy', 'tree']);

function plainWord(value: unknown): string | undefined {
  return typeof value === 'string' ? value.toLowerCase().replace(/[^a-z]/g, '') : undefined;
}

/**
 * What says an edge is containment, in the edge's own words, or undefined. JGF leaves `relation`
 * free text, so its common containment and hierarchy words count; so do the marks of Flux's
 * resource graphs, the JGF most often served as a containment tree: `metadata.subsystem:
 * "containment"` and `metadata.name: { containment: "contains" }`.
 */
function containmentOf(edge: Record<string, unknown>): string | undefined {
  if (CONTAINMENT_RELATIONS.has(plainWord(edge.relation) ?? ''))
    return `relation ${quote(String(edge.relation))}`;
  const metadata = edge.metadata;
  if (!isRecord(metadata)) return undefined;
  if (metadata.subsystem === 'containment') return 'metadata.subsystem "containment"';
  if (isRecord(metadata.name) && Object.hasOwn(metadata.name, 'containment'))
    return 'metadata.name.containment';
  return undefined;
}

/**
 * The warning for a containment tree read as calls, once per graph: how many edges say so, the
 * first, and what the engine made of them.
 */
function containmentWarning(graph: Record<string, unknown>, path: string): string[] {
  const edges = Array.isArray(graph.edges) ? graph.edges : [];
  const byType = CONTAINMENT_GRAPH_TYPES.has(plainWord(graph.type) ?? '');
  let count = 0;
  let first: string | undefined;
  edges.forEach((edge: unknown, e) => {
    const said = byType
      ? `${path}.type ${quote(String(graph.type))}`
      : isRecord(edge)
        ? containmentOf(edge)
        : undefined;
    if (said === undefined) return;
    if (count++ === 0) first = byType ? said : `${path}.edges[${e}], ${said}`;
  });
  if (count === 0) return [];
  const which =
    count < edges.length
      ? `${count} of the ${edges.length} edges in ${path}.edges say`
      : count === 1
        ? `the one edge in ${path}.edges says`
        : `all ${count} edges in ${path}.edges say`;
  return [
    `${which} containment or hierarchy, not calls (${first}): they were read as calls all the same, work flowing from each edge's source to its target, so an answer follows the tree, not requests`,
  ];
}

function checkDirected(directed: unknown, path: string): void {
  // JGF v1 allows null for "not said", which is the default.
  if (directed === undefined || directed === null || directed === true) return;
  if (directed === false) {
    throw new FormatError(
      path,
      'is false: an undirected graph does not say which way work flows, and the engine needs that direction',
    );
  }
  throw new FormatError(path, `must be true or false, got ${describeValue(directed)}`);
}

function endOf(value: unknown, path: string, known: ReadonlyMap<string, string>): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new FormatError(path, `must be a node id, got ${describeValue(value)}`);
  }
  const id = String(value);
  if (!known.has(id)) throw new FormatError(path, `unknown node ${quote(id)}`);
  return id;
}
