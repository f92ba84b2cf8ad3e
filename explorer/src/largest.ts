/**
 * The largest `measure(item)` of `items`, and at least `floor`. A loop, not
 * `Math.max(...values)`: spreading 100,000 arguments overflows the call stack.
 */
export function largest<T>(items: readonly T[], measure: (item: T) => number, floor: number): number {
  let result = floor;
  for (const item of items) {
    const value = measure(item);
    if (value > result) result = value;
  }
  return result;
}
