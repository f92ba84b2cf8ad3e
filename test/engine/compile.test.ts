import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';

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
