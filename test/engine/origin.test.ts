import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';

describe('the origin', () => {
  // B takes 1 a step from E but passes only 0.5: the steady state names it. L's load of 100
  // passes once and is gone, so the blockage draws on what keeps arriving: E, not L.
  it("of a blockage the steady state names is drawn from the arrivals, not today's loads", () => {
    const result = analyze({
      nodes: [
        { id: 'L', load: 100 },
        { id: 'E', arrival: 1 },
        { id: 'B', capacity: 0.5, exit: 1 },
      ],
      dependencies: [
        { from: 'L', to: 'B' },
        { from: 'E', to: 'B' },
      ],
    });
    expect(result.primaryBlockage).toBe('B');
    expect(result.origin).toEqual({ id: 'E', load: 0, arrival: 1, contribution: 1, share: 1 });
    expect(result.trace).toEqual(['E', 'B']);
  });

  // Sources listed Q, P, R each send 2 to the sink s: three equal contributions, "P" wins.
  it('is the greatest contribution, ties to the smallest id wherever it is listed', () => {
    const result = analyze({
      nodes: [{ id: 'Q', load: 2 }, { id: 'P', load: 2 }, { id: 'R', load: 2 }, { id: 's' }],
      dependencies: [
        { from: 'Q', to: 's' },
        { from: 'P', to: 's' },
        { from: 'R', to: 's' },
      ],
    });
    expect(result.primaryBlockage).toBe('s');
    expect(result.origin).toEqual({ id: 'P', load: 2, contribution: 2, share: 1 / 3 });
    expect(result.trace).toEqual(['P', 's']);
  });

  // A ring of 100 services, each holding 10 and passing 90% on, 9% ahead and 1% to the sink: every
  // unit ends at the sink, so every service contributes 10, a tie named by the smallest id. Their
  // reach comes from sweeps (past 64 unknowns), equal only to about 1e-12, and the largest of
  // those was s098's: contributions within 1e-9 of the largest are a tie. One holding 10.0001
  // (1e-5 more) is not tied: it is the origin.
  it('takes contributions within 1e-9 of the largest as a tie, where sweeps leave them unequal', () => {
    const ring = (loadOf: (i: number) => number) => {
      const id = (i: number) => `s${String(i).padStart(3, '0')}`;
      return {
        nodes: [
          ...Array.from({ length: 100 }, (_, i) => ({ id: id(i), load: loadOf(i) })),
          { id: 'sink', capacity: 1 },
        ],
        dependencies: Array.from({ length: 100 }, (_, i) => [
          { from: id(i), to: id((i + 1) % 100), weight: 90 },
          { from: id(i), to: id((2 * i + 11) % 100), weight: 9 },
          { from: id(i), to: 'sink', weight: 1 },
        ]).flat(),
      };
    };
    const tied = analyze(ring(() => 10));
    expect(tied.primaryBlockage).toBe('sink');
    expect(tied.origin!.id).toBe('s000');
    expect(Math.abs(tied.origin!.contribution - 10)).toBeLessThan(1e-9);
    expect(tied.trace).toEqual(['s000', 'sink']);
    expect(analyze(ring((i) => (i === 57 ? 10.0001 : 10))).origin!.id).toBe('s057');
  });

  // A calls F once for each of its 2 arrivals, and F calls B 1e308 times a request: B's
  // throughput, and A's contribution to it (2 × 1e308 visits), are past the largest double. B is
  // unbounded, and no origin is named, as for a fan-out loop whose visits have no bound; with 1
  // arrival (1e308 visits) A is the origin.
  it('is null where a contribution is past the largest double', () => {
    const structure = (arrival: number) => ({
      nodes: [
        { id: 'A', arrival },
        { id: 'F', fanout: true },
        { id: 'B', load: 1, capacity: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'F' },
        { from: 'F', to: 'B', weight: 1e308 },
      ],
    });
    const past = analyze(structure(2));
    expect(past.primaryBlockage).toBe('B');
    expect(past.events[0]).toEqual({ tick: 0, type: 'unbounded', nodes: ['B'] });
    expect(past.origin).toBeNull();
    expect(past.trace).toEqual([]);
    expect(analyze(structure(1)).origin).toMatchObject({ id: 'A', contribution: 1e308, share: 1 });
    // Two entries of 1e308 visits each: every contribution is a double, their total is not.
    const twoEntries = analyze({
      nodes: [
        { id: 'A', arrival: 1 },
        { id: 'C', arrival: 1 },
        { id: 'F', fanout: true },
        { id: 'G', fanout: true },
        { id: 'B', load: 1, capacity: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'F' },
        { from: 'C', to: 'G' },
        { from: 'F', to: 'B', weight: 1e308 },
        { from: 'G', to: 'B', weight: 1e308 },
      ],
    });
    expect(twoEntries.primaryBlockage).toBe('B');
    expect(twoEntries.origin).toBeNull();
  });

  // The sink T already holds 1e16 and 100 sources of 1 feed it. Its own load is the largest
  // contribution; the total is 1e16 + 100, though adding 1 to 1e16 in doubles (2 apart there)
  // gives 1e16 again. The share is 1e16 / (1e16 + 100), not 1.
  it('shares its contribution out of a total that keeps small contributions next to a large one', () => {
    const sources = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, load: 1 }));
    const result = analyze({
      nodes: [{ id: 'T', load: 1e16 }, ...sources],
      dependencies: sources.map((s) => ({ from: s.id, to: 'T' })),
    });
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin).toEqual({ id: 'T', load: 1e16, contribution: 1e16, share: 1e16 / (1e16 + 100) });
    expect(result.origin!.share).toBeLessThan(1);
    expect(result.trace).toEqual(['T']);
  });

  // The sink T holds 1; sources B of 2^53 and C of 1 feed it, and contributions are summed T,
  // B, C. In doubles 2^53 + 1 rounds back to 2^53 (they are 2 apart there), so a running total
  // that dropped T's 1 when B's 2^53 arrived would end at 2^53 + 1, which is 2^53 again, and
  // make B's share exactly 1. Kept, the total is 2^53 + 2 and the share 2^53 / (2^53 + 2).
  it('counts a small contribution summed before a large one', () => {
    const result = analyze({
      nodes: [
        { id: 'T', load: 1 },
        { id: 'B', load: 2 ** 53 },
        { id: 'C', load: 1 },
      ],
      dependencies: [
        { from: 'B', to: 'T' },
        { from: 'C', to: 'T' },
      ],
    });
    expect(result.primaryBlockage).toBe('T');
    expect(2 ** 53 + 1).toBe(2 ** 53);
    expect(result.origin).toEqual({
      id: 'B',
      load: 2 ** 53,
      contribution: 2 ** 53,
      share: 2 ** 53 / (2 ** 53 + 2),
    });
    expect(result.origin!.share).toBeLessThan(1);
    expect(result.trace).toEqual(['B', 'T']);
  });
});
