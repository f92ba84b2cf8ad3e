import { readFileSync } from 'node:fs';
import { mulberry32 } from '../../explorer/src/examples';
import { readGraph } from '../../lib/formats';

/** An engine request body: an open structure to `analyze`. */
export interface StructureBody {
  mode: 'analyze';
  nodes: Array<{ id: string; arrival?: number }>;
  dependencies: Array<{ from: string; to: string }>;
}

const JAEGER_SAMPLE = 'test/formats/fixtures/dependency-links/jaeger-ui-sample-large-first-2000.json';

/**
 * Jaeger UI's large sample (2,000 dependency links among 871 services) as connect reads it, or
 * its first `limit` services and the links among them.
 */
export function jaegerServices(limit = Number.POSITIVE_INFINITY): StructureBody {
  const graph = readGraph(JSON.parse(readFileSync(JAEGER_SAMPLE, 'utf8')));
  const nodes = graph.nodes.slice(0, limit) as StructureBody['nodes'];
  const kept = new Set(nodes.map((node) => node.id));
  const dependencies = (graph.dependencies as StructureBody['dependencies']).filter(
    (d) => kept.has(d.from) && kept.has(d.to),
  );
  return { mode: 'analyze', nodes, dependencies };
}

/**
 * A DAG of `nodeCount` nodes in `tiers` tiers, wider in the middle; each node past the first tier
 * called by one to three nodes of the tier before (or, one time in seven, of the one before that),
 * arrivals at the first tier. Deterministic.
 */
export function tieredDag(nodeCount: number, tiers: number): StructureBody {
  const random = mulberry32(12);
  const weights = Array.from({ length: tiers }, (_, t) => 1 + 3 * Math.sin((Math.PI * (t + 0.5)) / tiers));
  const total = weights.reduce((a, b) => a + b, 0);
  const starts: number[] = [];
  let at = 0;
  for (let t = 0; t < tiers; t++) {
    starts.push(at);
    at = t === tiers - 1 ? nodeCount : at + Math.round((weights[t]! / total) * nodeCount);
  }
  starts.push(nodeCount);
  const nodes = Array.from({ length: nodeCount }, (_, v) => ({
    id: `t${v}`,
    ...(v < starts[1]! ? { arrival: 1 + Math.floor(random() * 10) } : {}),
  }));
  const dependencies: StructureBody['dependencies'] = [];
  for (let t = 1; t < tiers; t++)
    for (let v = starts[t]!; v < starts[t + 1]!; v++) {
      const callers = 1 + Math.floor(random() * 3);
      for (let k = 0; k < callers; k++) {
        const from = t >= 2 && random() < 0.15 ? t - 2 : t - 1;
        const caller = starts[from]! + Math.floor(random() * (starts[from + 1]! - starts[from]!));
        dependencies.push({ from: `t${caller}`, to: `t${v}` });
      }
    }
  return { mode: 'analyze', nodes, dependencies };
}

/** `nodeCount` nodes each calling two nodes picked at random: mostly one large cycle. Deterministic. */
export function cyclicGraph(nodeCount: number): StructureBody {
  const random = mulberry32(7);
  const nodes = Array.from({ length: nodeCount }, (_, v) => ({
    id: `c${v}`,
    ...(v % 100 === 0 ? { arrival: 1 } : {}),
  }));
  const dependencies: StructureBody['dependencies'] = [];
  for (let v = 0; v < nodeCount; v++)
    for (let k = 0; k < 2; k++)
      dependencies.push({ from: `c${v}`, to: `c${Math.floor(random() * nodeCount)}` });
  return { mode: 'analyze', nodes, dependencies };
}

/**
 * The share of `discs` (centre x, centre y, radius, in pixels) that overlap another, found on a
 * grid of cells as large as the largest disc: O(n) for discs spread over a view.
 */
export function overlapShare(discs: ReadonlyArray<readonly [number, number, number]>): number {
  if (discs.length === 0) return 0;
  const cell = Math.max(1, 2 * Math.max(...discs.map(([, , r]) => r)));
  const grid = new Map<string, number[]>();
  const key = (cx: number, cy: number) => `${cx},${cy}`;
  discs.forEach(([x, y], i) => {
    const k = key(Math.floor(x / cell), Math.floor(y / cell));
    const list = grid.get(k);
    if (list) list.push(i);
    else grid.set(k, [i]);
  });
  let overlapping = 0;
  discs.forEach(([x, y, r], i) => {
    const cx = Math.floor(x / cell);
    const cy = Math.floor(y / cell);
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (const j of grid.get(key(cx + dx, cy + dy)) ?? []) {
          const [ox, oy, or] = discs[j]!;
          if (j !== i && Math.hypot(ox - x, oy - y) < r + or) {
            overlapping++;
            return;
          }
        }
  });
  return overlapping / discs.length;
}
