export {
  ACCEPTED_KEY_RULE,
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  API_KEY_RANDOM_BYTES,
  apiKeyDisplayPrefix,
  apiKeyIdFromDigest,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from './api-key';
export {
  API_KEY_PK_PREFIX,
  API_KEY_SK,
  createDynamoApiKeyStore,
  DynamoApiKeyStore,
  type DynamoApiKeyStoreOptions,
} from './dynamo-store';
export {
  ApiKeyConflictError,
  ApiKeyInputError,
  type ApiKeyRecord,
  type ApiKeyStatus,
  type ApiKeyStore,
  type IssuedApiKey,
  importApiKey,
  issueApiKey,
  LAST_USED_RESOLUTION_MS,
  type NewApiKeyInput,
  type PublicApiKeyRecord,
  toPublicApiKeyRecord,
} from './store';
export {
  type ApiKeyVerifier,
  type ApiKeyVerifierOptions,
  CACHE_TTL_ENV,
  CachingApiKeyVerifier,
  createApiKeyVerifier,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_MAX_CACHE_ENTRIES,
  MAX_CACHE_TTL_MS,
  resolveCacheTtlMs,
  type VerifiedApiKey,
} from './verifier';
