import type { CompiledStructure } from './compile';
import type { ReachWorkspace } from './reach';
import { scratch } from './scratch';

/**
 * The most probable path from `origin` to `target`: the path whose product of
 * `weight(e) / W(from)` is greatest, ties broken at each hop by the smallest next id.
 *
 * Dijkstra run backwards from the target over the nodes that can reach it, maximising the
 * product instead of minimising a sum (every factor is at most 1, so products only shrink
 * along a path and the greedy order holds; no logarithms, so no rounding from them). It stops
 * as soon as the origin is settled. Each node's next hop is fixed when the node is settled and
 * points to a node settled before it, so following next hops cannot loop.
 */
export function mostProbablePath(
  structure: CompiledStructure,
  origin: number,
  target: number,
  ws: ReachWorkspace,
): string[] {
  // Stryker disable next-line ConditionalExpression: a shortcut; the search gives [target] too (the target settles first and is the origin)
  if (origin === target) return [structure.ids[target]!];

  const mark = scratch.mark();
  // Stryker disable BlockStatement: giving the search's arrays back before the call ends only saves memory
  try {
    return searchPath(structure, origin, target, ws);
  } finally {
    scratch.release(mark);
  }
  // Stryker restore BlockStatement
}

function searchPath(
  structure: CompiledStructure,
  origin: number,
  target: number,
  ws: ReachWorkspace,
): string[] {
  const { ids, inStart, inSource, pathInShare: inShare, nodeCount } = structure;
  const { canReach, reacherCount } = ws;
  const best = scratch.float64(nodeCount).fill(-1);
  // Stryker disable next-line UnaryOperator: only settled nodes' next hops are read, and each is set before its node settles
  const nextHop = scratch.int32(nodeCount, -1);
  const settled = scratch.uint8(nodeCount);
  const heap = new ProductHeap(ids);
  best[target] = 1;
  heap.push(target, 1);

  // Stryker disable next-line EqualityOperator: the origin is always reached (it can reach the target), so the heap never runs dry first
  while (heap.size > 0) {
    const v = heap.popNode();
    // Stryker disable next-line ConditionalExpression: a stale entry's second visit offers every neighbour the same product again, which changes nothing
    if (settled[v] === 1) continue;
    settled[v] = 1;
    // Stryker disable next-line ConditionalExpression: saves work; nodes settled after the origin never change a next hop on its path
    if (v === origin) break;
    const value = best[v]!;
    const end = inStart[v + 1]!;
    for (let j = inStart[v]!; j < end; j++) {
      const u = inSource[j]!;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: saves work; a self-dependency, a node that cannot reach the target or a settled node never gets a better product
      if (u === v || canReach[u] === 0 || settled[u] === 1) continue;
      const candidate = inShare[j]! * value;
      const current = best[u]!;
      if (candidate > current) {
        best[u] = candidate;
        nextHop[u] = v;
        heap.push(u, candidate);
      } else if (
        candidate === current &&
        // Stryker disable next-line EqualityOperator: ids are unique; v is the current next hop only for a repeated dependency, which sets the same hop
        ids[v]! < ids[nextHop[u]!]!
      ) {
        nextHop[u] = v;
      }
    }
  }

  const path = [ids[origin]!];
  let at = origin;
  // A path visits each node at most once; the bound only guards against a broken invariant.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,UpdateOperator: the guard against a broken invariant; next hops always lead to the target
  for (let hops = 0; at !== target && hops < reacherCount; hops++) {
    const next = nextHop[at]!;
    // Stryker disable next-line ConditionalExpression: the same guard
    if (next < 0) break;
    path.push(ids[next]!);
    at = next;
  }
  return path;
}

/** A binary max-heap of (node, product); equal products pop smallest id first. */
class ProductHeap {
  // Stryker disable next-line ArrayDeclaration: a junk first entry is not a node of the structure; it pops and settles nothing a path reads
  private nodes: number[] = [];
  private values: number[] = [];

  constructor(private readonly ids: readonly string[]) {}

  get size(): number {
    return this.nodes.length;
  }

  push(node: number, value: number): void {
    const { nodes, values } = this;
    let i = nodes.length;
    nodes.push(node);
    values.push(value);
    // Stryker disable next-line EqualityOperator: at the root the parent slot is empty and compares as not before, which stops the loop as well
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(node, value, nodes[parent]!, values[parent]!)) break;
      nodes[i] = nodes[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    nodes[i] = node;
    values[i] = value;
  }

  popNode(): number {
    const { nodes, values } = this;
    const top = nodes[0]!;
    const lastNode = nodes.pop()!;
    const lastValue = values.pop()!;
    const size = nodes.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: on an empty heap this would put the popped node back; popped again it is already settled and skipped
    if (size > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: a slot past the end is empty and compares as not before, which stops the loop as well
        if (left >= size) break;
        const right = left + 1;
        let child = left;
        // Stryker disable next-line EqualityOperator: the same for the right slot
        if (right < size && this.before(nodes[right]!, values[right]!, nodes[left]!, values[left]!))
          child = right;
        if (!this.before(nodes[child]!, values[child]!, lastNode, lastValue)) break;
        nodes[i] = nodes[child]!;
        values[i] = values[child]!;
        i = child;
      }
      nodes[i] = lastNode;
      values[i] = lastValue;
    }
    return top;
  }

  /**
   * Which entry pops first. Among equal products the order changes no trace (a node's best next
   * hops have greater products, or are its only way on), except where a share rounds to exactly
   * 1 beside others (docs/engine.md, Trace); by id it is at least deterministic.
   */
  private before(a: number, aValue: number, b: number, bValue: number): boolean {
    // Stryker disable next-line EqualityOperator: see above; ids are unique, so < and <= agree
    return aValue > bValue || (aValue === bValue && this.ids[a]! < this.ids[b]!);
  }
}
