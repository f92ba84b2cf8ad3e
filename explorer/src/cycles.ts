/** Force automatically when more than this share of the nodes lie on a cycle… */
export const MOSTLY_CYCLES = 0.5;
/** …and at least this share of the dependencies point back in the layering… */
const MANY_BACK = 0.05;
/** …in a structure of at least this many nodes (a few read well in layers, their cycles dashed). */
export const FORCE_FROM_NODES = 50;

/**
 * The share of the `nodeCount` nodes that lie on a cycle of two nodes or more: those in a strongly
 * connected component of size > 1 (a node calling only itself does not count). Tarjan's
 * algorithm without recursion, so a 100,000-node chain or cycle takes no stack; O(n + m).
 */
export function cyclicShare(nodeCount: number, edges: ReadonlyArray<readonly [number, number]>): number {
  if (nodeCount === 0) return 0;
  // Successors in compressed rows.
  const start = new Int32Array(nodeCount + 1);
  for (const [from] of edges) start[from + 1]!++;
  for (let v = 0; v < nodeCount; v++) start[v + 1]! += start[v]!;
  const next = new Int32Array(edges.length);
  const filled = start.slice(0, nodeCount);
  for (const [from, to] of edges) next[filled[from]!++] = to;

  const order = new Int32Array(nodeCount).fill(-1);
  const low = new Int32Array(nodeCount);
  const onStack = new Uint8Array(nodeCount);
  const stack = new Int32Array(nodeCount);
  let stackSize = 0;
  /** The depth-first path: each node and the next of its successors to visit. */
  const path = new Int32Array(nodeCount);
  const cursor = new Int32Array(nodeCount);
  let counter = 0;
  let cyclic = 0;
  for (let root = 0; root < nodeCount; root++) {
    if (order[root] !== -1) continue;
    let depth = 0;
    path[0] = root;
    cursor[0] = start[root]!;
    order[root] = low[root] = counter++;
    stack[stackSize++] = root;
    onStack[root] = 1;
    while (depth >= 0) {
      const v = path[depth]!;
      if (cursor[depth]! < start[v + 1]!) {
        const w = next[cursor[depth]!++]!;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          stack[stackSize++] = w;
          onStack[w] = 1;
          path[++depth] = w;
          cursor[depth] = start[w]!;
        } else if (onStack[w]) {
          low[v] = Math.min(low[v]!, order[w]!);
        }
        continue;
      }
      // Every successor of v visited: v closes a component when it is its root.
      if (low[v] === order[v]) {
        let size = 0;
        let w: number;
        do {
          w = stack[--stackSize]!;
          onStack[w] = 0;
          size++;
        } while (w !== v);
        if (size > 1) cyclic += size;
      }
      depth--;
      if (depth >= 0) {
        const parent = path[depth]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
    }
  }
  return cyclic / nodeCount;
}

/**
 * The share of the dependencies between two nodes that point back (or within a layer) in a
 * layering `layer` (layout.ts): those the layered drawing dashes, going against the flow.
 */
export function backShare(layer: Int32Array, edges: ReadonlyArray<readonly [number, number]>): number {
  let between = 0;
  let back = 0;
  for (const [from, to] of edges) {
    if (from === to) continue;
    between++;
    if (layer[to]! <= layer[from]!) back++;
  }
  return between === 0 ? 0 : back / between;
}

/**
 * Whether a structure is mostly cycles, so drawn with the force layout by default: at least
 * `FORCE_FROM_NODES` nodes, more than half of them on a cycle (`onCycles`, from `cyclicShare`)
 * and at least 5% of the dependencies pointing back in its layering (`back`, from `backShare`).
 * The second part keeps a flow with a few long loops back in layers: nearly all its nodes are
 * on a cycle, yet the layers show it with 1% of its dependencies going back.
 */
export function mostlyCycles(nodeCount: number, onCycles: number, back: number): boolean {
  return nodeCount >= FORCE_FROM_NODES && onCycles > MOSTLY_CYCLES && back >= MANY_BACK;
}

/** The layout a user picks: automatic (by `mostlyCycles`), or either one. */
export type LayoutChoice = 'auto' | 'layers' | 'force';

/** The layout drawn: the one chosen, or, automatically, force for a structure that is mostly cycles. */
export function chosenLayout(choice: LayoutChoice, mostly: boolean): 'layers' | 'force' {
  if (choice !== 'auto') return choice;
  return mostly ? 'force' : 'layers';
}
