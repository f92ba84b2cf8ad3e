/**
 * `applySettings`: how a stored system's settings reach the structure the engine runs on.
 */
import { describe, expect, it } from 'vitest';
import { applySettings } from '../../lib/api/system-settings';
import { analyze, type Structure } from '../../lib/engine';

describe('applySettings', () => {
  // A node's own setting wins, then its own capacity, then the default; arrivals likewise, but
  // without a default.
  it('takes the setting, else the node own value, else the default capacity', () => {
    const structure = {
      nodes: [{ id: 'api' }, { id: 'db', capacity: 40 }, { id: 'cache', capacity: 9, arrival: 1 }],
      dependencies: [{ from: 'api', to: 'db' }],
    };
    const applied = applySettings(structure, {
      defaultCapacity: 100,
      nodes: { cache: { capacity: 12, arrival: 3 } },
    });
    expect(applied.nodes).toEqual([
      { id: 'api', capacity: 100 },
      { id: 'db', capacity: 40 },
      { id: 'cache', capacity: 12, arrival: 3 },
    ]);
    expect(applied.dependencies).toBe(structure.dependencies);
  });

  // X-Ray's client node stands for the users: a default capacity of 100 on it would make the
  // users the bottleneck of 600 requests a second. A node marked external gets no default, but
  // a capacity set for it by id is the user's own choice and applies.
  it('never gives the default capacity to a node marked external: true', () => {
    const structure = {
      nodes: [
        { id: 'users', external: true, arrival: 600 },
        { id: 'partner-api', external: true },
        { id: 'web' },
        // Only `true` marks a node external; any other value is just data.
        { id: 'db', external: 'yes' },
      ],
      dependencies: [],
    };
    const applied = applySettings(structure, {
      defaultCapacity: 100,
      nodes: { 'partner-api': { capacity: 50 } },
    });
    expect(applied.nodes).toEqual([
      { id: 'users', external: true, arrival: 600 },
      { id: 'partner-api', external: true, capacity: 50 },
      { id: 'web', capacity: 100 },
      { id: 'db', external: 'yes', capacity: 100 },
    ]);
    // Unchanged nodes are the structure's own objects.
    expect(applied.nodes[0]).toBe(structure.nodes[0]);
  });
});

describe('applySettings with service times', () => {
  // Settings give the API 4 servers of 50 ms: its capacity becomes 4 / 0.05 = 80 a step, so the
  // structure's own capacity (40) and the default give way; the database keeps the default.
  // An SLO set on the front end is carried too. The engine then runs on it without a conflict.
  it('applies serviceTime, servers and slo, and lets servers set the capacity', () => {
    const structure = {
      nodes: [
        { id: 'web', arrival: 10, fanout: true },
        { id: 'api', capacity: 40, fanout: true },
        { id: 'db', exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'api', to: 'db' },
      ],
    };
    const applied = applySettings(structure, {
      defaultCapacity: 100,
      nodes: { api: { serviceTime: 0.05, servers: 4 }, web: { slo: 0.5 } },
    });
    expect(applied.nodes).toEqual([
      { id: 'web', arrival: 10, fanout: true, capacity: 100, slo: 0.5 },
      { id: 'api', fanout: true, serviceTime: 0.05, servers: 4 },
      { id: 'db', exit: 1, capacity: 100 },
    ]);
    const result = analyze(applied as Structure);
    expect(result.nodes[1]!.capacity).toBe(80);
    expect(result.nodes[0]!.latency).toBeGreaterThan(0.05);
    expect(result.latencyHeadroom!.node).toBe('web');
  });

  // A node whose structure already has servers gets no default capacity either.
  it('gives no default capacity to a node with servers', () => {
    const applied = applySettings(
      { nodes: [{ id: 'api', serviceTime: 0.1, servers: 2 }], dependencies: [] },
      { defaultCapacity: 5 },
    );
    expect(applied.nodes).toEqual([{ id: 'api', serviceTime: 0.1, servers: 2 }]);
  });
});
