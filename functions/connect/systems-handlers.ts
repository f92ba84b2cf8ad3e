import { parseConnectRequest, structureFromUpstream } from '../../lib/api/connect-request';
import { ApiError } from '../../lib/api/errors';
import type { Limits } from '../../lib/config/limits';
import { jsonTextResult } from '../../lib/http/responses';
import { type AllowedHosts, fetchJson, OutboundError } from '../../lib/outbound';
import { SystemInputError, type SystemStore, toPublicSystemRecord } from '../../lib/systems';
import { type UserRouteDeps, userRoute } from './user-route';

export interface SystemHandlerDeps extends UserRouteDeps {
  systemStore: SystemStore;
  limits: Limits;
  /** `CONNECT_ALLOW_HOSTS`: hosts the outbound fetch may reach although they are not public. */
  allowHosts: AllowedHosts;
}

const NOT_FOUND_MESSAGE = 'You have no system with this id.';

function asInvalidRequest(error: SystemInputError): ApiError {
  return new ApiError('INVALID_REQUEST', error.message, {
    details: [{ path: error.field, message: error.message }],
  });
}

/**
 * `POST /api/connect` and the caller's systems. Connect fetches the external API (SSRF-safe,
 * `lib/outbound`), reads the structure by the engine's own rules and stores it for the caller;
 * the external token is used for that one fetch and kept nowhere.
 */
export function createSystemHandlers(deps: SystemHandlerDeps) {
  const { systemStore, limits, allowHosts } = deps;

  const connectSystem = userRoute(
    deps,
    async ({ sub, body }) => {
      const request = parseConnectRequest(body);
      const fetched = await fetchJson(request.url, {
        allowHosts,
        ...(request.token === undefined ? {} : { token: request.token }),
      }).catch((error: unknown) => {
        if (error instanceof OutboundError) throw new ApiError(error.code, error.message);
        throw error;
      });
      const { structure } = structureFromUpstream(fetched.body, limits);
      const record = await systemStore
        .create({ owner: sub, name: request.name, url: request.url, structure })
        .catch((error: unknown) => {
          // Checked before anything is written: too large to store is a 413, like every other size limit.
          if (error instanceof SystemInputError && error.field === 'structure') {
            throw new ApiError('LIMIT_EXCEEDED', error.message);
          }
          if (error instanceof SystemInputError) throw asInvalidRequest(error);
          throw error;
        });
      return jsonTextResult(201, JSON.stringify(toPublicSystemRecord(record)));
    },
    { body: true },
  );

  const listSystems = userRoute(
    deps,
    async ({ sub, event }) => {
      const query = event.queryStringParameters ?? {};
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      try {
        const page = await systemStore.list(sub, {
          ...(limit === undefined ? {} : { limit }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        });
        const systems = page.systems.map(toPublicSystemRecord);
        return jsonTextResult(
          200,
          JSON.stringify(page.cursor === undefined ? { systems } : { systems, cursor: page.cursor }),
        );
      } catch (error) {
        if (error instanceof SystemInputError) throw asInvalidRequest(error);
        throw error;
      }
    },
    { body: false },
  );

  const getSystem = userRoute(
    deps,
    async ({ sub, event }) => {
      const found = await systemStore.get(sub, event.pathParameters?.id ?? '');
      if (found === undefined) throw new ApiError('SYSTEM_NOT_FOUND', NOT_FOUND_MESSAGE);
      return jsonTextResult(
        200,
        JSON.stringify({ ...toPublicSystemRecord(found.record), structure: found.structure }),
      );
    },
    { body: false },
  );

  const deleteSystem = userRoute(
    deps,
    async ({ sub, event }) => {
      if (!(await systemStore.delete(sub, event.pathParameters?.id ?? ''))) {
        throw new ApiError('SYSTEM_NOT_FOUND', NOT_FOUND_MESSAGE);
      }
      return { statusCode: 204, headers: {}, body: '' };
    },
    { body: false },
  );

  return { connectSystem, listSystems, getSystem, deleteSystem };
}
