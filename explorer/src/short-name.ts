/** Longest label shown, in characters; the whole name is in the node's hover text. */
const LABEL_CHARS = 28;

/**
 * A name shortened in the middle, so both its start and its end stay: names that differ only at
 * the end (`bookinfo/reviews/v1`, `…/v2`) still read apart.
 */
export function shortName(name: string): string {
  if (name.length <= LABEL_CHARS) return name;
  const tail = Math.floor((LABEL_CHARS - 1) / 2);
  return `${name.slice(0, LABEL_CHARS - 1 - tail)}…${name.slice(name.length - tail)}`;
}
