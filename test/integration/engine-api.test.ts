import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, issueApiKey } from '../../lib/keys';
import { WORKED } from '../http/events';
import { post, rawPost, startTestServer, type TestServer } from './server';

function near(actual: number, expected: number): void {
  expect(actual).toBeCloseTo(expected, 9);
}
const nodeOf = (state: { nodes: Array<{ id: string }> }, id: string) =>
  state.nodes.find((node) => node.id === id) as Record<string, number> & { id: string };
const eventsOf = (state: { events: Array<{ type: string; node?: string }> }) =>
  state.events.map((event) => `${event.type}:${event.node ?? ''}`);

let server: TestServer;
let base: string;
let key: string;

// The whole service on loopback: dynalite, seeded key, real handlers, real HTTP. Limits are
// small so the limit rows of the contract can be reached with small requests.
beforeAll(async () => {
  server = await startTestServer({ MAX_BODY_BYTES: '65536', MAX_NODES: '50', LOG_LEVEL: 'WARN' });
  base = server.url;
  key = server.apiKey;
});

afterAll(() => server.close());

describe('POST /api/engine: authentication (contract rows 1-2)', () => {
  it('401 MISSING_API_KEY with WWW-Authenticate: Bearer when there is no Authorization header', async () => {
    const answer = await post(base, null, { mode: 'analyze', ...WORKED });
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('MISSING_API_KEY');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('401 MISSING_API_KEY for the Basic scheme', async () => {
    const answer = await post(
      base,
      null,
      { mode: 'analyze', ...WORKED },
      { headers: { authorization: 'Basic dXNlcjpwdw==' } },
    );
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('MISSING_API_KEY');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('403 INVALID_API_KEY for an unknown key, without echoing it', async () => {
    const unknown = 'sbe_unknownkeyunknownkeyunknownkey0000000';
    const answer = await post(base, unknown, { mode: 'analyze', ...WORKED });
    expect(answer.status).toBe(403);
    expect(answer.json.error.code).toBe('INVALID_API_KEY');
    expect(answer.text).not.toContain(unknown);
  });

  // A key issued through the store works at once and stops working once revoked (cache TTL 0 here).
  it('403 INVALID_API_KEY for a revoked key', async () => {
    const issued = await issueApiKey(server.store, { owner: 'someone', name: 'to be revoked' });
    expect((await post(base, issued.key, { mode: 'analyze', ...WORKED })).status).toBe(200);
    await server.store.revoke(hashApiKey(issued.key));
    const answer = await post(base, issued.key, { mode: 'analyze', ...WORKED });
    expect(answer.status).toBe(403);
    expect(answer.json.error.code).toBe('INVALID_API_KEY');
  });

  it('accepts the scheme in any case', async () => {
    const answer = await post(
      base,
      null,
      { mode: 'analyze', ...WORKED },
      { headers: { authorization: `bearer ${key}` } },
    );
    expect(answer.status).toBe(200);
  });
});

describe('POST /api/engine: body (contract rows 3-4)', () => {
  it('413 LIMIT_EXCEEDED for a body over MAX_BODY_BYTES (64 KiB here)', async () => {
    const answer = await post(base, key, { mode: 'analyze', ...WORKED, padding: 'x'.repeat(70_000) });
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('LIMIT_EXCEEDED');
  });

  // The key check still comes first for an oversized body.
  it('401 before 413 for an oversized body without a key', async () => {
    const answer = await post(base, null, 'x'.repeat(200_000));
    expect(answer.status).toBe(401);
  });

  it.each([
    ['broken JSON', '{"mode":"analyze",'],
    ['an array', '[1,2,3]'],
    ['a string', '"analyze"'],
    ['an empty body', ''],
  ])('500 PAYLOAD_ERROR for %s', async (_name, body) => {
    const answer = await post(base, key, body);
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
    expect(typeof answer.json.error.message).toBe('string');
  });

  // curl -d sends application/x-www-form-urlencoded; API Gateway (and the local server) pass it base64.
  it('accepts JSON sent with another or no Content-Type', async () => {
    const form = await post(
      base,
      key,
      { mode: 'analyze', ...WORKED },
      { headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    );
    expect(form.status).toBe(200);
    const none = await post(base, key, { mode: 'analyze', ...WORKED }, { headers: { 'content-type': '' } });
    expect(none.status).toBe(200);
  });
});

describe('POST /api/engine: request (contract rows 5-8)', () => {
  it.each([
    ['missing', { ...WORKED }],
    ['unknown', { mode: 'simulate', ...WORKED }],
    ['not a string', { mode: 1, ...WORKED }],
  ])('400 INVALID_MODE when mode is %s', async (_name, body) => {
    const answer = await post(base, key, body);
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('INVALID_MODE');
  });

  it.each([0, 1001, 2.5, '3', null])('400 INVALID_TICKS for ticks %j', async (ticks) => {
    const answer = await post(base, key, { mode: 'ticks', ticks, ...WORKED });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('INVALID_TICKS');
  });

  it.each(['payload', 'system', 'record', 'data', 'graph'])(
    'reads the structure from the %s container',
    async (container) => {
      const direct = await post(base, key, { mode: 'analyze', ...WORKED });
      const nested = await post(base, key, { mode: 'analyze', [container]: WORKED });
      expect(nested.status).toBe(200);
      expect(nested.text).toBe(direct.text);
    },
  );

  // Precedence: top-level nodes beat containers; among containers the documented order decides;
  // mode and ticks may sit inside the container when absent at the top.
  it('applies the documented precedence', async () => {
    const other = { nodes: [{ id: 'Z', load: 1 }], dependencies: [] };
    const topLevel = await post(base, key, { mode: 'analyze', ...WORKED, payload: other });
    expect(topLevel.json.engine.nodes.map((n: { id: string }) => n.id)).toEqual(['A', 'B', 'C']);
    const firstContainer = await post(base, key, { mode: 'analyze', graph: other, payload: WORKED });
    expect(firstContainer.json.engine.nodes.map((n: { id: string }) => n.id)).toEqual(['A', 'B', 'C']);
    const skipsNonStructure = await post(base, key, { mode: 'analyze', payload: { note: 1 }, data: WORKED });
    expect(skipsNonStructure.json.engine.primaryBlockage).toBe('B');
    const inside = await post(base, key, { graph: { mode: 'ticks', ticks: 2, ...WORKED } });
    expect(inside.json.mode).toBe('ticks');
    expect(inside.json.snapshots).toHaveLength(2);
    const beside = await post(base, key, { mode: 'ticks', ticks: 2, payload: WORKED });
    expect(beside.json.ticks).toBe(2);
    const byDefault = await post(base, key, { mode: 'ticks', ...WORKED });
    expect(byDefault.json.ticks).toBe(10);
  });

  it('500 PAYLOAD_ERROR naming dependencies[3] for a dangling dependency', async () => {
    const answer = await post(base, key, {
      mode: 'analyze',
      nodes: WORKED.nodes,
      dependencies: [...WORKED.dependencies, { from: 'C', to: 'Z' }],
    });
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
    expect(answer.json.error.message).toContain('dependencies[3]');
  });

  it('500 PAYLOAD_ERROR naming the duplicate id', async () => {
    const answer = await post(base, key, {
      mode: 'analyze',
      nodes: [...WORKED.nodes, { id: 'B', load: 1 }],
      dependencies: [],
    });
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
    expect(answer.json.error.message).toContain('nodes[3]');
  });

  it('500 PAYLOAD_ERROR naming a negative load', async () => {
    const answer = await post(base, key, {
      mode: 'analyze',
      nodes: [{ id: 'A', load: -1 }],
      dependencies: [],
    });
    expect(answer.status).toBe(500);
    expect(answer.json.error.message).toContain('nodes[0].load');
  });

  it('500 PAYLOAD_ERROR when there is no structure', async () => {
    const answer = await post(base, key, { mode: 'analyze' });
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
  });

  it('413 LIMIT_EXCEEDED for more nodes than MAX_NODES (50 here)', async () => {
    const nodes = Array.from({ length: 51 }, (_, i) => ({ id: `n${i}`, load: 1 }));
    const answer = await post(base, key, { mode: 'analyze', nodes, dependencies: [] });
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('LIMIT_EXCEEDED');
  });
});

describe('POST /api/engine: the worked example', () => {
  it('analyze: flows 5,5,0; pressure 0,1,5; primary B; origin A; trace A,B; blocked B and C', async () => {
    const answer = await post(base, key, { mode: 'analyze', ...WORKED });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const engine = answer.json.engine;
    expect(answer.json.mode).toBe('analyze');
    engine.dependencies.forEach((d: { flow: number }, i: number) => {
      near(d.flow, [5, 5, 0][i]!);
    });
    ['A', 'B', 'C'].forEach((id, i) => {
      near(nodeOf(engine, id).pressure!, [0, 1, 5][i]!);
    });
    expect(engine.primaryBlockage).toBe('B');
    expect(engine.origin.id).toBe('A');
    near(engine.origin.contribution, 5);
    near(engine.origin.share, 1);
    expect(engine.trace).toEqual(['A', 'B']);
    expect(eventsOf(engine)).toEqual(['blocked:B', 'blocked:C']);
  });

  it('tick: loads 0,5,5; primary C; origin B share 0.5; trace B,C; cleared B, drained A', async () => {
    const answer = await post(base, key, { mode: 'tick', ...WORKED });
    const snapshot = answer.json.snapshot;
    expect(answer.json.mode).toBe('tick');
    expect(snapshot.tick).toBe(1);
    ['A', 'B', 'C'].forEach((id, i) => {
      near(nodeOf(snapshot, id).load!, [0, 5, 5][i]!);
    });
    expect(snapshot.primaryBlockage).toBe('C');
    expect(snapshot.origin.id).toBe('B');
    near(snapshot.origin.share, 0.5);
    expect(snapshot.trace).toEqual(['B', 'C']);
    expect(eventsOf(snapshot)).toEqual(['cleared:B', 'drained:A']);
  });

  it('ticks 3: snapshots chain and tick 3 has drained B then settled', async () => {
    const answer = await post(base, key, { mode: 'ticks', ticks: 3, ...WORKED });
    const snapshots = answer.json.snapshots;
    expect(answer.json.ticks).toBe(3);
    expect(snapshots.map((s: { tick: number }) => s.tick)).toEqual([1, 2, 3]);
    for (let i = 0; i + 1 < snapshots.length; i++) {
      for (const node of snapshots[i].nodes) {
        near(node.load - node.outflow + node.inflow, nodeOf(snapshots[i + 1], node.id).load!);
      }
    }
    expect(eventsOf(snapshots[1])).toEqual([]);
    expect(eventsOf(snapshots[2])).toEqual(['drained:B', 'settled:']);
  });

  it('answers the same body with byte-identical responses', async () => {
    const body = { mode: 'ticks', ticks: 4, ...WORKED };
    const first = await post(base, key, body);
    const second = await post(base, key, body);
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
  });
});

describe('POST /api/engine: open systems (arrival, exit, fanout)', () => {
  // The open worked example of docs/engine.md, in the nested format: a front end fanning out to
  // A and twice to B (capacity 15), a database that exits.
  const OPEN = {
    nodes: [
      { id: 'F', arrival: 10, fanout: true },
      { id: 'A' },
      { id: 'B', capacity: 15 },
      { id: 'D', exit: 1 },
    ],
    dependencies: [
      { from: 'F', to: 'A' },
      { from: 'F', to: 'B', weight: 2 },
      { from: 'A', to: 'D' },
      { from: 'B', to: 'D' },
    ],
  };

  it('analyze: exits, throughput, utilization and headroom over HTTP', async () => {
    const answer = await post(base, key, { mode: 'analyze', payload: OPEN });
    expect(answer.status).toBe(200);
    const { engine } = answer.json;
    expect(nodeOf(engine, 'F')).toMatchObject({ arrival: 10, fanout: true, exited: 10, throughput: 10 });
    expect(nodeOf(engine, 'B')).toMatchObject({ pressure: 5, throughput: 20 });
    near(nodeOf(engine, 'B').utilization!, 20 / 15);
    expect(engine.headroom).toEqual({ scale: 0.75, node: 'B' });
    expect(engine.origin).toEqual({ id: 'F', load: 0, arrival: 10, contribution: 20, share: 1 });
  });

  it('ticks 3: B falls 5 further behind each step and D completes what it holds', async () => {
    const answer = await post(base, key, { mode: 'ticks', ticks: 3, ...OPEN });
    expect(answer.status).toBe(200);
    const last = answer.json.snapshots[2];
    expect(last.nodes.map((n: { load: number }) => n.load)).toEqual([0, 10, 30, 25]);
    expect(nodeOf(last, 'D').exited).toBe(25);
    expect(last).not.toHaveProperty('headroom');
  });

  it('500 PAYLOAD_ERROR naming the element for a bad open field', async () => {
    const bad = { ...OPEN, nodes: [...OPEN.nodes.slice(0, 3), { id: 'D', exit: 1, fanout: true }] };
    const answer = await post(base, key, { mode: 'analyze', ...bad });
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
    expect(answer.json.error.message).toMatch(/^nodes\[3\]\.exit: a fan-out node completes/);
    const wrongType = { ...OPEN, nodes: [{ id: 'F', arrival: 'x' }] };
    const typed = await post(base, key, { mode: 'analyze', ...wrongType });
    expect(typed.json.error.message).toBe(
      'nodes[0].arrival: must be a finite number >= 0, got the string "x"',
    );
  });
});

describe('POST /api/engine: compression', () => {
  const body = JSON.stringify({ mode: 'ticks', ticks: 20, ...WORKED });
  const headers = (acceptEncoding: string) => ({
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'accept-encoding': acceptEncoding,
  });

  // Raw bytes over node:http, so nothing decodes them for us: each coding decodes to the same JSON.
  it('sends gzip and br that decode to the identity body, byte for byte', async () => {
    const identity = await rawPost(base, headers('identity'), body);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding');

    const gzip = await rawPost(base, headers('gzip'), body);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.bytes).equals(identity.bytes)).toBe(true);
    expect(gzip.bytes.length).toBeLessThan(identity.bytes.length);

    const br = await rawPost(base, headers('gzip, deflate, br'), body);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.bytes).equals(identity.bytes)).toBe(true);

    const again = await rawPost(base, headers('gzip, deflate, br'), body);
    expect(again.bytes.equals(br.bytes)).toBe(true);
  });
});

describe('routing', () => {
  it('404 NOT_FOUND for an unknown path', async () => {
    const answer = await post(base, key, {}, { path: '/api/nothing-here' });
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe('NOT_FOUND');
  });

  it('405 METHOD_NOT_ALLOWED with Allow for GET /api/engine', async () => {
    const answer = await post(base, key, undefined, { method: 'GET' });
    expect(answer.status).toBe(405);
    expect(answer.json.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(answer.headers.get('allow')).toBe('POST');
  });

  it('serves GET /api/openapi.json without a key', async () => {
    const answer = await post(base, null, undefined, { method: 'GET', path: '/api/openapi.json' });
    expect(answer.status).toBe(200);
    expect(answer.json.openapi).toBe('3.1.0');
  });
});
