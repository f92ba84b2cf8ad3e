/**
 * The schemas that become named entries of `components.schemas` in the OpenAPI document. A
 * registry of our own, not zod's global one, so schemas other modules register never leak in.
 * Its own module, so a function that validates a small body with its schema (connect, keys)
 * carries zod's small build (`zod/mini`) and this registry, not the whole document's schemas.
 */
import * as z from 'zod/mini';

export const apiSchemaRegistry = z.registry<{ id: string }>();

/** Registers `schema` under `id` and returns it. */
export function named<T extends z.ZodMiniType>(id: string, schema: T): T {
  apiSchemaRegistry.add(schema, { id });
  return schema;
}
