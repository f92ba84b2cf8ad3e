// Each use case from its own module (lib/app has no index): the graph-reading ones
// (./graph-routes.ts) and the key body's schema are loaded at their first request, below.
import { BODY_SHAPES } from '../../lib/app/body-shapes';
import { createDeleteSystem } from '../../lib/app/delete-system';
import { createGetSystem, WHOLE_SYSTEM_ADVICE } from '../../lib/app/get-system';
import { createListKeys } from '../../lib/app/list-keys';
import { createListSystems } from '../../lib/app/list-systems';
import { createRevokeKey } from '../../lib/app/revoke-key';
import type { Limits } from '../../lib/config/limits';
import { createFunctionHandler, type FunctionOptions } from '../../lib/http/dispatch';
import type { RouteRequest } from '../../lib/http/http-route';
import { readHeader } from '../../lib/http/middleware';
import { type HttpResult, jsonTextResult } from '../../lib/http/responses';
import type { ApiKeyStore } from '../../lib/keys';
import { loadOnce } from '../../lib/load-once';
import type { FetchJsonOptions } from '../../lib/outbound';
import { documentContainerCap } from '../../lib/outbound/container-cap';
import { fetchedHostOf } from '../../lib/outbound/fetched-host';
import type { CompiledStructureCache, SystemStore } from '../../lib/systems';

export interface ConnectFunctionDeps extends FunctionOptions {
  keys: ApiKeyStore;
  systems: SystemStore;
  limits: Limits;
  /** `CONNECT_ALLOW_HOSTS` and `CONNECT_DEADLINE_MS`. */
  outbound: Pick<FetchJsonOptions, 'allowHosts' | 'deadlineMs' | 'resolveHost' | 'trace'>;
  /** The process's compiled systems: a registration keeps what it compiled. */
  systemCache?: CompiledStructureCache | undefined;
}

/**
 * The request line's `fetchedHost` and `redirectedTo`: where connect or refresh is about to fetch
 * from, the first host and then each other one a redirect leads to.
 */
function logFetchedHost(request: RouteRequest, url: unknown): void {
  const host = fetchedHostOf(url);
  if (host === undefined) return;
  const { facts } = request;
  if (facts.fetchedHost === undefined) {
    facts.fetchedHost = host;
    return;
  }
  const redirectedTo = facts.redirectedTo ?? [];
  if (host !== facts.fetchedHost && !redirectedTo.includes(host))
    facts.redirectedTo = [...redirectedTo, host];
}

/**
 * Request bodies of the user routes are small (a name, a URL, a token): 64 KiB is plenty. A body
 * that is not JSON is the caller's mistake: 400, saying what the route takes.
 */
const smallBody = (expects: string, empty?: unknown, maxBytes = SMALL_BODY_BYTES) => ({
  maxBytes,
  maxDecodedBytes: maxBytes,
  expects,
  ...(empty === undefined ? {} : { empty }),
});
const SMALL_BODY_BYTES = 64 * 1024;
/**
 * A body that may carry settings (connect, `PATCH`): settings of up to 64 KiB of compact JSON
 * (`MAX_SETTINGS_BYTES`) written as a client may send them, indented or with ids as `\u` escapes
 * (six bytes for a character that is one in ASCII: 384 KiB at most), beside a name, a URL and
 * the options. At
 * 64 KiB, settings at their own limit could be registered with a document but never PATCHed.
 */
const SETTINGS_BODY_BYTES = 512 * 1024;

/**
 * Every route that takes a user access token: connect, the user's systems, self-service keys.
 *
 * What serves the routes that read a graph (./graph-routes.ts: the format readers, the engine,
 * the request schemas, the outbound fetch) and the key body's schema (zod) are loaded with
 * `import()` at the first request that needs them, once per instance, so a cold start that
 * lists systems or keys loads only the HTTP stack, the logger, the token verifier and the
 * stores; the request that loads a part pays its import, a few milliseconds, once
 * (docs/deploy.md, "Bundles and cold start").
 */
export function createConnectFunction(deps: ConnectFunctionDeps) {
  const { keys, systems, limits, outbound, systemCache, ...stack } = deps;
  const graphRoutes = loadOnce(async () =>
    (await import('./graph-routes')).createGraphRoutes({
      systems,
      limits,
      outbound,
      ...(systemCache ? { cache: systemCache } : {}),
    }),
  );
  const createKey = loadOnce(async () =>
    (await import('../../lib/app/create-key')).createCreateKey({ keys }),
  );
  const listSystems = createListSystems({ systems });
  const getSystem = createGetSystem({ systems });
  const deleteSystem = createDeleteSystem({ systems });
  const listKeys = createListKeys({ keys });
  const revokeKey = createRevokeKey({ keys });

  // The function's time, for the use cases that store: nothing is stored it may not cover.
  const functionTime = ({ remainingTimeMs, timeLimitMs }: RouteRequest) =>
    remainingTimeMs === undefined ? undefined : { remainingMs: remainingTimeMs, limitMs: timeLimitMs };
  // The stack has checked the token before any of these runs, so the owner is always there.
  const user = (request: RouteRequest) => request.owner!;
  const id = (request: RouteRequest) => request.pathParameters.id ?? '';

  return createFunctionHandler(
    'connect',
    {
      connectSystem: {
        body: smallBody(BODY_SHAPES.connect, undefined, SETTINGS_BODY_BYTES),
        handler: async (request) => {
          // Before the body is read: a body refused before any fetch is logged with its host too
          // (fetchJson tells the URLs it checks and fetches through `fetching`).
          logFetchedHost(request, (request.body as { url?: unknown } | null)?.url);
          const { connectSystem } = await graphRoutes();
          const answer = await connectSystem(
            user(request),
            request.body,
            (url) => logFetchedHost(request, url),
            functionTime(request),
          );
          // A dry run stores nothing: 200 with what a registration would have made, not 201.
          return json('dryRun' in answer ? 200 : 201, answer);
        },
      },
      registerSystem: {
        // The document itself: as large as an engine body, compressed bodies included.
        body: {
          maxBytes: limits.maxBodyBytes,
          maxDecodedBytes: limits.maxDecodedBodyBytes,
          // A graph or span document in any format connect reads: counted as the upstream ones are.
          maxContainers: documentContainerCap,
          expects: BODY_SHAPES.registerSystem,
        },
        handler: async (request) => {
          const { registerSystem } = await graphRoutes();
          return json(201, await registerSystem(user(request), request.body, functionTime(request)));
        },
      },
      listSystems: {
        handler: async (request) => {
          const { limit, cursor } = request.query;
          // A limit that is not a whole number in digits (`abc`, `1e1`, `0x10`, ` 1`) is the store's
          // to refuse, naming the field and what was sent.
          const options = {
            ...(limit === undefined ? {} : { limit: /^[0-9]+$/.test(limit) ? Number(limit) : limit }),
            ...(cursor === undefined ? {} : { cursor }),
          };
          return json(200, await listSystems(user(request), options));
        },
      },
      refreshSystem: {
        body: smallBody(BODY_SHAPES.refresh, {}),
        handler: async (request) => {
          const { refreshSystem } = await graphRoutes();
          return tagged(
            await refreshSystem(
              user(request),
              id(request),
              request.body,
              (url) => logFetchedHost(request, url),
              functionTime(request),
            ),
          );
        },
      },
      updateSystemSettings: {
        body: smallBody(BODY_SHAPES.patchSystem, undefined, SETTINGS_BODY_BYTES),
        handler: async (request) => {
          const { updateSettings } = await graphRoutes();
          return tagged(
            await updateSettings(
              user(request),
              id(request),
              request.body,
              {
                ifMatch: readHeader(request.event, 'if-match'),
                ifNoneMatch: readHeader(request.event, 'if-none-match'),
              },
              functionTime(request),
            ),
          );
        },
      },
      getSystem: {
        // The structure as stored, up to a full-size system's 20 MB of JSON: compressed when the
        // client allows, else a 413 that says how to get it, never past Lambda's 6 MB and no body.
        encode: {
          maxBytes: limits.maxResponseBytes,
          advice: WHOLE_SYSTEM_ADVICE,
        },
        handler: async (request) => tagged(await getSystem(user(request), id(request))),
      },
      deleteSystem: {
        handler: async (request) => {
          await deleteSystem(user(request), id(request));
          return noContent();
        },
      },
      createKey: {
        body: smallBody(BODY_SHAPES.createKey),
        handler: async (request) => json(201, await (await createKey())(user(request), request.body)),
      },
      listKeys: { handler: async (request) => json(200, await listKeys(user(request))) },
      revokeKey: {
        handler: async (request) => {
          await revokeKey(user(request), id(request));
          return noContent();
        },
      },
    },
    stack,
  );
}

function json(statusCode: number, value: unknown): HttpResult {
  return jsonTextResult(statusCode, JSON.stringify(value));
}

/** A system with the ETag of its settings, which a PATCH may send back in If-Match. */
function tagged({ system, etag }: { system: unknown; etag: string }): HttpResult {
  return jsonTextResult(200, JSON.stringify(system), { etag });
}

function noContent(): HttpResult {
  return { statusCode: 204, headers: {}, body: '' };
}
