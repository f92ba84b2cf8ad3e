/** Sweeps of crossing reduction: down, up, down, up. */
const SWEEPS = 4;

/**
 * The order of the nodes within each layer, by a few sweeps of the barycentre heuristic: each
 * layer in turn (first to last, then back) is sorted by the mean place of each node's neighbours
 * in the layers already swept, places counted as a share of their layer's height, so layers of
 * very different sizes line up. A neighbour in any earlier (later) layer counts, not only the
 * adjacent one: a long edge pulls its ends together without dummy nodes. Ties keep the order
 * before (the input order at first), so the result is deterministic. O(SWEEPS · (m + n log n)).
 * With `group` (each node's group, or -1: groups.ts), each layer is then ordered by its nodes'
 * groups, each group where its members are on average over every layer, so a group's members sit
 * together in each layer and at about the same height across them (for its box). Returns each
 * node's row, counted from 0 within its layer.
 */
export function orderWithinLayers(
  layer: Int32Array,
  layerCount: number,
  edges: ReadonlyArray<readonly [number, number]>,
  group?: Int32Array,
): Int32Array {
  const n = layer.length;
  // Neighbours in other layers, either direction, in compressed rows.
  const degree = new Int32Array(n + 1);
  for (const [a, b] of edges) {
    if (layer[a] === layer[b]) continue;
    degree[a]!++;
    degree[b]!++;
  }
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) start[v + 1] = start[v]! + degree[v]!;
  const neighbours = new Int32Array(start[n]!);
  const filled = start.slice(0, n);
  for (const [a, b] of edges) {
    if (layer[a] === layer[b]) continue;
    neighbours[filled[a]!++] = b;
    neighbours[filled[b]!++] = a;
  }
  const byLayer: number[][] = Array.from({ length: layerCount }, () => []);
  for (let v = 0; v < n; v++) byLayer[layer[v]!]!.push(v);
  const place = new Float64Array(n);
  const setPlaces = (nodes: readonly number[]) => {
    for (let i = 0; i < nodes.length; i++) place[nodes[i]!] = (i + 0.5) / nodes.length;
  };
  for (const nodes of byLayer) setPlaces(nodes);
  const key = new Float64Array(n);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const down = sweep % 2 === 0;
    for (let step = 1; step < layerCount; step++) {
      const l = down ? step : layerCount - 1 - step;
      const nodes = byLayer[l]!;
      if (nodes.length < 2) continue;
      for (const v of nodes) {
        let sum = 0;
        let count = 0;
        for (let k = start[v]!; k < start[v + 1]!; k++) {
          const u = neighbours[k]!;
          if (down ? layer[u]! < l : layer[u]! > l) {
            sum += place[u]!;
            count++;
          }
        }
        key[v] = count === 0 ? place[v]! : sum / count;
      }
      nodes.sort((a, b) => key[a]! - key[b]! || place[a]! - place[b]!);
      setPlaces(nodes);
    }
  }
  if (group !== undefined) {
    // Each group's mean place; a node in none keeps its own.
    const sums = new Map<number, [number, number]>();
    for (let v = 0; v < n; v++) {
      const g = group[v]!;
      if (g < 0) continue;
      const sum = sums.get(g) ?? [0, 0];
      sum[0] += place[v]!;
      sum[1]++;
      sums.set(g, sum);
    }
    for (let v = 0; v < n; v++) {
      const g = group[v]!;
      const sum = sums.get(g);
      key[v] = g < 0 || sum === undefined ? place[v]! : sum[0] / sum[1];
    }
    for (const nodes of byLayer)
      nodes.sort((a, b) => key[a]! - key[b]! || group[a]! - group[b]! || place[a]! - place[b]!);
  }
  const row = new Int32Array(n);
  for (const nodes of byLayer) for (let i = 0; i < nodes.length; i++) row[nodes[i]!] = i;
  return row;
}
