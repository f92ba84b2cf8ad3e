export {
  ACCEPTED_KEY_RULE,
  /** @internal the store is addressed by digest; tests find and revoke records with it. */
  hashApiKey,
  looksLikeApiKey,
} from './api-key';
export { DynamoApiKeyStore } from './dynamo-store';
export {
  ApiKeyInputError,
  type ApiKeyRecord,
  type ApiKeyStore,
  importApiKey,
  issueApiKey,
  type PublicApiKeyRecord,
  toPublicApiKeyRecord,
} from './store';
export { createApiKeyVerifier } from './verifier';
