import {
  JsonWriter,
  PayloadError,
  ResultTooLargeError,
  writeAnalyze,
  writeTick,
  writeTicks,
} from '../engine';
import { type EngineRequest, problemOf } from './engine-request';
import { ApiError, EngineFailure } from './errors';

const ANALYZE_OPEN = '{"mode":"analyze","engine":';
const TICK_OPEN = '{"mode":"tick","snapshot":';

/**
 * Runs the engine for a parsed request and writes the 200 body, exactly once: the text
 * `JSON.stringify` would make of `{ mode: "analyze", engine }`, `{ mode: "tick", snapshot }` or
 * `{ mode: "ticks", ticks, snapshots }`, byte for byte, written straight from the engine's
 * arrays (see lib/engine/json-writer.ts). The API and the engine CLI both answer through this,
 * so they print byte-identical JSON for the same body. Anything the engine throws comes out as
 * an `EngineFailure`; extra fields nested too deeply to print as PAYLOAD_ERROR; a result too
 * large to turn into a string at all as LIMIT_EXCEEDED.
 */
export function renderEngineResponse(request: EngineRequest): string {
  const writer = new JsonWriter();
  try {
    switch (request.mode) {
      case 'analyze':
        writer.text(ANALYZE_OPEN);
        writeAnalyze(writer, request.structure);
        break;
      case 'tick':
        writer.text(TICK_OPEN);
        writeTick(writer, request.structure);
        break;
      case 'ticks':
        writer.text(`{"mode":"ticks","ticks":${request.ticks},"snapshots":`);
        writeTicks(writer, request.structure, request.ticks);
        break;
    }
    writer.text('}');
    return writer.finish();
  } catch (error) {
    writer.release();
    if (error instanceof ApiError) throw error;
    if (error instanceof PayloadError) {
      throw new ApiError('PAYLOAD_ERROR', error.message, {
        details: [{ path: error.path, message: problemOf(error) }],
      });
    }
    if (error instanceof ResultTooLargeError) {
      throw new ApiError(
        'LIMIT_EXCEEDED',
        'The result is too large to return; send a smaller structure or ask for fewer ticks.',
      );
    }
    throw new EngineFailure(error);
  }
}
