/**
 * A typed client, as a consumer would build one: openapi-typescript turns the document the code
 * builds now into types, tsc compiles a call to every operation with openapi-fetch against them
 * (test/api/typed-client/calls.ts), and each call then runs against the local server over real
 * HTTP (dynalite behind it, a fake external API on loopback for connect and refresh).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';
import { serializeOpenApiDocument } from '../../lib/api/openapi';
import { WORKED } from '../http/events';
import { startTestServer, type TestServer } from '../integration/server';
import { type FakeApi, startFakeApi } from '../outbound/fake-api';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
const doc: any = JSON.parse(serializeOpenApiDocument());
const operationIds = Object.values<Record<string, { operationId: string }>>(doc.paths).flatMap((operations) =>
  Object.values(operations).map((operation) => operation.operationId),
);

/** test/api/typed-client/calls.ts, seen through what this test uses of it. */
interface CallsModule {
  CALLS: ReadonlyArray<[operationId: string, call: (context: unknown) => Promise<number>]>;
  REFUSED_BY_THE_TYPES: readonly unknown[];
}
const CALLS_FILE = join(PROJECT_ROOT, 'test/api/typed-client/calls.ts');
// Loaded by path: its types exist only once this test has generated them, so the project's own
// typecheck must not follow the import (tsconfig.json leaves the folder out).
const { CALLS, REFUSED_BY_THE_TYPES } = (await import(pathToFileURL(CALLS_FILE).href)) as CallsModule;

// Inside the project, so `openapi-fetch` and `@types/node` resolve from its node_modules.
const cacheDir = join(PROJECT_ROOT, 'node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const workDir = mkdtempSync(join(cacheDir, 'sbe-typed-client-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('the typed client', () => {
  it('compiles a call to every operation against types generated from the document', async () => {
    writeFileSync(join(workDir, 'openapi-types.ts'), astToString(await openapiTS(doc)));
    copyFileSync(CALLS_FILE, join(workDir, 'calls.ts'));
    writeFileSync(
      join(workDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'DOM'],
          module: 'preserve',
          moduleResolution: 'bundler',
          strict: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(PROJECT_ROOT, 'node_modules', '@types')],
        },
        files: ['calls.ts', 'openapi-types.ts'],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules/typescript-native/bin/tsc'), '-p', join(workDir, 'tsconfig.json')],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    expect(REFUSED_BY_THE_TYPES.length).toBeGreaterThan(0);
  }, 150_000);

  it('calls every operation the document has, HEAD included', () => {
    expect(CALLS.map(([operationId]) => operationId).sort()).toEqual([...operationIds].sort());
  });

  describe('against the local server', () => {
    let server: TestServer;
    let upstream: FakeApi;
    let context: unknown;

    beforeAll(async () => {
      server = await startTestServer({ LOG_LEVEL: 'WARN', CONNECT_ALLOW_HOSTS: '127.0.0.1' });
      upstream = await startFakeApi((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(WORKED));
      });
      context = {
        client: createClient({ baseUrl: server.url }),
        userToken: server.userToken,
        apiKey: server.apiKey,
        upstreamUrl: `${upstream.origin}/graph.json`,
      };
    });

    afterAll(async () => {
      await upstream?.close();
      await server?.close();
    });

    it.each(CALLS.map(([operationId, call]) => ({ operationId, call })))(
      '$operationId answers 2xx',
      async ({ call }) => {
        const status = await call(context);
        expect(status).toBeGreaterThanOrEqual(200);
        expect(status).toBeLessThan(300);
      },
    );
  });
});
