/**
 * Sorts ids in place in UTF-16 code-unit order — the order of `<` and of the default
 * `Array.prototype.sort` — and returns the array.
 *
 * A multikey (three-way radix) quicksort (Bentley and Sedgewick): ranges are split on one code
 * unit at a time, so a shared prefix is read once per range instead of once per comparison;
 * about twice as fast as the default sort on the ids of a large cycle. Ranges wait on an
 * explicit stack, not on the call stack. Quicksort can be driven to quadratic time by crafted
 * input, so, as in introsort, every range carries a budget of uneven splits; a range that
 * exhausts it is handed to the default sort (O(k log k) comparisons). Short ranges are
 * insertion-sorted. (`budget` is there for tests: 0 sends every long range to the default sort.)
 */
export function sortIds(ids: string[], budget = splitBudget(ids.length)): string[] {
  const n = ids.length;
  if (n < 2) return ids;
  const stack: number[] = [0, n, 0, budget];
  while (stack.length > 0) {
    const budget = stack.pop()!;
    const depth = stack.pop()!;
    const high = stack.pop()!;
    const low = stack.pop()!;
    const size = high - low;
    if (size < 2) continue;
    if (size <= INSERTION_LIMIT) {
      insertionSort(ids, low, high);
      continue;
    }
    // Past a few shared code units, the default sort's whole-string comparisons (a memcmp each)
    // beat reading one unit per id per level: long common prefixes go to it too.
    if (budget === 0 || depth >= MAX_RADIX_DEPTH) {
      sortRangeByDefault(ids, low, high);
      continue;
    }
    const pivot = medianOfThree(
      unitAt(ids[low]!, depth),
      unitAt(ids[low + (size >> 1)]!, depth),
      unitAt(ids[high - 1]!, depth),
    );
    // Three-way partition on the code unit at `depth`: [low, lt) below, [lt, gt) equal, [gt, high) above.
    let lt = low;
    let gt = high;
    let i = low;
    while (i < gt) {
      const unit = unitAt(ids[i]!, depth);
      if (unit < pivot) swap(ids, lt++, i++);
      else if (unit > pivot) swap(ids, i, --gt);
      else i++;
    }
    stack.push(low, lt, depth, budget - 1);
    stack.push(gt, high, depth, budget - 1);
    // Ids that ended at `depth` (unit -1) are all equal: nothing further to sort among them.
    if (pivot >= 0) stack.push(lt, gt, depth + 1, budget);
  }
  return ids;
}

const INSERTION_LIMIT = 12;
/** Code units split on one at a time before a range goes to the default sort. */
const MAX_RADIX_DEPTH = 8;

/** The code unit at `position`, or -1 past the end (a prefix sorts first). */
function unitAt(id: string, position: number): number {
  return position < id.length ? id.charCodeAt(position) : -1;
}

/** Twice the bit length of `n`, plus slack: the depth a balanced quicksort stays well within. */
function splitBudget(n: number): number {
  return 2 * (32 - Math.clz32(n)) + 8;
}

function medianOfThree(a: number, b: number, c: number): number {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
}

function swap(ids: string[], i: number, j: number): void {
  const t = ids[i]!;
  ids[i] = ids[j]!;
  ids[j] = t;
}

function insertionSort(ids: string[], low: number, high: number): void {
  for (let i = low + 1; i < high; i++) {
    const id = ids[i]!;
    let j = i - 1;
    while (j >= low && ids[j]! > id) {
      ids[j + 1] = ids[j]!;
      j--;
    }
    ids[j + 1] = id;
  }
}

function sortRangeByDefault(ids: string[], low: number, high: number): void {
  const range = ids.slice(low, high).sort();
  for (let i = 0; i < range.length; i++) ids[low + i] = range[i]!;
}
