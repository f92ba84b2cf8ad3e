import { WORKED_EXAMPLE } from '../../lib/worked-example';

export interface Example {
  name: string;
  /** What the example shows, in a sentence. */
  about: string;
  body: () => object;
}

/**
 * Deterministic pseudo-random numbers (mulberry32), so the generated example is the same everywhere.
 * @internal test/explorer generates its large structures with it too.
 */
export function mulberry32(seed: number): () => number {
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

const DOMAINS = ['auth', 'cart', 'catalog', 'checkout', 'payment', 'search', 'profile', 'inventory'];
const ROLES = ['api', 'service', 'worker', 'cache', 'queue', 'store'];

/**
 * A service graph of `nodeCount` services in eight tiers (a few entry points, widening, then
 * narrowing to stores), each calling one to three services in the next tier or the one after,
 * loads at the entries, a capacity on every fourth service. Names read like services
 * (`checkout-worker-17`). Deterministic for a given size.
 */
function serviceGraph(nodeCount: number): object {
  const random = mulberry32(300);
  const shares = [0.02, 0.07, 0.13, 0.2, 0.23, 0.18, 0.12];
  const tiers: number[] = shares.map((share) => Math.max(1, Math.round(share * nodeCount)));
  tiers.push(Math.max(1, nodeCount - tiers.reduce((a, b) => a + b, 0)));
  const nodes: Array<{ id: string; load: number; capacity?: number }> = [];
  const byTier: string[][] = [];
  for (const [tier, size] of tiers.entries()) {
    byTier.push([]);
    for (let k = 0; k < size; k++) {
      const role =
        tier === tiers.length - 1 ? 'store' : ROLES[Math.min(ROLES.length - 2, Math.floor(tier / 1.4))]!;
      const id = `${DOMAINS[Math.floor(random() * DOMAINS.length)]}-${role}-${nodes.length}`;
      const node: { id: string; load: number; capacity?: number } = {
        id,
        load: tier === 0 ? Math.round(50 + random() * 150) : 0,
      };
      if (nodes.length % 4 === 3) node.capacity = Math.round(5 + random() * 40);
      nodes.push(node);
      byTier[tier]!.push(id);
    }
  }
  const dependencies: Array<{ from: string; to: string }> = [];
  for (let tier = 0; tier + 1 < byTier.length; tier++) {
    for (const from of byTier[tier]!) {
      const calls = 1 + Math.floor(random() * 3);
      for (let c = 0; c < calls; c++) {
        const target = tier + 2 < byTier.length && random() < 0.2 ? byTier[tier + 2]! : byTier[tier + 1]!;
        dependencies.push({ from, to: target[Math.floor(random() * target.length)]! });
      }
    }
  }
  // Every service is called by someone: the uncalled get a caller from the tier before.
  const called = new Set(dependencies.map((d) => d.to));
  for (let tier = 1; tier < byTier.length; tier++)
    for (const to of byTier[tier]!)
      if (!called.has(to)) {
        const callers = byTier[tier - 1]!;
        dependencies.push({ from: callers[Math.floor(random() * callers.length)]!, to });
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
    name: 'Latency: checkout with an SLO',
    about:
      "Checkout takes 40 requests a second (one server, 10 ms) and calls payments (4 servers, 50 ms) and inventory (2 servers, 20 ms); payments calls the bank (8 servers, 120 ms). Checkout answers in 220 ms against its 300 ms SLO: ×1.42 of today's traffic before it misses, the bank saturating at ×1.67. Select checkout for its curve.",
    body: () => ({
      mode: 'analyze',
      nodes: [
        { id: 'checkout', arrival: 40, fanout: true, serviceTime: 0.01, servers: 1, slo: 0.3 },
        { id: 'payments', fanout: true, serviceTime: 0.05, servers: 4 },
        { id: 'inventory', exit: 1, serviceTime: 0.02, servers: 2 },
        { id: 'bank', exit: 1, serviceTime: 0.12, servers: 8 },
      ],
      dependencies: [
        { from: 'checkout', to: 'payments' },
        { from: 'checkout', to: 'inventory' },
        { from: 'payments', to: 'bank' },
      ],
    }),
  },
  {
    name: 'Service graph, 300 services',
    about:
      'Eight tiers of services from six entry points to the stores, a capacity on every fourth: zoom (wheel, +/−) and drag to read it; labels appear as they find room.',
    body: () => serviceGraph(300),
  },
  {
    name: 'Generated, 10,000 nodes',
    about: 'A long chain with jumps back (one giant cycle), 10% throttled nodes, 2% sinks.',
    body: () => generated(10_000, 4),
  },
];
