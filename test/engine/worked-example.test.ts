import { describe, expect, it } from 'vitest';
import { analyze, type EngineResult, tick, ticks } from '../../lib/engine';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { CLOSED_ANALYZE_KEYS } from '../helpers/engine-examples';

// The engine model's worked example: A holds 10 and feeds B (capacity 4) and C; B feeds C.
// Value spreads from A, queues at B's capacity, and ends up at C, which has no way out.
const worked = WORKED_EXAMPLE;

const column = (result: EngineResult, field: 'load' | 'pressure' | 'inflow' | 'outflow') =>
  result.nodes.map((node) => node[field]);
const flows = (result: EngineResult) => result.dependencies.map((dependency) => dependency.flow);

describe('worked example', () => {
  it('analyze (tick 0): A spreads 5 and 5; B backs up by 1 over its capacity; C by 5', () => {
    const result = analyze(worked);
    expect(column(result, 'load')).toEqual([10, 0, 0]);
    expect(flows(result)).toEqual([5, 5, 0]);
    expect(column(result, 'outflow')).toEqual([10, 0, 0]);
    expect(column(result, 'inflow')).toEqual([0, 5, 5]);
    expect(column(result, 'pressure')).toEqual([0, 1, 5]);
    expect(result.nodes.map((n) => n.blocked)).toEqual([false, true, true]);
    expect(result.nodes.map((n) => n.role)).toEqual(['source', 'relay', 'sink']);
    expect(result.nodes[1]).toMatchObject({ capacity: 4 });
    expect(result.primaryBlockage).toBe('B');
    expect(result.origin).toEqual({ id: 'A', load: 10, contribution: 5, share: 1 });
    expect(result.trace).toEqual(['A', 'B']);
    expect(result.events).toEqual([
      { tick: 0, type: 'blocked', node: 'B', pressure: 1 },
      { tick: 0, type: 'blocked', node: 'C', pressure: 5 },
    ]);
  });

  it('analyze returns exactly the documented keys, in order', () => {
    const result = analyze(worked);
    expect(Object.keys(result)).toEqual(CLOSED_ANALYZE_KEYS);
    expect(Object.keys(result.nodes[0]!)).toEqual([
      'id',
      'load',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
    expect(Object.keys(result.dependencies[0]!)).toEqual(['from', 'to', 'flow']);
  });

  it('tick 1: A drained, B passes 4 of its 5, C collects; B and C tie on contribution, B wins by id', () => {
    const snapshot = tick(worked);
    expect(snapshot.tick).toBe(1);
    expect(column(snapshot, 'load')).toEqual([0, 5, 5]);
    expect(flows(snapshot)).toEqual([0, 0, 4]);
    expect(column(snapshot, 'pressure')).toEqual([0, 0, 9]);
    expect(snapshot.primaryBlockage).toBe('C');
    expect(snapshot.origin).toEqual({ id: 'B', load: 5, contribution: 5, share: 0.5 });
    expect(snapshot.trace).toEqual(['B', 'C']);
    expect(snapshot.events).toEqual([
      { tick: 1, type: 'cleared', node: 'B' },
      { tick: 1, type: 'drained', node: 'A' },
    ]);
  });

  it('ticks 3: the timeline of all four states, ending settled', () => {
    const [one, two, three] = ticks(worked, 3);
    expect(one).toEqual(tick(worked));

    expect(two!.tick).toBe(2);
    expect(column(two!, 'load')).toEqual([0, 1, 9]);
    expect(flows(two!)).toEqual([0, 0, 1]);
    expect(column(two!, 'pressure')).toEqual([0, 0, 10]);
    expect(two!.primaryBlockage).toBe('C');
    expect(two!.origin).toEqual({ id: 'C', load: 9, contribution: 9, share: 0.9 });
    expect(two!.trace).toEqual(['C']);
    expect(two!.events).toEqual([]);

    expect(three!.tick).toBe(3);
    expect(column(three!, 'load')).toEqual([0, 0, 10]);
    expect(flows(three!)).toEqual([0, 0, 0]);
    expect(column(three!, 'pressure')).toEqual([0, 0, 10]);
    expect(three!.primaryBlockage).toBe('C');
    expect(three!.origin).toEqual({ id: 'C', load: 10, contribution: 10, share: 1 });
    expect(three!.trace).toEqual(['C']);
    expect(three!.events).toEqual([
      { tick: 3, type: 'drained', node: 'B' },
      { tick: 3, type: 'settled' },
    ]);
  });

  it('settled is reported once per response, in the first settled state', () => {
    const timeline = ticks(worked, 6);
    const settled = timeline.flatMap((s) => s.events.filter((e) => e.type === 'settled').map((e) => e.tick));
    expect(settled).toEqual([3]);
    expect(timeline[5]!.events).toEqual([]);
  });

  it('snapshots keep the documented keys, capacity included where set', () => {
    const snapshot = tick(worked);
    expect(Object.keys(snapshot)).toEqual(['tick', ...CLOSED_ANALYZE_KEYS]);
    expect(Object.keys(snapshot.nodes[1]!)).toEqual([
      'id',
      'load',
      'capacity',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
  });

  it('ticks 0 returns an empty timeline', () => {
    expect(ticks(worked, 0)).toEqual([]);
  });
});
