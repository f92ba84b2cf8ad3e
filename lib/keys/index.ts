export {
  ACCEPTED_KEY_RULE,
  API_KEY_LENGTH,
  apiKeyDisplayPrefix,
  apiKeyIdFromDigest,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from './api-key';
export { DynamoApiKeyStore } from './dynamo-store';
export {
  ApiKeyConflictError,
  ApiKeyInputError,
  type ApiKeyRecord,
  type ApiKeyStore,
  importApiKey,
  issueApiKey,
  type PublicApiKeyRecord,
  toPublicApiKeyRecord,
} from './store';
export { createApiKeyVerifier, resolveCacheTtlMs } from './verifier';
