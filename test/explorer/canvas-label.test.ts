/**
 * Where the WebGL view writes the blockage's and the origin's names beside their points.
 */
import { describe, expect, it } from 'vitest';
import { type Box, besidePoint, besidePointClear } from '../../explorer/src/canvas-label';

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

describe('besidePointClear', () => {
  const canvas = { width: 800, height: 600 };
  const text = { width: 200, height: 12 };
  const overlaps = (a: Box, b: Box) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

  // Nothing in the way: where besidePoint puts it, and the box it takes is kept.
  it('writes a name where besidePoint would when nothing is in the way', () => {
    const taken: Box[] = [];
    expect(besidePointClear({ x: 100, y: 100 }, text, canvas, taken)).toEqual({ x: 108, y: 92 });
    expect(taken).toEqual([{ left: 108, top: 80, right: 308, bottom: 92 }]);
  });

  // The blockage at (400, 300) and the origin 6 px below and right: the second name goes where
  // it overlaps neither the first name nor the two points (it was written over the first).
  it('writes the second of two names for close points clear of the first and of both points', () => {
    const points = [
      { x: 400, y: 300 },
      { x: 406, y: 306 },
    ];
    const taken: Box[] = points.map(({ x, y }) => ({ left: x - 4, top: y - 4, right: x + 4, bottom: y + 4 }));
    const names = points.map((point) => {
      const { x, y } = besidePointClear(point, text, canvas, taken);
      return { left: x, top: y - text.height, right: x + text.width, bottom: y };
    });
    expect(overlaps(names[0]!, names[1]!)).toBe(false);
    for (const name of names)
      for (const point of taken.slice(0, 2)) expect(overlaps(name, point)).toBe(false);
    for (const name of names) {
      expect(name.left).toBeGreaterThanOrEqual(0);
      expect(name.right).toBeLessThanOrEqual(canvas.width);
    }
  });

  // A point 28 device px across (14 CSS px at ratio 2): with the clearance of its radius, the
  // name sits up and right of it, not a line or more above (8 px of clearance put every corner
  // inside the point's own box).
  it("keeps a name beside a large point at its radius's clearance", () => {
    const point = { x: 200, y: 200 };
    const taken: Box[] = [{ left: 186, top: 186, right: 214, bottom: 214 }];
    expect(besidePointClear(point, { width: 120, height: 24 }, canvas, taken, 16)).toEqual({
      x: 216,
      y: 184,
    });
  });

  // Nowhere clear (a canvas as small as the name): where besidePoint puts it after all.
  it('falls back to besidePoint when nothing around is clear', () => {
    const small = { width: 210, height: 30 };
    const taken: Box[] = [{ left: 0, top: 0, right: 210, bottom: 30 }];
    expect(besidePointClear({ x: 100, y: 15 }, text, small, taken)).toEqual(
      besidePoint({ x: 100, y: 15 }, text, small),
    );
  });
});
