/**
 * Node-link graphs: `{ nodes: [...], links | edges: [{ source, target }] }`, as networkx's
 * `node_link_data` writes them (`links` up to 3.3, `edges` from 3.4, with `directed`,
 * `multigraph` and `graph` beside them, and `from`/`to` when it is asked for those key names),
 * as D3's force layouts read them, and as Grafana's node graph API serves them (numeric-string
 * ids, `title`, `mainStat`, `arc__*`, `detail__*`).
 *
 * Detection: a top-level object with a `nodes` array and a `links` or `edges` array, and no
 * `dependencies` array (that is the engine's own format). The first node and the first link,
 * where there are any, must be objects that are not Cytoscape's `{ data: {...} }` elements
 * (Cytoscape, for its part, claims a bare `{ nodes, edges }` only when it starts with such a
 * node), so an empty `{ nodes: [], edges: [] }` (Grafana's node graph with nothing to show) is
 * node-link's. JSON Graph Format keeps its nodes under `graph` or `graphs`, never at the top
 * level, so the two never meet.
 *
 * Mapping:
 * - **Direction.** A link goes from `source` to `target` (or from `from` to `to` where a link
 *   has no `source`/`target`). `"directed": false` is refused, naming `directed`: an undirected
 *   graph does not say which way work flows. A document without `directed` is read as directed.
 * - **Node ids.** A node's id is its `id`, else its `name`, else (D3 without ids) its position
 *   in `nodes`. An id must be a non-empty string or a number (a number becomes its decimal
 *   string: `7` → `"7"`), and ids must be unique (the second one is named).
 * - **Link ends.** When every node has an `id`, an end is a node id: a string or a number equal
 *   to one (`1` finds the node with id `1` or `"1"`). If some end matches no id but every end is
 *   a position in `nodes` (an integer from 0 to the last index), all ends are read as positions
 *   instead, as networkx 1.x wrote them, with a warning; the two are never mixed in one
 *   document. When some node has no `id` (D3's index links), an integer end is a position in
 *   `nodes` and a string end is a node id (a `name`). An end that is neither is refused
 *   (`links[2].source: must be a node id or a position in nodes, got true`).
 * - **No traffic.** No weight is read: `value` is D3's (often co-occurrence, not calls),
 *   `weight` is networkx's (a cost as often as a rate), Grafana's `mainStat` is a display string
 *   as often as a number. Every dependency keeps the engine's default weight 1, no node gets an
 *   arrival or fan-out, and the unit is `none`. Those fields are kept as they came. The first
 *   warning says so (`NO_TRAFFIC_WARNING`): there is nothing to analyze until arrivals are set.
 * - **Extra fields.** Every other field of a node or link is kept; a field whose name the engine
 *   owns (`load`, `capacity`, `weight`, `from`, …) is kept as `original_<name>` with a warning,
 *   so it is never read as an engine number. Links repeating a pair (a multigraph's parallel
 *   edges) are merged into one dependency whose weight is their number (`repeated-pairs.ts`),
 *   with a warning.
 */
import type { DependencyInput, NodeInput } from '../engine/types';
import { NO_TRAFFIC_WARNING } from './no-traffic';
import { mergeRepeatedPairs, repeatedPairsWarning } from './repeated-pairs';
import {
  copyExtras,
  DEPENDENCY_FIELDS,
  describeValue,
  idText,
  isRecord,
  NODE_FIELDS,
  quote,
  type Renamed,
  renameWarnings,
} from './text';
import { FormatError, type GraphFormat, type MappedGraph } from './types';

export const nodeLink: GraphFormat = {
  name: 'node-link',
  detect(document) {
    try {
      if (!isRecord(document) || !Array.isArray(document.nodes)) return false;
      if (Array.isArray(document.dependencies)) return false;
      const links = Array.isArray(document.links) ? document.links : document.edges;
      return Array.isArray(links) && isPlainElement(document.nodes[0]) && isPlainElement(links[0]);
    } catch {
      // A hostile getter or proxy (never parsed JSON): not this format.
      return false;
    }
  },
  toStructure(document) {
    if (!isRecord(document)) {
      throw new FormatError(
        '',
        `must be an object with "nodes" and "links" arrays, got ${describeValue(document)}`,
      );
    }
    return mapNodeLink(document);
  },
};

/** A node or link as node-link writes it (absent counts: an empty array has no first element). */
function isPlainElement(element: unknown): boolean {
  return element === undefined || (isRecord(element) && !isRecord(element.data));
}

interface End {
  path: string;
  value: unknown;
}

function mapNodeLink(document: Record<string, unknown>): MappedGraph {
  const directed = document.directed;
  if (directed !== undefined && typeof directed !== 'boolean') {
    throw new FormatError('directed', `must be true or false, got ${describeValue(directed)}`);
  }
  if (directed === false) {
    throw new FormatError(
      'directed',
      'is false: an undirected graph does not say which way work flows, and the engine needs that direction',
    );
  }
  const nodes = document.nodes;
  if (!Array.isArray(nodes)) throw new FormatError('nodes', `must be an array, got ${describeValue(nodes)}`);
  if (document.links !== undefined && document.edges !== undefined) {
    throw new FormatError('edges', 'is given beside "links": send the links under one of the two names');
  }
  const linkKey = document.links !== undefined ? 'links' : 'edges';
  const links = document[linkKey];
  if (!Array.isArray(links)) {
    throw new FormatError(
      linkKey,
      `must be an array of links (under "links" or "edges"), got ${describeValue(links)}`,
    );
  }

  const renamed: Renamed = new Map();
  const indexOf = new Map<string, number>();
  const ids: string[] = [];
  let keyed = true;
  const mappedNodes: NodeInput[] = nodes.map((node: unknown, i) => {
    const path = `nodes[${i}]`;
    if (!isRecord(node)) throw new FormatError(path, `must be an object, got ${describeValue(node)}`);
    let id: string;
    let idPath: string;
    if (node.id !== undefined) {
      idPath = `${path}.id`;
      id = idText(node.id, idPath);
    } else {
      keyed = false;
      idPath = node.name !== undefined ? `${path}.name` : path;
      id = node.name !== undefined ? idText(node.name, idPath) : String(i);
    }
    const first = indexOf.get(id);
    if (first !== undefined) {
      throw new FormatError(
        idPath,
        idPath === path
          ? `has no id or name, and its position ${quote(id)} is already the id of nodes[${first}]`
          : `duplicate id ${quote(id)} (first used by nodes[${first}])`,
      );
    }
    indexOf.set(id, i);
    ids.push(id);
    const mapped: NodeInput = { id };
    copyExtras(mapped, node, ['id'], NODE_FIELDS, renamed, 'node');
    return mapped;
  });

  const ends: End[] = [];
  const endKeys: Array<[string, string]> = links.map((link: unknown, e) => {
    const path = `${linkKey}[${e}]`;
    if (!isRecord(link)) throw new FormatError(path, `must be an object, got ${describeValue(link)}`);
    const sourceKey = !Object.hasOwn(link, 'source') && Object.hasOwn(link, 'from') ? 'from' : 'source';
    const targetKey = !Object.hasOwn(link, 'target') && Object.hasOwn(link, 'to') ? 'to' : 'target';
    ends.push({ path: `${path}.${sourceKey}`, value: link[sourceKey] });
    ends.push({ path: `${path}.${targetKey}`, value: link[targetKey] });
    return [sourceKey, targetKey];
  });

  const warnings: string[] = [];
  const byId = (value: unknown): number | undefined =>
    typeof value === 'string' || typeof value === 'number' ? indexOf.get(String(value)) : undefined;
  const byPosition = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < nodes.length
      ? value
      : undefined;
  let resolve: (value: unknown) => number | undefined;
  if (keyed) {
    resolve = byId;
    const notAnId = ends.find((end) => byId(end.value) === undefined);
    if (notAnId !== undefined) {
      const notAPosition = ends.find((end) => byPosition(end.value) === undefined);
      if (notAPosition !== undefined) {
        if (byPosition(notAnId.value) === undefined) throw notAnEnd(notAnId);
        throw new FormatError(
          notAnId.path,
          `${describeValue(notAnId.value)} is no node id, and the ends cannot all be read as positions in nodes instead (${notAPosition.path} is ${describeValue(notAPosition.value)})`,
        );
      }
      resolve = byPosition;
      warnings.push(
        `not every end of the ${linkKey} is a node id (${notAnId.path} is ${describeValue(notAnId.value)}), but every one is a position in nodes, so all are read as positions, as networkx 1.x wrote them`,
      );
    }
  } else {
    resolve = (value) => (typeof value === 'number' ? byPosition(value) : byId(value));
  }
  const at = (end: End): string => {
    const index = resolve(end.value);
    if (index === undefined) throw notAnEnd(end);
    return ids[index]!;
  };

  const linked = links.map((link: Record<string, unknown>, e) => {
    const dependency: DependencyInput = { from: at(ends[2 * e]!), to: at(ends[2 * e + 1]!) };
    copyExtras(dependency, link, endKeys[e]!, DEPENDENCY_FIELDS, renamed, 'link');
    return dependency;
  });
  const merged = mergeRepeatedPairs(linked);
  warnings.push(...repeatedPairsWarning(merged, 'link', (e) => `${linkKey}[${e}]`));
  warnings.push(...renameWarnings(renamed));
  return {
    nodes: mappedNodes,
    dependencies: merged.dependencies,
    unit: 'none',
    warnings: [NO_TRAFFIC_WARNING, ...warnings],
  };
}

function notAnEnd(end: End): FormatError {
  return new FormatError(
    end.path,
    `must be a node id or a position in nodes, got ${describeValue(end.value)}`,
  );
}
