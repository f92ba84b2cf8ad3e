/**
 * `gainBounds`: Collatz–Wielandt bounds on a loop's gain, from the power method on `I + T`
 * (docs/engine.md, "When is a loop unbounded", step 2). Worked out on two-node loops whose
 * iterates have a closed form, so every bound below is known before the engine computes it.
 */
import { describe, expect, it } from 'vitest';
import { compileStructure, type Structure } from '../../lib/engine';
import { type GainBounds, gainBounds } from '../../lib/engine/gain-bounds';
import { GAIN_MARGIN } from '../../lib/engine/steady-state';

/** `gainBounds` over the nodes `ids` of `structure`, in that order, deciding against `decided`. */
function bounds(structure: Structure, ids: string[], decided: number): GainBounds {
  const compiled = compileStructure(structure);
  const members = Int32Array.from(ids.map((id) => compiled.ids.indexOf(id)));
  const localIndex = new Int32Array(compiled.nodeCount).fill(-1);
  members.forEach((v, i) => {
    localIndex[v] = i;
  });
  return gainBounds(compiled, members, localIndex, decided);
}

/**
 * Two fan-out services: A calls B `a` times per request, B calls A `b` times (a fan-out node's
 * coefficient is its weight). `T = [[0, a], [b, 0]]`, whose gain is `√(ab)`.
 */
function pair(a: number, b: number): Structure {
  return {
    nodes: [
      { id: 'A', arrival: 1, fanout: true },
      { id: 'B', fanout: true },
    ],
    dependencies: [
      { from: 'A', to: 'B', weight: a },
      { from: 'B', to: 'A', weight: b },
    ],
  };
}

describe('gainBounds', () => {
  // From v = 1 each ratio is the node's own calls per request: A's 1, B's 0.25. The lower bound
  // 0.25 already reaches `decided`, so it stops there. (The gain is √0.25 = 0.5, between them.)
  it('starts from each node’s own gain and stops once the lower bound decides', () => {
    expect(bounds(pair(1, 0.25), ['A', 'B'], 0.25)).toEqual({ low: 0.25, high: 1 });
  });

  // Against 1, the first bounds (0.25, 1) do not decide: the upper bound must fall below 1, not
  // reach it. One step: v + Tv = (1 + 1, 1 + 0.25) = (2, 1.25), rescaled to (1, 0.625); A's ratio
  // is 1 · 0.625 / 1 = 0.625, B's 0.25 · 1 / 0.625 = 0.4. Now 0.625 < 1: it stops.
  it('stops once the upper bound falls below, not at, the line', () => {
    expect(bounds(pair(1, 0.25), ['A', 'B'], 1)).toEqual({ low: 0.4, high: 0.625 });
  });

  // A calls B once, B calls A 0.01 times: the gain is 0.1. In T's eigenvectors (1, 0.1) and
  // (1, −0.1), of eigenvalues 0.1 and −0.1, v = 1 is 5.5·(1, 0.1) − 4.5·(1, −0.1), so after k
  // steps v ∝ 5.5·1.1^k·(1, 0.1) − 4.5·0.9^k·(1, −0.1). With t = (9/11)^(k+1), A's ratio is
  // 0.1·(1 + t)/(1 − t) and B's 0.1·(1 − t)/(1 + t): they close in on 0.1 from both sides.
  const ratios = (t: number) => ({ low: (0.1 * (1 - t)) / (1 + t), high: (0.1 * (1 + t)) / (1 - t) });

  // Against 0.05 the lower bound first reaches it when (1 − t)/(1 + t) ≥ 1/2, t ≤ 1/3: (9/11)^5 =
  // 0.367 is not, (9/11)^6 = 0.300 is, at the sixth iteration (k = 5).
  it('iterates until the bounds decide', () => {
    const got = bounds(pair(1, 0.01), ['A', 'B'], 0.05);
    const expected = ratios((9 / 11) ** 6);
    expect(got.low).toBeCloseTo(expected.low, 14);
    expect(got.high).toBeCloseTo(expected.high, 14);
  });

  // Against the gain itself, 0.1, nothing decides (the lower bound stays below it, the upper
  // above): all 24 iterations, k = 0 … 23, the last with t = (9/11)^24.
  it('spends at most 24 iterations', () => {
    const got = bounds(pair(1, 0.01), ['A', 'B'], 0.1);
    const expected = ratios((9 / 11) ** 24);
    expect(got.low).toBeCloseTo(expected.low, 14);
    expect(got.high).toBeCloseTo(expected.high, 14);
  });

  // A calls itself and B g = 1e20 times each, B calls A g times: T = g·[[1, 1], [1, 0]], gain
  // g·φ (the golden ratio). Beside T, I is below a double's precision, so v_k ∝ T^k·1 =
  // g^k·(F(k+2), F(k+1)) (Fibonacci numbers); A's ratio is g·F(k+3)/F(k+2), B's g·F(k+2)/F(k+1),
  // one above φ and one below. Against g·φ nothing decides, and after k = 23 the bounds are
  // g·F(26)/F(25) = g·121393/75025 and g·F(25)/F(24) = g·75025/46368. Unscaled, v would pass the
  // largest double (g^k) after about 15 iterations: it is rescaled to a largest entry of 1.
  it('rescales v, so a large gain does not overflow it', () => {
    const g = 1e20;
    const structure: Structure = {
      nodes: [
        { id: 'A', arrival: 1, fanout: true },
        { id: 'B', fanout: true },
      ],
      dependencies: [
        { from: 'A', to: 'A', weight: g },
        { from: 'A', to: 'B', weight: g },
        { from: 'B', to: 'A', weight: g },
      ],
    };
    const got = bounds(structure, ['A', 'B'], (g * (1 + Math.sqrt(5))) / 2);
    expect(got.low / g).toBeCloseTo(121393 / 75025, 14);
    expect(got.high / g).toBeCloseTo(75025 / 46368, 14);
  });

  // A calls itself and B 1.5e308 times each: its sum 3e308 is past the largest double, so A's
  // ratio and v's next entry are Infinity. B calls A 0.5 times: ratio 0.5. The bounds (0.5,
  // Infinity) decide nothing against 1 − GAIN_MARGIN, but v cannot go on (rescaled by Infinity it
  // would be NaN): they are returned as they are, and the solve decides.
  it('stops when v overflows', () => {
    const structure: Structure = {
      nodes: [
        { id: 'A', arrival: 1, fanout: true },
        { id: 'B', fanout: true },
      ],
      dependencies: [
        { from: 'A', to: 'A', weight: 1.5e308 },
        { from: 'A', to: 'B', weight: 1.5e308 },
        { from: 'B', to: 'A', weight: 0.5 },
      ],
    };
    expect(bounds(structure, ['A', 'B'], 1 - GAIN_MARGIN)).toEqual({
      low: 0.5,
      high: Number.POSITIVE_INFINITY,
    });
  });

  // A ring A → B → C → A with calls 1e300, 1e300 and 1e-300: gain (1e300·1e300·1e-300)^(1/3) =
  // 1e100, against which nothing decides. From v = 1 the ratios are (1e300, 1e300, 1e-300); one
  // step later v = (1, 1, 1e-300) and they are (1e300, 1, 1): bounds 1 and 1e300. The next
  // step's C entry, 2e-600 of the largest, underflows to 0, so B's ratio reads 0 and C's
  // Infinity — no bounds at all. The best bounds so far are kept: never looser than 1 and 1e300.
  it('keeps the best bounds when v spans more than doubles hold', () => {
    const structure: Structure = {
      nodes: [
        { id: 'A', arrival: 1, fanout: true },
        { id: 'B', fanout: true },
        { id: 'C', fanout: true },
      ],
      dependencies: [
        { from: 'A', to: 'B', weight: 1e300 },
        { from: 'B', to: 'C', weight: 1e300 },
        { from: 'C', to: 'A', weight: 1e-300 },
      ],
    };
    const { low, high } = bounds(structure, ['A', 'B', 'C'], 1e100);
    expect(low).toBeGreaterThanOrEqual(1);
    expect(low).toBeLessThanOrEqual(1e100);
    expect(high).toBeGreaterThanOrEqual(1e100);
    expect(high).toBeLessThanOrEqual(1e300);
  });

  // Only calls inside the component count: B's calls to C (not a member) add nothing, so the
  // bounds are those of the pair alone.
  it('ignores calls that leave the component', () => {
    const { nodes, dependencies } = pair(1, 0.25);
    const structure: Structure = {
      nodes: [...nodes, { id: 'C', exit: 1 }],
      dependencies: [...dependencies, { from: 'B', to: 'C', weight: 100 }],
    };
    expect(bounds(structure, ['A', 'B'], 0.25)).toEqual({ low: 0.25, high: 1 });
  });
});
