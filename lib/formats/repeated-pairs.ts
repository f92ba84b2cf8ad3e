/**
 * One dependency per pair. A graph may join the same two nodes many times (a multigraph, a log
 * of calls exported as links, a catalog naming a dependency twice); kept apart, a million links
 * of one pair would be a million dependencies and over the engine's limit, though they say one
 * thing. Merged into one dependency whose `weight` is the sum of theirs (1 each without traffic),
 * the engine's numbers are exactly those of the separate copies: a node splits what it passes in
 * proportion to the weights, so the copies' flows add up to the merged one's.
 */
import type { DependencyInput } from '../engine/types';
import { plural } from './text';

export interface MergedPairs {
  dependencies: DependencyInput[];
  /** How many dependencies repeated a pair seen before, and the first that did (by position). */
  repeated: number;
  firstRepeat?: { index: number; of: number };
}

/**
 * Merges dependencies joining the same `from` and `to`, in first-seen order; the first copy's
 * other fields are kept, and its `weight` becomes the copies' total (left out while it is 1).
 */
export function mergeRepeatedPairs(dependencies: readonly DependencyInput[]): MergedPairs {
  const firstOf = new Map<string, Map<string, number>>();
  const merged: DependencyInput[] = [];
  const firstIndex: number[] = [];
  const copied = new Set<number>();
  let repeated = 0;
  let firstRepeat: MergedPairs['firstRepeat'];
  for (const [index, dependency] of dependencies.entries()) {
    let byTarget = firstOf.get(dependency.from);
    if (byTarget === undefined) {
      byTarget = new Map();
      firstOf.set(dependency.from, byTarget);
    }
    const at = byTarget.get(dependency.to);
    if (at === undefined) {
      byTarget.set(dependency.to, merged.length);
      merged.push(dependency);
      firstIndex.push(index);
      continue;
    }
    if (repeated++ === 0) firstRepeat = { index, of: firstIndex[at]! };
    // The caller's objects stay as they were: the first repeat copies the one kept.
    if (!copied.has(at)) {
      merged[at] = { ...merged[at]! };
      copied.add(at);
    }
    const kept = merged[at]!;
    kept.weight = (kept.weight ?? 1) + (dependency.weight ?? 1);
  }
  return firstRepeat === undefined
    ? { dependencies: merged, repeated }
    : { dependencies: merged, repeated, firstRepeat };
}

/**
 * The warning for merged pairs: `2 links repeat a pair already linked (links[1] repeats
 * links[0]): …`. `pathOf` gives a source element's path by its position.
 */
export function repeatedPairsWarning(
  merged: MergedPairs,
  element: string,
  pathOf: (index: number) => string,
): string[] {
  if (merged.repeated === 0) return [];
  const { index, of } = merged.firstRepeat!;
  return [
    `${plural(merged.repeated, element)} ${merged.repeated === 1 ? 'repeats' : 'repeat'} a pair seen before (${pathOf(index)} repeats ${pathOf(of)}): merged into one dependency per pair whose weight is its number of copies, which gives the engine's numbers of separate copies; the first copy's fields are kept`,
  ];
}
