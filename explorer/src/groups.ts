import type { DependencyState, EngineResult, NodeState } from '../../lib/engine/types';

/** The nodes of a structure in groups, as Kiali boxes a namespace's (see `groupingOf`). */
export interface Grouping {
  /** Each node's group, an index into `names`, or -1 for a node in none. */
  of: Int32Array;
  /** Each group's name (its key), in the order of their first member. */
  names: string[];
  /** Each group's number of nodes. */
  sizes: number[];
}

/** A group needs at least this many nodes… */
const MIN_MEMBERS = 2;
/** …and there must be at least this many such groups, or nothing is grouped. */
const MIN_GROUPS = 2;
/** The id of a collapsed group's node: this, then the group's name. */
const GROUP_ID = 'group:';

/**
 * A node's group key: its namespace when the node carries one (Kiali's node data, which connect
 * keeps as an extra field, `namespace`), else its id's prefix before the first `.` or `/`
 * (`shop.cart`, `shop/cart`: `shop`), else none.
 * @internal exported for its unit tests; the page reads keys through `groupingOf`.
 */
export function groupKey(node: Readonly<{ id: string; namespace?: unknown }>): string | undefined {
  if (typeof node.namespace === 'string' && node.namespace !== '') return node.namespace;
  const cut = node.id.search(/[./]/);
  return cut > 0 ? node.id.slice(0, cut) : undefined;
}

/**
 * The nodes in groups by `groupKey`, keys shared by at least two nodes making a group (a node
 * alone under its key is in none); `undefined` unless that makes at least two groups.
 */
export function groupingOf(
  nodes: ReadonlyArray<Readonly<{ id: string; namespace?: unknown }>>,
): Grouping | undefined {
  const keys = nodes.map(groupKey);
  const counts = new Map<string, number>();
  for (const key of keys) if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  const names: string[] = [];
  const sizes: number[] = [];
  const index = new Map<string, number>();
  const of = new Int32Array(nodes.length).fill(-1);
  keys.forEach((key, v) => {
    if (key === undefined || counts.get(key)! < MIN_MEMBERS) return;
    let g = index.get(key);
    if (g === undefined) {
      g = names.length;
      index.set(key, g);
      names.push(key);
      sizes.push(0);
    }
    of[v] = g;
    sizes[g]!++;
  });
  return names.length >= MIN_GROUPS ? { of, names, sizes } : undefined;
}

/**
 * The id a collapsed group's node is drawn with.
 * @internal exported for its unit tests; the page makes them through `collapseGroups`.
 */
export function groupId(name: string): string {
  return `${GROUP_ID}${name}`;
}

/** The group a node id stands for, when it is a collapsed group's. */
export function groupNameOf(id: string): string | undefined {
  return id.startsWith(GROUP_ID) ? id.slice(GROUP_ID.length) : undefined;
}

const sumOf = (values: ReadonlyArray<number | undefined>): number | undefined =>
  values.some((value) => value !== undefined)
    ? values.reduce<number>((sum, value) => sum + (value ?? 0), 0)
    : undefined;
const mostOf = (values: ReadonlyArray<number | undefined>): number | undefined => {
  const defined = values.filter((value): value is number => value !== undefined);
  return defined.length === 0 ? undefined : Math.max(...defined);
};

/**
 * The dependencies with each end renamed by `target` (a collapsed group's member to the group's
 * node): those now inside one group left out, those now joining the same two nodes merged into
 * one, in the order of their first, its `flow` and `throughput` the sums of theirs (throughput
 * left out when none has one) and `merged` their number. A dependency alone keeps its fields.
 * @internal exported for its unit tests; the page merges through `collapseGroups`.
 */
export function mergeDependencies(
  dependencies: readonly DependencyState[],
  target: (id: string) => string,
): DependencyState[] {
  const merged = new Map<string, DependencyState[]>();
  for (const d of dependencies) {
    const from = target(d.from);
    const to = target(d.to);
    // Inside a collapsed group (a node calling itself outside one stays).
    if (from === to && from !== d.from) continue;
    const key = `${from}\u0000${to}`;
    const list = merged.get(key);
    if (list) list.push({ ...d, from, to });
    else merged.set(key, [{ ...d, from, to }]);
  }
  return [...merged.values()].map((list) => {
    if (list.length === 1) return list[0]!;
    const throughput = sumOf(list.map((d) => d.throughput));
    return {
      from: list[0]!.from,
      to: list[0]!.to,
      flow: list.reduce((sum, d) => sum + d.flow, 0),
      ...(throughput === undefined ? {} : { throughput }),
      merged: list.length,
    };
  });
}

/**
 * `result` with each group named in `collapsed` drawn as one node where its first member was: the
 * sum of its members' load, flows and throughput, the worst (largest) of their pressure,
 * utilization and response time (so it takes the colour of its worst member), blocked when any
 * is; its dependencies merged (`mergeDependencies`); the primary blockage, the origin and the
 * trace moved to it when they were among its members. Extra fields `group` (its name) and
 * `members` (their number) say what it stands for.
 */
export function collapseGroups(
  result: EngineResult,
  grouping: Grouping,
  collapsed: ReadonlySet<string>,
): EngineResult {
  if (collapsed.size === 0) return result;
  const groupOfId = new Map<string, string>();
  result.nodes.forEach((node, v) => {
    const g = grouping.of[v] ?? -1;
    if (g >= 0 && collapsed.has(grouping.names[g]!)) groupOfId.set(node.id, groupId(grouping.names[g]!));
  });
  if (groupOfId.size === 0) return result;
  const target = (id: string) => groupOfId.get(id) ?? id;
  const dependencies = mergeDependencies(result.dependencies, target);
  const calling = new Set(dependencies.filter((d) => d.from !== d.to).map((d) => d.from));
  const called = new Set(dependencies.filter((d) => d.from !== d.to).map((d) => d.to));
  const members = new Map<string, NodeState[]>();
  for (const node of result.nodes) {
    const id = groupOfId.get(node.id);
    if (id === undefined) continue;
    const list = members.get(id);
    if (list) list.push(node);
    else members.set(id, [node]);
  }
  const nodes: NodeState[] = [];
  const placed = new Set<string>();
  for (const node of result.nodes) {
    const id = groupOfId.get(node.id);
    if (id === undefined) {
      nodes.push(node);
      continue;
    }
    if (placed.has(id)) continue;
    placed.add(id);
    const list = members.get(id)!;
    const group: NodeState = {
      id,
      load: list.reduce((sum, n) => sum + n.load, 0),
      inflow: list.reduce((sum, n) => sum + n.inflow, 0),
      outflow: list.reduce((sum, n) => sum + n.outflow, 0),
      pressure: Math.max(...list.map((n) => n.pressure)),
      blocked: list.some((n) => n.blocked),
      role: calling.has(id) ? (called.has(id) ? 'relay' : 'source') : called.has(id) ? 'sink' : 'isolated',
      group: groupNameOf(id),
      members: list.length,
    };
    const throughput = sumOf(list.map((n) => n.throughput));
    const utilization = mostOf(list.map((n) => n.utilization));
    const responseTime = mostOf(list.map((n) => n.responseTime));
    if (throughput !== undefined) group.throughput = throughput;
    if (utilization !== undefined) group.utilization = utilization;
    if (responseTime !== undefined) group.responseTime = responseTime;
    nodes.push(group);
  }
  const trace: string[] = [];
  for (const id of result.trace.map(target)) if (trace[trace.length - 1] !== id) trace.push(id);
  return {
    ...result,
    nodes,
    dependencies,
    primaryBlockage: result.primaryBlockage === null ? null : target(result.primaryBlockage),
    origin: result.origin === null ? null : { ...result.origin, id: target(result.origin.id) },
    trace,
  };
}
