/**
 * Where the WebGL view writes the blockage's and the origin's names beside their points.
 */
import { describe, expect, it } from 'vitest';
import { besidePoint } from '../../explorer/src/canvas-label';

describe('besidePoint', () => {
  const canvas = { width: 800, height: 600 };
  const text = { width: 200, height: 12 };

  // Room up and right: there, 8 px off, as before.
  it('writes a name up and right of its point where it fits', () => {
    expect(besidePoint({ x: 100, y: 100 }, text, canvas)).toEqual({ x: 108, y: 92 });
  });

  // A point near the right edge: the name goes left of it, whole (it was cut at the edge).
  it('writes it left of a point near the right edge, never past the canvas', () => {
    const { x } = besidePoint({ x: 700, y: 100 }, text, canvas);
    expect(x).toBe(492);
    expect(x + text.width).toBeLessThanOrEqual(canvas.width);
    expect(besidePoint({ x: 150, y: 100 }, { width: 900, height: 12 }, canvas).x).toBe(0);
  });

  // A point at the top: below it, not above the canvas.
  it('writes it below a point at the top', () => {
    expect(besidePoint({ x: 100, y: 5 }, text, canvas).y).toBe(25);
    expect(besidePoint({ x: 100, y: 595 }, text, canvas).y).toBe(587);
  });
});
