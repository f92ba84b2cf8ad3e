import {
  blameScenario,
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
import { lessToAskFor } from './response-size';
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
  const shouldStop =
    deadline === undefined ? undefined : (toWrite = 0) => deadline.shouldStop(writer.length, toWrite);
  // Which structure was running when a problem was found: the scenario's first, then the baseline.
  const failing: { structure: CompiledStructure } = { structure: request.scenario ?? request.structure };
  try {
    return withStopCheck(shouldStop, () => writeResponse(writer, request, failing));
  } catch (error) {
    writer.release();
    if (error instanceof ApiError) throw error;
    if (error instanceof PayloadError) {
      const said = causeOf(request, error, failing, shouldStop);
      throw new ApiError('PAYLOAD_ERROR', said.message, {
        details: [{ path: said.path, message: problemOf(said) }],
      });
    }
    // What the request could ask less of, as both 413s say it.
    const asked = { mode: request.mode, compare: compares(request), stored: request.stored === true };
    if (error instanceof ResultTooLargeError) {
      throw new ApiError(
        'LIMIT_EXCEEDED',
        `The result is too large to return; ask for less: ${lessToAskFor(asked)}.`,
      );
    }
    if (error instanceof RunStoppedError && deadline !== undefined) {
      throw new ApiError('LIMIT_EXCEEDED', stoppedMessage(deadline.limitMs, asked, deadline.stoppedBySize()));
    }
    throw new EngineFailure(error);
  } finally {
    // Loop systems are kept for one call: the base may outlive it in a warm cache (a scenario
    // that shares them keeps them on the base; one of its own goes with the request).
    request.structure.releaseLoopSystems();
  }
}

/** Whether the answer holds the scenario's state and the baseline's: `"compare": true` with a scenario. */
export function compares(request: EngineRequest): request is EngineRequest & { scenario: CompiledStructure } {
  return request.compare === true && request.scenario !== undefined;
}

/**
 * `error`, which the run of `failing` found (a number too large for a double: a service time's
 * p99, an entry's latency), said of what caused it. A scenario's run: when the baseline runs
 * without the problem, the scenario's change is named (`scenario.nodes.api.serviceTime`);
 * otherwise the baseline's own problem is the answer. A stored system's settings: the setting
 * that gave the number. When the baseline's run cannot tell (out of time), the problem is said
 * as found.
 */
function causeOf(
  request: EngineRequest,
  error: PayloadError,
  failing: { structure: CompiledStructure },
  shouldStop: (() => boolean) | undefined,
): PayloadError {
  let found = error;
  if (failing.structure === request.scenario && request.scenarioInput !== undefined) {
    const baseline = problemRunning(request, request.structure, shouldStop);
    if (baseline === undefined) {
      const { value, path } = request.scenarioInput;
      return blameScenario(request.structure, value, path, error);
    }
    if (baseline instanceof PayloadError) found = baseline;
  }
  // A number the run finds too large for a double may come from a stored system's settings.
  return request.blame?.(found) ?? found;
}

/**
 * The problem running `structure` in the request's mode finds: `undefined` when it runs through,
 * `'unknown'` when it cannot finish (out of time, too large to write).
 */
function problemRunning(
  request: EngineRequest,
  structure: CompiledStructure,
  shouldStop: (() => boolean) | undefined,
): PayloadError | 'unknown' | undefined {
  const writer = new JsonWriter();
  try {
    withStopCheck(shouldStop, () => writeResult(writer, request, structure));
    return undefined;
  } catch (error) {
    if (error instanceof PayloadError) return error;
    if (error instanceof RunStoppedError || error instanceof ResultTooLargeError) return 'unknown';
    throw error;
  } finally {
    writer.release();
  }
}

/** Writes the whole 200 body into `writer` and returns its text. */
function writeResponse(
  writer: JsonWriter,
  request: EngineRequest,
  failing: { structure: CompiledStructure },
): string {
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
      if (described.options.tick === compared)
        after = digestState(described, summary, { entryLimits: false });
    });
    writer.text(',"baseline":');
    failing.structure = request.structure;
    writeResult(writer, request, request.structure, (described, summary) => {
      // A baseline without latency fields, compared with a scenario that adds them, still says
      // which entries were stuck: none is named newly stuck that was stuck already.
      if (described.options.tick === compared) {
        before = digestState(described, summary, { entryLimits: after?.steady?.latency !== undefined });
      }
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
