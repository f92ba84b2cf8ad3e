/**
 * Call graphs (who calls whom, how often) onto the open model. Every service is a fan-out node:
 * a request it processes completes there and becomes calls on its callees. An edge's `weight`
 * is the calls on the callee per request the caller processes: its observed calls divided by
 * the caller's own throughput — the calls into it, or for an entry node (no other node calls
 * it, or the source marks it a root) its `arrival` plus any calls into it. With those, the
 * steady `throughput` of every service reproduces the observed calls exactly, whatever the
 * entries' arrivals are. Loads are 0; no capacity is invented.
 *
 * An entry's arrival is what the source counts for the node itself where it does (`requests`:
 * Kiali's node rates, X-Ray's service statistics): those requests less the calls into it that
 * the graph shows (its calls on itself, a root's callers), so the entry processes exactly the
 * requests counted. Where the source counts only calls (Jaeger, Zipkin), it is an estimate: the
 * largest count among its outgoing calls. That is a lower bound on the requests it took as long
 * as a request makes at most one call on each service (a retry or a loop breaks that), so the
 * weights of its calls are upper bounds (and the sum of its calls bounds the arrival from above
 * when every request makes at least one call); the calls into every other service are observed,
 * so their throughputs are exact all the same. A warning names the entries estimated.
 */
import type { DependencyInput, NodeInput } from '../engine/types';
import { FormatError } from './types';

export interface ObservedCall {
  from: string;
  to: string;
  /** Calls in the source's window, or per second; finite and >= 0. */
  count: number;
  /** The source's own fields (error counts, protocol, rates as given), kept on the dependency. */
  extra?: Record<string, unknown>;
  /** Where the call is in the source (`data[3]`), for the warning when it repeats a pair. */
  path?: string;
}

export interface CallGraphInput {
  /** Node ids in the order they should appear, each with the source's fields to keep. */
  nodes: ReadonlyArray<{
    id: string;
    extra?: Record<string, unknown>;
    /** The source marks it an entry (Kiali's `isRoot`): it takes arrivals even if others call it. */
    root?: boolean;
    /** Only to pick the entry of a cycle that nothing outside calls (X-Ray's `Root`). */
    preferredEntry?: boolean;
    /**
     * The requests the source counts the node processing, in the calls' unit (its calls on
     * itself among them): Kiali's rates of a node, X-Ray's service statistics. An entry's
     * arrival is what of them no call in the graph brings; without it, an estimate.
     */
    requests?: number;
  }>;
  calls: readonly ObservedCall[];
}

export interface CallGraph {
  nodes: NodeInput[];
  dependencies: DependencyInput[];
  warnings: string[];
}

/**
 * The fan-out structure for observed calls. A call counted 0 carries nothing and a weight must
 * be above 0, so such calls are left out (and counted in a warning).
 */
export function callGraphStructure(given: CallGraphInput): CallGraph {
  const { calls, repeatWarning } = mergeCalls(given.calls);
  const input = { nodes: given.nodes, calls };
  // A group of services that call each other and nothing else calls would get no arrival at
  // all (every throughput 0, every weight count / 0): one of them is taken as its entry.
  const preferred = new Set(
    input.nodes.filter((node) => node.preferredEntry === true).map((node) => node.id),
  );
  const roots = new Set(input.nodes.filter((node) => node.root === true).map((node) => node.id));
  const cycles = closedCycleEntries(
    input.nodes.map((node) => node.id),
    input.calls,
    (id) => preferred.has(id),
    (id) => roots.has(id),
  );
  for (const cycle of cycles) roots.add(cycle.entry);
  const fromOthers = new Map<string, number>();
  const fromItself = new Map<string, number>();
  // The busiest call of each node on another service, and on itself: a self-call is a request the
  // node makes itself, not one from outside, so it stands in for the estimate only where the node
  // calls nothing else.
  const largestOut = new Map<string, number>();
  const largestSelf = new Map<string, number>();
  for (const call of input.calls) {
    const self = call.from === call.to;
    const into = self ? fromItself : fromOthers;
    into.set(call.to, (into.get(call.to) ?? 0) + call.count);
    const largest = self ? largestSelf : largestOut;
    largest.set(call.from, Math.max(largest.get(call.from) ?? 0, call.count));
  }
  const throughput = new Map<string, number>();
  // Entries whose arrival is the estimate: the source counts no requests of theirs, or fewer
  // than the calls into them that the graph shows.
  const uncounted: Array<[string, number]> = [];
  const undercounted: Array<[string, number]> = [];
  const nodes: NodeInput[] = input.nodes.map((node) => {
    const calledByOthers = fromOthers.get(node.id) ?? 0;
    const calledByItself = fromItself.get(node.id) ?? 0;
    const entry = roots.has(node.id) || calledByOthers === 0;
    let arrival = 0;
    if (entry) {
      const fromOutside =
        node.requests === undefined ? undefined : node.requests - calledByOthers - calledByItself;
      // A sliver is rounding, not traffic: a count that is the sum of the very calls into the
      // node (a client's), added in another order, differs from them in the last digits, and
      // such an arrival would put a self-call's gain within a hair of 1 (the engine calls a loop
      // within 1e-9 of 1 unbounded).
      if (fromOutside !== undefined && fromOutside > NEGLIGIBLE * node.requests!) arrival = fromOutside;
      else {
        arrival = largestOut.get(node.id) || (largestSelf.get(node.id) ?? 0);
        if (arrival > 0) (node.requests === undefined ? uncounted : undercounted).push([node.id, arrival]);
      }
    }
    throughput.set(node.id, arrival + calledByOthers + calledByItself);
    const mapped: NodeInput = { ...(node.extra ?? {}), id: node.id, fanout: true };
    if (arrival > 0) mapped.arrival = arrival;
    return mapped;
  });
  const dependencies: DependencyInput[] = [];
  let silent = 0;
  for (const call of input.calls) {
    if (!(call.count > 0)) {
      silent++;
      continue;
    }
    const own = throughput.get(call.from)!;
    const weight = call.count / own;
    // Counts near the largest number overflow once added up, and a count far beyond what its
    // caller processes (1e300 calls for 5e-324 requests) overflows the weight: neither is a rate.
    if (!Number.isFinite(own) || !Number.isFinite(weight))
      throw new FormatError(
        call.path ?? '',
        `${quote(call.from)} makes ${call.count} calls on ${quote(call.to)} while processing ${own} requests: too far apart to be a rate (counts must stay below about 1e300 and within 1e300 of each other)`,
      );
    dependencies.push({ ...(call.extra ?? {}), from: call.from, to: call.to, weight });
  }
  const warnings = [
    ...repeatWarning,
    ...cycles.map(describeClosedCycle),
    ...estimatedArrivalsWarning(uncounted, undercounted),
  ];
  if (silent > 0) {
    warnings.push(
      `${silent} call${silent === 1 ? '' : 's'} with a count of 0 left out (no traffic to carry)`,
    );
  }
  return { nodes, dependencies, warnings };
}

/**
 * Calls of one caller on one callee, in first-seen order: their counts added, and every other
 * field that is a number in both (error counts); any other field keeps its first value. One
 * dependency per pair, so a million repeated links are one dependency, not a million.
 */
function mergeCalls(calls: readonly ObservedCall[]): { calls: ObservedCall[]; repeatWarning: string[] } {
  const byPair = new Map<string, Map<string, ObservedCall>>();
  const merged: ObservedCall[] = [];
  let repeated = 0;
  let example = '';
  for (const call of calls) {
    let byCallee = byPair.get(call.from);
    if (byCallee === undefined) {
      byCallee = new Map();
      byPair.set(call.from, byCallee);
    }
    const first = byCallee.get(call.to);
    if (first === undefined) {
      const own: ObservedCall = { ...call, extra: Object.assign(Object.create(null), call.extra) };
      byCallee.set(call.to, own);
      merged.push(own);
      continue;
    }
    if (repeated++ === 0) {
      example =
        call.path !== undefined && first.path !== undefined
          ? `${call.path} repeats ${first.path}`
          : `${quote(call.from)} → ${quote(call.to)}`;
    }
    first.count += call.count;
    if (!Number.isFinite(first.count))
      throw new FormatError(
        call.path ?? '',
        `the calls of ${quote(call.from)} on ${quote(call.to)} add up past the largest number a count can have`,
      );
    for (const [key, value] of Object.entries(call.extra ?? {})) {
      const before = first.extra![key];
      if (typeof before === 'number' && typeof value === 'number') first.extra![key] = before + value;
      else if (!(key in first.extra!)) first.extra![key] = value;
    }
  }
  const repeatWarning =
    repeated === 0
      ? []
      : [
          `${repeated} call${repeated === 1 ? '' : 's'} repeated a caller and callee seen before (${example}): merged into one dependency, counts added`,
        ];
  return { calls: merged, repeatWarning };
}

/**
 * The share of a node's own request count below which what is left after the calls into it is
 * taken for rounding or noise, not outside traffic: a millionth, far above float rounding and
 * far below any real share of outside requests.
 */
const NEGLIGIBLE = 1e-6;

/** How many entries a warning names before "and N more". */
const NAMED_ENTRIES = 3;

/** `"frontend": 300, "api": 20 and 4 more`. */
function someEntries(entries: ReadonlyArray<[string, number]>): string {
  const shown = entries
    .slice(0, NAMED_ENTRIES)
    .map(([id, arrival]) => `${quote(id)}: ${arrival}`)
    .join(', ');
  return entries.length > NAMED_ENTRIES ? `${shown} and ${entries.length - NAMED_ENTRIES} more` : shown;
}

/**
 * The warning for arrivals the source does not count: what they are and which way they err, so
 * a reader knows what the numbers at the entries mean and where settings should correct them.
 */
function estimatedArrivalsWarning(
  uncounted: ReadonlyArray<[string, number]>,
  undercounted: ReadonlyArray<[string, number]>,
): string[] {
  const direction =
    'a lower bound on the requests it takes while a request makes at most one call on each service, so the weights of its calls (calls per request) are upper bounds; set arrivals in settings where they are known';
  const warnings: string[] = [];
  if (uncounted.length > 0) {
    const one = uncounted.length === 1;
    warnings.push(
      `${one ? '1 entry has' : `${uncounted.length} entries have`} no count of ${one ? 'its' : 'their'} own requests in the document: ${one ? 'its' : "each one's"} arrival is the largest count among its calls (${someEntries(uncounted)}), ${direction}`,
    );
  }
  if (undercounted.length > 0) {
    const one = undercounted.length === 1;
    warnings.push(
      `${one ? "1 entry's" : `${undercounted.length} entries'`} own request count${one ? ' is' : 's are'} not above the calls into ${one ? 'it' : 'them'} that the graph shows: ${one ? 'its' : "each one's"} arrival is the largest count among its calls instead (${someEntries(undercounted)}), ${direction}`,
    );
  }
  return warnings;
}

function quote(id: string): string {
  return JSON.stringify(id.length > 40 ? `${id.slice(0, 39)}…` : id);
}

/** The warning for a cycle `closedCycleEntries` gave an entry. */
function describeClosedCycle(cycle: ClosedCycle): string {
  const shown = cycle.members.slice(0, 5).map(quote).join(', ');
  const more = cycle.members.length > 5 ? `, … (${cycle.members.length} in all)` : '';
  return `${shown}${more} call each other and nothing else calls them: ${quote(cycle.entry)} is taken as their entry (it gets the arrivals)`;
}

/** A group of services that call each other (a strongly connected component) and nothing else calls. */
interface ClosedCycle {
  /** The node made the group's entry. */
  entry: string;
  /** The group's nodes in the order given. */
  members: string[];
}

/**
 * The cycles no outside traffic reaches, each with the node to mark `root`. `callGraphStructure`
 * makes a node an entry only when nothing else calls it, so in such a cycle no node would have
 * an arrival, every throughput would be 0 and every weight `count / 0`. Only calls with a count
 * above 0 between different nodes join a cycle (self-calls and silent calls do not). The entry
 * is the member with the busiest call (ties: the first in `ids` order), among the members
 * `prefer` accepts when there are any. Its arrival, that largest count, makes the steady state
 * exist and reproduce the counts (the entry processes more than the cycle sends back to it); it
 * also keeps the cycle's gain well below 1, where a tiny arrival (the first member's 0.001 calls
 * feeding 18 around the cycle) leaves the gain within 1e-7 of 1 and the engine's solution about
 * 7 of its 16 digits short.
 */
function closedCycleEntries(
  ids: readonly string[],
  calls: readonly ObservedCall[],
  prefer: (id: string) => boolean,
  isEntry: (id: string) => boolean,
): ClosedCycle[] {
  const indexOf = new Map<string, number>();
  for (const [i, id] of ids.entries()) indexOf.set(id, i);
  const n = ids.length;
  const next: number[][] = ids.map(() => []);
  const counted: Array<[number, number]> = [];
  for (const call of calls) {
    if (!(call.count > 0) || call.from === call.to) continue;
    const from = indexOf.get(call.from)!;
    const to = indexOf.get(call.to)!;
    next[from]!.push(to);
    counted.push([from, to]);
  }
  // Tarjan's strongly connected components, iteratively (a long chain must not overflow the stack).
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const component = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  let visited = 0;
  let components = 0;
  for (let start = 0; start < n; start++) {
    if (order[start] !== -1) continue;
    const path = [start];
    const position = [0];
    order[start] = low[start] = visited++;
    stack.push(start);
    onStack[start] = 1;
    while (path.length > 0) {
      const top = path.length - 1;
      const v = path[top]!;
      const edges = next[v]!;
      if (position[top]! < edges.length) {
        const w = edges[position[top]!++]!;
        if (order[w] === -1) {
          order[w] = low[w] = visited++;
          stack.push(w);
          onStack[w] = 1;
          path.push(w);
          position.push(0);
        } else if (onStack[w] === 1) low[v] = Math.min(low[v]!, order[w]!);
        continue;
      }
      path.pop();
      position.pop();
      if (path.length > 0) {
        const parent = path[path.length - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === order[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component[w] = components;
        } while (w !== v);
        components++;
      }
    }
  }
  const size = new Int32Array(components);
  for (let v = 0; v < n; v++) size[component[v]!]!++;
  const entered = new Uint8Array(components);
  for (const [from, to] of counted) if (component[from] !== component[to]) entered[component[to]!] = 1;
  // A cycle that holds a root (the source says so) already has its entry.
  for (let v = 0; v < n; v++) if (isEntry(ids[v]!)) entered[component[v]!] = 1;
  const members = new Map<number, string[]>();
  for (let v = 0; v < n; v++) {
    const c = component[v]!;
    if (size[c]! < 2 || entered[c] === 1) continue;
    const list = members.get(c);
    if (list === undefined) members.set(c, [ids[v]!]);
    else list.push(ids[v]!);
  }
  const busiest = new Map<string, number>();
  for (const call of calls)
    if (call.count > (busiest.get(call.from) ?? 0)) busiest.set(call.from, call.count);
  return [...members.values()].map((list) => {
    const preferred = list.filter(prefer);
    const candidates = preferred.length > 0 ? preferred : list;
    let entry = candidates[0]!;
    for (const id of candidates) if (busiest.get(id)! > busiest.get(entry)!) entry = id;
    return { entry, members: list };
  });
}
