/** A user's API keys, oldest first: never the key, nor its digest. */
import { type ApiKeyStore, type PublicApiKeyRecord, toPublicApiKeyRecord } from '../keys';
import { inContractTerms } from './errors';

export type ListKeys = (owner: string) => Promise<{ keys: Array<Omit<PublicApiKeyRecord, 'owner'>> }>;

export function createListKeys(deps: { keys: Pick<ApiKeyStore, 'listByOwner'> }): ListKeys {
  return (owner) =>
    inContractTerms(async () => {
      const keys = (await deps.keys.listByOwner(owner)).map((record) => {
        const { owner: _owner, ...shown } = toPublicApiKeyRecord(record);
        return shown;
      });
      return { keys };
    });
}
