import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';

describe('the primary blockage', () => {
  // Three relays listed b, a, c each hold 5 and pass on at most 2 a tick into their own sink:
  // each keeps a backlog of 1 (5 − 2 = 3 left, 1 more than one tick's capacity). The sinks
  // collect 2 each, more pressure, but a blocked node with a way out comes first; among the
  // three equal relays the smallest id wins, wherever it is listed.
  it('is the capacity-limited node with the most pressure, ties to the smallest id', () => {
    const relay = (id: string) => ({ id, load: 5, capacity: 2 });
    const result = analyze({
      nodes: [relay('b'), relay('a'), relay('c'), { id: 'sb' }, { id: 'sa' }, { id: 'sc' }],
      dependencies: [
        { from: 'b', to: 'sb' },
        { from: 'a', to: 'sa' },
        { from: 'c', to: 'sc' },
      ],
    });
    expect(result.nodes.map((n) => n.pressure)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(result.primaryBlockage).toBe('a');
  });

  // The same with a backlog of 1 on the first node listed and 100 waiting in a sink: the
  // capacity blockage still comes first, however much more the sink holds.
  it('prefers a capacity blockage to any terminal one', () => {
    const result = analyze({
      nodes: [
        { id: 'R', load: 3, capacity: 1 },
        { id: 'S', load: 100 },
      ],
      dependencies: [{ from: 'R', to: 'S' }],
    });
    expect(result.nodes.map((n) => n.pressure)).toEqual([1, 101]);
    expect(result.primaryBlockage).toBe('R');
  });

  // Three sinks listed y, x, z each receive 2 of A's 6: equal pressure, so "x" is primary.
  it('among terminal blockages alone, ties go to the smallest id wherever it is listed', () => {
    const result = analyze({
      nodes: [{ id: 'A', load: 6 }, { id: 'y' }, { id: 'x' }, { id: 'z' }],
      dependencies: [
        { from: 'A', to: 'y' },
        { from: 'A', to: 'x' },
        { from: 'A', to: 'z' },
      ],
    });
    expect(result.nodes.map((n) => n.pressure)).toEqual([0, 2, 2, 2]);
    expect(result.primaryBlockage).toBe('x');
  });

  // A node that passes everything on has pressure 0 and is not blocked: nothing is primary.
  it('is null when every node passes on what it holds', () => {
    const result = analyze({
      nodes: [
        { id: 'A', load: 2, capacity: 2 },
        { id: 'B', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
      ],
    });
    expect(result.nodes.map((n) => [n.pressure, n.blocked])).toEqual([
      [0, false],
      [0, false],
    ]);
    expect(result.primaryBlockage).toBeNull();
    expect(result.origin).toBeNull();
    expect(result.trace).toEqual([]);
  });
});
