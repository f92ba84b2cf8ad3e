/**
 * Scenarios over real HTTP: inline structures in both formats, and a stored system with
 * settings run by `systemId` — the scenario applies on top of the settings, and the answer is
 * byte for byte what the edited structure answers inline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySettings } from '../../lib/api/system-settings';
import type { SystemSettings } from '../../lib/systems';
import { readLocalIssuer, signAccessToken } from '../../lib/tokens';
import { editedStructure } from '../engine/scenario-arbitraries';
import { sweptRing } from '../helpers/engine-examples';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;
let alice: string;
let aliceKey: string;

beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'WARN' });
  alice = signAccessToken(readLocalIssuer(server.issuerFile), { sub: 'alice' });
  aliceKey = (await post(server.url, alice, { name: 'scenarios' }, { path: '/api/keys' })).json.key;
});

afterAll(() => server.close());

const engine = (body: unknown, key = aliceKey) => post(server.url, key, body);

describe('POST /api/engine with a scenario, inline', () => {
  const scenario = { scale: 2, nodes: { B: { capacity: 2 } } };

  it('answers what the edited structure answers, direct and nested, in every mode', async () => {
    for (const mode of [{ mode: 'analyze' }, { mode: 'tick' }, { mode: 'ticks', ticks: 5 }]) {
      const inline = await engine({ ...mode, ...editedStructure(WORKED, scenario) });
      expect(inline.status).toBe(200);
      const direct = await engine({ ...mode, ...WORKED, scenario });
      const nested = await engine({ payload: { ...mode, ...WORKED, scenario } });
      expect(direct.text).toBe(inline.text);
      expect(nested.text).toBe(inline.text);
    }
  });

  it('adds the baseline and the changes with compare', async () => {
    const compared = await engine({
      mode: 'tick',
      ...WORKED,
      scenario: { nodes: { B: { capacity: 2 } } },
      compare: true,
    });
    expect(compared.status).toBe(200);
    const plain = await engine({ mode: 'tick', ...WORKED });
    expect(compared.json.baseline).toEqual(plain.json.snapshot);
    expect(compared.json.changes.primaryBlockage).toEqual({ before: 'C', after: 'B' });
    expect(compared.json.changes.nodes).toEqual([
      { id: 'B', before: { blocked: false, role: 'relay' }, after: { blocked: true, role: 'relay' } },
    ]);
  });

  it('answers a bad scenario with 500 PAYLOAD_ERROR naming the field', async () => {
    const answer = await engine({
      mode: 'analyze',
      ...WORKED,
      scenario: { nodes: { B: { capacity: 'x' } } },
    });
    expect(answer.status).toBe(500);
    expect(answer.json.error).toEqual({
      code: 'PAYLOAD_ERROR',
      message: 'scenario.nodes.B.capacity: must be a finite number > 0 or null, got the string "x"',
      details: [
        {
          path: 'scenario.nodes.B.capacity',
          message: 'must be a finite number > 0 or null, got the string "x"',
        },
      ],
    });
    const lonely = await engine({ mode: 'analyze', ...WORKED, compare: true });
    expect(lonely.status).toBe(500);
    expect(lonely.json.error.message).toMatch(/^compare: needs a "scenario"/);
  });
});

describe('POST /api/engine with a scenario on a stored system', () => {
  // Settings give B a capacity of 3 and A an arrival of 1; the scenario takes B down and
  // doubles the traffic. Down has no inline form, so the answer is checked against its model:
  // B keeps all it receives and passes nothing on.
  const settings: SystemSettings = { nodes: { B: { capacity: 3 }, A: { arrival: 1 } } };

  it('applies the scenario on top of the settings', async () => {
    const created = await post(
      server.url,
      alice,
      { name: 'with settings', document: WORKED, settings },
      { path: '/api/systems' },
    );
    expect(created.status, created.text).toBe(201);
    const systemId = created.json.id;
    const withSettings = applySettings(WORKED, settings) as typeof WORKED;

    // A scenario without down: byte for byte the edited structure sent inline.
    const scale = { scale: 2, dependencies: [{ from: 'A', to: 'C', weight: 3 }] };
    const byId = await engine({ mode: 'ticks', ticks: 4, systemId, scenario: scale });
    const inline = await engine({ mode: 'ticks', ticks: 4, ...editedStructure(withSettings, scale) });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.text).toBe(inline.text);

    // Down, with compare: the baseline is the stored system as it runs (settings applied).
    const down = await engine({
      mode: 'analyze',
      systemId,
      scenario: { nodes: { B: { down: true } } },
      compare: true,
    });
    expect(down.status, down.text).toBe(200);
    expect(down.json.baseline).toEqual((await engine({ mode: 'analyze', systemId })).json.engine);
    const b = down.json.engine.nodes[1];
    expect(b).toMatchObject({ id: 'B', capacity: 3, outflow: 0, role: 'relay' });
    expect(b.pressure).toBe(b.load + b.inflow);
    // Out of a down node nothing flows, now or in the steady state.
    expect(down.json.engine.dependencies[2]).toEqual({ from: 'B', to: 'C', flow: 0, throughput: 0 });

    // Someone else's key: 404, scenario or not.
    const bobKey = (
      await post(
        server.url,
        signAccessToken(readLocalIssuer(server.issuerFile), { sub: 'bob' }),
        { name: 'b' },
        { path: '/api/keys' },
      )
    ).json.key;
    expect((await engine({ mode: 'analyze', systemId, scenario: scale }, bobKey)).status).toBe(404);
  });
});

// A ring of 150 services (past 128, so its loop is swept and its local systems are kept while a
// call solves it again), stored with an SLO in its settings. The instance keeps the compiled
// structure between calls; a what-if of other node values shares its base's loop systems for the
// call and lets go of them after. Every answer is byte for byte what the same structure answers
// inline, whichever calls came before.
describe('POST /api/engine on a stored ring with an SLO, call after call', () => {
  const document = sweptRing();
  const settings: SystemSettings = { nodes: { api: { slo: 1 } } };

  it('answers as inline before, during and after a what-if that shares its loops', async () => {
    const created = await post(
      server.url,
      alice,
      { name: 'ring', document, settings },
      { path: '/api/systems' },
    );
    expect(created.status, created.text).toBe(201);
    const systemId = created.json.id;
    const withSettings = applySettings(document, settings) as typeof document;
    const inline = await engine({ mode: 'analyze', ...withSettings });
    expect(inline.status, inline.text).toBe(200);
    expect(inline.json.engine.latencyHeadroom.node).toBe('api');

    const scale = { scale: 1.5 };
    const scaledInline = await engine({ mode: 'analyze', ...editedStructure(withSettings, scale) });
    for (let round = 0; round < 2; round++) {
      expect((await engine({ mode: 'analyze', systemId })).text).toBe(inline.text);
      const compared = await engine({ mode: 'analyze', systemId, scenario: scale, compare: true });
      expect(compared.status, compared.text).toBe(200);
      expect(compared.json.engine).toEqual(scaledInline.json.engine);
      expect(compared.json.baseline).toEqual(inline.json.engine);
      const scaled = await engine({ mode: 'analyze', systemId, scenario: scale });
      expect(scaled.text).toBe(scaledInline.text);
    }
  });
});
