/**
 * Where a name goes beside a point on a canvas: up and right of it, 8 px off; where that would
 * run off the canvas, left of the point and below it. The WebGL view's blockage and origin names
 * were cut at the right edge ("catalog.catalog-cache-4112 (p").
 * @internal test/explorer/canvas-label.test.ts checks it; the view calls `besidePointClear`.
 */
export function besidePoint(
  point: { x: number; y: number },
  text: { width: number; height: number },
  canvas: { width: number; height: number },
): { x: number; y: number } {
  const x = point.x + 8 + text.width <= canvas.width ? point.x + 8 : Math.max(0, point.x - 8 - text.width);
  const y = point.y - 8 >= text.height ? point.y - 8 : Math.min(canvas.height, point.y + 8 + text.height);
  return { x, y };
}

/** A rectangle on the canvas: a name written (its baseline at `bottom`) or a point drawn. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Where a name goes beside a point, clear of `taken` (names written before it, the points they
 * name): first where `besidePoint` puts it, else the other three corners around the point, else
 * further up or down in steps of its height, else where `besidePoint` puts it after all. The
 * blockage's and the origin's names on a large graph, their points close, were written one over
 * the other, unreadable, the first thing a user looks for. The box it takes is added to `taken`.
 */
export function besidePointClear(
  point: { x: number; y: number },
  text: { width: number; height: number },
  canvas: { width: number; height: number },
  taken: Box[],
  /**
   * How far from the point's centre the name starts, across and up or down: 8 px, or the drawn
   * point's radius and a little more (a large point on a high-density screen, 14 device px
   * across, kept its name off every corner and sent it a line or more above).
   */
  clearance = 8,
): { x: number; y: number } {
  const { width, height } = text;
  const fits = (x: number, y: number) =>
    x >= 0 && x + width <= canvas.width && y - height >= 0 && y <= canvas.height;
  const clear = (x: number, y: number) =>
    taken.every((box) => x >= box.right || x + width <= box.left || y <= box.top || y - height >= box.bottom);
  const right = point.x + clearance;
  const left = point.x - clearance - width;
  const above = point.y - clearance;
  const below = point.y + clearance + height;
  // Where besidePoint puts it, at this clearance: up and right, else left, else below.
  const first = {
    x: right + width <= canvas.width ? right : Math.max(0, left),
    y: above >= height ? above : Math.min(canvas.height, below),
  };
  const candidates: Array<[number, number]> = [[first.x, first.y]];
  for (const [x, y] of [
    [right, above],
    [right, below],
    [left, above],
    [left, below],
  ] as const)
    candidates.push([x, y]);
  for (let step = 1; step <= 4; step++) {
    for (const x of [right, left]) {
      candidates.push([x, above - step * (height + 2)]);
      candidates.push([x, below + step * (height + 2)]);
    }
  }
  const chosen = candidates.find(([x, y]) => fits(x, y) && clear(x, y)) ?? [first.x, first.y];
  const [x, y] = chosen;
  taken.push({ left: x, top: y - height, right: x + width, bottom: y });
  return { x, y };
}
