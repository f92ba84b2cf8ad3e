/**
 * The known name a mistyped one was most likely meant to be (`defaultCapacty` → `defaultCapacity`),
 * for "did you mean" hints: the nearest by edit distance (insertions, deletions, substitutions
 * and swaps of neighbours, letters compared case-insensitively), when it is within a third of
 * the longer name; `undefined` when nothing is that close. Ties go to the earlier known name.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance && distance <= Math.floor(Math.max(typed.length, name.length) / 3)) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance (Damerau-Levenshtein without reusing a swapped pair). */
function editDistance(a: string, b: string): number {
  // Names are short (field names); three rows of the table are all it needs. (The first
  // `before` is never read: a swap needs i > 1, and by then it holds row 0.)
  // Stryker disable next-line ArrayDeclaration: see above
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      // (At i = 1 or j = 1 the letters before the first read undefined, which equals no letter:
      // the guards only skip that work.)
      // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: see above (the twins on the letters are killed)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, before[j - 2]! + 1);
      }
      current.push(distance);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
