/** Where each node sits in a layered, left-to-right drawing. */
export interface Layout {
  layer: Int32Array;
  /** Position within its layer, from the top. */
  row: Int32Array;
  layerCount: number;
  rowCount: number;
}

/**
 * Layers that follow the flow: a node sits one layer right of its furthest placed predecessor.
 * Nodes are placed in topological order; when only cycles are left, the remaining node with the
 * fewest unplaced predecessors (then the smallest index) is placed next and its unplaced
 * in-edges count as edges going back. Rows within a layer keep input order. Iterative, so long
 * chains do not recurse.
 */
export function layeredLayout(nodeCount: number, edges: ReadonlyArray<readonly [number, number]>): Layout {
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
  for (let v = 0; v < nodeCount; v++) if (waiting[v] === 0) ready.push(v);
  let count = 0;
  while (count < nodeCount) {
    let v = ready.pop();
    if (v === undefined) {
      let best = -1;
      for (let u = 0; u < nodeCount; u++) {
        if (!placed[u] && (best < 0 || waiting[u]! < waiting[best]!)) best = u;
      }
      v = best;
    }
    if (placed[v]) continue;
    placed[v] = 1;
    count++;
    for (const t of outgoing[v]!) {
      if (placed[t]) continue;
      if (layer[t]! < layer[v]! + 1) layer[t] = layer[v]! + 1;
      if (--waiting[t]! === 0) ready.push(t);
    }
  }
  const row = new Int32Array(nodeCount);
  const filled: number[] = [];
  let layerCount = 0;
  let rowCount = 0;
  for (let v = 0; v < nodeCount; v++) {
    const l = layer[v]!;
    row[v] = filled[l] ?? 0;
    filled[l] = row[v]! + 1;
    layerCount = Math.max(layerCount, l + 1);
    rowCount = Math.max(rowCount, row[v]! + 1);
  }
  return { layer, row, layerCount, rowCount };
}
