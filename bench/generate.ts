import type { DependencyInput, NodeInput, Structure } from '../lib/engine';
import { idHash, tableSize } from '../lib/engine/id-index';

/**
 * Generated inputs for the benchmark. Everything comes from a seeded PRNG so every run (and
 * every machine) benchmarks byte-identical request texts.
 */

/** mulberry32: a tiny 32-bit PRNG, plenty for shaping test graphs (never for secrets). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the shape's name, so each row has its own stream and adding a row moves no other. */
function seedOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export type Shape = 'random' | 'deep' | 'clustered';

export interface ShapeSpec {
  shape: Shape;
  nodeCount: number;
  dependencyCount: number;
  /** Knobs changed from `GENERATOR`, for the structure families; each variant has its own seed. */
  variant?: Partial<Knobs>;
}

type Knobs = { -readonly [K in keyof typeof GENERATOR]: number };

/** The knobs, in one place so the docs can quote them. */
export const GENERATOR = {
  /** Nodes with no outgoing dependency: value piles up there (terminal blockages). */
  sinkFraction: 0.02,
  /** Nodes with a capacity, drawn from [capacityMin, capacityMax); they start with load 0. */
  capacityFraction: 0.1,
  capacityMin: 5,
  capacityMax: 60,
  /** Other nodes with load 0; the rest get a positive load of up to about `loadMax` (two decimals). */
  zeroLoadFraction: 0.1,
  loadMax: 100,
  /** Dependencies with an explicit weight, drawn from {0.5, 1, …, 4}. */
  weightFraction: 0.25,
  /** Deep shape: forward dependencies go to one of the next `deepWindow` nodes… */
  deepWindow: 8,
  /** …except this fraction, which goes back to any earlier node and closes a long cycle. */
  deepBackFraction: 0.01,
  /**
   * Weights of the weighted dependencies: 0 draws them from {0.5, 1, …, 4}; a spread `s > 1`
   * draws them log-uniformly from [1/s, s] (shares then differ by orders of magnitude).
   */
  weightSpread: 0,
  /** Clustered shape: nodes in consecutive groups of this size… */
  clusterSize: 1000,
  /** …whose dependencies stay inside the group except this fraction, which go to a later group. */
  clusterExitFraction: 0.03,
} as const;

/**
 * - `random`: every dependency joins a random non-sink node to a uniformly random node (self
 *   dependencies and repeated pairs happen, as they may in real input).
 * - `deep`: a long forward chain. Node `i` links to nodes among `i+1 … i+deepWindow`, and a
 *   small fraction of dependencies jump back to a random earlier node, so most of the chain
 *   is one huge strongly connected component with a depth-first search as deep as the chain.
 *
 * - `clustered`: groups of `clusterSize` consecutive nodes linked at random inside the group,
 *   with a few dependencies to later groups: a chain of many mid-sized cycles instead of one.
 *
 * All have exactly `dependencyCount` dependencies, spread evenly over the non-sink nodes,
 * and the last node is always a sink so the chain ends somewhere.
 */
export function generateStructure(spec: ShapeSpec): Structure {
  const { shape, nodeCount, dependencyCount, variant } = spec;
  const variantName = variant === undefined ? '' : `-${JSON.stringify(variant)}`;
  const random = mulberry32(seedOf(`${shape}-${nodeCount}-${dependencyCount}${variantName}`));
  const below = (n: number) => Math.floor(random() * n);
  const g: Knobs = { ...GENERATOR, ...variant };
  const weightOf = (): number =>
    g.weightSpread > 1 ? roundTo(g.weightSpread ** (2 * random() - 1), 1e6) : (1 + below(8)) / 2;

  const ids = new Array<string>(nodeCount);
  const nodes = new Array<NodeInput>(nodeCount);
  const isSink = new Uint8Array(nodeCount);
  for (let i = 0; i < nodeCount; i++) {
    const id = `n${i}`;
    ids[i] = id;
    if (random() < g.capacityFraction) {
      // Throttled nodes start empty, like idle queues: their backlog is what flows in, so the
      // primary blockage's value comes from upstream and origin and trace have a path to find.
      const capacity = roundTo(g.capacityMin + random() * (g.capacityMax - g.capacityMin), 10);
      nodes[i] = { id, load: 0, capacity };
    } else {
      const load = random() < g.zeroLoadFraction ? 0 : roundTo(0.01 + random() * g.loadMax, 100);
      nodes[i] = { id, load };
    }
    if (i === nodeCount - 1 || random() < g.sinkFraction) isSink[i] = 1;
  }

  const outDegree = spreadDegrees(isSink, dependencyCount, below);
  const dependencies = new Array<DependencyInput>(dependencyCount);
  let e = 0;
  for (let from = 0; from < nodeCount; from++) {
    for (let k = outDegree[from]!; k > 0; k--) {
      let to: number;
      if (shape === 'random') {
        to = below(nodeCount);
      } else if (shape === 'clustered') {
        to = clusterTarget(from, nodeCount, g, below, random);
      } else if (from > 0 && random() < g.deepBackFraction) {
        to = below(from);
      } else {
        to = Math.min(nodeCount - 1, from + 1 + below(g.deepWindow));
      }
      const fromId = ids[from]!;
      const toId = ids[to]!;
      dependencies[e++] =
        random() < g.weightFraction
          ? { from: fromId, to: toId, weight: weightOf() }
          : { from: fromId, to: toId };
    }
  }
  return { nodes, dependencies };
}

/** A node of `from`'s own group, or now and then of any later group (the groups form a chain of SCCs). */
function clusterTarget(
  from: number,
  nodeCount: number,
  g: Knobs,
  below: (n: number) => number,
  random: () => number,
): number {
  const first = from - (from % g.clusterSize);
  const end = Math.min(nodeCount, first + g.clusterSize);
  if (end < nodeCount && random() < g.clusterExitFraction) return end + below(nodeCount - end);
  return first + below(end - first);
}

/** Out-degrees: `total` dependencies spread as evenly as possible over the non-sink nodes. */
function spreadDegrees(isSink: Uint8Array, total: number, below: (n: number) => number): Int32Array {
  const degrees = new Int32Array(isSink.length);
  const senders: number[] = [];
  for (let v = 0; v < isSink.length; v++) if (isSink[v] === 0) senders.push(v);
  if (senders.length === 0) return degrees;
  const base = Math.floor(total / senders.length);
  for (const v of senders) degrees[v] = base;
  for (let left = total - base * senders.length; left > 0; left--) {
    degrees[senders[below(senders.length)]!]!++;
  }
  return degrees;
}

function roundTo(value: number, scale: number): number {
  return Math.round(value * scale) / scale;
}

/** The extreme shapes the linearity rows run: depth, fan-out, and one cycle through every node. */
export type Family = 'chain' | 'star' | 'ring';

/**
 * - `chain`: n0 → n1 → … → n(N-1), the deepest structure there is (a recursive algorithm
 *   overflows the stack on it);
 * - `star`: n0 feeding every other node, the widest (one node with N-1 dependencies);
 * - `ring`: the chain closed back to n0, one strongly connected component of N nodes, so the
 *   large-cycle solver runs on all of it.
 * Loads cycle through 1…7 so every node holds value.
 */
export function generateFamily(family: Family, nodeCount: number): Structure {
  const nodes = new Array<NodeInput>(nodeCount);
  for (let i = 0; i < nodeCount; i++) nodes[i] = { id: `n${i}`, load: (i % 7) + 1 };
  const dependencies: DependencyInput[] = [];
  if (family === 'star') {
    for (let i = 1; i < nodeCount; i++) dependencies.push({ from: 'n0', to: `n${i}` });
  } else {
    for (let i = 1; i < nodeCount; i++) dependencies.push({ from: `n${i - 1}`, to: `n${i}` });
    if (family === 'ring') dependencies.push({ from: `n${nodeCount - 1}`, to: 'n0' });
  }
  return { nodes, dependencies };
}

/**
 * The structure with its first `count` node ids replaced by ids crafted, as an attacker can
 * (the id hash is public), to share one home slot in the engine's id index sized for all its
 * nodes; dependencies are renamed with them. Same graph, same numbers, hostile ids.
 */
export function withCollidingIds(structure: Structure, count: number): Structure {
  const mask = tableSize(structure.nodes.length) - 1;
  const renamed = new Map<string, string>();
  for (let k = 0; renamed.size < count; k++) {
    const id = `c${k}`;
    if ((idHash(id) & mask) === 0) renamed.set(structure.nodes[renamed.size]!.id, id);
  }
  const rename = (id: string) => renamed.get(id) ?? id;
  return {
    nodes: structure.nodes.map((node) => ({ ...node, id: rename(node.id) })),
    dependencies: structure.dependencies.map((dep) => ({
      ...dep,
      from: rename(dep.from),
      to: rename(dep.to),
    })),
  };
}

/**
 * The largest structure the API's limits take (100,000 nodes, 500,000 dependencies) whose
 * analysis the API can still return: random, with 99 % of the nodes without load. Its answer is
 * ~32 MB of JSON, ~4.7 MB once Brotli-compressed and base64-encoded, inside the 6 MiB response
 * limit; with the default knobs the answer's values compress to ~8 MB and end in 413.
 */
export function largestAnswerableStructure(): Structure {
  return generateStructure({
    shape: 'random',
    nodeCount: 100_000,
    dependencyCount: 500_000,
    variant: { zeroLoadFraction: 0.99 },
  });
}

/** The request body a client would send for this structure. */
export function requestText(structure: Structure): string {
  return JSON.stringify({ mode: 'analyze', nodes: structure.nodes, dependencies: structure.dependencies });
}
