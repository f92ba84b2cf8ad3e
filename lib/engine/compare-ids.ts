/** Plain string order (`<`), the tie-break rule of the engine model. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
