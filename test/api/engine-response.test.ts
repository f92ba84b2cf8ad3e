import { describe, expect, it } from 'vitest';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { ApiError } from '../../lib/api/errors';
import { runDeadline } from '../../lib/api/run-deadline';
import { readLimits } from '../../lib/config/limits';
import { WORKED } from '../http/events';

const limits = readLimits({});

describe('renderEngineResponse', () => {
  // The three response shapes of the contract, keys in the documented order.
  it('wraps each mode in its response envelope', () => {
    const analyze = JSON.parse(
      renderEngineResponse(parseEngineRequest({ mode: 'analyze', ...WORKED }, limits)),
    );
    expect(Object.keys(analyze)).toEqual(['mode', 'engine']);
    expect(analyze.engine.primaryBlockage).toBe('B');

    const tick = JSON.parse(renderEngineResponse(parseEngineRequest({ mode: 'tick', ...WORKED }, limits)));
    expect(Object.keys(tick)).toEqual(['mode', 'snapshot']);
    expect(tick.snapshot.tick).toBe(1);

    const ticks = JSON.parse(
      renderEngineResponse(parseEngineRequest({ mode: 'ticks', ticks: 3, ...WORKED }, limits)),
    );
    expect(Object.keys(ticks)).toEqual(['mode', 'ticks', 'snapshots']);
    expect(ticks.ticks).toBe(3);
    expect(ticks.snapshots.map((s: { tick: number }) => s.tick)).toEqual([1, 2, 3]);
  });

  // A what-if of other node values (here a scale) keeps its base's loop systems while the two
  // runs last; once the answer is written the base lets go of them, as a stored system's cached
  // structure must, so a later call without a scenario keeps nothing. A failing run too.
  it("lets go of the loops' systems kept for the call once the answer is written", () => {
    const ring = {
      mode: 'analyze',
      nodes: [
        { id: 'api', arrival: 1, serviceTime: 0.1, servers: 2 },
        { id: 'db', serviceTime: 0.1, servers: 2, exit: 1 },
      ],
      dependencies: [
        { from: 'api', to: 'db' },
        { from: 'db', to: 'api' },
      ],
    };
    // The second run is out of time at its first checkpoint.
    for (const remainingMs of [() => 60_000, () => 0]) {
      const request = parseEngineRequest({ ...ring, scenario: { scale: 2 }, compare: true }, limits);
      expect(request.structure.repeatsLoopSolves).toBe(true);
      let built = 0;
      const build = () => ({ built: ++built });
      request.structure.keptLoopSystem('loop', build);
      try {
        renderEngineResponse(request, runDeadline(remainingMs));
        expect(remainingMs()).toBeGreaterThan(0);
      } catch (error) {
        expect((error as ApiError).code).toBe('LIMIT_EXCEEDED');
      }
      expect(request.structure.repeatsLoopSolves).toBe(false);
      expect(request.scenario!.repeatsLoopSolves).toBe(false);
      request.structure.keptLoopSystem('loop', build);
      expect(built).toBe(2);
    }
  });

  // An extra field nested deeper than JSON.stringify can recurse is the caller's payload problem,
  // reported as PAYLOAD_ERROR, not a crash and not an engine error.
  it('answers extras nested too deeply to serialize with PAYLOAD_ERROR', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const request = parseEngineRequest(
      { mode: 'analyze', nodes: [{ id: 'A', load: 1, note: deep }], dependencies: [] },
      limits,
    );
    let thrown: unknown;
    try {
      renderEngineResponse(request);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe('PAYLOAD_ERROR');
  });

  // A problem only the run finds (a service time whose 99th percentile is past a double) names
  // its element with the container in the nested format, as the checks before the run do.
  it.each([
    ['direct', (structure: object) => structure, 'nodes[0].serviceTime'],
    ['nested', (structure: object) => ({ payload: structure }), 'payload.nodes[0].serviceTime'],
    ['nested in graph', (structure: object) => ({ graph: structure }), 'graph.nodes[0].serviceTime'],
  ])('names the element a run finds at fault with its container: %s', (_name, wrap, path) => {
    const structure = { nodes: [{ id: 'a', arrival: 1, exit: 1, serviceTime: 1e308 }], dependencies: [] };
    const request = parseEngineRequest({ mode: 'analyze', ...wrap(structure) }, limits);
    let thrown: unknown;
    try {
      renderEngineResponse(request);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'PAYLOAD_ERROR' });
    expect((thrown as ApiError).message.startsWith(`${path}: `)).toBe(true);
    expect((thrown as ApiError).details).toEqual([{ path, message: expect.any(String) }]);
  });
});
