/** How far a finger may move and still tap, in CSS pixels: the WebGL view's click, too (large-graph.ts). */
export const TAP_SLOP_PX = 4;

/** Entries older than this are fingers whose lift the element never saw (released elsewhere). */
const STALE_MS = 10_000;

interface Finger {
  x: number;
  y: number;
  at: number;
  /** It moved `TAP_SLOP_PX` or more from where it went down at some point, or another finger joined. */
  strayed: boolean;
}

/**
 * Which touches on `element` are taps: one finger, alone from its touch to its lift, that never
 * strayed `TAP_SLOP_PX` from where it went down. A finger that wanders off and comes back pans,
 * and two fingers pinch: neither is a tap (both were, judged by where a finger went up alone).
 * Register it before the element's own pointer handlers, so `isTap` reads the finished gesture.
 */
export function trackTaps(element: EventTarget): { isTap(event: PointerEvent): boolean } {
  const fingers = new Map<number, Finger>();
  element.addEventListener('pointerdown', (event) => {
    const down = event as PointerEvent;
    if (down.pointerType !== 'touch') return;
    for (const [id, finger] of fingers) if (down.timeStamp - finger.at > STALE_MS) fingers.delete(id);
    const joined = fingers.size > 0;
    for (const finger of fingers.values()) finger.strayed = true;
    fingers.set(down.pointerId, { x: down.clientX, y: down.clientY, at: down.timeStamp, strayed: joined });
  });
  element.addEventListener('pointermove', (event) => {
    const move = event as PointerEvent;
    const finger = fingers.get(move.pointerId);
    if (finger !== undefined && Math.hypot(move.clientX - finger.x, move.clientY - finger.y) >= TAP_SLOP_PX)
      finger.strayed = true;
  });
  element.addEventListener('pointercancel', (event) => fingers.delete((event as PointerEvent).pointerId));
  return {
    isTap(event: PointerEvent): boolean {
      const finger = fingers.get(event.pointerId);
      fingers.delete(event.pointerId);
      if (event.pointerType !== 'touch' || finger === undefined) return false;
      return !finger.strayed && Math.hypot(event.clientX - finger.x, event.clientY - finger.y) < TAP_SLOP_PX;
    },
  };
}
