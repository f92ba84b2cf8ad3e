import { describe, expect, it } from 'vitest';
import {
  collapseGroups,
  groupId,
  groupingOf,
  groupKey,
  groupNameOf,
  mergeDependencies,
} from '../../explorer/src/groups';
import type { DependencyState, EngineResult, NodeState } from '../../lib/engine/types';

const node = (id: string, fields: Partial<NodeState> = {}): NodeState => ({
  id,
  load: 0,
  inflow: 0,
  outflow: 0,
  pressure: 0,
  blocked: false,
  role: 'relay',
  ...fields,
});
const dependency = (from: string, to: string, fields: Partial<DependencyState> = {}): DependencyState => ({
  from,
  to,
  flow: 1,
  ...fields,
});

describe('groupKey', () => {
  it("takes a node's namespace, else its id's prefix before the first . or /", () => {
    expect(groupKey({ id: 'productpage-v1', namespace: 'bookinfo' })).toBe('bookinfo');
    expect(groupKey({ id: 'shop.cart' })).toBe('shop');
    expect(groupKey({ id: 'shop/cart.v2' })).toBe('shop');
    expect(groupKey({ id: 'a.b/c' })).toBe('a');
    expect(groupKey({ id: 'gateway' })).toBeUndefined();
    expect(groupKey({ id: '.hidden' })).toBeUndefined();
    expect(groupKey({ id: 'x.y', namespace: '' })).toBe('x');
    expect(groupKey({ id: 'x.y', namespace: 3 })).toBe('x');
  });
});

describe('groupingOf', () => {
  it('groups keys shared by two nodes or more, when that makes two groups or more', () => {
    const grouping = groupingOf([
      { id: 'a.1' },
      { id: 'gw' },
      { id: 'b.1' },
      { id: 'a.2' },
      { id: 'b.2' },
      { id: 'c.1' },
    ]);
    expect(grouping?.names).toEqual(['a', 'b']);
    expect(grouping?.sizes).toEqual([2, 2]);
    expect([...grouping!.of]).toEqual([0, -1, 1, 0, 1, -1]);
  });

  it('groups nothing with fewer than two groups of two', () => {
    expect(groupingOf([{ id: 'a.1' }, { id: 'a.2' }, { id: 'b.1' }])).toBeUndefined();
    expect(groupingOf([{ id: 'x' }, { id: 'y' }])).toBeUndefined();
    expect(groupingOf([])).toBeUndefined();
  });
});

describe('groupId and groupNameOf', () => {
  it('name a collapsed group’s node and read it back', () => {
    expect(groupId('shop')).toBe('group:shop');
    expect(groupNameOf(groupId('shop'))).toBe('shop');
    expect(groupNameOf('shop.cart')).toBeUndefined();
  });
});

describe('mergeDependencies', () => {
  const target = (id: string) => (id.startsWith('s.') ? 'group:s' : id);

  it('drops those inside a group, merges those joining the same two nodes, summing flow and throughput', () => {
    const merged = mergeDependencies(
      [
        dependency('gw', 's.a', { throughput: 10, weight: 2 }),
        dependency('s.a', 's.b', { throughput: 10 }),
        dependency('s.a', 'p', { throughput: 4, flow: 2 }),
        dependency('s.b', 'p', { throughput: 6, flow: 3 }),
        dependency('p', 'p', { throughput: 1 }),
        dependency('s.b', 's.b'),
      ],
      target,
    );
    expect(merged).toEqual([
      { from: 'gw', to: 'group:s', flow: 1, throughput: 10, weight: 2 },
      { from: 'group:s', to: 'p', flow: 5, throughput: 10, merged: 2 },
      { from: 'p', to: 'p', flow: 1, throughput: 1 },
    ]);
  });

  it('leaves throughput out when none of the merged has one', () => {
    expect(mergeDependencies([dependency('s.a', 'p'), dependency('s.b', 'p')], target)).toEqual([
      { from: 'group:s', to: 'p', flow: 2, merged: 2 },
    ]);
  });
});

describe('collapseGroups', () => {
  const result: EngineResult = {
    nodes: [
      node('gw', { load: 1, role: 'source' }),
      node('s.a', { load: 2, pressure: 0.2, utilization: 0.3, throughput: 10 }),
      node('s.b', { load: 3, pressure: 0.9, utilization: 0.1, throughput: 6, blocked: true }),
      node('p.a', { load: 1, role: 'sink', throughput: 10 }),
      node('p.b', { load: 1, role: 'sink' }),
    ],
    dependencies: [
      dependency('gw', 's.a', { throughput: 10 }),
      dependency('s.a', 's.b', { throughput: 6 }),
      dependency('s.a', 'p.a', { throughput: 4 }),
      dependency('s.b', 'p.a', { throughput: 6 }),
      dependency('s.b', 'p.b'),
    ],
    primaryBlockage: 's.b',
    events: [],
    origin: { id: 's.a', load: 2, contribution: 1, share: 1 },
    trace: ['gw', 's.a', 's.b'],
  };
  const grouping = groupingOf(result.nodes)!;

  it('draws a collapsed group as one node: sums, the worst of its members, merged dependencies', () => {
    const collapsed = collapseGroups(result, grouping, new Set(['s']));
    expect(collapsed.nodes.map((n) => n.id)).toEqual(['gw', 'group:s', 'p.a', 'p.b']);
    expect(collapsed.nodes[1]).toEqual({
      id: 'group:s',
      load: 5,
      inflow: 0,
      outflow: 0,
      pressure: 0.9,
      blocked: true,
      role: 'relay',
      group: 's',
      members: 2,
      throughput: 16,
      utilization: 0.3,
    });
    expect(collapsed.dependencies).toEqual([
      { from: 'gw', to: 'group:s', flow: 1, throughput: 10 },
      { from: 'group:s', to: 'p.a', flow: 2, throughput: 10, merged: 2 },
      { from: 'group:s', to: 'p.b', flow: 1 },
    ]);
    expect(collapsed.primaryBlockage).toBe('group:s');
    expect(collapsed.origin?.id).toBe('group:s');
    expect(collapsed.trace).toEqual(['gw', 'group:s']);
  });

  it('collapses every group named, and nothing when none is', () => {
    const both = collapseGroups(result, grouping, new Set(['s', 'p']));
    expect(both.nodes.map((n) => n.id)).toEqual(['gw', 'group:s', 'group:p']);
    expect(both.nodes[2]).toMatchObject({ role: 'sink', members: 2, load: 2, throughput: 10 });
    expect(both.dependencies.map((d) => [d.from, d.to, d.throughput])).toEqual([
      ['gw', 'group:s', 10],
      ['group:s', 'group:p', 10],
    ]);
    expect(collapseGroups(result, grouping, new Set())).toBe(result);
  });
});
