/**
 * The keys and attributes of a system's items (the layout is drawn at the top of
 * `dynamo-store.ts`), and the head item read back into a record: an item that does not have the
 * written shape is refused with `SystemStorageError`, never half-trusted.
 */
import { PARTITION_PREFIXES } from '../storage/table';
import { SystemStorageError } from './errors';
import { isSystemId } from './input';
import type { SystemReadOptions, SystemRecord } from './record';
import type { SystemSettings } from './settings';

const OWNER_PK_PREFIX = PARTITION_PREFIXES.owner;
export const HEAD_SK_PREFIX = 'SYSTEM#';
const CHUNK_PK_PREFIX = PARTITION_PREFIXES.system;
const CHUNK_SK_PREFIX = 'CHUNK#';
/** Five digits keep chunk sort keys in index order up to 99,999 chunks, far past any size limit. */
const CHUNK_INDEX_DIGITS = 5;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A type, not an interface, so that it passes where the SDK wants `Record<string, …>`. */
export type ItemKey = { pk: string; sk: string };

/** Head item attributes that make up the record, also what a listing projects. */
export const RECORD_ATTRIBUTES = [
  'id',
  'owner',
  'name',
  'url',
  'nodes',
  'dependencies',
  'createdAt',
  'sha256',
  'format',
  'unit',
  'readOptions',
  'version',
  'refreshedAt',
  'settings',
  'settingsRevision',
] as const;

export function ownerPartition(owner: string): string {
  return OWNER_PK_PREFIX + owner;
}

export function headKey(owner: string, id: string): ItemKey {
  return { pk: ownerPartition(owner), sk: HEAD_SK_PREFIX + id };
}

function chunkPartition(id: string): string {
  return CHUNK_PK_PREFIX + id;
}

/**
 * The sort key prefix of one version's chunks: `CHUNK#` then the index for version 1 (as every
 * system was stored before refresh existed), `CHUNK#v<version>#` then the index after that, so a
 * refresh writes its chunks beside the old ones and the head, written last, switches readers.
 */
function chunkSortPrefix(version: number): string {
  return version === 1 ? CHUNK_SK_PREFIX : `${CHUNK_SK_PREFIX}v${version}#`;
}

export function chunkKey(id: string, index: number, version = 1): ItemKey {
  return {
    pk: chunkPartition(id),
    sk: chunkSortPrefix(version) + String(index).padStart(CHUNK_INDEX_DIGITS, '0'),
  };
}

/**
 * The version whose chunks a head reads: its `chunkVersion` when a refresh found its own version's
 * sort keys taken and wrote under a later one (see `replace` in `dynamo-store.ts`), else its
 * `version` (absent = 1).
 */
export function chunkVersionOfHead(item: Record<string, unknown>): number {
  if (typeof item.chunkVersion === 'number') return item.chunkVersion;
  return typeof item.version === 'number' ? item.version : 1;
}

/** The key condition that reads exactly one version's chunks, in index order. */
export function chunkRange(id: string, version: number) {
  const prefix = chunkSortPrefix(version);
  // Version 1's keys are `CHUNK#` and digits: bounded above, so `CHUNK#v…` keys never match.
  return version === 1
    ? {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': chunkPartition(id),
          ':from': `${prefix}${'0'.repeat(CHUNK_INDEX_DIGITS)}`,
          ':to': `${prefix}${'9'.repeat(CHUNK_INDEX_DIGITS)}`,
        },
      }
    : {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': chunkPartition(id), ':prefix': prefix },
      };
}

/** The id in a head sort key, or `undefined` when the sort key is not one. */
export function idOfHeadSortKey(sk: string): string | undefined {
  const id = sk.startsWith(HEAD_SK_PREFIX) ? sk.slice(HEAD_SK_PREFIX.length) : undefined;
  return isSystemId(id) ? id : undefined;
}

/** How the structure of a head is stored. */
export interface StoredPayload {
  encoding: string;
  /** Length of the compressed bytes, inline or over all chunks. */
  byteLength: number;
  /** 0 when the bytes are inline. */
  chunkCount: number;
  inline: Uint8Array | undefined;
}

/** The record a head item holds; its keys must agree with its `owner` and `id` attributes. */
export function recordFromHeadItem(item: Record<string, unknown>): SystemRecord {
  const read = attributeReader(item);
  const id = read.text('id');
  const owner = read.text('owner');
  if (!isSystemId(id) || item.pk !== ownerPartition(owner) || item.sk !== HEAD_SK_PREFIX + id) {
    throw new SystemStorageError(`${read.where} has keys that do not match its id and owner`);
  }
  const sha256 = read.text('sha256');
  if (!SHA256_HEX.test(sha256)) throw new SystemStorageError(`${read.where} has a malformed sha256`);
  return {
    id,
    owner,
    name: read.text('name'),
    ...read.optionalText('url'),
    nodes: read.count('nodes'),
    dependencies: read.count('dependencies'),
    createdAt: read.text('createdAt'),
    sha256,
    ...(item.version === undefined ? {} : { version: read.count('version') }),
    ...read.optionalText('refreshedAt'),
    ...settingsOfHead(item, read.where),
    ...(item.settingsRevision === undefined ? {} : { settingsRevision: read.count('settingsRevision') }),
    ...read.optionalText('format'),
    ...read.optionalText('unit'),
    ...readOptionsOfHead(item, read.where),
  };
}

/**
 * A head's read options as DynamoDB holds them: their JSON text, like the settings, so a window
 * of 1e-200 seconds (past a DynamoDB number's exponent) is kept exactly.
 */
export function readOptionsAttribute(options: SystemReadOptions | undefined): string | undefined {
  return JSON.stringify(options);
}

function readOptionsOfHead(
  item: Record<string, unknown>,
  where: string,
): { readOptions?: SystemReadOptions } {
  const stored = item.readOptions;
  if (stored === undefined) return {};
  let options: unknown;
  try {
    options = typeof stored === 'string' ? JSON.parse(stored) : undefined;
  } catch {
    // Reported below.
  }
  if (!isReadOptions(options)) throw new SystemStorageError(`${where} has malformed read options`);
  return { readOptions: options };
}

function isReadOptions(value: unknown): value is SystemReadOptions {
  if (!isPlainObject(value)) return false;
  const { window, sampleRate, labels, ...rest } = value;
  return (
    Object.keys(rest).length === 0 &&
    (window === undefined || typeof window === 'number') &&
    (sampleRate === undefined || typeof sampleRate === 'number') &&
    (labels === undefined ||
      (isPlainObject(labels) && typeof labels.from === 'string' && typeof labels.to === 'string'))
  );
}

/**
 * A head's settings attribute as DynamoDB holds it: their JSON text, so that every number is kept
 * exactly (a DynamoDB number has 38 digits and no exponent past ±125; the SDK refuses integers
 * past 2^53), and every node id stays a key, `__proto__` included. Heads written before hold a map.
 */
export function settingsAttribute(settings: SystemSettings | undefined): string | undefined {
  // JSON.stringify(undefined) is undefined: no settings, no attribute.
  return JSON.stringify(settings);
}

function settingsOfHead(item: Record<string, unknown>, where: string): { settings?: SystemSettings } {
  const stored = item.settings;
  if (stored === undefined) return {};
  if (isPlainObject(stored)) return { settings: stored as SystemSettings };
  let settings: unknown;
  try {
    // Stryker disable next-line ConditionalExpression: JSON.parse of anything but a string (its text) gives no plain object here, refused below as well
    settings = typeof stored === 'string' ? JSON.parse(stored) : undefined;
  } catch {
    // Reported below, as any settings that are not an object.
  }
  if (!isPlainObject(settings)) throw new SystemStorageError(`${where} has malformed settings`);
  return { settings: settings as SystemSettings };
}

export function payloadFromHeadItem(item: Record<string, unknown>): StoredPayload {
  const read = attributeReader(item);
  const byteLength = read.count('byteLength');
  const chunkCount = read.count('chunkCount');
  const inline = item.structure;
  if (chunkCount === 0) {
    if (!(inline instanceof Uint8Array) || inline.byteLength !== byteLength) {
      throw new SystemStorageError(
        `${read.where} has no chunks and no inline structure of ${byteLength} bytes`,
      );
    }
  } else if (inline !== undefined) {
    throw new SystemStorageError(`${read.where} has both chunks and an inline structure`);
  }
  return {
    encoding: read.text('encoding'),
    byteLength,
    chunkCount,
    // With chunks there is none: refused above.
    inline: inline as Uint8Array | undefined,
  };
}

function attributeReader(item: Record<string, unknown>) {
  const where = `system item ${typeof item.sk === 'string' ? item.sk.slice(0, 40) : '(no sort key)'}`;
  return {
    where,
    text(field: string): string {
      const value = item[field];
      if (typeof value !== 'string') {
        throw new SystemStorageError(`${where} is missing the string attribute "${field}"`);
      }
      return value;
    },
    /** `{ [field]: value }` when the attribute is a string, `{}` when absent (records made before it). */
    optionalText(field: string): Record<string, string> {
      const value = item[field];
      if (value === undefined) return {};
      if (typeof value !== 'string') throw new SystemStorageError(`${where} has a non-string "${field}"`);
      return { [field]: value };
    },
    count(field: string): number {
      const value = item[field] as number;
      // Number.isSafeInteger refuses every non-number too.
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new SystemStorageError(`${where} is missing the count "${field}"`);
      }
      return value;
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}
