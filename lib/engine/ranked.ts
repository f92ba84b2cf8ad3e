/**
 * Keeps `ranked` the first `limit` items in `before` order as items arrive one at a time: one
 * comparison per item once the list is full, however many items there are (a 200,000-node state
 * costs one comparison per node in the usual case). `before(a, b)` must be a strict order.
 */
export function keepRanked<T>(ranked: T[], item: T, limit: number, before: (a: T, b: T) => boolean): void {
  // Stryker disable next-line ConditionalExpression: same answer, other work: an item not before the last of a full list is inserted last and popped again (the `true` twin is killed)
  if (ranked.length === limit && !before(item, ranked[ranked.length - 1]!)) return;
  let at = ranked.length;
  while (at > 0 && before(item, ranked[at - 1]!)) at--;
  ranked.splice(at, 0, item);
  if (ranked.length > limit) ranked.pop();
}
