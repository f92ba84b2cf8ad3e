import { WORKED_EXAMPLE } from '../../lib/worked-example';

export interface Example {
  name: string;
  /** What the example shows, in a sentence. */
  about: string;
  body: () => object;
}

/** Deterministic pseudo-random numbers (mulberry32), so the generated example is the same everywhere. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A long forward chain with a few jumps back (one giant cycle), 10% throttled nodes, 2% sinks,
 * `perNode` dependencies per non-sink node. Deterministic for a given size.
 * @internal test/explorer pastes a larger generated body (20,000 nodes) than the examples offer.
 */
export function generated(nodeCount: number, perNode: number): object {
  const random = mulberry32(20261123);
  const nodes: object[] = [];
  const dependencies: object[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const id = `n${i}`;
    const sink = i === nodeCount - 1 || random() < 0.02;
    if (random() < 0.1) nodes.push({ id, load: 0, capacity: Math.round(50 + random() * 550) / 10 });
    else nodes.push({ id, load: random() < 0.1 ? 0 : Math.round(random() * 10000) / 100 });
    if (sink) continue;
    for (let k = 0; k < perNode; k++) {
      const back = random() < 0.01;
      const to = back
        ? Math.floor(random() * (i + 1))
        : Math.min(nodeCount - 1, i + 1 + Math.floor(random() * 8));
      dependencies.push({ from: id, to: `n${to}` });
    }
  }
  return { mode: 'analyze', nodes, dependencies };
}

export const EXAMPLES: readonly Example[] = [
  {
    name: 'Worked example',
    about: 'A (10) feeds B (capacity 4) and C; B feeds C. B is the primary blockage, fed by A.',
    body: () => ({ mode: 'analyze', ...WORKED_EXAMPLE }),
  },
  {
    name: 'Cycle with an exit',
    about: 'Value circulates between three services and slowly drains into an archive.',
    body: () => ({
      mode: 'analyze',
      nodes: [
        { id: 'api', load: 30 },
        { id: 'queue', load: 0, capacity: 5 },
        { id: 'worker', load: 0 },
        { id: 'archive', load: 0 },
      ],
      dependencies: [
        { from: 'api', to: 'queue' },
        { from: 'queue', to: 'worker' },
        { from: 'worker', to: 'api', weight: 3 },
        { from: 'worker', to: 'archive' },
      ],
    }),
  },
  {
    name: 'Closed cycle',
    about: 'No dependency leaves the cycle: value that enters it never leaves.',
    body: () => ({
      mode: 'analyze',
      nodes: [
        { id: 'intake', load: 12 },
        { id: 'a', load: 0 },
        { id: 'b', load: 0, capacity: 2 },
        { id: 'c', load: 0 },
      ],
      dependencies: [
        { from: 'intake', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ],
    }),
  },
  {
    name: 'Bottleneck ahead of a sink',
    about: 'Two producers share a throttled gateway in front of a database.',
    body: () => ({
      mode: 'analyze',
      nodes: [
        { id: 'web', load: 40 },
        { id: 'mobile', load: 25 },
        { id: 'gateway', load: 0, capacity: 10 },
        { id: 'db', load: 0 },
      ],
      dependencies: [
        { from: 'web', to: 'gateway' },
        { from: 'mobile', to: 'gateway' },
        { from: 'gateway', to: 'db' },
      ],
    }),
  },
  {
    name: 'Open service graph',
    about:
      'A front end takes 10 requests a step and calls A once and B (capacity 15) twice per request; both call a database that completes what it gets. B is over capacity: headroom ×0.75.',
    body: () => ({
      mode: 'analyze',
      nodes: [
        { id: 'frontend', arrival: 10, fanout: true },
        { id: 'A' },
        { id: 'B', capacity: 15 },
        { id: 'db', exit: 1 },
      ],
      dependencies: [
        { from: 'frontend', to: 'A' },
        { from: 'frontend', to: 'B', weight: 2 },
        { from: 'A', to: 'db' },
        { from: 'B', to: 'db' },
      ],
    }),
  },
  {
    name: 'Generated, 10,000 nodes',
    about: 'A long chain with jumps back (one giant cycle), 10% throttled nodes, 2% sinks.',
    body: () => generated(10_000, 4),
  },
];
