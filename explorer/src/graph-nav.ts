/** The keys that move the keyboard's place among the graph's nodes. */
export type NavKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown' | 'Home' | 'End';

/** Each arrow's direction on screen (y grows downwards). */
const DIRECTIONS: Record<string, readonly [number, number]> = {
  ArrowRight: [1, 0],
  ArrowLeft: [-1, 0],
  ArrowDown: [0, 1],
  ArrowUp: [0, -1],
};

export function isNavKey(key: string): key is NavKey {
  return key in DIRECTIONS || key === 'Home' || key === 'End';
}

/**
 * Where `key` moves the keyboard from node `from`, among `count` nodes at (`x(i)`, `y(i)`) on
 * screen (y down): Home and End go to the first and the last node as the answer lists them; an
 * arrow goes to the nearest node (straight-line distance) within 45° either side of its direction,
 * or, with none there, to the nearest anywhere ahead (in the half plane it points into). Nothing
 * ahead: `undefined`, and the keyboard stays. In the layered drawing, right and left step along
 * the flow (the nearest node of the next or previous layer), up and down within a layer.
 */
export function nextNode(
  key: NavKey,
  from: number,
  count: number,
  x: (i: number) => number,
  y: (i: number) => number,
): number | undefined {
  if (count === 0) return undefined;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  const [dx, dy] = DIRECTIONS[key]!;
  const fromX = x(from);
  const fromY = y(from);
  let inCone: [number, number] | undefined;
  let ahead: [number, number] | undefined;
  for (let i = 0; i < count; i++) {
    if (i === from) continue;
    const rx = x(i) - fromX;
    const ry = y(i) - fromY;
    const along = rx * dx + ry * dy;
    if (along <= 0) continue;
    const across = Math.abs(rx * dy - ry * dx);
    const distance = Math.hypot(rx, ry);
    if (across <= along && (inCone === undefined || distance < inCone[1])) inCone = [i, distance];
    if (ahead === undefined || distance < ahead[1]) ahead = [i, distance];
  }
  return (inCone ?? ahead)?.[0];
}
