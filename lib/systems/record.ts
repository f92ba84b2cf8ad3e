import type { SystemSettings } from './settings';

/**
 * What the owner said of the document that it does not say itself, as registered (lib/formats'
 * `ReadOptions`: a span format's window and sampling rate, Prometheus's labels), kept so that a
 * refresh reads the new answer the same way.
 */
export interface SystemReadOptions {
  window?: number;
  sampleRate?: number;
  labels?: { from: string; to: string };
}

/** What the service keeps about a registered system, beside the structure itself. */
export interface SystemRecord {
  /** A ULID: 26 Crockford base32 characters that sort by creation time. */
  id: string;
  /** The user (token `sub`, API key owner) who registered it; nobody else can see, run or delete it. */
  owner: string;
  name: string;
  /** Where the structure was fetched from; absent for a document sent in the request (`POST /api/systems`). */
  url?: string;
  /** How many nodes and dependencies the stored structure has. */
  nodes: number;
  dependencies: number;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** SHA-256 hex of the structure's JSON bytes as stored (before compression), checked on every read. */
  sha256: string;
  /** The format the external API's answer was read in (`lib/formats`); absent on older records. */
  format?: string;
  /** What one engine step stands for in the stored structure (`second`, `window`, …); absent on older records. */
  unit?: string;
  /** How the document was read (`window`, `sampleRate`, `labels`); absent when none was given. */
  readOptions?: SystemReadOptions;
  /** 1 as registered (absent means 1), one more at every refresh that replaced the structure. */
  version?: number;
  /** ISO 8601, UTC: when a refresh last replaced the structure; absent before the first. */
  refreshedAt?: string;
  /** Capacities and arrivals the owner set, applied on every engine run; absent when none. */
  settings?: SystemSettings;
  /** How many times the settings were set since registration (absent = 0): what their ETag names. */
  settingsRevision?: number;
}

/**
 * The entity tag of a system's settings (RFC 9110 §8.8.3): `GET /api/systems/{id}` sends it, and a
 * `PATCH` with `If-Match` applies only while the settings are still that revision. A refresh
 * changes the structure, never the settings, so it leaves the tag as it is.
 */
export function settingsETag(record: Pick<SystemRecord, 'settingsRevision'>): string {
  return `"settings-${record.settingsRevision ?? 0}"`;
}

/**
 * What an `If-Match` header asks of a write, given the current settings: `'any'` for `*` (RFC 9110
 * §13.1.1: true of any current representation, so the write waits for no revision), the current
 * revision when the header lists its tag, `undefined` when it matches nothing (a 412). Weak tags
 * (`W/"…"`) never match, as If-Match compares strongly.
 */
export function matchedSettingsRevision(
  ifMatch: string,
  current: Pick<SystemRecord, 'settingsRevision'>,
): number | 'any' | undefined {
  const tags = listedTags(ifMatch);
  if (tags.includes('*')) return 'any';
  return tags.includes(settingsETag(current)) ? (current.settingsRevision ?? 0) : undefined;
}

/**
 * What an `If-None-Match` header asks of a write (RFC 9110 §13.1.2, weak comparison: `W/"…"`
 * names the same tag): `undefined` when it lists `*` or the current tag (a 412), else the current
 * revision, which the write then waits for.
 */
export function unmatchedSettingsRevision(
  ifNoneMatch: string,
  current: Pick<SystemRecord, 'settingsRevision'>,
): number | undefined {
  const tags = listedTags(ifNoneMatch).map((tag) => tag.replace(/^W\//, ''));
  if (tags.includes('*') || tags.includes(settingsETag(current))) return undefined;
  return current.settingsRevision ?? 0;
}

/** The entity tags (or `*`) a conditional header lists. */
function listedTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim());
}

/** A record as the HTTP API returns it: no owner, no storage details. */
export interface PublicSystemRecord {
  id: string;
  name: string;
  url?: string;
  nodes: number;
  dependencies: number;
  createdAt: string;
  format?: string;
  unit?: string;
  readOptions?: SystemReadOptions;
  version: number;
  refreshedAt?: string;
  settings?: SystemSettings;
}

/** Fields picked one by one, so a field added to the record later is not published by accident. */
export function toPublicSystemRecord(record: SystemRecord): PublicSystemRecord {
  return {
    id: record.id,
    name: record.name,
    ...(record.url === undefined ? {} : { url: record.url }),
    nodes: record.nodes,
    dependencies: record.dependencies,
    createdAt: record.createdAt,
    ...(record.format === undefined ? {} : { format: record.format }),
    ...(record.unit === undefined ? {} : { unit: record.unit }),
    ...(record.readOptions === undefined ? {} : { readOptions: record.readOptions }),
    version: record.version ?? 1,
    ...(record.refreshedAt === undefined ? {} : { refreshedAt: record.refreshedAt }),
    ...(record.settings === undefined ? {} : { settings: record.settings }),
  };
}
