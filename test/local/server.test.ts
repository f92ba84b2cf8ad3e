import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, workedExampleCurl } from '../../local/server';
import { freePort } from '../helpers/free-port';
import { captureOutput, WORKED } from '../http/events';

const DEV_KEY = 'sbe_localservertestkey0123456789abcdefgh';

async function analyze(url: string, key: string) {
  return fetch(`${url}/api/engine`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'analyze', ...WORKED }),
  });
}

describe('startLocalServer', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sbe-local-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  // The Lambda handlers read DYNAMODB_ENDPOINT once per process, like a cold start, so every
  // server in this file reuses one DynamoDB port.
  let dynamoPort: number;
  beforeAll(async () => {
    dynamoPort = await freePort();
  });

  // A DEV_API_KEY the service could never accept is refused up front, without repeating it.
  it('refuses a DEV_API_KEY that is too short, without echoing it', async () => {
    const attempt = startLocalServer({ apiKey: 'sbe_tooshort', quiet: true, port: 0, dynamoPort: 0 });
    await expect(attempt).rejects.toThrow(/DEV_API_KEY must be 32 to 512 visible ASCII characters/);
    await expect(
      startLocalServer({ env: { DEV_API_KEY: 'x'.repeat(10) }, port: 0, dynamoPort: 0, quiet: true }),
    ).rejects.not.toThrow('xxxxxxxxxx');
  });

  // A developer restarts `DATA_DIR=... DEV_API_KEY=... npm start`: the second run finds the key
  // already seeded and must neither fail nor lose the first run's data.
  it('persists in DATA_DIR and seeds the same DEV_API_KEY twice without failing', async () => {
    const options = { apiKey: DEV_KEY, dataDir, dynamoPort, port: 0, quiet: true };

    const first = await startLocalServer(options);
    let generatedInFirstRun: string;
    try {
      expect(first.apiKey).toBe(DEV_KEY);
      expect(first.dynamoEndpoint).toBe(`http://127.0.0.1:${dynamoPort}`);
      expect((await analyze(first.url, DEV_KEY)).status).toBe(200);
    } finally {
      await first.close();
    }

    const second = await startLocalServer(options);
    try {
      expect((await analyze(second.url, DEV_KEY)).status).toBe(200);
    } finally {
      await second.close();
    }

    // Without DEV_API_KEY a fresh key is generated each run, and persisted keys stay valid.
    const third = await startLocalServer({ dataDir, dynamoPort, port: 0, quiet: true });
    try {
      generatedInFirstRun = third.apiKey;
      expect(third.apiKey).toMatch(/^sbe_[A-Za-z0-9_-]{43}$/);
      expect((await analyze(third.url, third.apiKey)).status).toBe(200);
      expect((await analyze(third.url, DEV_KEY)).status).toBe(200);
    } finally {
      await third.close();
    }
    expect(generatedInFirstRun).not.toBe(DEV_KEY);
  });

  // What a developer sees on start: URL, key, and a curl that works when pasted.
  it('prints the URL, the key and a ready-to-paste curl', async () => {
    const { result: server, output } = await captureOutput(() =>
      startLocalServer({ apiKey: DEV_KEY, dataDir, dynamoPort, port: 0 }),
    );
    try {
      expect(output).toContain(`URL       ${server.url}`);
      expect(output).toContain(`API key   ${DEV_KEY}  (from DEV_API_KEY)`);
      expect(output).toMatch(
        /\n {2}Engine {4}POST \/api\/engine runs in \d+ worker threads? \(ENGINE_WORKERS\)\n/,
      );
      // The URL, key and token once each as the shell variables the README's commands use too.
      expect(output).toContain(`  export SBE_URL=${server.url}\n`);
      expect(output).toContain(`  export SBE_KEY=${DEV_KEY}\n`);
      expect(output).toContain(`  export SBE_TOKEN=${server.userToken}\n`);
      expect(output.split(server.userToken)).toHaveLength(2);
      expect(output).toContain(workedExampleCurl());
      expect(output).toContain(`-H "Authorization: Bearer $SBE_TOKEN"`);
      expect(output).toContain('npm run keys -- list');
    } finally {
      await server.close();
    }
  });

  // The engine's workers are as many as asked for, at least one; nothing is started otherwise.
  it('refuses an ENGINE_WORKERS that is not a count of at least 1', async () => {
    for (const value of ['0', '-1', '1.5', 'two']) {
      await expect(
        startLocalServer({ env: { ENGINE_WORKERS: value }, port: 0, dynamoPort: 0, quiet: true }),
      ).rejects.toThrow(/^ENGINE_WORKERS must be an integer from 1 to 256/);
    }
    await expect(startLocalServer({ engineWorkers: 0, port: 0, dynamoPort: 0, quiet: true })).rejects.toThrow(
      'engineWorkers must be an integer from 1 to 256',
    );
    // The connect function's workers the same way.
    for (const value of ['0', '257', '1.5', 'eight']) {
      await expect(
        startLocalServer({ env: { CONNECT_WORKERS: value }, port: 0, dynamoPort: 0, quiet: true }),
      ).rejects.toThrow(/^CONNECT_WORKERS must be an integer from 1 to 256/);
    }
    await expect(
      startLocalServer({ connectWorkers: 0.5, port: 0, dynamoPort: 0, quiet: true }),
    ).rejects.toThrow('connectWorkers must be an integer from 1 to 256');
  });

  // Lambda's range for a timeout, 1 s to 15 min: anything else stops the start.
  it("refuses a FUNCTION_TIMEOUT_MS outside Lambda's range", async () => {
    for (const value of ['999', '900001', '1.5', 'soon']) {
      await expect(
        startLocalServer({ env: { FUNCTION_TIMEOUT_MS: value }, port: 0, dynamoPort: 0, quiet: true }),
      ).rejects.toThrow(/^FUNCTION_TIMEOUT_MS must be an integer from 1000 to 900000/);
    }
  });

  // A taken HTTP port is reported in words, and nothing is left running.
  it('reports a taken PORT clearly', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(
        startLocalServer({ apiKey: DEV_KEY, dataDir, dynamoPort, port, quiet: true }),
      ).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use; set PORT`);
      // The embedded DynamoDB was stopped again: its port is free.
      const again = createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(dynamoPort, '127.0.0.1', () => again.close(() => resolve()));
      });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('workedExampleCurl', () => {
  it('posts the worked example in mode analyze with the key', () => {
    const curl = workedExampleCurl();
    expect(curl).toContain('curl -sS "$SBE_URL/api/engine"');
    expect(curl).toContain('-H "Authorization: Bearer $SBE_KEY"');
    const body = /-d '(.*)'$/.exec(curl)?.[1];
    expect(JSON.parse(body ?? '')).toEqual({ mode: 'analyze', ...WORKED });
  });
});
