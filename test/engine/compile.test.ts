import { describe, expect, it } from 'vitest';
import { analyze, compileStructure, PayloadError, type Structure } from '../../lib/engine';

describe('compiling weights', () => {
  // A splits 5 over weights 2^1023, 2^1023 and 2^1022: their sum, 2.5 × 2^1023, is beyond the
  // largest double, yet the shares are plainly 0.4, 0.4 and 0.2. The flows are 2, 2 and 1.
  it('keeps the ratios of weights whose sum overflows a double', () => {
    const result = analyze({
      nodes: [{ id: 'A', load: 5 }, { id: 'x' }, { id: 'y' }, { id: 'z' }],
      dependencies: [
        { from: 'A', to: 'x', weight: 2 ** 1023 },
        { from: 'A', to: 'y', weight: 2 ** 1023 },
        { from: 'A', to: 'z', weight: 2 ** 1022 },
      ],
    });
    expect(2 ** 1023 + 2 ** 1023 + 2 ** 1022).toBe(Number.POSITIVE_INFINITY);
    expect(result.dependencies.map((d) => [d.weight, d.flow])).toEqual([
      [2 ** 1023, 2],
      [2 ** 1023, 2],
      [2 ** 1022, 1],
    ]);
  });
});

describe('compiling a structure', () => {
  // A compiled structure is what compiling it again gives: the same object, nothing redone.
  it('returns a compiled structure as it is', () => {
    const compiled = compileStructure({ nodes: [{ id: 'A', load: 1 }], dependencies: [] });
    expect(compileStructure(compiled)).toBe(compiled);
  });

  // Loads of 6e299 and 6e299 add up to 1.2e300, past the 1e300 limit at the second node: the
  // message says what the limit protects and what to do about it.
  it('explains the total-load limit in full', () => {
    const structure = {
      nodes: [
        { id: 'A', load: 6e299 },
        { id: 'B', load: 6e299 },
      ],
      dependencies: [],
    };
    expect(() => compileStructure(structure)).toThrow(PayloadError);
    expect(() => compileStructure(structure)).toThrow(
      'nodes[1].load: and the loads before it add up to more than 1e+300, the largest total load the engine ' +
        'accepts (so that every flow and pressure stays a finite number); scale the loads down',
    );
  });
});

describe('the path shares the trace reads', () => {
  /** `pathInShare` per dependency `from→to`, read through the in-slots. */
  function pathShares(structure: Structure): Record<string, number> {
    const compiled = compileStructure(structure);
    const shares: Record<string, number> = {};
    for (let v = 0; v < compiled.nodeCount; v++) {
      for (let j = compiled.inStart[v]!; j < compiled.inStart[v + 1]!; j++) {
        shares[`${compiled.ids[compiled.inSource[j]!]}→${compiled.ids[v]}`] = compiled.pathInShare[j]!;
      }
    }
    return shares;
  }

  // F fans out with calls near the largest double: added as they are they overflow, so each is
  // divided by the largest first, and the split is weight / W all the same (1/2.3, 1/2.3, 0.3/2.3).
  // R routes with an exit beside its dependencies: its path shares are its shares, w / (W + exit).
  // G fans out with calls below the smallest normal double: divided by the largest, they split
  // as 3 and 1 do.
  it('splits a fan-out node’s calls by weight / W, from the largest double down to subnormals', () => {
    const shares = pathShares({
      nodes: [
        { id: 'F', fanout: true, arrival: 1 },
        { id: 'R', exit: 2 },
        { id: 'G', fanout: true },
        { id: 'A' },
        { id: 'B' },
        { id: 'C' },
      ],
      dependencies: [
        { from: 'F', to: 'A', weight: 1e308 },
        { from: 'F', to: 'B', weight: 1e308 },
        { from: 'F', to: 'R', weight: 3e307 },
        { from: 'R', to: 'A', weight: 1 },
        { from: 'R', to: 'G', weight: 1 },
        { from: 'G', to: 'B', weight: 3e-320 },
        { from: 'G', to: 'C', weight: 1e-320 },
      ],
    });
    expect(shares['F→A']).toBeCloseTo(1 / 2.3, 15);
    expect(shares['F→B']).toBeCloseTo(1 / 2.3, 15);
    expect(shares['F→R']).toBeCloseTo(0.3 / 2.3, 15);
    expect(shares['R→A']).toBe(0.25);
    expect(shares['R→G']).toBe(0.25);
    expect(shares['G→B']).toBeCloseTo(0.75, 2);
    expect(shares['G→C']).toBeCloseTo(0.25, 2);
  });
});
