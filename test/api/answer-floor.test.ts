/**
 * The floor on an answer's size, and the refusal before the run it allows: the floor never passes
 * the answer's real size (or a request that would fit could be refused), and a refusal comes only
 * when no answer could fit.
 */
import { brotliCompressSync, constants } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerCannotFit, answerFloorBytes, ONE_STATE_RATIO } from '../../lib/api/answer-floor';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { largestBinaryBody } from '../../lib/api/response-size';
import { DEFAULT_LIMITS, readLimits } from '../../lib/config/limits';
import { scenarioArbitrary, structureArbitrary } from '../engine/scenario-arbitraries';

const request = (body: Record<string, unknown>) => parseEngineRequest(body, DEFAULT_LIMITS);

/** `n` idle nodes in a chain `n0 → n1 → …`: the most compressible answer there is. */
const idleChain = (n: number) => ({
  nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, load: 0 })),
  dependencies: Array.from({ length: n - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
});

describe('answerFloorBytes', () => {
  // a → b, idle: each node entry is at least 83 bytes beyond its id and the dependency 28 beyond
  // its two: (83 + 1) × 2 + 28 + 2 = 198. The answer itself is 348 bytes: the envelope, events,
  // `"blocked":false` and the longer roles are not counted.
  it('counts every node and dependency entry at its shortest', () => {
    const body = { mode: 'analyze', ...idleChain(2) };
    body.nodes = [
      { id: 'a', load: 0 },
      { id: 'b', load: 0 },
    ];
    body.dependencies = [{ from: 'a', to: 'b' }];
    expect(answerFloorBytes(request(body))).toBe(198);
    expect(renderEngineResponse(request(body)).length).toBe(348);
  });

  // A timeline writes every state: 10 ticks are ten times one; compare writes the baseline too.
  it('multiplies by the states a timeline writes, and by two with compare', () => {
    const one = answerFloorBytes(request({ mode: 'tick', ...idleChain(5) }));
    expect(answerFloorBytes(request({ mode: 'ticks', ticks: 10, ...idleChain(5) }))).toBe(10 * one);
    const compared = request({ mode: 'analyze', ...idleChain(5), scenario: { scale: 2 }, compare: true });
    expect(answerFloorBytes(compared)).toBe(2 * one);
    const scenarioOnly = request({ mode: 'analyze', ...idleChain(5), scenario: { scale: 2 } });
    expect(answerFloorBytes(scenarioOnly)).toBe(one);
  });

  // The floor is a floor for any structure: closed or open, awkward ids (quotes, emoji, lone
  // surrogates), extra fields, scenarios with cuts and compare, in every mode.
  it('never passes the size of the answer itself', () => {
    const withRequest = structureArbitrary.chain((structure) =>
      fc.record({
        structure: fc.constant(structure),
        mode: fc.constantFrom('analyze', 'tick', 'ticks'),
        ticks: fc.integer({ min: 1, max: 3 }),
        scenario: fc.option(scenarioArbitrary(structure, { down: true }), { nil: undefined }),
        compare: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(withRequest, ({ structure, mode, ticks, scenario, compare }) => {
        const body = {
          mode,
          ...(mode === 'ticks' ? { ticks } : {}),
          ...structure,
          ...(scenario === undefined ? {} : { scenario, compare }),
        };
        let parsed: ReturnType<typeof request>;
        try {
          parsed = request(body);
        } catch {
          return; // a scenario the contract refuses (a down node nothing reaches, …) has no answer
        }
        const answer = Buffer.byteLength(renderEngineResponse(parsed), 'utf8');
        expect(answerFloorBytes(parsed)).toBeLessThanOrEqual(answer);
      }),
      { numRuns: 300 },
    );
  });
});

describe('answerCannotFit', () => {
  const limits = readLimits({ MAX_RESPONSE_BYTES: String(16 * 1024) });

  // 300 idle nodes: a floor of some 35 KB against 8 KiB of body once the envelope is kept back.
  it('refuses an answer over the limit for a client that takes no compression, and says how to get it', () => {
    const message = answerCannotFit(request({ mode: 'analyze', ...idleChain(300) }), [], limits);
    expect(message).toMatch(
      /^The answer would be at least 3\d KB of JSON, more than the response limit of 16384 bytes, so it was not computed\. Send `Accept-Encoding: br, gzip`/,
    );
    expect(message).toContain('ask for less: a smaller structure.');
    // Uncompressed, it really is too large.
    expect(renderEngineResponse(request({ mode: 'analyze', ...idleChain(300) })).length).toBeGreaterThan(
      16 * 1024,
    );
  });

  // A floor under the limit itself but past what it leaves for the body: said as that, not as a
  // size "more than" a larger limit. 100 idle nodes: some 11 KB, against 8 KiB of body.
  it('names what the limit leaves for the body when the floor is under the limit itself', () => {
    const message = answerCannotFit(request({ mode: 'analyze', ...idleChain(100) }), [], limits);
    expect(message).toMatch(
      /^The answer would be at least 1\d KB of JSON, more than the 8192 bytes the response limit of 16384 bytes leaves for a body, so it was not computed\./,
    );
  });

  it('lets through what might fit', () => {
    expect(answerCannotFit(request({ mode: 'analyze', ...idleChain(30) }), [], limits)).toBeUndefined();
    // Compressed, 300 nodes might fit: 35 KB / 1,000 is far below 6 KiB.
    expect(
      answerCannotFit(request({ mode: 'analyze', ...idleChain(300) }), ['gzip'], limits),
    ).toBeUndefined();
  });

  // At 1,000× a 16 KiB limit takes a floor of 1,000 × 6,138 bytes ≈ 6.1 MB: 26,000 idle nodes
  // compared with their baseline have a floor of about 6.4 MB.
  it('refuses, for a client that takes compression, only what would need to compress more than 1,000×', () => {
    const budget = largestBinaryBody(limits) * ONE_STATE_RATIO;
    const compared = request({
      mode: 'analyze',
      ...idleChain(26_000),
      scenario: { scale: 2 },
      compare: true,
    });
    expect(answerFloorBytes(compared)).toBeGreaterThan(budget);
    const message = answerCannotFit(compared, ['br', 'gzip'], limits);
    expect(message).toContain('even compressed 1000×');
    expect(message).toContain('ask for less: a smaller structure, or the scenario without `compare`.');
    const alone = request({ mode: 'analyze', ...idleChain(26_000), scenario: { scale: 2 } });
    expect(answerFloorBytes(alone)).toBeLessThanOrEqual(budget);
    expect(answerCannotFit(alone, ['br'], limits)).toBeUndefined();
  });

  // 4,000 idle nodes named as Kubernetes services are (55 characters), compared with their
  // baseline: each id is written in both states, and brotli at the middleware's quality packs
  // the answer some 215× against its floor, past the 150× once allowed. It fits a 16 KiB limit
  // compressed, so it must not be refused.
  it('lets through a compare of long ids that fits compressed', () => {
    const ids = Array.from(
      { length: 4000 },
      (_, i) => `cluster-eu-west-1/namespace-payments/service-${String(i).padStart(6, '0')}`,
    );
    const compared = request({
      mode: 'analyze',
      nodes: ids.map((id) => ({ id, load: 0 })),
      dependencies: [],
      scenario: { scale: 2 },
      compare: true,
    });
    expect(answerFloorBytes(compared)).toBeGreaterThan(150 * largestBinaryBody(limits));
    expect(answerCannotFit(compared, ['br'], limits)).toBeUndefined();
    const packed = brotliCompressSync(renderEngineResponse(compared), {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4 },
    });
    expect(packed.length).toBeLessThanOrEqual(largestBinaryBody(limits));
  });

  // A timeline's snapshots repeat one another, so compression has no useful bound: only the
  // element limit applies to them. Uncompressed, their floor counts as for any answer.
  it('leaves compressed timelines to the element limit', () => {
    const timeline = request({ mode: 'ticks', ticks: 200, ...idleChain(300) });
    expect(answerCannotFit(timeline, ['br'], limits)).toBeUndefined();
    expect(answerCannotFit(timeline, [], limits)).toContain(
      'ask for less: fewer ticks or a smaller structure.',
    );
    // A compared timeline: fewer ticks is advice too.
    const compared = request({
      mode: 'ticks',
      ticks: 200,
      ...idleChain(300),
      scenario: { scale: 2 },
      compare: true,
    });
    expect(answerCannotFit(compared, [], limits)).toContain(
      'ask for less: fewer ticks, a smaller structure, or the scenario without `compare`.',
    );
  });
});
