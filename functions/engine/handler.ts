import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { traceAwsClient } from '../../lib/aws/tracing';
import { requiredEnv } from '../../lib/config/env';
import { readLimits } from '../../lib/config/limits';
import { readCorsSettings } from '../../lib/http/cors';
import { createApiKeyVerifier, DynamoApiKeyStore } from '../../lib/keys';
import { loadOnce } from '../../lib/load-once';
import { createLogger } from '../../lib/logging';
import { isStoreUnavailable } from '../../lib/storage/faults';
// The cache's own module: the systems index would bring the store into the cold start.
import { processSystemCache } from '../../lib/systems/compiled-cache';
import { createEngineFunction } from './engine-function';

// Built once per Lambda instance (cold start) and shared by every invocation. A missing
// TABLE_NAME or a malformed limit throws here, so a misconfigured deploy fails loudly at once.
const tableName = requiredEnv(process.env, 'TABLE_NAME');
const logger = createLogger();
const { client, doc } = createDynamoClients();
traceAwsClient(client);
const verifier = createApiKeyVerifier(new DynamoApiKeyStore({ doc, tableName }), {
  onBackgroundError: (error, keyId) =>
    logger.warn('lastUsedAt update failed', { keyId, error: String(error) }),
});

/**
 * Stored systems (`{ mode, systemId }` requests): the store, with its item layout, payload
 * decoding and ids, is loaded at the first such request, so a cold start that serves a structure
 * sent in the body (the explorer's, the CLI's) does not load it (docs/deploy.md, "Bundles and
 * cold start").
 */
const systemStore = loadOnce(async () => {
  const { DynamoSystemStore } = await import('../../lib/systems/dynamo-store');
  return new DynamoSystemStore({ doc, tableName });
});

const serve = createEngineFunction({
  logger,
  isUnavailable: isStoreUnavailable,
  verifyApiKey: (presentedKey) => verifier.verify(presentedKey),
  cors: readCorsSettings(),
  limits: readLimits(),
  systems: {
    get: async (owner, id) => (await systemStore()).get(owner, id),
    getRecord: async (owner, id) => (await systemStore()).getRecord(owner, id),
  },
  systemCache: processSystemCache(),
});

/**
 * Lambda may freeze the instance as soon as the handler returns, which would drop the key's
 * lastUsedAt write (started in the background, at most once a minute per key); so the
 * response waits for it, 500 ms at most (the store's deadline for that write, docs/keys.md).
 * Between two such writes there is nothing to wait for.
 */
export async function handler(event: APIGatewayProxyEventV2, context: Context) {
  try {
    return await serve(event, context);
  } finally {
    await verifier.settled();
  }
}

/**
 * Resolves once background work started by earlier requests (the API key's lastUsedAt write)
 * has finished. The local server awaits it before stopping its DynamoDB.
 */
export function settled(): Promise<void> {
  return verifier.settled();
}
