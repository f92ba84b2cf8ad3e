import { describe, expect, it } from 'vitest';
import { analyze, ticks } from '../../lib/engine';

const MILLION = 1_000_000;
/**
 * The ring and the star at a quarter of a million: as deep and as wide as any recursion or
 * per-node stack could bear many times over. `npm run bench` analyzes all three at a million
 * (and the chain at two), which takes most of this file's time when done here.
 */
const QUARTER_MILLION = 250_000;

describe('million-node structures (no recursion on graph depth)', () => {
  it('a chain n0 → n1 → … → n999999 with one unit on every node', () => {
    // Everything drains towards the last node, which is the only blockage; every node reaches
    // it with certainty, so the origin is the smallest id among equal contributions ("n0") and
    // the trace is the whole chain.
    const nodes = Array.from({ length: MILLION }, (_, i) => ({ id: `n${i}`, load: 1 }));
    const dependencies = Array.from({ length: MILLION - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` }));
    const result = analyze({ nodes, dependencies });
    expect(result.primaryBlockage).toBe(`n${MILLION - 1}`);
    expect(result.nodes[MILLION - 1]!.pressure).toBe(2);
    expect(result.origin).toMatchObject({ id: 'n0', contribution: 1 });
    expect(result.origin!.share).toBeCloseTo(1 / MILLION, 15);
    expect(result.trace.length).toBe(MILLION);
    expect(result.trace[1]).toBe('n1');
  });

  it('a chain closed into one ring of a quarter of a million nodes is one closed cycle', () => {
    const nodes = Array.from({ length: QUARTER_MILLION }, (_, i) => ({
      id: `n${i}`,
      load: i === 0 ? 1 : 0,
      capacity: 1,
    }));
    const dependencies = Array.from({ length: QUARTER_MILLION }, (_, i) => ({
      from: `n${i}`,
      to: `n${(i + 1) % QUARTER_MILLION}`,
    }));
    const result = analyze({ nodes, dependencies });
    const cycles = result.events.filter((e) => e.type === 'cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ closed: true });
    expect(result.primaryBlockage).toBeNull();
    const [after] = ticks({ nodes, dependencies }, 1);
    expect(after!.nodes[1]!.load).toBe(1);
  });

  it('a star of a quarter of a million leaves all feeding one hub', () => {
    const nodes = [
      { id: 'hub', load: 0 },
      ...Array.from({ length: QUARTER_MILLION }, (_, i) => ({ id: `leaf${i}`, load: 2 })),
    ];
    const dependencies = Array.from({ length: QUARTER_MILLION }, (_, i) => ({ from: `leaf${i}`, to: 'hub' }));
    const result = analyze({ nodes, dependencies });
    expect(result.primaryBlockage).toBe('hub');
    expect(result.nodes[0]!.pressure).toBe(2 * QUARTER_MILLION);
    expect(result.origin).toMatchObject({ id: 'leaf0', contribution: 2 });
    expect(result.trace).toEqual(['leaf0', 'hub']);
  });
});
