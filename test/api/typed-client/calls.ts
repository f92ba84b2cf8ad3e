/**
 * A call to every operation of the OpenAPI document, written against the client openapi-fetch
 * builds from the types openapi-typescript generates from it. test/api/typed-client.test.ts
 * generates those types from the document the code builds now, type-checks this file against
 * them with tsc, and then runs each call against the local server. `./openapi-types` exists only
 * in that test's work folder, so this folder is left out of the project's own typecheck.
 */
import { gzipSync } from 'node:zlib';
import type { Client } from 'openapi-fetch';
import type { paths } from './openapi-types';

export type ApiClient = Client<paths>;

/** What the calls share: credentials, the fake external API, and ids earlier calls created. */
export interface CallContext {
  client: ApiClient;
  /** `Authorization` header values. */
  userToken: string;
  apiKey: string;
  /** A URL on the fake external API that answers with the worked example. */
  upstreamUrl: string;
  createdKeyId?: string;
  systemId?: string;
  connectedSystemId?: string;
}

export interface CallResult {
  operationId: string;
  status: number;
}

const WORKED = {
  nodes: [
    { id: 'A', load: 10 },
    { id: 'B', load: 0, capacity: 4 },
    { id: 'C', load: 0 },
  ],
  dependencies: [
    { from: 'A', to: 'B' },
    { from: 'A', to: 'C' },
    { from: 'B', to: 'C' },
  ],
};

const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

/** The calls, in an order where each finds what it needs: keys, systems, the engine, then deletes. */
export const CALLS: ReadonlyArray<[operationId: string, call: (context: CallContext) => Promise<number>]> = [
  ['getOpenApiDocument', async ({ client }) => (await client.GET('/api/openapi.json')).response.status],
  ['getOpenApiDocumentHead', async ({ client }) => (await client.HEAD('/api/openapi.json')).response.status],
  [
    'createKey',
    async (context) => {
      const { data, response } = await context.client.POST('/api/keys', {
        headers: bearer(context.userToken),
        body: { name: 'typed client' },
      });
      if (data !== undefined) context.createdKeyId = data.id;
      return response.status;
    },
  ],
  [
    'listKeys',
    async ({ client, userToken }) =>
      (await client.GET('/api/keys', { headers: bearer(userToken) })).response.status,
  ],
  [
    'listKeysHead',
    async ({ client, userToken }) =>
      (await client.HEAD('/api/keys', { headers: bearer(userToken) })).response.status,
  ],
  [
    'runEngine',
    async ({ client, apiKey }) => {
      const { data, response } = await client.POST('/api/engine', {
        headers: bearer(apiKey),
        body: { mode: 'analyze', ...WORKED },
      });
      if (data !== undefined && data.mode === 'analyze' && data.engine.primaryBlockage !== 'B') return 0;
      // The same body as text, as curl's plain -d would send it, and gzip-compressed as bytes.
      const asText = await client.POST('/api/engine', {
        headers: { ...bearer(apiKey), 'Content-Type': 'text/plain' },
        body: JSON.stringify({ mode: 'tick', ...WORKED }),
        bodySerializer: (text) => text,
      });
      const compressed = await client.POST('/api/engine', {
        params: { header: { 'Content-Encoding': 'gzip' } },
        headers: { ...bearer(apiKey), 'Content-Type': 'application/octet-stream' },
        body: JSON.stringify({ mode: 'ticks', ticks: 2, ...WORKED }),
        bodySerializer: (body) => gzipSync(typeof body === 'string' ? body : JSON.stringify(body)),
      });
      return Math.max(response.status, asText.response.status, compressed.response.status);
    },
  ],
  [
    'registerSystem',
    async (context) => {
      const { data, response } = await context.client.POST('/api/systems', {
        headers: bearer(context.userToken),
        body: { name: 'typed system', document: WORKED },
      });
      if (data !== undefined) context.systemId = data.id;
      return response.status;
    },
  ],
  [
    'listSystems',
    async ({ client, userToken }) =>
      (await client.GET('/api/systems', { headers: bearer(userToken), params: { query: { limit: 10 } } }))
        .response.status,
  ],
  [
    'listSystemsHead',
    async ({ client, userToken }) =>
      (await client.HEAD('/api/systems', { headers: bearer(userToken), params: { query: { limit: 10 } } }))
        .response.status,
  ],
  [
    'getSystem',
    async ({ client, userToken, systemId }) =>
      (
        await client.GET('/api/systems/{id}', {
          headers: bearer(userToken),
          params: { path: { id: systemId ?? '' } },
        })
      ).response.status,
  ],
  [
    'getSystemHead',
    async ({ client, userToken, systemId }) =>
      (
        await client.HEAD('/api/systems/{id}', {
          headers: bearer(userToken),
          params: { path: { id: systemId ?? '' } },
        })
      ).response.status,
  ],
  [
    'updateSystemSettings',
    async ({ client, userToken, systemId }) =>
      (
        await client.PATCH('/api/systems/{id}', {
          headers: bearer(userToken),
          params: { path: { id: systemId ?? '' } },
          body: { settings: { defaultCapacity: 5, nodes: { B: { capacity: 4 } } } },
        })
      ).response.status,
  ],
  [
    'connectSystem',
    async (context) => {
      const { data, response } = await context.client.POST('/api/connect', {
        headers: bearer(context.userToken),
        body: { name: 'typed connect', url: context.upstreamUrl, auth: { token: 'external-token' } },
      });
      if (data !== undefined && 'id' in data) context.connectedSystemId = data.id;
      return response.status;
    },
  ],
  [
    'refreshSystem',
    async ({ client, userToken, connectedSystemId }) =>
      (
        await client.POST('/api/systems/{id}/refresh', {
          headers: bearer(userToken),
          params: { path: { id: connectedSystemId ?? '' } },
          body: { auth: { token: 'external-token' } },
        })
      ).response.status,
  ],
  [
    'deleteSystem',
    async ({ client, userToken, systemId }) =>
      (
        await client.DELETE('/api/systems/{id}', {
          headers: bearer(userToken),
          params: { path: { id: systemId ?? '' } },
        })
      ).response.status,
  ],
  [
    'revokeKey',
    async ({ client, userToken, createdKeyId }) =>
      (
        await client.DELETE('/api/keys/{id}', {
          headers: bearer(userToken),
          params: { path: { id: createdKeyId ?? '' } },
        })
      ).response.status,
  ],
];

/**
 * Calls the generated types must refuse: each line compiles only while its error exists, so a
 * document that lost a HEAD's path id or a body's required field fails the compile step. Never
 * run.
 */
export const REFUSED_BY_THE_TYPES: ReadonlyArray<(client: ApiClient) => unknown> = [
  // @ts-expect-error HEAD /api/systems/{id} takes the GET's required path id.
  (client) => client.HEAD('/api/systems/{id}', { params: { path: {} } }),
  // @ts-expect-error a key needs its name.
  (client) => client.POST('/api/keys', { body: {} }),
  // @ts-expect-error the engine has no GET.
  (client) => client.GET('/api/engine'),
];
