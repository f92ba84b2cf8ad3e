/**
 * The request envelope's fixed vocabulary, free of any schema library: the engine function
 * checks these on every request, and the OpenAPI schemas (schemas.ts) describe the same lists.
 */
export const MODES = ['analyze', 'tick', 'ticks'] as const;
export type Mode = (typeof MODES)[number];

/** Where a nested body may hold its structure, in the order they are tried. */
export const CONTAINER_KEYS = ['payload', 'system', 'record', 'data', 'graph'] as const;
export type ContainerKey = (typeof CONTAINER_KEYS)[number];

export function isMode(value: unknown): value is Mode {
  return (MODES as readonly unknown[]).includes(value);
}
