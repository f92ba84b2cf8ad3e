/**
 * The small JSON bodies (connect, keys) are checked by their zod schemas, the same ones the
 * OpenAPI document is built from, so the limits are written once. Every check of a field carries
 * that field's rule in words (`error: 'must be …'`); the first failing field becomes the
 * contract's 400 INVALID_REQUEST, worded as every other message of the service:
 * `<path> <rule>, got <what was sent>`, with `details: [{ path, message }]`.
 */
import * as z from 'zod/mini';
import {
  CONTROL_CHARACTERS,
  closestName,
  describeValue,
  keyStep,
  NAME_MAX_LENGTH,
  withoutCredentials,
} from '../text';
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
  /** Paths of URLs: their value is echoed without a user name, password or credential parameter's value. */
  urlPaths?: readonly string[];
  /** Appended to the message, e.g. what a correct body looks like. */
  hint?: string;
  /**
   * Paths of records keyed by data (node ids): any key is kept as it was sent, `__proto__` and
   * `constructor` included. zod builds records and objects by assignment, where `__proto__`
   * would set the prototype and vanish, so those records' keys are escaped for the parse and
   * restored in the result and in the paths of errors.
   */
  dataKeyedPaths?: readonly (readonly string[])[];
}

/**
 * The body as the schema reads it (names trimmed), or 400 naming the first bad field. Schemas are
 * strict: a field the schema does not know is refused by its path, with the known name it most
 * likely meant (`settings.defaultCapacty: unknown field; did you mean defaultCapacity?`), never
 * dropped, since a dropped field is a setting silently lost.
 */
export function parseBody<T extends z.ZodMiniType>(
  schema: T,
  body: unknown,
  options: BodyOptions = {},
): z.output<T> {
  const dataKeyed = options.dataKeyedPaths ?? [];
  const input = dataKeyed.reduce<unknown>((value, path) => mapRecordAt(value, path, escapeKey), body);
  const result = z.safeParse(schema, input);
  if (result.success) {
    return dataKeyed.reduce<unknown>(
      (value, path) => mapRecordAt(value, path, unescapeKey),
      result.data,
    ) as z.output<T>;
  }
  const issue = firstIssue(result.error.issues, body);
  const keys = (issue?.path ?? []).map((key) => unescapeKey(String(key)));
  if (issue?.code === 'unrecognized_keys')
    throw unknownField(schema, keys, unescapeKey(String(issue.keys[0])));
  const path = pathOf(keys);
  const secret = options.secretPaths?.includes(path) ?? false;
  // Described from what was sent, not from the issue: checks may run on a trimmed copy.
  const sent = valueAt(body, keys);
  const shown =
    options.urlPaths?.includes(path) && typeof sent === 'string' ? withoutCredentials(sent) : sent;
  const problem = secret ? issue!.message : `${issue!.message}, got ${describeValue(shown)}`;
  const hint = options.hint === undefined ? '' : `; ${options.hint}`;
  if (path === '') throw new ApiError('INVALID_REQUEST', `${problem}${hint}`);
  throw new ApiError('INVALID_REQUEST', `${path} ${problem}${hint}`, {
    details: [{ path, message: problem }],
  });
}

/**
 * The issue to answer with: the first, except that a field missing beside one the schema does not
 * know is most likely that field misspelt (`{ "setings": … }`), so the unknown field is named, with
 * the name it most likely meant, rather than the missing one "got nothing".
 */
function firstIssue(issues: readonly z.core.$ZodIssue[], body: unknown): z.core.$ZodIssue | undefined {
  const [first] = issues;
  if (first === undefined || first.code === 'unrecognized_keys' || first.path.length === 0) return first;
  const keys = first.path.map((key) => unescapeKey(String(key)));
  if (valueAt(body, keys) !== undefined) return first;
  const parent = JSON.stringify(first.path.slice(0, -1));
  return (
    issues.find((issue) => issue.code === 'unrecognized_keys' && JSON.stringify(issue.path) === parent) ??
    first
  );
}

/**
 * The path of the keys as a message names it: `settings.nodes.db.capacity`, with a key that is
 * not plain (an id with a dot, a long one) bracketed and cut (`settings.nodes["a.b"]`).
 */
function pathOf(keys: readonly string[]): string {
  return keys
    .map((key) => keyStep(key))
    .join('')
    .replace(/^\./, '');
}

function unknownField(schema: z.ZodMiniType, at: readonly string[], key: string): ApiError {
  const path = pathOf([...at, key]);
  const known = knownFieldsAt(schema, at);
  const meant = closestName(key, known);
  const problem =
    meant === undefined
      ? `unknown field; ${at.length === 0 ? 'the body' : pathOf(at)} takes ${known.map((name) => JSON.stringify(name)).join(', ')}`
      : `unknown field; did you mean ${meant}?`;
  return new ApiError('INVALID_REQUEST', `${path}: ${problem}`, { details: [{ path, message: problem }] });
}

interface SchemaDef {
  type: string;
  innerType?: z.ZodMiniType;
  shape?: Record<string, z.ZodMiniType>;
  valueType?: z.ZodMiniType;
}

/** The field names of the object `schema` holds at `path` (through optional wrappers and records). */
function knownFieldsAt(schema: z.ZodMiniType, path: readonly string[]): string[] {
  let def = schema._zod.def as SchemaDef;
  for (let depth = 0; ; ) {
    if (def.innerType !== undefined) def = def.innerType._zod.def as SchemaDef;
    else if (depth === path.length) return Object.keys(def.shape ?? {});
    else {
      const next = def.type === 'record' ? def.valueType : def.shape?.[path[depth]!];
      if (next === undefined) return [];
      def = next._zod.def as SchemaDef;
      depth++;
    }
  }
}

const utf8 = new TextEncoder();

/**
 * Keys a record keeps as data whatever their name: `__proto__` gets a prefix no JSON key can be
 * mistaken for (a NUL, itself doubled when a key starts with one).
 */
const ESCAPE = '\u0000';
const escapeKey = (key: string) => (key === '__proto__' || key.startsWith(ESCAPE) ? ESCAPE + key : key);
const unescapeKey = (key: string) => (key.startsWith(ESCAPE) ? key.slice(ESCAPE.length) : key);

/**
 * The UTF-8 bytes of `value`'s compact JSON as the caller sent it, for a check that runs on the
 * escaped copy (`dataKeyedPaths`): each escaped key of `record` (the record at such a path) is
 * written with its prefix, `\u0000`, six bytes that were never sent.
 */
export function sentJsonBytes(value: unknown, record: object | undefined): number {
  const escaped =
    record === undefined ? 0 : Object.keys(record).filter((key) => key.startsWith(ESCAPE)).length;
  return utf8.encode(JSON.stringify(value)).length - escaped * JSON.stringify(ESCAPE).slice(1, -1).length;
}

/** `value` with the record at `path` (when there is one) rebuilt with its keys mapped, as data properties. */
function mapRecordAt(value: unknown, path: readonly string[], mapKey: (key: string) => string): unknown {
  if (!isPlainRecord(value)) return value;
  if (path.length === 0) {
    const mapped: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      Object.defineProperty(mapped, mapKey(key), {
        value: entry,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return mapped;
  }
  const [first, ...rest] = path as [string, ...string[]];
  if (!Object.hasOwn(value, first)) return value;
  return { ...value, [first]: mapRecordAt(value[first], rest, mapKey) };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function valueAt(body: unknown, keys: readonly string[]): unknown {
  let value = body;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
