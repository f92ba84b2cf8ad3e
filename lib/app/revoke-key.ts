/** Revoke one of a user's API keys by its public id. */
import { ApiError } from '../api/errors';
import type { ApiKeyStore } from '../keys';
import { inContractTerms } from './errors';

export type RevokeKey = (owner: string, id: string) => Promise<void>;

export function createRevokeKey(deps: { keys: Pick<ApiKeyStore, 'getByOwnerAndId' | 'revoke'> }): RevokeKey {
  return (owner, id) =>
    inContractTerms(async () => {
      // The lookup is two reads however many keys the owner has had, not the owner's whole list.
      const record = await deps.keys.getByOwnerAndId(owner, id);
      // Another user's key and no key at all look the same: no way to learn which ids exist.
      if (record === undefined) throw new ApiError('KEY_NOT_FOUND', 'You have no API key with this id.');
      await deps.keys.revoke(record.digest);
    });
}
