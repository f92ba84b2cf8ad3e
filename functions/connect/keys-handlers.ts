import { ApiError } from '../../lib/api/errors';
import { isRecord } from '../../lib/engine';
import { jsonTextResult } from '../../lib/http/responses';
import { ApiKeyInputError, type ApiKeyStore, issueApiKey, toPublicApiKeyRecord } from '../../lib/keys';
import { type UserRouteDeps, userRoute } from './user-route';

/**
 * Self-service API keys: a user with an access token creates, lists and revokes the keys that
 * act for them (`owner` = the token's `sub`). The keys CLI stays the operators' tool.
 */
export function createKeyHandlers(deps: UserRouteDeps & { keyStore: ApiKeyStore }) {
  const { keyStore } = deps;

  const createKey = userRoute(
    deps,
    async ({ sub, body }) => {
      const name = isRecord(body) ? body.name : undefined;
      try {
        const { key, record } = await issueApiKey(keyStore, { owner: sub, name: name as string });
        const { owner: _owner, ...shown } = toPublicApiKeyRecord(record);
        // The only time the key exists in clear outside the caller: it is not stored and not logged.
        return jsonTextResult(201, JSON.stringify({ key, ...shown }));
      } catch (error) {
        if (error instanceof ApiKeyInputError && error.field === 'name') {
          throw new ApiError(
            'INVALID_REQUEST',
            `${error.message}; send { "name": "<a label for the key>" }`,
            {
              details: [{ path: 'name', message: error.message }],
            },
          );
        }
        throw error;
      }
    },
    { body: true },
  );

  const listKeys = userRoute(
    deps,
    async ({ sub }) => {
      const keys = (await keyStore.listByOwner(sub)).map((record) => {
        const { owner: _owner, ...shown } = toPublicApiKeyRecord(record);
        return shown;
      });
      return jsonTextResult(200, JSON.stringify({ keys }));
    },
    { body: false },
  );

  const revokeKey = userRoute(
    deps,
    async ({ sub, event }) => {
      const id = event.pathParameters?.id ?? '';
      const record = (await keyStore.listByOwner(sub)).find((candidate) => candidate.id === id);
      // Another user's key and no key at all look the same: no way to learn which ids exist.
      if (record === undefined) throw new ApiError('KEY_NOT_FOUND', 'You have no API key with this id.');
      await keyStore.revoke(record.digest);
      return { statusCode: 204, headers: {}, body: '' };
    },
    { body: false },
  );

  return { createKey, listKeys, revokeKey };
}
