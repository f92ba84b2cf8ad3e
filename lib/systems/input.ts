/** The rules a store call's arguments follow. Each check returns the value to use or throws `SystemInputError`. */
// Owners follow the API keys' rule, so an API key's owner and a token's `sub` name the same systems.
import { isDisplayName, NAME_MAX_LENGTH, OWNER_SHAPE, URL_MAX_LENGTH } from '../text';
import { SystemInputError } from './errors';
import type { StructureInput } from './store';

/** A ULID as `ulid` writes it: a 48-bit time (so a first character of at most 7), then randomness. */
const SYSTEM_ID_SHAPE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

const LIST_LIMIT_MAX = 100;
const LIST_LIMIT_DEFAULT = 50;

export function checkOwner(owner: unknown): string {
  if (typeof owner !== 'string' || !OWNER_SHAPE.test(owner)) {
    throw new SystemInputError('owner', 'owner must be 1-128 characters from A-Z a-z 0-9 . _ @ : + -');
  }
  return owner;
}

/** Trimmed, because a name is shown in lists where stray spaces would only confuse. */
export function checkName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!isDisplayName(trimmed)) {
    throw new SystemInputError(
      'name',
      `name must be 1-${NAME_MAX_LENGTH} characters without control characters`,
    );
  }
  return trimmed;
}

/** Only the length: whether the URL is one the service may fetch is the connect route's rule. */
export function checkUrl(url: unknown): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > URL_MAX_LENGTH) {
    throw new SystemInputError('url', `url must be a string of 1-${URL_MAX_LENGTH} characters`);
  }
  return url;
}

/**
 * Only what storing needs (the counts come from the two arrays). Whether the engine accepts the
 * structure is the caller's check, made with the engine's own rules before it gets here.
 */
export function checkStructure(structure: unknown): StructureInput {
  // A value that is no object has no "nodes" array either.
  if (
    structure === null ||
    Array.isArray(structure) ||
    !Array.isArray((structure as StructureInput).nodes) ||
    !Array.isArray((structure as StructureInput).dependencies)
  ) {
    throw new SystemInputError(
      'structure',
      'structure must be an object with "nodes" and "dependencies" arrays',
    );
  }
  return structure as StructureInput;
}

export function checkLimit(limit: unknown): number {
  if (limit === undefined) return LIST_LIMIT_DEFAULT;
  // Number.isInteger refuses every non-number too.
  const value = limit as number;
  if (!Number.isInteger(value) || value < 1 || value > LIST_LIMIT_MAX) {
    throw new SystemInputError(
      'limit',
      `limit must be an integer from 1 to ${LIST_LIMIT_MAX}, got ${typeof limit === 'string' ? JSON.stringify(limit) : String(limit)}`,
    );
  }
  return value;
}

/**
 * Not a check that throws: a malformed id names no system, and reading or deleting it answers
 * exactly as for an id that is well formed but unknown.
 */
export function isSystemId(id: unknown): id is string {
  // Stryker disable next-line ConditionalExpression: RegExp.test reads a non-string's text, and a key built from it is that text (this disables the killed twins of the line too)
  return typeof id === 'string' && SYSTEM_ID_SHAPE.test(id);
}
