/**
 * The `cursor` of a listing: the key of the last system on a page (DynamoDB's LastEvaluatedKey),
 * as base64url JSON. It is opaque to callers but not secret, so whatever comes back is checked
 * before it reaches a Query. The Query always names the caller's own partition, so a forged
 * cursor could not list another owner's systems anyway; refusing it here makes that a plain 400
 * naming `cursor` instead of whatever DynamoDB makes of a start key outside the partition.
 */
import { SystemInputError } from './errors';
import { headKey, type ItemKey, idOfHeadSortKey } from './items';

/** A cursor we write is at most ~260 characters (the longest owner plus a ULID); more is not ours. */
const CURSOR_MAX_LENGTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeCursor(key: ItemKey): string {
  // Stryker disable next-line StringLiteral: Buffer.from reads an empty encoding name as UTF-8, the default
  return Buffer.from(JSON.stringify({ pk: key.pk, sk: key.sk }), 'utf8').toString('base64url');
}

/** The start key a cursor stands for, if it is one of `owner`'s listing cursors. */
export function decodeCursor(cursor: unknown, owner: string): ItemKey {
  // Stryker disable next-line ConditionalExpression: a non-string is refused by the checks below (its text fails BASE64URL, or Buffer.from throws in the try); the killed `true` twin goes with it
  if (typeof cursor !== 'string') return refuse();
  if (cursor.length > CURSOR_MAX_LENGTH || !BASE64URL.test(cursor)) return refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } /* Stryker disable next-line BlockStatement: without it `decoded` stays undefined, which the next check refuses */ catch {
    return refuse();
  }
  // JSON.parse makes arrays and objects of this realm; null, text and numbers are no Object.
  if (!(decoded instanceof Object) || Object.keys(decoded).length !== 2) return refuse();
  const { pk, sk } = decoded as Record<string, unknown>;
  const id = typeof sk === 'string' ? idOfHeadSortKey(sk) : undefined;
  if (id === undefined) return refuse();
  const expected = headKey(owner, id);
  if (pk !== expected.pk) return refuse();
  return expected;
}

function refuse(): never {
  // Neither the cursor nor what it decodes to is repeated: it may name someone else's partition.
  throw new SystemInputError('cursor', 'cursor is not one this listing returned; start again without it');
}
