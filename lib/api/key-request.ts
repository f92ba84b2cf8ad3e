/** `POST /api/keys`: the body `{ name }`, checked by its schema (the one the OpenAPI document shows). */
import * as z from 'zod/mini';
import { displayName, parseBody, rule } from './body-schema';
import { BODY_SHAPES } from './body-shapes';
import { named } from './schema-registry';

const CreateKeyRequestSchema = named(
  'CreateKeyRequest',
  z.strictObject(
    {
      name: displayName('A label for people, e.g. "CI pipeline"; trimmed.'),
    },
    rule(`the body must be ${BODY_SHAPES.createKey}`),
  ),
);

export type CreateKeyRequest = z.output<typeof CreateKeyRequestSchema>;

/** Checks the body of a new key; throws 400 `INVALID_REQUEST` naming the field. */
export function parseCreateKeyRequest(body: unknown): CreateKeyRequest {
  return parseBody(CreateKeyRequestSchema, body, { hint: 'send { "name": "<a label for the key>" }' });
}
