/**
 * Self-service API keys: a user creates a key that acts for them (`owner` = the user). The only
 * time the key exists in clear outside the caller: it is not stored and not logged.
 */
import { parseCreateKeyRequest } from '../api/key-request';
import { type ApiKeyStore, issueApiKey, type PublicApiKeyRecord, toPublicApiKeyRecord } from '../keys';
import { inContractTerms } from './errors';

/** The new key, shown this once, and its record as its owner sees it. */
export type CreatedKey = { key: string } & Omit<PublicApiKeyRecord, 'owner'>;

export type CreateKey = (owner: string, body: unknown) => Promise<CreatedKey>;

export function createCreateKey(deps: { keys: Pick<ApiKeyStore, 'put'> }): CreateKey {
  return (owner, body) =>
    inContractTerms(async () => {
      const { name } = parseCreateKeyRequest(body);
      const { key, record } = await issueApiKey(deps.keys, { owner, name });
      const { owner: _owner, ...shown } = toPublicApiKeyRecord(record);
      return { key, ...shown };
    });
}
