/** What a move of two fingers did: zoomed by `factor` about (`x`, `y`) and moved by (`dx`, `dy`), in client pixels. */
export interface PinchStep {
  factor: number;
  x: number;
  y: number;
  dx: number;
  dy: number;
}

/**
 * Two fingers on `element`, while `active()` (the graph holds the focus: until then a finger
 * scrolls the page, see docs/explorer.md): each move of either finger is a step of zoom (the
 * ratio of the distances between them) about their midpoint, and a pan (the midpoint's move).
 * `pinching()` says whether two fingers are down, so a one-finger drag stands aside meanwhile.
 * `signal`, if given, removes the listeners when aborted (for an element that outlives the view).
 */
export function trackPinch(
  element: Element,
  active: () => boolean,
  onStep: (step: PinchStep) => void,
  signal?: AbortSignal,
): { pinching(): boolean } {
  const fingers = new Map<number, { x: number; y: number }>();
  const pair = () => {
    const [a, b] = [...fingers.values()];
    return a === undefined || b === undefined
      ? undefined
      : { distance: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  };
  const down = (event: Event) => {
    const pointer = event as PointerEvent;
    if (pointer.pointerType === 'touch' && active())
      fingers.set(pointer.pointerId, { x: pointer.clientX, y: pointer.clientY });
  };
  const move = (event: Event) => {
    const pointer = event as PointerEvent;
    if (!fingers.has(pointer.pointerId)) return;
    const before = pair();
    fingers.set(pointer.pointerId, { x: pointer.clientX, y: pointer.clientY });
    const after = pair();
    if (before === undefined || after === undefined || before.distance === 0 || fingers.size !== 2) return;
    onStep({
      factor: after.distance / before.distance,
      x: after.x,
      y: after.y,
      dx: after.x - before.x,
      dy: after.y - before.y,
    });
  };
  const lift = (event: Event) => fingers.delete((event as PointerEvent).pointerId);
  element.addEventListener('pointerdown', down, { signal });
  element.addEventListener('pointermove', move, { signal });
  element.addEventListener('pointerup', lift, { signal });
  element.addEventListener('pointercancel', lift, { signal });
  return { pinching: () => fingers.size >= 2 };
}
