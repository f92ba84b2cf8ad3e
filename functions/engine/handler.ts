import { createDynamoClients } from '../../lib/aws/dynamo';
import { requiredEnv } from '../../lib/config/env';
import { readLimits } from '../../lib/config/limits';
import { createApiKeyVerifier, DynamoApiKeyStore } from '../../lib/keys';
import { createLogger } from '../../lib/logging';
import { createEngineHandler } from './engine-handler';

// Built once per Lambda instance (cold start) and shared by every invocation. A missing
// TABLE_NAME or a malformed limit throws here, so a misconfigured deploy fails loudly at once.
const tableName = requiredEnv(process.env, 'TABLE_NAME');
const logger = createLogger();
const { doc } = createDynamoClients();
const verifier = createApiKeyVerifier(new DynamoApiKeyStore({ doc, tableName }), {
  onBackgroundError: (error, keyId) =>
    logger.warn('lastUsedAt update failed', { keyId, error: String(error) }),
});

export const handler = createEngineHandler({
  verifyApiKey: (presentedKey) => verifier.verify(presentedKey),
  limits: readLimits(),
  logger,
});

/**
 * Resolves once background work started by earlier requests (the API key's lastUsedAt write)
 * has finished. The local server awaits it before stopping its DynamoDB.
 */
export function settled(): Promise<void> {
  return verifier.settled();
}
