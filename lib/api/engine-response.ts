import { analyze, type EngineResult, type Snapshot, tick, ticks } from '../engine';
import type { EngineRequest } from './engine-request';
import { ApiError, EngineFailure } from './errors';

export type EngineResponseBody =
  | { mode: 'analyze'; engine: EngineResult }
  | { mode: 'tick'; snapshot: Snapshot }
  | { mode: 'ticks'; ticks: number; snapshots: Snapshot[] };

/**
 * Runs the engine for a parsed request and serializes the 200 body, exactly once. The API and
 * the engine CLI both answer through this, so they print byte-identical JSON for the same body.
 * Anything the engine throws comes out as an `EngineFailure`; a result too large to turn into
 * a string at all comes out as LIMIT_EXCEEDED.
 */
export function renderEngineResponse(request: EngineRequest): string {
  let body: EngineResponseBody;
  try {
    body = runEngine(request);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new EngineFailure(error);
  }
  try {
    return JSON.stringify(body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw new EngineFailure(error);
    // JSON.stringify recurses, so extra fields nested tens of thousands deep (which JSON.parse
    // accepts) overflow the stack: that is the caller's payload, not an engine fault.
    if (/call stack/i.test(error.message)) {
      throw new ApiError(
        'PAYLOAD_ERROR',
        'An extra field on a node or dependency is nested too deeply to return; flatten it or leave it out.',
      );
    }
    // V8 refuses strings past ~512 MB; the limits should stop such requests earlier, but if
    // one slips through the honest answer is "too large", not "the engine broke".
    throw new ApiError(
      'LIMIT_EXCEEDED',
      'The result is too large to return; send a smaller structure or ask for fewer ticks.',
    );
  }
}

function runEngine(request: EngineRequest): EngineResponseBody {
  switch (request.mode) {
    case 'analyze':
      return { mode: 'analyze', engine: analyze(request.structure) };
    case 'tick':
      return { mode: 'tick', snapshot: tick(request.structure) };
    case 'ticks':
      return { mode: 'ticks', ticks: request.ticks, snapshots: ticks(request.structure, request.ticks) };
  }
}
