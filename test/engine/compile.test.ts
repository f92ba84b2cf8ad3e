import { describe, expect, it } from 'vitest';
import { analyze, compileStructure, PayloadError } from '../../lib/engine';

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
