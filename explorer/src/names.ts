/**
 * Readable names for nodes whose ids are not: the display field a format keeps beside the id
 * (Grafana's node graph and Backstage's `title`, JSON Graph Format's `label`, X-Ray's and
 * networkx's `name`; the engine passes extra fields through). First of `title`, `label`, `name`
 * that is a non-empty string other than the id. A name several nodes share, or that is another
 * node's id, would mislead: such a node shows its id when the id already holds the name (X-Ray's
 * `SampleSite (client)`), else `name (id)`.
 */
const DISPLAY_FIELDS = ['title', 'label', 'name'] as const;

/** Node id → the name to show, for the nodes that have one. */
export type DisplayNames = ReadonlyMap<string, string>;

export function displayNamesOf(nodes: readonly unknown[]): Map<string, string> {
  const found: Array<[string, string]> = [];
  const ids = new Set<string>();
  for (const node of nodes) {
    if (node === null || typeof node !== 'object') continue;
    const { id } = node as Record<string, unknown>;
    if (typeof id !== 'string') continue;
    ids.add(id);
    for (const field of DISPLAY_FIELDS) {
      const value = (node as Record<string, unknown>)[field];
      if (typeof value === 'string' && value.trim() !== '' && value !== id) {
        found.push([id, value.trim()]);
        break;
      }
    }
  }
  const count = new Map<string, number>();
  for (const [, name] of found) count.set(name, (count.get(name) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const [id, name] of found) {
    const unique = count.get(name) === 1 && !ids.has(name);
    if (unique) names.set(id, name);
    else if (!id.includes(name)) names.set(id, `${name} (${id})`);
  }
  return names;
}

/** A dependency's own display name, where its format keeps one (`label`, `relation`, `title`, `name`). */
export function dependencyName(dependency: Readonly<Record<string, unknown>>): string | undefined {
  for (const field of ['label', 'relation', 'title', 'name']) {
    const value = dependency[field];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}
