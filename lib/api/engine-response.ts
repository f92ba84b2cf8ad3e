import {
  type CompiledStructure,
  compareStates,
  digestState,
  JsonWriter,
  PayloadError,
  ResultTooLargeError,
  RunStoppedError,
  type StateDigest,
  type StateObserver,
  withStopCheck,
  writeAnalyze,
  writeTick,
  writeTicks,
} from '../engine';
import { type EngineRequest, problemOf } from './engine-request';
import { ApiError, EngineFailure } from './errors';
import { type RunDeadline, stoppedMessage } from './run-deadline';

const ANALYZE_OPEN = '{"mode":"analyze","engine":';
const TICK_OPEN = '{"mode":"tick","snapshot":';

/**
 * Runs the engine for a parsed request and writes the 200 body, exactly once: the text
 * `JSON.stringify` would make of `{ mode: "analyze", engine }`, `{ mode: "tick", snapshot }` or
 * `{ mode: "ticks", ticks, snapshots }`, byte for byte, written straight from the engine's
 * arrays (see lib/engine/json-writer.ts). The API and the engine CLI both answer through this,
 * so they print byte-identical JSON for the same body. Anything the engine throws comes out as
 * an `EngineFailure`; extra fields nested too deeply to print as PAYLOAD_ERROR; a result too
 * large to turn into a string at all as LIMIT_EXCEEDED. With a `deadline`, the engine asks it at
 * its checkpoints (between sweeps and ticks) and a run that would not finish in time stops there,
 * answered LIMIT_EXCEEDED naming the time limit.
 */
export function renderEngineResponse(request: EngineRequest, deadline?: RunDeadline): string {
  const writer = new JsonWriter();
  const shouldStop = deadline === undefined ? undefined : () => deadline.shouldStop(writer.length);
  try {
    return withStopCheck(shouldStop, () => writeResponse(writer, request));
  } catch (error) {
    writer.release();
    if (error instanceof ApiError) throw error;
    if (error instanceof PayloadError) {
      // A number the run finds too large for a double (a service time's p99, say) may come from a
      // stored system's settings: then the setting is named.
      const said = request.blame?.(error) ?? error;
      throw new ApiError('PAYLOAD_ERROR', said.message, {
        details: [{ path: said.path, message: problemOf(said) }],
      });
    }
    if (error instanceof ResultTooLargeError) {
      throw new ApiError(
        'LIMIT_EXCEEDED',
        'The result is too large to return; send a smaller structure or ask for fewer ticks.',
      );
    }
    if (error instanceof RunStoppedError && deadline !== undefined) {
      throw new ApiError(
        'LIMIT_EXCEEDED',
        stoppedMessage(deadline.limitMs, { mode: request.mode, compare: compares(request) }),
      );
    }
    throw new EngineFailure(error);
  }
}

/** Whether the answer holds the scenario's state and the baseline's: `"compare": true` with a scenario. */
export function compares(request: EngineRequest): request is EngineRequest & { scenario: CompiledStructure } {
  return request.compare === true && request.scenario !== undefined;
}

/** Writes the whole 200 body into `writer` and returns its text. */
function writeResponse(writer: JsonWriter, request: EngineRequest): string {
  const { mode, ticks } = request;
  writer.text(
    mode === 'analyze'
      ? ANALYZE_OPEN
      : mode === 'tick'
        ? TICK_OPEN
        : `{"mode":"ticks","ticks":${ticks},"snapshots":`,
  );
  if (!compares(request)) {
    writeResult(writer, request, request.scenario ?? request.structure);
  } else {
    // The scenario's answer, then the baseline's, each digested at the state compared (the
    // last one written) while its buffers still hold it; both start from the one compiled
    // structure (the scenario's derived from it).
    const compared = mode === 'analyze' ? 0 : ticks;
    let after: StateDigest | undefined;
    let before: StateDigest | undefined;
    writeResult(writer, request, request.scenario, (described, summary) => {
      if (described.options.tick === compared) after = digestState(described, summary);
    });
    writer.text(',"baseline":');
    writeResult(writer, request, request.structure, (described, summary) => {
      if (described.options.tick === compared) before = digestState(described, summary);
    });
    writer.text(',"changes":');
    writer.text(JSON.stringify(compareStates(before!, after!)));
  }
  writer.text('}');
  return writer.finish();
}

/** The `engine`, `snapshot` or `snapshots` value of `structure` in the request's mode. */
function writeResult(
  writer: JsonWriter,
  request: EngineRequest,
  structure: CompiledStructure,
  observe?: StateObserver,
): void {
  switch (request.mode) {
    case 'analyze':
      writeAnalyze(writer, structure, observe);
      break;
    case 'tick':
      writeTick(writer, structure, observe);
      break;
    case 'ticks':
      writeTicks(writer, structure, request.ticks, observe);
      break;
  }
}
