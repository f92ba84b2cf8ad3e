import type { EngineResult } from '../../lib/engine/types';
import { orderWithinLayers } from './layer-order';

/** Where each node sits in a layered, left-to-right drawing (placement.ts draws it to a view's shape). */
export interface Layout {
  layer: Int32Array;
  /** Position within its layer, from the top, by crossing reduction (layer-order.ts). */
  row: Int32Array;
  layerCount: number;
  rowCount: number;
}

/**
 * A binary min-heap of (key, node) pairs; stale pairs are skipped by the caller. Keys are
 * compared first, then nodes, so the order (and the layout) is deterministic.
 */
class PairHeap {
  private keys: number[] = [];
  private nodes: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  private before(a: number, b: number): boolean {
    return (
      this.keys[a]! < this.keys[b]! || (this.keys[a] === this.keys[b] && this.nodes[a]! < this.nodes[b]!)
    );
  }

  private swap(a: number, b: number): void {
    [this.keys[a], this.keys[b]] = [this.keys[b]!, this.keys[a]!];
    [this.nodes[a], this.nodes[b]] = [this.nodes[b]!, this.nodes[a]!];
  }

  push(key: number, node: number): void {
    this.keys.push(key);
    this.nodes.push(node);
    let i = this.keys.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the smallest pair; returns [key, node]. */
  pop(): [number, number] {
    const top: [number, number] = [this.keys[0]!, this.nodes[0]!];
    const lastKey = this.keys.pop()!;
    const lastNode = this.nodes.pop()!;
    if (this.keys.length > 0) {
      this.keys[0] = lastKey;
      this.nodes[0] = lastNode;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < this.keys.length && this.before(left, smallest)) smallest = left;
        if (right < this.keys.length && this.before(right, smallest)) smallest = right;
        if (smallest === i) break;
        this.swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }
}

/**
 * Layers that follow the flow: a node sits one layer right of its furthest placed predecessor.
 * Nodes are placed in topological order; when only cycles are left, the unplaced node with the
 * fewest unplaced predecessors (then the smallest index) is placed next, and its unplaced
 * in-edges count as edges going back. Rows within a layer come from a few sweeps of crossing
 * reduction (layer-order.ts). Iterative and O((n + m) log n), so a long chain or a 100k-node
 * cycle lays out without recursion.
 */
export function layeredLayout(
  nodeCount: number,
  edges: ReadonlyArray<readonly [number, number]>,
  group?: Int32Array,
): Layout {
  const outgoing: number[][] = Array.from({ length: nodeCount }, () => []);
  const waiting = new Int32Array(nodeCount);
  for (const [from, to] of edges) {
    if (from === to) continue;
    outgoing[from]!.push(to);
    waiting[to]!++;
  }
  const layer = new Int32Array(nodeCount);
  const placed = new Uint8Array(nodeCount);
  const ready: number[] = [];
  const fewestWaiting = new PairHeap();
  for (let v = 0; v < nodeCount; v++) {
    if (waiting[v] === 0) ready.push(v);
    else fewestWaiting.push(waiting[v]!, v);
  }
  ready.reverse(); // pop() then takes the smallest index first
  let count = 0;
  while (count < nodeCount) {
    let v = ready.pop();
    if (v === undefined) {
      // Only cycles left: a stale pair (placed, or its count changed since) is skipped.
      for (;;) {
        const [key, candidate] = fewestWaiting.pop();
        if (!placed[candidate] && waiting[candidate] === key) {
          v = candidate;
          break;
        }
      }
    }
    if (placed[v]) continue;
    placed[v] = 1;
    count++;
    for (const t of outgoing[v]!) {
      if (placed[t]) continue;
      if (layer[t]! < layer[v]! + 1) layer[t] = layer[v]! + 1;
      if (--waiting[t]! === 0) ready.push(t);
      else fewestWaiting.push(waiting[t]!, t);
    }
  }
  let layerCount = 0;
  for (let v = 0; v < nodeCount; v++) layerCount = Math.max(layerCount, layer[v]! + 1);
  const row = orderWithinLayers(layer, layerCount, edges, group);
  let rowCount = 0;
  for (let v = 0; v < nodeCount; v++) rowCount = Math.max(rowCount, row[v]! + 1);
  return { layer, row, layerCount, rowCount };
}

/** A described state's nodes by id and its dependencies as node index pairs. */
export function indexResult(result: Pick<EngineResult, 'nodes' | 'dependencies'>): {
  index: Map<string, number>;
  edges: Array<readonly [number, number]>;
} {
  const index = new Map(result.nodes.map((node, i) => [node.id, i] as const));
  const edges = result.dependencies.map((d) => [index.get(d.from)!, index.get(d.to)!] as const);
  return { index, edges };
}

/**
 * A described state's nodes by id, its dependencies as node index pairs, and their layout (with
 * `group`, each node's group or -1, a group's members kept together in each layer).
 */
export function layoutResult(
  result: Pick<EngineResult, 'nodes' | 'dependencies'>,
  group?: Int32Array,
): {
  index: Map<string, number>;
  edges: Array<readonly [number, number]>;
  layout: Layout;
} {
  const { index, edges } = indexResult(result);
  return { index, edges, layout: layeredLayout(result.nodes.length, edges, group) };
}
