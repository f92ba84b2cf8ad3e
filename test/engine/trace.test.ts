import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, compileStructure, type Structure } from '../../lib/engine';
import { ReachWorkspace, solveReach } from '../../lib/engine/reach';
import { scratch } from '../../lib/engine/scratch';
import { mostProbablePath } from '../../lib/engine/trace';

/**
 * The engine model's trace, computed the slow, obvious way: the best product of shares from
 * every node to the target (relaxing every dependency until nothing improves; products only
 * shrink along a path, so going round a cycle never helps), then from the origin, hop by hop,
 * the smallest next id among the dependencies that keep the best product. Products are formed
 * from the target backwards, `share × best(next)`, as the engine forms them, so equal paths
 * give equal doubles here and there.
 */
function referenceTrace(structure: Structure, origin: string, target: string): string[] {
  const ids = structure.nodes.map((n) => n.id);
  const totalWeight = new Map<string, number>();
  for (const d of structure.dependencies)
    totalWeight.set(d.from, (totalWeight.get(d.from) ?? 0) + (d.weight ?? 1));
  const edges = structure.dependencies.map((d) => ({
    from: d.from,
    to: d.to,
    share: (d.weight ?? 1) / totalWeight.get(d.from)!,
  }));
  const best = new Map<string, number>([[target, 1]]);
  for (let round = 0; round <= ids.length; round++) {
    for (const { from, to, share } of edges) {
      if (from === to || from === target || !best.has(to)) continue;
      const candidate = share * best.get(to)!;
      if (candidate > (best.get(from) ?? -1)) best.set(from, candidate);
    }
  }
  const path = [origin];
  for (let at = origin; at !== target; ) {
    const next = edges
      .filter(
        (e) => e.from === at && e.to !== at && best.has(e.to) && e.share * best.get(e.to)! === best.get(at),
      )
      .map((e) => e.to)
      .sort()[0]!;
    path.push(next);
    at = next;
  }
  return path;
}

/** Small dense structures with few distinct weights, so that paths often tie exactly. */
const tangledStructure: fc.Arbitrary<Structure> = fc
  .integer({ min: 2, max: 12 })
  .chain((nodeCount) =>
    fc.record({
      loads: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: nodeCount, maxLength: nodeCount }),
      dependencies: fc.array(
        fc.record({
          from: fc.integer({ min: 0, max: nodeCount - 1 }),
          to: fc.integer({ min: 0, max: nodeCount - 1 }),
          weight: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        }),
        { maxLength: 60 },
      ),
    }),
  )
  .map(({ loads, dependencies }) => {
    // Ids listed against their sort order, so input order cannot stand in for it.
    const ids = loads.map((_, i) => `n${String(loads.length - i).padStart(2, '0')}`);
    return {
      nodes: loads.map((load, i) => ({ id: ids[i]!, load })),
      dependencies: dependencies.map(({ from, to, weight }) =>
        weight === undefined
          ? { from: ids[from]!, to: ids[to]! }
          : { from: ids[from]!, to: ids[to]!, weight },
      ),
    };
  });

describe('trace', () => {
  // O splits 3:1 between A and B. A sends only a quarter of its outflow on to T (the rest to X),
  // B all of it: via A the path's probability is 0.75 × 0.25 = 0.1875, via B 0.25 × 1 = 0.25.
  // The most probable path is the product of shares along it, so the trace goes through B.
  it('follows the greatest product of shares, not the greatest first share', () => {
    const result = analyze({
      nodes: [
        { id: 'O', load: 1000 },
        { id: 'A', load: 0 },
        { id: 'B', load: 0 },
        { id: 'T', load: 100 },
        { id: 'X', load: 0 },
      ],
      dependencies: [
        { from: 'O', to: 'A', weight: 3 },
        { from: 'O', to: 'B', weight: 1 },
        { from: 'A', to: 'T', weight: 1 },
        { from: 'A', to: 'X', weight: 3 },
        { from: 'B', to: 'T' },
      ],
    });
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin?.id).toBe('O');
    expect(result.trace).toEqual(['O', 'B', 'T']);
  });

  // Two paths of exactly equal probability from O to T: 1/3 × 1 through "b", 2/3 × 1/2 through
  // "a" (the same double). "b" is settled first (its own probability, 1, is higher), so only the
  // tie-break rule (smallest next id) picks "a".
  it('breaks an exact tie between paths by the smallest next id', () => {
    const result = analyze({
      nodes: [
        { id: 'O', load: 1000 },
        { id: 'a', load: 0 },
        { id: 'b', load: 0 },
        { id: 'T', load: 100 },
        { id: 'W', load: 0 },
      ],
      dependencies: [
        { from: 'O', to: 'b', weight: 1 },
        { from: 'O', to: 'a', weight: 2 },
        { from: 'b', to: 'T' },
        { from: 'a', to: 'T' },
        { from: 'a', to: 'W' },
      ],
    });
    expect(1 / 3).toBe((2 / 3) * 0.5);
    expect(result.primaryBlockage).toBe('T');
    expect(result.origin?.id).toBe('O');
    expect(result.trace).toEqual(['O', 'a', 'T']);
  });

  // g sends 2/5 of its outflow to f, which passes all of it to the sink e, and 3/5 to a, which
  // sends 3/4 to d, which passes all to e: 0.4 against 0.6 × 0.75 = 0.45, so the trace goes
  // g, a, d, e. Searching back from e, d and f (probability 1) wait beside a (first 1/4, then
  // 3/4) and i (1, feeding d): the search must take the most probable waiting node each time,
  // or it settles g on the 0.4 through f before a's 3/4 has been looked at.
  it('takes the most probable route when several partial routes wait to be extended', () => {
    const result = analyze({
      nodes: [
        { id: 'i', load: 0 },
        { id: 'g', load: 100 },
        { id: 'f', load: 0 },
        { id: 'e', load: 1 },
        { id: 'd', load: 0 },
        { id: 'a', load: 0 },
      ],
      dependencies: [
        { from: 'g', to: 'f', weight: 2 },
        { from: 'g', to: 'a', weight: 3 },
        { from: 'd', to: 'e' },
        { from: 'a', to: 'd', weight: 3 },
        { from: 'f', to: 'e' },
        { from: 'a', to: 'e' },
        { from: 'i', to: 'd' },
      ],
    });
    expect(result.primaryBlockage).toBe('e');
    expect(result.origin?.id).toBe('g');
    expect(result.trace).toEqual(['g', 'a', 'd', 'e']);
  });

  // Three routes from c to the sink f, all with probability exactly 1/3: straight there (1/3),
  // through e (2/3 × 1/2) and through e then d (2/3 × 1/2 × 1). At c the smaller next id is e;
  // at e it is d. While searching back from f, b, c, d and e wait together with equal or
  // nearly equal products, so the search must keep them in order to get there.
  it('breaks ties hop by hop along a route where three routes tie', () => {
    const result = analyze({
      nodes: [
        { id: 'f', load: 1 },
        { id: 'e', load: 0 },
        { id: 'd', load: 0 },
        { id: 'c', load: 100 },
        { id: 'b', load: 0 },
      ],
      dependencies: [
        { from: 'b', to: 'f' },
        { from: 'e', to: 'f' },
        { from: 'c', to: 'e', weight: 2 },
        { from: 'e', to: 'd' },
        { from: 'c', to: 'f' },
        { from: 'd', to: 'f' },
      ],
    });
    expect((2 / 3) * 0.5).toBe(1 / 3);
    expect(result.primaryBlockage).toBe('f');
    expect(result.origin?.id).toBe('c');
    expect(result.trace).toEqual(['c', 'e', 'd', 'f']);
  });

  // On random tangled structures (cycles, repeated pairs, self-dependencies, many exact ties),
  // the trace is the reference's: the most probable path, ties broken hop by hop by the
  // smallest next id.
  it('is the most probable path on random structures, ties to the smallest next id', () => {
    fc.assert(
      fc.property(tangledStructure, (structure) => {
        const result = analyze(structure);
        if (result.origin === null) return;
        expect(result.trace).toEqual(referenceTrace(structure, result.origin.id, result.primaryBlockage!));
      }),
      { numRuns: 400 },
    );
  });

  // A result only shows the path from its origin, often a hop or two from the blockage. Here
  // every node that can reach another is traced to it, so long searches with many candidates
  // waiting at once are checked too.
  it('is the most probable path between any two nodes of random structures', () => {
    fc.assert(
      fc.property(tangledStructure, (structure) => {
        const compiled = compileStructure(structure);
        const { ids, nodeCount } = compiled;
        scratch.run(() => {
          const ws = new ReachWorkspace(nodeCount);
          for (let target = 0; target < nodeCount; target++) {
            solveReach(compiled, target, ws);
            for (let origin = 0; origin < nodeCount; origin++) {
              if (ws.canReach[origin] === 0) continue;
              expect(mostProbablePath(compiled, origin, target, ws)).toEqual(
                referenceTrace(structure, ids[origin]!, ids[target]!),
              );
            }
          }
        });
      }),
      { numRuns: 1000 },
    );
  });
});
