/**
 * The deploy rehearsal: what `cdk deploy` ships, run before it ships. The stack is synthesized
 * as `npm run synth` does (the CDK CLI, esbuild bundling), and each function's bundle from that
 * cloud assembly runs in a Node 24 process of its own (the template's `nodejs24.x`) with the
 * environment the template gives it, behind API Gateway's HTTP API as local/http-api-event.ts
 * models it (v2.0 events, `$default` for unknown routes, Lambda's 6 MB invocation limit). Every
 * request is sent, byte for byte, to that and to the local server (`npm start`, the TypeScript
 * sources in one process); the answers must be the same bytes: status, the headers that carry
 * meaning, body.
 *
 * Stand-ins, each where the deployed function reads its settings (its environment): the table
 * (`TABLE_NAME` → the local server's table, `DYNAMODB_ENDPOINT` → its dynalite), the user pool
 * (`USER_POOL_ID`, `USER_POOL_CLIENT_ID` → `LOCAL_ISSUER_FILE`, the local token issuer: Cognito
 * is not reachable offline), and `CONNECT_ALLOW_HOSTS=127.0.0.1` so connect may fetch the sample
 * document the local server serves, as `npm start` allows. Any other setting the template gains
 * is passed as it is, or, if it is a reference, stops the rehearsal until it has a stand-in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_RUNTIME } from '../../infra/functions';
import { DEFAULT_ROUTE_FUNCTION, FUNCTIONS, type FunctionName, routes } from '../../lib/http/routes';
import { createHttpAdapter } from '../../local/http-adapter';
import { type LocalServer, startLocalServer } from '../../local/server';
import { WORKED } from '../http/events';
import { type RawAnswer, type RawRequest, rawRequest } from '../integration/server';
import {
  functionsOf,
  type SynthesizedFunction,
  synthesizeAssembly,
  type TemplateValue,
} from './rehearsal/assembly';
import { type BundledFunction, startBundledFunction } from './rehearsal/lambda-runtime';

/** API Gateway's own limit on an HTTP API request body; Lambda's 6 MB on the event is lower. */
const GATEWAY_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** Headers that differ between any two servers and carry nothing the service decided. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

let outdir: string;
let local: LocalServer;
let functions: Record<FunctionName, SynthesizedFunction>;
const running = new Map<FunctionName, BundledFunction>();
let gateway: Server;
let deployedUrl: string;

/** The environment Lambda gives the function: the template's variables with local stand-ins, and Lambda's own. */
function lambdaEnvironment(fn: SynthesizedFunction): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment) as Array<[string, TemplateValue]>) {
    if (typeof value === 'string') env[name] = value;
    else if (name === 'TABLE_NAME') env[name] = local.tableName;
    else if (name === 'USER_POOL_ID') env.LOCAL_ISSUER_FILE = local.issuerFile;
    else if (name !== 'USER_POOL_CLIENT_ID') {
      throw new Error(
        `${fn.name}: ${name} is ${JSON.stringify(value)} in the template and has no local stand-in`,
      );
    }
  }
  return {
    ...env,
    DYNAMODB_ENDPOINT: local.dynamoEndpoint,
    ...(fn.name === 'connect' ? { CONNECT_ALLOW_HOSTS: '127.0.0.1' } : {}),
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'rehearsal',
    AWS_SECRET_ACCESS_KEY: 'rehearsal',
    AWS_SESSION_TOKEN: 'rehearsal',
    AWS_LAMBDA_FUNCTION_NAME: `rehearsal-${fn.name}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.assetDir,
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
  };
}

beforeAll(async () => {
  // The local server's request lines (the bundles' go nowhere, as their stdout is not kept).
  process.env.LOG_LEVEL = 'SILENT';
  outdir = mkdtempSync(join(tmpdir(), 'sbe-rehearsal-'));
  const [, started] = await Promise.all([
    synthesizeAssembly(outdir),
    startLocalServer({ port: 0, dynamoPort: 0, quiet: true, apiKeyCacheTtlMs: 0 }),
  ]);
  local = started;
  functions = functionsOf(outdir);
  for (const fn of Object.values(functions)) {
    running.set(
      fn.name,
      await startBundledFunction({
        assetDir: fn.assetDir,
        handler: fn.handler,
        functionName: `rehearsal-${fn.name}`,
        timeoutSeconds: fn.timeoutSeconds,
        memoryMb: fn.memoryMb,
        env: lambdaEnvironment(fn),
      }),
    );
  }
  const invoke = (name: FunctionName) => running.get(name)!.invoke;
  gateway = createServer(
    createHttpAdapter({
      routes: routes.map((route) => ({ ...route, handler: invoke(route.function) })),
      defaultRoute: invoke(DEFAULT_ROUTE_FUNCTION),
      maxBodyBytes: GATEWAY_BODY_LIMIT_BYTES,
      enforceInvocationLimit: true,
      onHandlerError: (error) => {
        throw error;
      },
    }),
  );
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  deployedUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
}, 240_000);

afterAll(async () => {
  if (gateway !== undefined) {
    gateway.closeAllConnections();
    await new Promise((resolve) => gateway.close(resolve));
  }
  for (const fn of running.values()) await fn.close();
  await local?.close();
  rmSync(outdir, { recursive: true, force: true });
});

function meaningfulHeaders(answer: RawAnswer): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !TRANSPORT_HEADERS.has(name)));
}

/** Sends the same request to the local server and to the deployed bundles; both answers. */
async function both(sent: RawRequest): Promise<{ local: RawAnswer; deployed: RawAnswer }> {
  const localAnswer = await rawRequest(local.url, sent);
  const deployedAnswer = await rawRequest(deployedUrl, sent);
  return { local: localAnswer, deployed: deployedAnswer };
}

/** Asserts the two answers are the same bytes, and returns the local one. */
async function sameAnswer(sent: RawRequest): Promise<RawAnswer> {
  const { local: localAnswer, deployed } = await both(sent);
  expect({
    status: deployed.status,
    headers: meaningfulHeaders(deployed),
    body: deployed.bytes.toString('latin1'),
  }).toEqual({
    status: localAnswer.status,
    headers: meaningfulHeaders(localAnswer),
    body: localAnswer.bytes.toString('latin1'),
  });
  return localAnswer;
}

const json = (answer: RawAnswer) => JSON.parse(answer.bytes.toString('utf8'));

function engineRequest(body: unknown, headers: Record<string, string> = {}, key = local.apiKey): RawRequest {
  return {
    method: 'POST',
    path: '/api/engine',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  };
}

describe('the synthesized functions', () => {
  // The template's runtime is the one the project runs on, and each bundle really ran on it.
  it('run on Node 24, the runtime the template names', () => {
    expect(FUNCTION_RUNTIME.name).toBe('nodejs24.x');
    for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
      expect(functions[name].runtime).toBe('nodejs24.x');
      expect(running.get(name)!.nodeVersion).toMatch(/^v24\./);
    }
  });
});

describe('POST /api/engine deployed and local: the same bytes', () => {
  it('the worked example', async () => {
    const answer = await sameAnswer(engineRequest({ mode: 'analyze', ...WORKED }));
    expect(answer.status).toBe(200);
    expect(JSON.stringify(json(answer))).toContain('"primaryBlockage"');
  });

  it('ticks, compressed for a client that takes gzip', async () => {
    const answer = await sameAnswer(
      engineRequest({ mode: 'ticks', ticks: 20, ...WORKED }, { 'accept-encoding': 'gzip' }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
  });

  // A gzip body needs a binary Content-Type: API Gateway then hands it over as base64.
  it('a gzip request body, base64 in the event', async () => {
    const gzip = gzipSync(JSON.stringify({ mode: 'tick', ...WORKED }));
    const answer = await sameAnswer(
      engineRequest(gzip, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }),
    );
    expect(answer.status).toBe(200);
  });

  // Cookies and a query string do not change the answer, in either event.
  it('with cookies, repeated headers and a query string', async () => {
    const sent = engineRequest({ mode: 'analyze', ...WORKED }, { cookie: 'a=1; b=2', 'x-tag': 'one' });
    const answer = await sameAnswer({
      ...sent,
      path: '/api/engine?debug=1&debug=2',
      headers: { ...sent.headers, 'X-Tag': ['one', 'two'] },
    });
    expect(answer.status).toBe(200);
  });

  it('401 without a key, 403 for an unknown key', async () => {
    const { authorization: _, ...anonymous } = engineRequest({ mode: 'analyze', ...WORKED })
      .headers as Record<string, string>;
    const missing = await sameAnswer({
      ...engineRequest({ mode: 'analyze', ...WORKED }),
      headers: anonymous,
    });
    expect(missing.status).toBe(401);
    const unknown = await sameAnswer(
      engineRequest({ mode: 'analyze', ...WORKED }, {}, `sbe_${'x'.repeat(40)}`),
    );
    expect(unknown.status).toBe(403);
    expect(json(unknown).error.code).toBe('INVALID_API_KEY');
  });

  // Deployed, an unknown path reaches the engine function through `$default`; locally the
  // adapter answers it: the same 404, and the same 405 with Allow for a known path.
  it('404 for an unknown path and 405 for a wrong method, through $default', async () => {
    const notFound = await sameAnswer({ method: 'GET', path: '/api/nowhere' });
    expect(notFound.status).toBe(404);
    const wrongMethod = await sameAnswer({ method: 'GET', path: '/api/engine' });
    expect(wrongMethod.status).toBe(405);
  });

  // A few kilobytes of gzip that inflate past MAX_DECODED_BODY_BYTES: the function's own 413.
  it('413 for a body that inflates past the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20));
    const answer = await sameAnswer(
      engineRequest(bomb, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }),
    );
    expect(answer.status).toBe(413);
    expect(json(answer).error.code).toBe('LIMIT_EXCEEDED');
  });

  // Over Lambda's 6 MB invocation limit the function is never called: API Gateway answers 413
  // with its own body, where the local server's function answers its 413 LIMIT_EXCEEDED
  // (docs/api.md, "6 MB means 6 MiB"). Same status, different bodies, by design.
  it('413 for an event over Lambda’s 6 MB invocation limit', async () => {
    const body = JSON.stringify({ mode: 'analyze', ...WORKED, padding: 'x'.repeat(6 * 1024 * 1024) });
    const { local: localAnswer, deployed } = await both(engineRequest(body));
    expect(localAnswer.status).toBe(413);
    expect(json(localAnswer).error.code).toBe('LIMIT_EXCEEDED');
    expect(deployed.status).toBe(413);
    expect(json(deployed)).toEqual({ message: 'Request Entity Too Large' });
  });
});

// Deployed, the document is read from the copy the stack puts beside the bundle
// (FUNCTION_FILES, infra/functions.ts); locally, from the project's openapi.json.
describe('GET /api/openapi.json deployed and local: the same bytes', () => {
  it('the document, and compressed for a client that takes br', async () => {
    const plain = await sameAnswer({ method: 'GET', path: '/api/openapi.json' });
    expect(plain.status).toBe(200);
    expect(json(plain).paths['/api/engine']).toBeDefined();
    const compressed = await sameAnswer({
      method: 'GET',
      path: '/api/openapi.json',
      headers: { 'accept-encoding': 'br' },
    });
    expect(compressed.headers['content-encoding']).toBe('br');
  });
});

describe('the user routes deployed and local: the same bytes', () => {
  const auth = () => ({ authorization: `Bearer ${local.userToken}` });
  const sample = () => `${local.url}/examples/worked-example.json`;

  /** Replaces the ids and times only one server could have chosen, so the rest compares byte for byte. */
  function normalized(
    answer: RawAnswer,
    id: string,
  ): { status: number; headers: Record<string, unknown>; body: string } {
    const generalize = (text: string) =>
      text.replaceAll(id, '<id>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>');
    return {
      status: answer.status,
      headers: JSON.parse(generalize(JSON.stringify(meaningfulHeaders(answer)))),
      body: generalize(answer.bytes.toString('utf8')),
    };
  }

  it('connect, list, read, run by id and delete', async () => {
    const connect: RawRequest = {
      method: 'POST',
      path: '/api/connect',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rehearsal', url: sample() }),
    };
    const { local: viaLocal, deployed: viaDeployed } = await both(connect);
    expect(viaLocal.status).toBe(201);
    const localId = json(viaLocal).id as string;
    const deployedId = json(viaDeployed).id as string;
    expect(normalized(viaDeployed, deployedId)).toEqual(normalized(viaLocal, localId));

    // Both registrations are in the one table: each side lists and reads both, identically.
    const list = await sameAnswer({ method: 'GET', path: '/api/systems', headers: auth() });
    expect(
      json(list)
        .systems.map((system: { id: string }) => system.id)
        .sort(),
    ).toEqual([localId, deployedId].sort());
    for (const id of [localId, deployedId]) {
      expect((await sameAnswer({ method: 'GET', path: `/api/systems/${id}`, headers: auth() })).status).toBe(
        200,
      );
      const run = await sameAnswer(engineRequest({ mode: 'analyze', systemId: id }));
      expect(run.status).toBe(200);
    }

    await sameAnswer({ method: 'GET', path: '/api/keys', headers: auth() });
    // Each side deletes the system the other registered.
    const deletedByDeployed = await rawRequest(deployedUrl, {
      method: 'DELETE',
      path: `/api/systems/${localId}`,
      headers: auth(),
    });
    const deletedByLocal = await rawRequest(local.url, {
      method: 'DELETE',
      path: `/api/systems/${deployedId}`,
      headers: auth(),
    });
    expect(deletedByDeployed.status).toBe(deletedByLocal.status);
    expect(deletedByDeployed.bytes.toString()).toBe(deletedByLocal.bytes.toString());
    expect(meaningfulHeaders(deletedByDeployed)).toEqual(meaningfulHeaders(deletedByLocal));
    const gone = await sameAnswer({ method: 'GET', path: `/api/systems/${localId}`, headers: auth() });
    expect(gone.status).toBe(404);
  });

  // The routes the connect function loads at their first request (the graph readers and the
  // request schemas, chunks of their own in the bundle): each answers as locally.
  it('register, change settings, refresh, create and revoke a key', async () => {
    const json201 = (path: string, body: unknown): RawRequest => ({
      method: 'POST',
      path,
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const registered = await both(
      json201('/api/systems', { name: 'registered', document: WORKED, url: sample() }),
    );
    expect(registered.local.status).toBe(201);
    const ids = {
      local: json(registered.local).id as string,
      deployed: json(registered.deployed).id as string,
    };
    expect(normalized(registered.deployed, ids.deployed)).toEqual(normalized(registered.local, ids.local));

    /** The same request to each side, on the system (or key) that side made. */
    const eachOn = async (own: { local: string; deployed: string }, sent: (id: string) => RawRequest) => {
      const viaLocal = await rawRequest(local.url, sent(own.local));
      const viaDeployed = await rawRequest(deployedUrl, sent(own.deployed));
      expect(normalized(viaDeployed, own.deployed)).toEqual(normalized(viaLocal, own.local));
      return viaLocal;
    };
    const patch = await eachOn(ids, (id) => ({
      method: 'PATCH',
      path: `/api/systems/${id}`,
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { defaultCapacity: 5 } }),
    }));
    expect(patch.status).toBe(200);
    const refreshed = await eachOn(ids, (id) => json201(`/api/systems/${id}/refresh`, {}));
    expect(refreshed.status).toBe(200);
    for (const [side, url] of [
      ['local', local.url],
      ['deployed', deployedUrl],
    ] as const) {
      const deleted = await rawRequest(url, {
        method: 'DELETE',
        path: `/api/systems/${ids[side]}`,
        headers: auth(),
      });
      expect(deleted.status).toBe(204);
    }

    const created = await both(json201('/api/keys', { name: 'rehearsal' }));
    expect(created.local.status).toBe(201);
    const keyOf = (answer: RawAnswer) => json(answer) as { id: string; key: string; prefix: string };
    /** The answer with the key and its prefix (a secret only one side could have drawn) generalized too. */
    const keyAnswer = (answer: RawAnswer) => {
      const { id, key, prefix } = keyOf(answer);
      const text = answer.bytes.toString('utf8').replaceAll(key, '<key>').replaceAll(prefix, '<prefix>');
      return normalized({ ...answer, bytes: Buffer.from(text) }, id);
    };
    expect(keyAnswer(created.deployed)).toEqual(keyAnswer(created.local));
    const keys = { local: keyOf(created.local).id, deployed: keyOf(created.deployed).id };
    const revoked = await eachOn(keys, (id) => ({
      method: 'DELETE',
      path: `/api/keys/${id}`,
      headers: auth(),
    }));
    expect(revoked.status).toBe(204);
  });

  it('401 without a token and for an API key in its place', async () => {
    expect((await sameAnswer({ method: 'GET', path: '/api/systems' })).status).toBe(401);
    const withKey = await sameAnswer({
      method: 'GET',
      path: '/api/systems',
      headers: { authorization: `Bearer ${local.apiKey}` },
    });
    expect(withKey.status).toBe(401);
  });

  it('400 naming the field for a bad connect body', async () => {
    const answer = await sameAnswer({
      method: 'POST',
      path: '/api/connect',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no url' }),
    });
    expect(answer.status).toBe(400);
  });
});
