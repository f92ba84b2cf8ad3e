/**
 * Stopping the local server while a connect is under way: the connect finishes its writes and its
 * answer goes out before the connections close, so the caller is told of the system it stored;
 * one still waiting for a worker is not run, and is told to try again (503).
 * Before, the connections closed at once and the connect function's worker ended mid-request:
 * the caller got no answer for a system that was stored (a retry stored it twice), or a quota
 * hold stayed behind and refused the owner's next registration for an hour.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { startLocalServer } from '../../local/server';
import { freePort } from '../helpers/free-port';
import { rawRequest } from '../integration/server';
import { startFakeApi } from '../outbound/fake-api';

const dataDir = mkdtempSync(join(tmpdir(), 'sbe-stop-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('lets a connect under way finish and answer when the server stops', { timeout: 60_000 }, async () => {
  // The same DynamoDB port and token issuer for both starts: the handlers of this process read
  // their settings once, as a cold start does.
  const options = {
    dataDir,
    dynamoPort: await freePort(),
    issuerFile: join(dataDir, 'issuer.json'),
    port: 0,
    quiet: true,
  };
  // An upstream that answers when the test lets it (at most 15 s): the connect is in its worker
  // meanwhile, however slowly a loaded machine starts the workers around it.
  const held: Array<() => void> = [];
  const release = () => {
    for (const answer of held.splice(0)) answer();
  };
  const upstream = await startFakeApi((_request, response) => {
    const answer = () => {
      if (response.writableEnded) return;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ nodes: [{ id: 'a' }, { id: 'b' }], dependencies: [{ from: 'a', to: 'b' }] }),
      );
    };
    held.push(answer);
    setTimeout(answer, 15_000).unref();
  });
  try {
    // One connect worker: a second connect waits for it, and is not run once the server stops.
    const first = await startLocalServer({ ...options, connectWorkers: 1 });
    const connect = (name: string) =>
      rawRequest(first.url, {
        method: 'POST',
        path: '/api/connect',
        headers: { authorization: `Bearer ${first.userToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, url: `${upstream.origin}/graph.json` }),
      });
    const userGet = (path: string) =>
      rawRequest(first.url, { method: 'GET', path, headers: { authorization: `Bearer ${first.userToken}` } });
    const kept = await rawRequest(first.url, {
      method: 'POST',
      path: '/api/systems',
      headers: { authorization: `Bearer ${first.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept', document: { nodes: [{ id: 'x' }], dependencies: [] } }),
    });
    const keptId = (JSON.parse(kept.bytes.toString('utf8')) as { id: string }).id;
    const answer = connect('stopped');
    let connectAnswered = false;
    void answer.then(() => {
      connectAnswered = true;
    });
    while (upstream.requests.length === 0) await sleep(20);
    // Reading a system waits for no connect: reads have workers of their own (with the one connect
    // worker busy on the slow upstream, the read waited for it).
    const read = await userGet(`/api/systems/${keptId}`);
    expect(read.status).toBe(200);
    expect(connectAnswered).toBe(false);
    const waiting = connect('waiting');
    await sleep(200);
    const stopping = first.close();
    let stopped = false;
    void stopping.then(() => {
      stopped = true;
    });
    // The stop has begun (no new connection is taken): the upstream answers now.
    await sleep(200);
    release();
    // A second close (a second signal, a test's afterAll) waits for the same stop, not less.
    await first.close();
    expect(stopped).toBe(true);
    const [connected, refused] = await Promise.all([answer, waiting]);
    await stopping;
    expect(connected.status, connected.bytes.toString()).toBe(201);
    // Answered while the server stops: the connection closes after it, never reused and cut.
    expect(connected.headers.connection).toBe('close');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(JSON.parse(refused.bytes.toString('utf8'))).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The local server is stopping; try again in 2 seconds.',
      },
    });
    expect(upstream.requests).toHaveLength(1);
    const { id } = JSON.parse(connected.bytes.toString('utf8')) as { id: string };

    // Started again on the same data: the system is there, once.
    const second = await startLocalServer(options);
    try {
      const listed = await rawRequest(second.url, {
        method: 'GET',
        path: '/api/systems',
        headers: { authorization: `Bearer ${second.userToken}` },
      });
      const { systems } = JSON.parse(listed.bytes.toString('utf8')) as { systems: Array<{ id: string }> };
      expect(systems.map((system) => system.id).sort()).toEqual([id, keptId].sort());
    } finally {
      await second.close();
    }
  } finally {
    await upstream.close();
  }
});
