import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../explorer/src/examples';
import { forceIterations, forceSettings, placeForce } from '../../explorer/src/force-placement';

/** The least distance between two placed nodes. */
function closest(x: Float64Array, y: Float64Array): number {
  let least = Number.POSITIVE_INFINITY;
  for (let a = 0; a < x.length; a++)
    for (let b = a + 1; b < x.length; b++) least = Math.min(least, Math.hypot(x[a]! - x[b]!, y[a]! - y[b]!));
  return least;
}

describe('forceIterations and forceSettings', () => {
  it('gives fewer iterations to larger structures, between 20 and 150', () => {
    expect(forceIterations(10)).toBe(150);
    expect(forceIterations(2000)).toBe(150);
    expect(forceIterations(8000)).toBe(50);
    expect(forceIterations(20_000)).toBe(20);
    expect(forceIterations(100_000)).toBe(20);
  });

  it('uses Barnes–Hut above 1,000 nodes', () => {
    expect(forceSettings(1000).barnesHutOptimize).toBe(false);
    expect(forceSettings(1001).barnesHutOptimize).toBe(true);
    expect(forceSettings(100)).toMatchObject({ strongGravityMode: true, gravity: 0.05, scalingRatio: 10 });
  });
});

describe('placeForce: a force layout snapped to a grid of the view’s shape', () => {
  it('keeps every node at least a cell apart, even all on one point', () => {
    const random = mulberry32(5);
    const n = 500;
    // A dense core of 400 nodes and 100 spread out.
    const x = Float32Array.from({ length: n }, (_, v) => (v < 400 ? random() : random() * 100));
    const y = Float32Array.from({ length: n }, (_, v) => (v < 400 ? random() : random() * 100));
    const placed = placeForce({ x, y }, 2, 10);
    expect(placed.closest).toBe(10);
    expect(closest(placed.x, placed.y)).toBeGreaterThanOrEqual(10);
    const same = placeForce({ x: new Float32Array(50), y: new Float32Array(50) }, 1, 1);
    expect(closest(same.x, same.y)).toBeGreaterThanOrEqual(1);
    // A position that is not a number goes to the middle, still a cell from any other.
    const broken = placeForce(
      { x: Float32Array.from([0, Number.NaN, 1]), y: Float32Array.from([0, 0, Number.NaN]) },
      1,
      1,
    );
    expect([...broken.x, ...broken.y].every(Number.isFinite)).toBe(true);
    expect(closest(broken.x, broken.y)).toBeGreaterThanOrEqual(1);
  });

  it('stretches the layout to the view’s shape and keeps its order across', () => {
    const x = Float32Array.from([0, 1, 2, 3]);
    const y = Float32Array.from([0, 0, 0, 0]);
    const placed = placeForce({ x, y }, 3, 1);
    expect([...placed.x]).toEqual([...placed.x].sort((a, b) => a - b));
    const width = Math.max(...placed.x) - Math.min(...placed.x);
    expect(width).toBeGreaterThanOrEqual(3);
  });

  it('is deterministic', () => {
    const random = mulberry32(9);
    const x = Float32Array.from({ length: 300 }, () => random());
    const y = Float32Array.from({ length: 300 }, () => random());
    const a = placeForce({ x, y }, 1.6, 1);
    const b = placeForce({ x, y }, 1.6, 1);
    expect([...a.x]).toEqual([...b.x]);
    expect([...a.y]).toEqual([...b.y]);
  });
});
