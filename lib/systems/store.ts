import type { SystemReadOptions, SystemRecord } from './record';
import type { SystemSettings } from './settings';

/**
 * A structure as registered: the plain `{ nodes, dependencies }` object, with any other fields
 * the caller gave. It is stored as its JSON text and read back byte for byte the same.
 */
export interface StoredStructure {
  nodes: unknown[];
  dependencies: unknown[];
  [extra: string]: unknown;
}

/** A structure to register, as the caller holds it (frozen or not); extra fields are kept. */
export interface StructureInput {
  readonly nodes: readonly unknown[];
  readonly dependencies: readonly unknown[];
  readonly [extra: string]: unknown;
}

export interface NewSystem {
  owner: string;
  name: string;
  /** Absent for a document sent in the request rather than fetched. */
  url?: string;
  structure: StructureInput;
  /** The format its document was read in, and what one step stands for (kept on the record). */
  format?: string;
  unit?: string;
  /** How the document was read (a window, a sampling rate, labels), kept for refreshes. */
  readOptions?: SystemReadOptions;
  /** Capacities and arrivals the owner sets (`settings.ts`). */
  settings?: SystemSettings;
}

export interface StoredSystem {
  record: SystemRecord;
  structure: StoredStructure;
}

export interface SystemListOptions {
  /** 1-100; default 50. A query's text that is not a whole number is refused as sent (`"1e1"`). */
  limit?: number | string;
  /** The `cursor` of the previous page, as it was returned. */
  cursor?: string;
}

export interface SystemPage {
  /** Newest first. */
  systems: SystemRecord[];
  /** Present when there are more systems; pass it back as `cursor` for the next page. */
  cursor?: string;
}

/**
 * Persistence of registered systems, always addressed through their owner: another owner's
 * system answers exactly as a missing one does (`undefined`, `false`, absent from lists).
 * The DynamoDB adapter is `DynamoSystemStore`. Bad arguments throw `SystemInputError`;
 * inconsistent storage throws `SystemStorageError`.
 */
/** A refresh's new structure, and the version of the system it read before fetching it. */
export interface SystemReplacement extends Pick<NewSystem, 'structure' | 'format' | 'unit'> {
  /**
   * The structure version the refresh began from: the replace happens only while the system is
   * still that version (a refresh that finished meanwhile, or a delete, wins). Without it, the
   * version read at the replace itself.
   */
  replacing?: number;
}

export interface SystemStore {
  /** Store a new system under a new id and return its record. Nothing is visible unless it all succeeded. */
  create(system: NewSystem, now?: Date): Promise<SystemRecord>;
  /** The record and its structure; `undefined` for an unknown, malformed or another owner's id. */
  get(owner: string, id: string): Promise<StoredSystem | undefined>;
  /** The record alone, without reading the structure; `undefined` as for `get`. */
  getRecord(owner: string, id: string): Promise<SystemRecord | undefined>;
  /** One page of the owner's systems, newest first. */
  list(owner: string, options?: SystemListOptions): Promise<SystemPage>;
  /** Whether there was such a system of this owner to delete. */
  delete(owner: string, id: string): Promise<boolean>;
  /**
   * Replaces a system's structure (a refresh): the new one is written beside the old and the
   * head's structure attributes, updated last and only if the system is still the version read,
   * switch every reader at once. The settings are left as they are: the record returned is the
   * head after the update, with whatever settings it holds by then. `undefined` when there is no
   * such system; `SystemChangedError` when it was deleted or replaced meanwhile (nothing of the
   * new structure is then visible), since `replacing` when given.
   */
  replace(
    owner: string,
    id: string,
    replacement: SystemReplacement,
    now?: Date,
  ): Promise<SystemRecord | undefined>;
  /**
   * Replaces a system's settings (absent: removes them) and counts one more settings revision,
   * leaving its structure as it is; with `revision`, only while the settings are still that
   * revision (`SettingsChangedError` otherwise); with `structureVersion`, only while the
   * structure is still that version, the one the settings were checked against
   * (`SystemChangedError` otherwise: a refresh came between). `undefined` when there is no such
   * system.
   */
  updateSettings(
    owner: string,
    id: string,
    settings: SystemSettings | undefined,
    options?: { revision?: number; structureVersion?: number },
  ): Promise<SystemRecord | undefined>;
}
