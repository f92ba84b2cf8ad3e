/**
 * Orphaned chunks: chunk items no reader can reach any more. Every read starts from a system's
 * head and follows its version, so a chunk is an orphan when its system has no head (a create
 * that failed after writing chunks, a delete that failed after removing the head) or a head of
 * another version (a refresh whose cleanup of the old version, or of its own new version after a
 * lost race, failed, or a refresh that failed after writing chunks). The version a head reads is
 * its `chunkVersion`, else its `version`. They cost storage only.
 *
 * A chunk counts only once it is older than an hour (`writtenAt`, or for chunks written before
 * that attribute existed the time in the system's ULID): a create or refresh in progress writes
 * its chunks before its head, and none takes more than seconds. Finding them takes a Scan, which
 * the service itself never does: this runs offline, from `npm run sweep`.
 */
import { type DynamoDBDocumentClient, GetCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulid';
import { compareIds as byText } from '../engine/compare-ids';
import { PARTITION_PREFIXES } from '../storage/table';
import { deleteBatch, inBatches } from './batch-delete';
import { isSystemId } from './input';
import { chunkVersionOfHead, HEAD_SK_PREFIX, headKey, type ItemKey } from './items';

/** Chunks younger than this may belong to a create or refresh still running. */
const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

export interface OrphanedChunks {
  /** The system id the chunks were written for. */
  id: string;
  owner: string;
  version: number;
  /** Why no reader reaches them. */
  reason: 'no head' | `the head reads version ${number}`;
  /** When the newest of them was written (ISO 8601). */
  writtenAt: string;
  keys: ItemKey[];
}

const CHUNK_SK = /^CHUNK#(?:v(\d+)#)?\d+$/;

/** Every group of orphaned chunks older than `minAgeMs` at `now`, oldest first. */
export async function findOrphanedChunks(
  doc: DynamoDBDocumentClient,
  tableName: string,
  options: { now?: number; minAgeMs?: number } = {},
): Promise<OrphanedChunks[]> {
  const now = options.now ?? Date.now();
  const cutoff = now - (options.minAgeMs ?? ORPHAN_MIN_AGE_MS);
  const heads = new Map<string, number>();
  const groups = new Map<string, Omit<OrphanedChunks, 'reason' | 'writtenAt'> & { newest: number }>();
  const pages = paginateScan(
    { client: doc },
    {
      TableName: tableName,
      // Keys and a few small attributes: never the structure's bytes.
      ProjectionExpression: 'pk, sk, #owner, #version, #chunkVersion, writtenAt',
      ExpressionAttributeNames: { '#owner': 'owner', '#version': 'version', '#chunkVersion': 'chunkVersion' },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    // Stryker disable next-line ArrayDeclaration: a Scan's answer always has Items, empty when nothing is left
    for (const item of page.Items ?? []) {
      const pk = String(item.pk);
      const sk = String(item.sk);
      if (pk.startsWith(PARTITION_PREFIXES.owner) && sk.startsWith(HEAD_SK_PREFIX)) {
        heads.set(sk.slice(HEAD_SK_PREFIX.length), chunkVersionOfHead(item));
        continue;
      }
      const chunk = CHUNK_SK.exec(sk);
      const id = pk.slice(PARTITION_PREFIXES.system.length);
      if (!pk.startsWith(PARTITION_PREFIXES.system) || chunk === null || !isSystemId(id)) continue;
      const version = chunk[1] === undefined ? 1 : Number(chunk[1]);
      const written = typeof item.writtenAt === 'string' ? Date.parse(item.writtenAt) : decodeTime(id);
      const group = groups.get(`${id}#${version}`) ?? {
        id,
        owner: typeof item.owner === 'string' ? item.owner : '',
        version,
        newest: 0,
        keys: [],
      };
      group.keys.push({ pk, sk });
      group.newest = Math.max(group.newest, Number.isNaN(written) ? now : written);
      groups.set(`${id}#${version}`, group);
    }
  }
  const orphans: OrphanedChunks[] = [];
  for (const { newest, ...group } of groups.values()) {
    const headVersion = heads.get(group.id);
    if (headVersion === group.version || newest > cutoff) continue;
    orphans.push({
      ...group,
      writtenAt: new Date(newest).toISOString(),
      reason: headVersion === undefined ? 'no head' : `the head reads version ${headVersion}`,
      keys: group.keys.sort((a, b) => byText(a.sk, b.sk)),
    });
  }
  return orphans.sort((a, b) => byText(a.writtenAt, b.writtenAt));
}

/**
 * Deletes one group found by `findOrphanedChunks`, after reading its head once more (strongly
 * consistent): a group whose system has meanwhile come to use it is left alone. Returns how many
 * chunks were deleted.
 */
export async function deleteOrphanedChunks(
  doc: DynamoDBDocumentClient,
  tableName: string,
  orphan: OrphanedChunks,
): Promise<number> {
  const { Item } = await doc.send(
    new GetCommand({ TableName: tableName, Key: headKey(orphan.owner, orphan.id), ConsistentRead: true }),
  );
  if (Item !== undefined && chunkVersionOfHead(Item) === orphan.version) return 0;
  for (const batch of inBatches(orphan.keys)) {
    await deleteBatch(doc, tableName, batch, `system ${orphan.id}`);
  }
  return orphan.keys.length;
}
