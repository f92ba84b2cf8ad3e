/**
 * Where a name goes beside a point on a canvas: up and right of it, 8 px off; where that would
 * run off the canvas, left of the point and below it. The WebGL view's blockage and origin names
 * were cut at the right edge ("catalog.catalog-cache-4112 (p").
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
