import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { DynamoApiKeyStore } from '../../lib/keys';
import { type LocalServer, startLocalServer } from '../../local/server';

/**
 * Starts the local server in this process on free ports, after setting the environment the
 * Lambda handlers read at import (limits, log level, the connect function's CONNECT_* settings).
 * One per test file: the handlers are loaded once per process, like a Lambda cold start.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { apiKeyCacheTtlMs?: number } = {},
): Promise<TestServer> {
  for (const [name, value] of Object.entries(env)) process.env[name] = value;
  // Each test server signs tokens with a key of its own: servers in parallel files never share one.
  const issuerFile = join(mkdtempSync(join(tmpdir(), 'sbe-test-issuer-')), 'local-issuer.json');
  const server = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    quiet: true,
    apiKeyCacheTtlMs: options.apiKeyCacheTtlMs ?? 0,
    issuerFile,
  });
  const { client, doc } = createDynamoClients({ endpoint: server.dynamoEndpoint });
  const store = new DynamoApiKeyStore({ doc, tableName: server.tableName });
  return {
    ...server,
    store,
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

export interface TestServer extends LocalServer {
  /** The server's own key store, for issuing and revoking keys the way the keys CLI does. */
  store: DynamoApiKeyStore;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  json: any;
}

/** POST a body (an object is JSON-encoded, a string or bytes sent as they are) over real HTTP with fetch. */
export async function post(
  base: string,
  key: string | null,
  body: unknown,
  options: { headers?: Record<string, string>; path?: string; method?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const response = await fetch(base + (options.path ?? '/api/engine'), {
    method: options.method ?? 'POST',
    headers,
    ...(body === undefined
      ? {}
      : { body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** One request sent with node:http, as it is written here (a body not re-encoded, headers as given). */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string;
}

/** The answer to a `RawRequest`: its raw (still encoded) bytes, which fetch would decode. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** Sends `sent` to `base` over real HTTP and returns the answer's raw bytes. */
export function rawRequest(base: string, sent: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${sent.path}`,
      { method: sent.method, headers: sent.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(sent.body);
  });
}

/** POST /api/engine with node:http and return the raw (still encoded) response bytes. */
export function rawPost(base: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return rawRequest(base, { method: 'POST', path: '/api/engine', headers, body });
}
