import type { Components } from './components';
import { type ArrayMemory, FRESH_ARRAYS, scratch } from './scratch';

/** The adjacency `sweepOrder` reads: out- and in-edges in compressed sparse rows. */
export interface Adjacency {
  nodeCount: number;
  outStart: Int32Array;
  outTarget: Int32Array;
  inStart: Int32Array;
  inSource: Int32Array;
}

/**
 * An order in which to sweep each strongly connected component so that most edges point to
 * nodes already swept (fresh values), the rest being a small feedback set.
 *
 * Nodes are eliminated greedily by fewest remaining incoming edges from the component
 * (a bucket queue, O(edges)): on a long forward chain with a few jumps back this walks the
 * chain from its start, so only the jumps back are left pointing the wrong way. The sweep
 * visits nodes in reverse elimination order (successors first). Component `c` occupies
 * positions `start[c] .. start[c + 1]` of the result, like `members`.
 *
 * Among nodes with equally few incoming edges left, the one that has waited longest goes first
 * (`ties: 'waited-longest'`), or the one an elimination has just freed (`'just-freed'`). The
 * first walks a chain only from where a node has none left; on a ring every node of which
 * keeps one (a ring entered at a node that another ring also feeds) it eliminates the nodes in
 * the order the components were found, against the ring, so a sweep moves value one node along
 * it. The second follows the edge out of each node it eliminates, along the ring.
 */
export function sweepOrder(
  graph: Adjacency,
  components: Components,
  memory: ArrayMemory = FRESH_ARRAYS,
  ties: 'waited-longest' | 'just-freed' = 'waited-longest',
): Int32Array {
  const order = memory.int32(graph.nodeCount);
  scratch.run(() => {
    const mark = scratch.mark();
    try {
      fillSweepOrder(graph, components, order, ties === 'just-freed');
    } finally /* Stryker disable next-line BlockStatement: releasing only lets the rest of the call reuse the memory */ {
      scratch.release(mark);
    }
  });
  return order;
}

function fillSweepOrder(
  graph: Adjacency,
  components: Components,
  order: Int32Array,
  justFreedFirst: boolean,
): void {
  const { nodeCount, outStart, outTarget, inStart, inSource } = graph;
  const { count, start, members, componentOf } = components;
  const remaining = scratch.int32(nodeCount);
  const placed = scratch.uint8(nodeCount);
  const nextInBucket = scratch.int32(nodeCount);
  const previousInBucket = scratch.int32(nodeCount);
  let largestInDegree = 0;
  // Stryker disable next-line ArithmeticOperator,EqualityOperator: a larger bound only adds buckets that stay empty
  for (let v = 0; v < nodeCount; v++)
    largestInDegree = Math.max(largestInDegree, inStart[v + 1]! - inStart[v]!);
  const bucketHead = scratch.int32(largestInDegree + 1, -1);
  const bucketTail = scratch.int32(largestInDegree + 1, -1);

  const unlink = (v: number): void => {
    const before = previousInBucket[v]!;
    const after = nextInBucket[v]!;
    if (before >= 0) nextInBucket[before] = after;
    else bucketHead[remaining[v]!] = after;
    if (after >= 0) previousInBucket[after] = before;
    else bucketTail[remaining[v]!] = before;
  };
  // Buckets are first in, first out: among equals, the node that has waited longest goes first.
  const link = (v: number): void => {
    const bucket = remaining[v]!;
    const tail = bucketTail[bucket]!;
    nextInBucket[v] = -1;
    previousInBucket[v] = tail;
    if (tail >= 0) nextInBucket[tail] = v;
    else bucketHead[bucket] = v;
    bucketTail[bucket] = v;
  };
  const linkFirst = (v: number): void => {
    const bucket = remaining[v]!;
    const head = bucketHead[bucket]!;
    previousInBucket[v] = -1;
    nextInBucket[v] = head;
    if (head >= 0) previousInBucket[head] = v;
    else bucketTail[bucket] = v;
    bucketHead[bucket] = v;
  };

  // Stryker disable next-line EqualityOperator: a component past the last has no members (start[count + 1] is undefined)
  for (let c = 0; c < count; c++) {
    const first = start[c]!;
    const end = start[c + 1]!;
    const size = end - first;
    // A single node has no predecessors in its component: the general path places it the same.
    // Stryker disable next-line ConditionalExpression,BlockStatement: see above
    if (size === 1) {
      order[first] = members[first]!;
      continue;
    }
    for (let k = first; k < end; k++) {
      const v = members[k]!;
      let degree = 0;
      for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
        const u = inSource[j]!;
        if (u !== v && componentOf[u] === c) degree++;
      }
      remaining[v] = degree;
      link(v);
    }
    let lowest = 0;
    for (let k = 0; k < size; k++) {
      while (bucketHead[lowest] === -1) lowest++;
      const v = bucketHead[lowest]!;
      unlink(v);
      placed[v] = 1;
      order[end - 1 - k] = v;
      for (let e = outStart[v]!; e < outStart[v + 1]!; e++) {
        const w = outTarget[e]!;
        if (w === v || placed[w] === 1 || componentOf[w] !== c) continue;
        unlink(w);
        remaining[w]!--;
        if (justFreedFirst) linkFirst(w);
        else link(w);
        // Stryker disable next-line EqualityOperator: an equal bucket is the same bucket
        if (remaining[w]! < lowest) lowest = remaining[w]!;
      }
    }
    // Every node of the component was unlinked as it was placed: the buckets are all empty again.
  }
}
