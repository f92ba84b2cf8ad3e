/**
 * Placing the latency chart's labels (explorer/src/latency-chart.ts), in pixels and nothing of
 * the page: a label's width, and a place for the SLO line's label that the curve and the marks
 * leave clear.
 */

/** A tick label's width, about: 11 px system-ui runs some 6.5 px a character (digits, ×, the point). */
export function tickLabelWidth(label: string): number {
  return 6.5 * label.length;
}

/** A point in the chart's pixels. */
export type Point = readonly [number, number];

/** A label's box in the chart's pixels (`top` < `bottom`: y grows downwards). */
interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** An 11 px label's height above its baseline and below it, about. */
const ASCENT = 10;
const DESCENT = 3;
/** How far a mark reaches from its centre (its shape's half width and a pixel). */
const MARK_REACH = 6;

/**
 * Where the SLO line's label goes: above the line at the plot's left, as before, unless the
 * curve or a mark runs through it there (an entry over its SLO with no traffic starts the curve
 * just above the line; one that reaches its SLO early climbs through the label); then below the
 * line at the left, then above and below it at the plot's right end. Where every place is
 * crossed, the first.
 */
export function sloLabelPlace(
  label: string,
  lineY: number,
  plot: { left: number; right: number },
  curve: readonly Point[],
  marks: readonly Point[],
): { x: number; y: number; anchor: 'start' | 'end' } {
  const width = tickLabelWidth(label);
  const places = [
    { x: plot.left + 4, y: lineY - 4, anchor: 'start' as const },
    { x: plot.left + 4, y: lineY + 4 + ASCENT, anchor: 'start' as const },
    { x: plot.right - 4, y: lineY - 4, anchor: 'end' as const },
    { x: plot.right - 4, y: lineY + 4 + ASCENT, anchor: 'end' as const },
  ];
  const clear = places.find((place) => {
    const box: Box = {
      left: place.anchor === 'start' ? place.x : place.x - width,
      right: place.anchor === 'start' ? place.x + width : place.x,
      top: place.y - ASCENT,
      bottom: place.y + DESCENT,
    };
    for (let i = 1; i < curve.length; i++) if (segmentMeetsBox(curve[i - 1]!, curve[i]!, box)) return false;
    return marks.every(
      ([mx, my]) =>
        mx + MARK_REACH < box.left ||
        mx - MARK_REACH > box.right ||
        my + MARK_REACH < box.top ||
        my - MARK_REACH > box.bottom,
    );
  });
  return clear ?? places[0]!;
}

/** Whether the segment from `a` to `b` passes through `box` (Liang–Barsky clipping). */
function segmentMeetsBox([ax, ay]: Point, [bx, by]: Point, box: Box): boolean {
  const dx = bx - ax;
  const dy = by - ay;
  let enter = 0;
  let leave = 1;
  const edges: ReadonlyArray<readonly [number, number]> = [
    [-dx, ax - box.left],
    [dx, box.right - ax],
    [-dy, ay - box.top],
    [dy, box.bottom - ay],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
    } else if (p < 0) enter = Math.max(enter, q / p);
    else leave = Math.min(leave, q / p);
    if (enter > leave) return false;
  }
  return true;
}
