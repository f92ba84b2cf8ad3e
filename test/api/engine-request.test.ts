import { describe, expect, it } from 'vitest';
import { extractStructure, parseEngineRequest } from '../../lib/api/engine-request';
import { ApiError } from '../../lib/api/errors';
import { DEFAULT_LIMITS, type Limits } from '../../lib/config/limits';
import { PayloadError } from '../../lib/engine';
import { WORKED_EXAMPLE } from '../../lib/worked-example';

/** The contract's worked example: A feeds B and C, B feeds C. */
const WORKED = WORKED_EXAMPLE;

const limits = DEFAULT_LIMITS;

/** Runs the parser expecting a refusal, and returns the refusal. */
function refusal(body: unknown, withLimits: Limits = limits): ApiError {
  try {
    parseEngineRequest(body, withLimits);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the request was accepted');
}

describe('check 4: the body must be a JSON object', () => {
  it.each([
    ['an array', [WORKED], 'an array'],
    ['a string', 'analyze', 'the string "analyze"'],
    ['a number', 42, '42'],
    ['null', null, 'null'],
    ['a boolean', true, 'true'],
  ])('refuses %s with 500 PAYLOAD_ERROR', (_, body, received) => {
    const error = refusal(body);
    expect(error.status).toBe(500);
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toBe(`request body must be a JSON object, got ${received}`);
  });
});

describe('check 5: mode', () => {
  it('refuses a missing mode with 400 INVALID_MODE naming the allowed values', () => {
    const error = refusal({ ...WORKED });
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_MODE');
    expect(error.message).toBe('mode is missing; send one of "analyze", "tick", "ticks"');
  });

  it.each([
    ['simulate', 'the string "simulate"'],
    ['ANALYZE', 'the string "ANALYZE"'],
    ['analyze ', 'the string "analyze "'],
    [null, 'null'],
    [3, '3'],
    [['analyze'], 'an array'],
    [{ name: 'analyze' }, 'an object'],
  ])('refuses mode %j, saying what was received', (mode, received) => {
    // Modes are compared exactly: no case folding, no trimming.
    const error = refusal({ mode, ...WORKED });
    expect(error.code).toBe('INVALID_MODE');
    expect(error.message).toBe(`mode must be one of "analyze", "tick", "ticks", got ${received}`);
    expect(error.details).toEqual([{ path: 'mode', message: error.message.slice('mode '.length) }]);
  });

  it('cuts a long received mode short instead of echoing it', () => {
    // A caller sends a megabyte string as the mode; the error stays small.
    const error = refusal({ mode: 'x'.repeat(1_000_000), ...WORKED });
    expect(error.message.length).toBeLessThan(150);
    expect(error.message).toContain(`"${'x'.repeat(40)}…"`);
  });

  it('is checked before ticks and before the structure', () => {
    // Everything is wrong: the mode is reported, being first in the contract's order.
    expect(refusal({ mode: 'run', ticks: 0, nodes: 'none' }).code).toBe('INVALID_MODE');
    expect(refusal({ mode: 'run' }).code).toBe('INVALID_MODE');
  });
});

describe('check 6: ticks', () => {
  it('defaults to 10 in mode ticks', () => {
    expect(parseEngineRequest({ mode: 'ticks', ...WORKED }, limits).ticks).toBe(10);
  });

  it('uses the configured default when the deployment sets one', () => {
    expect(parseEngineRequest({ mode: 'ticks', ...WORKED }, { ...limits, defaultTicks: 3 }).ticks).toBe(3);
  });

  it('accepts the bounds 1 and 1000', () => {
    expect(parseEngineRequest({ mode: 'ticks', ticks: 1, ...WORKED }, limits).ticks).toBe(1);
    expect(parseEngineRequest({ mode: 'ticks', ticks: 1000, ...WORKED }, limits).ticks).toBe(1000);
  });

  it.each([
    [0, '0'],
    [1001, '1001'],
    [-1, '-1'],
    [2.5, '2.5'],
    ['x', 'the string "x"'],
    ['5', 'the string "5"'],
    [null, 'null'],
    [[3], 'an array'],
  ])('refuses ticks %j with 400 INVALID_TICKS', (ticks, received) => {
    // Integers only, and a JSON number: "5" is refused rather than coerced.
    const error = refusal({ mode: 'ticks', ticks, ...WORKED });
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_TICKS');
    expect(error.message).toBe(`ticks must be an integer from 1 to 1000, got ${received}`);
  });

  it('accepts 5.0, which JSON cannot tell apart from 5', () => {
    expect(
      parseEngineRequest(JSON.parse('{"mode":"ticks","ticks":5.0,"nodes":[],"dependencies":[]}'), limits)
        .ticks,
    ).toBe(5);
  });

  it('honours a lowered MAX_TICKS', () => {
    // A deployment that allows at most 20 ticks refuses 21 and says so.
    const error = refusal({ mode: 'ticks', ticks: 21, ...WORKED }, { ...limits, maxTicks: 20 });
    expect(error.message).toBe('ticks must be an integer from 1 to 20, got 21');
  });

  it('is ignored, even when invalid, in the other modes', () => {
    // `ticks` only means something in mode ticks; analyze runs no step, tick runs exactly one.
    expect(parseEngineRequest({ mode: 'analyze', ticks: 'x', ...WORKED }, limits).ticks).toBe(0);
    expect(parseEngineRequest({ mode: 'tick', ticks: 0, ...WORKED }, limits).ticks).toBe(1);
  });

  it('is checked before the structure', () => {
    expect(refusal({ mode: 'ticks', ticks: 0 }).code).toBe('INVALID_TICKS');
  });
});

describe('check 7: the structure', () => {
  it('refuses a body with no structure with 500 PAYLOAD_ERROR', () => {
    const error = refusal({ mode: 'analyze' });
    expect(error.status).toBe(500);
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toMatch(/^no structure found: send "nodes" and "dependencies" arrays/);
    expect(error.message).toContain('"payload", "system", "record", "data", "graph"');
  });

  // A graph in a format connect reads: still the contract's 500 PAYLOAD_ERROR (this route reads
  // the engine's own format), with the formats and the routes that read them named.
  it('names the formats connect reads for a foreign document', () => {
    const error = refusal({
      mode: 'analyze',
      status: 'success',
      data: { resultType: 'vector', result: [{ metric: { client: 'a', server: 'b' }, value: [1, '1'] }] },
    });
    expect(error.status).toBe(500);
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toContain(
      '; a graph in another format (dependency-links, cytoscape, node-link, jgf, backstage, xray, otlp-traces, jaeger-traces, zipkin-spans, prometheus) is read by POST /api/connect and POST /api/systems, which store it for runs by systemId, or by npx sbe-engine analyze <file>',
    );
  });

  it('refuses top-level nodes that are not an array', () => {
    // A top-level `nodes` makes the body direct, so its type is checked rather than skipped.
    const error = refusal({ mode: 'analyze', nodes: { A: 1 }, dependencies: [] });
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toBe('nodes: must be an array, got an object');
    expect(error.details).toEqual([{ path: 'nodes', message: 'must be an array, got an object' }]);
  });

  it('refuses missing or non-array dependencies, naming the container', () => {
    expect(refusal({ mode: 'analyze', nodes: WORKED.nodes }).message).toBe(
      'dependencies: is missing; send an array (an empty one when there are no dependencies)',
    );
    expect(refusal({ mode: 'analyze', data: { nodes: [], dependencies: 'A->B' } }).message).toBe(
      'data.dependencies: must be an array, got the string "A->B"',
    );
  });

  it('accepts empty arrays', () => {
    const request = parseEngineRequest({ mode: 'analyze', nodes: [], dependencies: [] }, limits);
    expect(request.structure.nodeCount).toBe(0);
  });

  it("passes the engine's message on, naming the dangling dependency", () => {
    const error = refusal({
      mode: 'analyze',
      nodes: WORKED.nodes,
      dependencies: [...WORKED.dependencies, { from: 'C', to: 'Z' }],
    });
    expect(error.status).toBe(500);
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toBe('dependencies[3].to: unknown node "Z"');
    expect(error.details).toEqual([{ path: 'dependencies[3].to', message: 'unknown node "Z"' }]);
  });

  it('prefixes element paths with the container, so the caller knows which copy is wrong', () => {
    const error = refusal({ mode: 'analyze', record: { nodes: [{ id: 'A', load: -1 }], dependencies: [] } });
    expect(error.message).toMatch(/^record\.nodes\[0\]\.load: must be a finite number >= 0/);
    expect(error.details?.[0]?.path).toBe('record.nodes[0].load');
  });
});

describe('check 8: limits', () => {
  const tight: Limits = { ...limits, maxNodes: 2, maxDependencies: 2 };

  it('refuses more nodes than allowed with 413, naming the limit and the count', () => {
    const error = refusal({ mode: 'analyze', ...WORKED }, { ...tight, maxDependencies: 10 });
    expect(error.status).toBe(413);
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe('too many nodes: 3, the limit is 2');
  });

  it('refuses more dependencies than allowed', () => {
    const error = refusal({ mode: 'analyze', ...WORKED }, { ...tight, maxNodes: 10 });
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe('too many dependencies: 3, the limit is 2');
  });

  it('accepts exactly the limit', () => {
    expect(() =>
      parseEngineRequest({ mode: 'analyze', ...WORKED }, { ...limits, maxNodes: 3, maxDependencies: 3 }),
    ).not.toThrow();
  });

  it('reports an invalid element before a count over the limit', () => {
    // Check 7 comes before check 8.
    const body = { mode: 'analyze', nodes: [...WORKED.nodes, { id: 'A' }], dependencies: [] };
    expect(refusal(body, tight).code).toBe('PAYLOAD_ERROR');
  });

  describe('the response-elements guard for mode ticks', () => {
    // The worked example has 3 nodes + 3 dependencies = 6 elements per snapshot (ids are short).
    it('allows ticks × elements up to the limit', () => {
      const request = parseEngineRequest(
        { mode: 'ticks', ticks: 10, ...WORKED },
        { ...limits, maxResponseElements: 60 },
      );
      expect(request.ticks).toBe(10);
    });

    it('refuses one tick more, telling the caller how many ticks would fit', () => {
      const error = refusal({ mode: 'ticks', ticks: 11, ...WORKED }, { ...limits, maxResponseElements: 60 });
      expect(error.status).toBe(413);
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.message).toBe(
        '11 ticks of this structure would return 66 snapshot elements, the limit is 60: ask for at most 10 ticks',
      );
    });

    // One snapshot of the worked example is 6 elements: with room for 6 to 11, one tick fits.
    it('says "1 tick" where one fits', () => {
      expect(
        refusal({ mode: 'ticks', ticks: 2, ...WORKED }, { ...limits, maxResponseElements: 11 }).message,
      ).toMatch(/: ask for at most 1 tick$/);
    });

    it('applies to the default tick count too', () => {
      expect(refusal({ mode: 'ticks', ...WORKED }, { ...limits, maxResponseElements: 59 }).message).toMatch(
        /^10 ticks .* ask for at most 9 ticks$/,
      );
    });

    it('does not apply to analyze and tick, which return one state', () => {
      expect(() =>
        parseEngineRequest({ mode: 'tick', ...WORKED }, { ...limits, maxResponseElements: 1 }),
      ).not.toThrow();
      expect(() =>
        parseEngineRequest({ mode: 'analyze', ...WORKED }, { ...limits, maxResponseElements: 1 }),
      ).not.toThrow();
    });

    it('says so when not even one snapshot fits', () => {
      expect(
        refusal({ mode: 'ticks', ticks: 1, ...WORKED }, { ...limits, maxResponseElements: 5 }).message,
      ).toMatch(/too large for mode "ticks"; use "tick" repeatedly or "analyze"$/);
    });

    it('counts long ids, which every snapshot repeats', () => {
      // One node whose id is 1,000,000 characters: a single element by count, but 1,000 ticks
      // would repeat a megabyte id a thousand times. It counts as 1 + 10,000 elements.
      const id = 'n'.repeat(1_000_000);
      const body = { mode: 'ticks', ticks: 1000, nodes: [{ id }], dependencies: [] };
      const error = refusal(body);
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.message).toBe(
        '1000 ticks of this structure would return 10001000 snapshot elements, the limit is 1000000: ' +
          'ask for at most 99 ticks',
      );
    });
  });
});

describe('body formats and precedence', () => {
  it.each(['payload', 'system', 'record', 'data', 'graph'])('finds the structure in %s', (container) => {
    const request = parseEngineRequest({ mode: 'analyze', [container]: WORKED }, limits);
    expect(request.structure.nodeCount).toBe(3);
    expect(request.structure.dependencyCount).toBe(3);
  });

  it('lets top-level nodes beat a container', () => {
    // The direct format wins: the payload (with one node) is ignored.
    const body = { mode: 'analyze', ...WORKED, payload: { nodes: [{ id: 'X' }], dependencies: [] } };
    expect(parseEngineRequest(body, limits).structure.nodeCount).toBe(3);
  });

  it('takes the first container in the order payload, system, record, data, graph', () => {
    // `graph` comes first in the object but last in the order, so `data` wins.
    const body = { mode: 'analyze', graph: { nodes: [{ id: 'G' }], dependencies: [] }, data: WORKED };
    expect(parseEngineRequest(body, limits).structure.nodeCount).toBe(3);
  });

  it('skips a container without a nodes array', () => {
    // `payload` is an object but holds no nodes; `system` is an array; `record` has it.
    const body = { mode: 'analyze', payload: { dependencies: [] }, system: [WORKED], record: WORKED };
    expect(parseEngineRequest(body, limits).structure.nodeCount).toBe(3);
  });

  it('skips a container whose nodes are not an array', () => {
    const body = { mode: 'analyze', payload: { nodes: 'A,B', dependencies: [] }, graph: WORKED };
    expect(parseEngineRequest(body, limits).structure.nodeCount).toBe(3);
  });

  it('reads mode and ticks from inside the container when absent at the top level', () => {
    const request = parseEngineRequest({ payload: { mode: 'ticks', ticks: 2, ...WORKED } }, limits);
    expect(request.mode).toBe('ticks');
    expect(request.ticks).toBe(2);
  });

  it('reads ticks at the top level next to a container', () => {
    // The seed's own example: `ticks` beside `payload`.
    expect(parseEngineRequest({ mode: 'ticks', ticks: 2, payload: WORKED }, limits).ticks).toBe(2);
  });

  it('prefers the top-level mode and ticks over the container', () => {
    const body = { mode: 'ticks', ticks: 4, system: { mode: 'analyze', ticks: 7, ...WORKED } };
    const request = parseEngineRequest(body, limits);
    expect(request.mode).toBe('ticks');
    expect(request.ticks).toBe(4);
  });

  it('names the container in mode and ticks errors read from it', () => {
    expect(refusal({ data: { mode: 'go', ...WORKED } }).message).toBe(
      'data.mode must be one of "analyze", "tick", "ticks", got the string "go"',
    );
    expect(refusal({ data: { mode: 'ticks', ticks: 0, ...WORKED } }).details).toEqual([
      { path: 'data.ticks', message: 'must be an integer from 1 to 1000, got 0' },
    ]);
  });

  it('does not read mode from a container that was skipped', () => {
    // `payload` has a mode but no nodes array, so it is not the structure and its mode is not read.
    expect(refusal({ payload: { mode: 'analyze' }, graph: WORKED }).message).toMatch(/^mode is missing/);
  });

  it('ignores a mode inside a container when the body is direct', () => {
    expect(refusal({ ...WORKED, payload: { mode: 'analyze' } }).message).toMatch(/^mode is missing/);
  });

  it('returns what to run', () => {
    const request = parseEngineRequest({ mode: 'tick', ...WORKED }, limits);
    expect(request.mode).toBe('tick');
    expect(request.ticks).toBe(1);
    expect(request.structure.nodeCount).toBe(3);
  });
});

describe('extractStructure (for callers with no mode)', () => {
  it('finds and compiles a structure in either format', () => {
    expect(extractStructure({ graph: WORKED }, DEFAULT_LIMITS).compiled.dependencyCount).toBe(3);
    expect(extractStructure(WORKED, DEFAULT_LIMITS).compiled.nodeCount).toBe(3);
  });

  it('throws PayloadError naming the element', () => {
    expect(() =>
      extractStructure({ payload: { nodes: [{ id: '' }], dependencies: [] } }, DEFAULT_LIMITS),
    ).toThrow(PayloadError);
    expect(() =>
      extractStructure({ payload: { nodes: [{ id: '' }], dependencies: [] } }, DEFAULT_LIMITS),
    ).toThrow(/^payload\.nodes\[0\]\.id: must be a non-empty string/);
    expect(() => extractStructure([WORKED], DEFAULT_LIMITS)).toThrow('must be a JSON object, got an array');
  });
});
