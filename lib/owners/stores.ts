/**
 * The stores of a user's things (systems, API keys) with their quotas, built together once per
 * process: the quotas recount an owner from both stores, and both stores count through the
 * quotas (`lib/storage/quotas.ts`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Quotas } from '../config/quotas';
import { DynamoApiKeyStore } from '../keys';
import { DynamoOwnerQuotas } from '../storage/quotas';
import { DynamoSystemStore } from '../systems';

export interface OwnerStoresOptions {
  doc: DynamoDBDocumentClient;
  tableName: string;
  quotas: Quotas;
  /** Passed to the system store (tests make small structures go through chunks). */
  chunkBytes?: number;
  /** The quotas' clock (tests move it past an hour). */
  now?: () => number;
}

export interface OwnerStores {
  keys: DynamoApiKeyStore;
  systems: DynamoSystemStore;
  quotas: DynamoOwnerQuotas;
}

export function createOwnerStores(options: OwnerStoresOptions): OwnerStores {
  const { doc, tableName } = options;
  const quotas: DynamoOwnerQuotas = new DynamoOwnerQuotas({
    doc,
    tableName,
    quotas: options.quotas,
    usage: async (owner) => ({ ...(await systems.usage(owner)), keys: await keys.activeCount(owner) }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const keys = new DynamoApiKeyStore({ doc, tableName, quotas });
  const systems = new DynamoSystemStore({
    doc,
    tableName,
    quotas,
    ...(options.chunkBytes === undefined ? {} : { chunkBytes: options.chunkBytes }),
  });
  return { keys, systems, quotas };
}
