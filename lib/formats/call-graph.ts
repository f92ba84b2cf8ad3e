/**
 * Call graphs (who calls whom, how often) onto the open model. Every service is a fan-out node:
 * a request it processes completes there and becomes calls on its callees. An edge's `weight`
 * is the calls on the callee per request the caller processes: its observed calls divided by
 * the caller's own throughput — the calls into it, or for an entry node (no other node calls
 * it, or the source marks it a root) its `arrival` plus any calls it makes on itself. An entry's
 * arrival is the largest count among its outgoing calls (each request to it makes at least the
 * calls on its busiest callee). With those, the steady `throughput` of every service reproduces
 * the observed calls exactly. Loads are 0; no capacity is invented.
 */
import type { DependencyInput, NodeInput } from '../engine/types';

export interface ObservedCall {
  from: string;
  to: string;
  /** Calls in the source's window, or per second; finite and >= 0. */
  count: number;
  /** The source's own fields (error counts, protocol, rates as given), kept on the dependency. */
  extra?: Record<string, unknown>;
}

export interface CallGraphInput {
  /** Node ids in the order they should appear, each with the source's fields to keep. */
  nodes: ReadonlyArray<{ id: string; extra?: Record<string, unknown>; root?: boolean }>;
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
export function callGraphStructure(input: CallGraphInput): CallGraph {
  const fromOthers = new Map<string, number>();
  const fromItself = new Map<string, number>();
  const largestOut = new Map<string, number>();
  for (const call of input.calls) {
    const into = call.from === call.to ? fromItself : fromOthers;
    into.set(call.to, (into.get(call.to) ?? 0) + call.count);
    largestOut.set(call.from, Math.max(largestOut.get(call.from) ?? 0, call.count));
  }
  const throughput = new Map<string, number>();
  const nodes: NodeInput[] = input.nodes.map((node) => {
    const calledByOthers = fromOthers.get(node.id) ?? 0;
    const entry = node.root === true || calledByOthers === 0;
    const arrival = entry ? (largestOut.get(node.id) ?? 0) : 0;
    throughput.set(node.id, arrival + calledByOthers + (fromItself.get(node.id) ?? 0));
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
    dependencies.push({ ...(call.extra ?? {}), from: call.from, to: call.to, weight: call.count / own });
  }
  const warnings =
    silent === 0
      ? []
      : [`${silent} call${silent === 1 ? '' : 's'} with a count of 0 left out (no traffic to carry)`];
  return { nodes, dependencies, warnings };
}
