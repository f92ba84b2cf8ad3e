import type { ForceAtlas2Settings } from 'graphology-layout-forceatlas2';
import type { Placement } from './placement';

/** Each node's place in a force layout, in the layout's own units (force-worker.ts). */
export interface ForcePositions {
  x: Float32Array;
  y: Float32Array;
}

/** What the page asks the force worker: the structure's dependencies as index pairs, and the view's width over height. */
export interface ForceRequest {
  id: number;
  nodeCount: number;
  from: Int32Array;
  to: Int32Array;
  aspect: number;
}

/** What the force worker answers: the positions, and how long they took (ms). */
export interface ForceAnswer extends ForcePositions {
  id: number;
  ms: number;
}

/** Node-iterations of ForceAtlas2 a layout may take: fewer iterations for more nodes. */
const ITERATION_WORK = 400_000;
const MIN_ITERATIONS = 20;
const MAX_ITERATIONS = 150;
/** Barnes–Hut's approximate repulsion (O(n log n) an iteration) from this many nodes; exact (O(n²)) below. */
const BARNES_HUT_FROM = 1000;
/** Grid cells per node the layout is snapped to: room for a dense core to spread into. */
const CELLS_PER_NODE = 2;

/**
 * How many iterations of ForceAtlas2 a structure of `nodeCount` nodes gets: a fixed number for
 * its size (so the layout is the same every time), 150 up to 2,666 nodes, then fewer, down to 20
 * from 20,000 nodes, so the largest take seconds, not minutes.
 */
export function forceIterations(nodeCount: number): number {
  return Math.max(
    MIN_ITERATIONS,
    Math.min(MAX_ITERATIONS, Math.round(ITERATION_WORK / Math.max(1, nodeCount))),
  );
}

/**
 * ForceAtlas2's settings: those graphology's `inferSettings` gives (strong gravity, so
 * components stay together; repulsion scaled by 10; slowed down by the log of the size), with
 * Barnes–Hut from `BARNES_HUT_FROM` nodes.
 */
export function forceSettings(nodeCount: number): ForceAtlas2Settings {
  return {
    barnesHutOptimize: nodeCount > BARNES_HUT_FROM,
    strongGravityMode: true,
    gravity: 0.05,
    scalingRatio: 10,
    slowDown: 1 + Math.log(Math.max(1, nodeCount)),
  };
}

/**
 * A force layout fitted to a view `aspect` wide and 1 high, `cell` units between neighbouring
 * places: the layout stretched to the view's shape and each node snapped to the nearest free
 * cell of a grid of about `CELLS_PER_NODE` cells a node, the nodes nearest the middle first (a
 * core denser than the grid spreads outwards). So no two nodes are closer than `cell`, and at
 * Fit points sized to the spacing do not touch, as in the layered placement (placement.ts).
 * Deterministic; O(n log n) and, for each node, the rings of cells searched around it.
 */
export function placeForce(positions: ForcePositions, aspect: number, cell: number): Placement {
  const n = positions.x.length;
  const cells = Math.max(4, Math.ceil(CELLS_PER_NODE * n));
  const columns = Math.max(1, Math.round(Math.sqrt(cells * aspect)));
  const rows = Math.max(1, Math.ceil(cells / columns));
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  // A position that is not a number (none is expected) counts as the middle.
  const finite = (v: number) => Number.isFinite(positions.x[v]!) && Number.isFinite(positions.y[v]!);
  for (let v = 0; v < n; v++) {
    if (!finite(v)) continue;
    minX = Math.min(minX, positions.x[v]!);
    maxX = Math.max(maxX, positions.x[v]!);
    minY = Math.min(minY, positions.y[v]!);
    maxY = Math.max(maxY, positions.y[v]!);
  }
  // Where each node would be, in grid units.
  const gx = new Float64Array(n);
  const gy = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    const ok = finite(v);
    gx[v] =
      ok && maxX > minX ? ((positions.x[v]! - minX) / (maxX - minX)) * (columns - 1) : (columns - 1) / 2;
    gy[v] = ok && maxY > minY ? ((positions.y[v]! - minY) / (maxY - minY)) * (rows - 1) : (rows - 1) / 2;
  }
  const midX = (columns - 1) / 2;
  const midY = (rows - 1) / 2;
  const distance = new Float64Array(n);
  for (let v = 0; v < n; v++) distance[v] = Math.hypot(gx[v]! - midX, gy[v]! - midY);
  const order = Array.from({ length: n }, (_, v) => v).sort((a, b) => distance[a]! - distance[b]! || a - b);
  const taken = new Uint8Array(columns * rows);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (const v of order) {
    const cx = Math.min(columns - 1, Math.max(0, Math.round(gx[v]!)));
    const cy = Math.min(rows - 1, Math.max(0, Math.round(gy[v]!)));
    // The nearest free cell on the smallest ring (square) around the node's own that has one.
    let best = -1;
    let bestDistance = Number.POSITIVE_INFINITY;
    const visit = (i: number, j: number) => {
      if (taken[j * columns + i]) return;
      const d = (i - gx[v]!) ** 2 + (j - gy[v]!) ** 2;
      if (d < bestDistance) {
        bestDistance = d;
        best = j * columns + i;
      }
    };
    for (let r = 0; best < 0; r++) {
      for (let j = Math.max(0, cy - r); j <= Math.min(rows - 1, cy + r); j++) {
        if (j === cy - r || j === cy + r) {
          for (let i = Math.max(0, cx - r); i <= Math.min(columns - 1, cx + r); i++) visit(i, j);
        } else {
          if (cx - r >= 0) visit(cx - r, j);
          if (cx + r < columns) visit(cx + r, j);
        }
      }
    }
    taken[best] = 1;
    x[v] = (best % columns) * cell;
    y[v] = Math.floor(best / columns) * cell;
  }
  return { x, y, closest: cell };
}
