import type { Components } from './components';
import { type ArrayMemory, scratch } from './scratch';

/** The adjacency `sweepOrder` reads: out- and in-edges in compressed sparse rows, with their shares. */
export interface Adjacency {
  nodeCount: number;
  outStart: Int32Array;
  outTarget: Int32Array;
  outShare: Float64Array;
  inStart: Int32Array;
  inSource: Int32Array;
  inShare: Float64Array;
}

/**
 * A weighted elimination ranks a node by `edges + SHARE_WEIGHT × share` of what still reaches it
 * from its component, in steps of 1 / RANK_STEPS: the edges keep a forward chain's walk, the
 * share keeps the heavy edges fresh (measured in docs/benchmark.md against the edges alone and
 * the share alone).
 */
const SHARE_WEIGHT = 4;
const RANK_STEPS = 4;
/** The most buckets a weighted elimination keeps: larger ranks (fan-out calls) share the last. */
const MAX_RANK_BUCKETS = 1 << 16;

/**
 * The order of one rank alone (by edges, or `weighted`), and with `tally` the share it reads
 * stale (the summed shares of the edges inside a component whose target it sweeps after their
 * source), found as it eliminates.
 *
 * @internal exported for its tests, which check both against the rule and the tally against the
 * edges counted afterwards.
 */
export function sweepOrderAndStaleShare(
  graph: Adjacency,
  components: Components,
  memory: ArrayMemory,
  ties: 'waited-longest' | 'just-freed',
  weighted: boolean,
  tally: boolean,
): { order: Int32Array; stale: number } {
  const order = memory.int32(graph.nodeCount);
  let stale = 0;
  scratch.run(() => {
    const mark = scratch.mark();
    try {
      stale = fillSweepOrder(graph, components, order, ties === 'just-freed', weighted, tally);
    } finally /* Stryker disable next-line BlockStatement: releasing only lets the rest of the call reuse the memory */ {
      scratch.release(mark);
    }
  });
  return { order, stale };
}

function fillSweepOrder(
  graph: Adjacency,
  components: Components,
  order: Int32Array,
  justFreedFirst: boolean,
  weighted: boolean,
  tally: boolean,
): number {
  const { nodeCount, outStart, outTarget, outShare, inStart, inSource, inShare } = graph;
  const { count, start, members, componentOf } = components;
  // The bucket of each node not yet placed: its incoming edges left, or (weighted) its rank.
  // The share left of a node as it is placed is what its row reads stale: the edges into it from
  // nodes placed later, which the sweep visits before it.
  const remaining = scratch.int32(nodeCount);
  const edgesLeft = weighted ? scratch.int32(nodeCount) : remaining;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a share kept when not needed changes only the work
  const shareLeft = weighted || tally ? scratch.float64(nodeCount) : undefined;
  let stale = 0;
  const placed = scratch.uint8(nodeCount);
  const nextInBucket = scratch.int32(nodeCount);
  const previousInBucket = scratch.int32(nodeCount);
  let largestInDegree = 0;
  // Stryker disable next-line ArithmeticOperator,EqualityOperator: a larger bound only adds buckets that stay empty
  for (let v = 0; v < nodeCount; v++)
    largestInDegree = Math.max(largestInDegree, inStart[v + 1]! - inStart[v]!);
  // Shares are at most 1 but for fan-out calls, which may go past the last bucket.
  const bucketCount = weighted
    ? // Stryker disable next-line MethodExpression: more buckets than ranks only stay empty
      Math.min(largestInDegree * (1 + SHARE_WEIGHT) * RANK_STEPS + 1, MAX_RANK_BUCKETS)
    : largestInDegree + 1;
  const bucketHead = scratch.int32(bucketCount, -1);
  const bucketTail = scratch.int32(bucketCount, -1);
  // Rounding can leave a share a hair below 0 once every edge is gone.
  const rankOf = (edges: number, share: number): number => {
    const steps = Math.floor((edges + SHARE_WEIGHT * share) * RANK_STEPS);
    // Stryker disable next-line EqualityOperator: 0 steps is bucket 0 either way
    return steps <= 0 ? 0 : Math.min(steps, bucketCount - 1);
  };

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
    // Stryker disable next-line ConditionalExpression: an empty bucket's head is -1, and a write there is dropped
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
      let share = 0;
      for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
        const u = inSource[j]!;
        if (u !== v && componentOf[u] === c) {
          degree++;
          share += inShare[j]!;
        }
      }
      edgesLeft[v] = degree;
      if (weighted) remaining[v] = rankOf(degree, share);
      if (shareLeft !== undefined) shareLeft[v] = share;
      link(v);
    }
    let lowest = 0;
    for (let k = 0; k < size; k++) {
      while (bucketHead[lowest] === -1) lowest++;
      const v = bucketHead[lowest]!;
      unlink(v);
      placed[v] = 1;
      order[end - 1 - k] = v;
      if (shareLeft !== undefined) stale += shareLeft[v]!;
      for (let e = outStart[v]!; e < outStart[v + 1]!; e++) {
        const w = outTarget[e]!;
        // Stryker disable next-line ConditionalExpression: v itself is placed already (a self-dependency)
        if (w === v || placed[w] === 1 || componentOf[w] !== c) continue;
        if (shareLeft !== undefined) shareLeft[w]! -= outShare[e]!;
        let bucket = remaining[w]! - 1;
        if (weighted) bucket = rankOf(--edgesLeft[w]!, shareLeft![w]!);
        unlink(w);
        remaining[w] = bucket;
        if (justFreedFirst) linkFirst(w);
        else link(w);
        // Stryker disable next-line EqualityOperator: an equal bucket is the same bucket
        if (remaining[w]! < lowest) lowest = remaining[w]!;
      }
    }
    // Every node of the component was unlinked as it was placed: the buckets are all empty again.
  }
  return stale;
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
 * With `weighted` (for weights that span orders of magnitude), what is left of a node's incoming
 * share counts beside its edges (`SHARE_WEIGHT`): counted alike, a few heavy edges read stale
 * can hold most of the value a sweep moves (random 200k/1M with weights spread over 1e-3…1e3:
 * the origin's solve took 154 sweeps in the order by edges, 35 in this one). It is not better
 * everywhere (a forward chain whose heavy edges jump ahead can read more share stale in it), so
 * both are built and the one whose stale edges carry less share is kept (the order by edges on a
 * tie): every structure family measured swept in fewer sweeps in the order that read less
 * (docs/benchmark.md).
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
  memory: ArrayMemory,
  ties: 'waited-longest' | 'just-freed',
  weighted: boolean,
): Int32Array {
  // Stryker disable next-line BooleanLiteral: the tally changes only the work, never the order
  if (!weighted) return sweepOrderAndStaleShare(graph, components, memory, ties, false, false).order;
  const byEdges = sweepOrderAndStaleShare(graph, components, memory, ties, false, true);
  // Stryker disable next-line BooleanLiteral: a weighted elimination tallies what it reads stale anyway
  const byShares = sweepOrderAndStaleShare(graph, components, memory, ties, true, true);
  return byShares.stale < byEdges.stale ? byShares.order : byEdges.order;
}
