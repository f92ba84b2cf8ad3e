/**
 * The small JSON bodies (connect, keys) are checked by their zod schemas, the same ones the
 * OpenAPI document is built from, so the limits are written once. Every check of a field carries
 * that field's rule in words (`error: 'must be …'`); the first failing field becomes the
 * contract's 400 INVALID_REQUEST, worded as every other message of the service:
 * `<path> <rule>, got <what was sent>`, with `details: [{ path, message }]`.
 */
import * as z from 'zod/mini';
import { CONTROL_CHARACTERS, describeValue, NAME_MAX_LENGTH } from '../text';
import { ApiError } from './errors';

/** The words of a field's rule, given to each of its checks as their error. */
export function rule(text: string): { error: string } {
  return { error: text };
}

const NAME_RULE = rule(`must be 1-${NAME_MAX_LENGTH} characters without control characters`);

/** A display name (of a system, of a key): trimmed, then 1-100 characters without control characters. */
export function displayName(description: string) {
  return z.string(NAME_RULE).check(
    z.trim(),
    z.minLength(1, NAME_RULE),
    z.maxLength(NAME_MAX_LENGTH, NAME_RULE),
    z.refine((name) => !CONTROL_CHARACTERS.test(name), NAME_RULE),
    z.describe(description),
  );
}

export interface BodyOptions {
  /** Paths whose values are credentials: their message names the rule only, never the value. */
  secretPaths?: readonly string[];
  /** Appended to the message, e.g. what a correct body looks like. */
  hint?: string;
}

/** The body as the schema reads it (trimmed, unknown fields dropped), or 400 naming the first bad field. */
export function parseBody<T extends z.ZodMiniType>(
  schema: T,
  body: unknown,
  options: BodyOptions = {},
): z.output<T> {
  const result = z.safeParse(schema, body);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const keys = (issue?.path ?? []).map(String);
  const path = keys.join('.');
  const secret = options.secretPaths?.includes(path) ?? false;
  // Described from what was sent, not from the issue: checks may run on a trimmed copy.
  const problem = secret ? issue!.message : `${issue!.message}, got ${describeValue(valueAt(body, keys))}`;
  const hint = options.hint === undefined ? '' : `; ${options.hint}`;
  if (path === '') throw new ApiError('INVALID_REQUEST', `${problem}${hint}`);
  throw new ApiError('INVALID_REQUEST', `${path} ${problem}${hint}`, {
    details: [{ path, message: problem }],
  });
}

function valueAt(body: unknown, keys: readonly string[]): unknown {
  let value = body;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
