/** Structures for the systems store tests, the same on every run: pseudo-randomness from a fixed LCG. */

/** Numerical Recipes' 32-bit LCG: deterministic, and varied enough that compression has real work. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state;
  };
}

/**
 * `nodes` nodes `n0`, `n1`, … with varied loads (some with a capacity), and `dependencies`
 * dependencies grouped by source, as a real system would list them, to pseudo-random targets,
 * some weighted. The engine accepts it (no dangling ends, no duplicate ids).
 */
export function generatedStructure(nodes: number, dependencies: number, seed = 42) {
  const next = lcg(seed);
  return {
    nodes: Array.from({ length: nodes }, (_, index) => {
      const roll = next();
      const load = (roll % 10_000) / 100;
      return roll % 7 === 0
        ? { id: `n${index}`, load, capacity: 50 + (roll % 500) }
        : { id: `n${index}`, load };
    }),
    dependencies: Array.from({ length: dependencies }, (_, index) => {
      const roll = next();
      const from = `n${Math.floor((index * nodes) / dependencies)}`;
      const to = `n${roll % nodes}`;
      return roll % 5 === 0 ? { from, to, weight: 1 + (roll % 9) } : { from, to };
    }),
  };
}

const TEXT_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `length` characters that compress to about six bits each: for items that must stay large. */
export function pseudoRandomText(length: number, seed: number): string {
  const next = lcg(seed);
  let text = '';
  for (let index = 0; index < length; index++) text += TEXT_ALPHABET[next() >>> 26];
  return text;
}
