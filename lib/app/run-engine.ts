/**
 * Run the engine on a request body: a structure sent inline, or `{ mode, ticks?, systemId }` on
 * a system its owner registered. The one place an engine request is turned into an answer, for
 * the HTTP route and the engine CLI alike; settings and scenarios apply here, between finding the
 * structure and writing the answer.
 */

import { type AcceptedCodings, answerCannotFit } from '../api/answer-floor';
import type { Settings } from '../api/connect-request';
import {
  compileEngineRequest,
  type EngineEnvelope,
  type EngineRequest,
  parseEngineEnvelope,
  problemOf,
} from '../api/engine-request';
import { renderEngineResponse } from '../api/engine-response';
import { ApiError, SYSTEM_NOT_FOUND_DETAIL, SYSTEM_NOT_FOUND_MESSAGE } from '../api/errors';
import type { Mode } from '../api/request-shape';
import { type RunDeadline, runDeadline, stoppedMessage } from '../api/run-deadline';
import { blameSettings } from '../api/settings-fit';
import { applySettings } from '../api/system-settings';
import type { Limits } from '../config/limits';
import { PayloadError, RunStoppedError, withStopCheck } from '../engine';
import type { CompiledStructureCache, SystemRecord, SystemStore } from '../systems';
// Its own module, not the systems index: the engine function loads the system store (the index's
// DynamoSystemStore) at its first `{ mode, systemId }` request, not at cold start.
import { settingsKey } from '../systems/settings';

export interface RunEngineDeps {
  limits: Limits;
  /**
   * Where `{ mode, systemId }` requests find their structure. Without it (the CLI) a body is
   * always read as it stands, so `systemId` is only another ignored field.
   */
  systems?: Pick<SystemStore, 'get' | 'getRecord'>;
  /** Compiled stored systems kept by this process; none when absent. */
  cache?: CompiledStructureCache;
}

export interface RunEngineInput {
  /** The parsed JSON body. */
  body: unknown;
  /** The API key's owner: whose stored systems `systemId` may name. */
  owner?: string;
  /**
   * Told what the request is once it is checked, before the engine runs: the request log
   * reports the mode and sizes of a request even when the engine then fails.
   */
  onAccepted?: (facts: EngineRequestFacts) => void;
  /**
   * The function's remaining time (Lambda's clock): the run stops in time to answer 413
   * LIMIT_EXCEEDED rather than be cut off, and nothing of it is kept. Without a clock (the CLI)
   * a run is never stopped.
   */
  remainingTimeMs?: (() => number) | undefined;
  /** The function's time for the whole request (its remaining time as the invocation began). */
  timeLimitMs?: number | undefined;
  /**
   * The content codings the client accepts for the answer (none: it goes out uncompressed). An
   * answer that could not fit the response limit at any ratio seen is refused before the run
   * (lib/api/answer-floor.ts). Without it (the CLI) an answer has no size limit.
   */
  acceptedCodings?: AcceptedCodings | undefined;
}

/** What a checked request is, before it runs. */
export interface EngineRequestFacts {
  mode: Mode;
  /** Steps to run: the requested count in mode `ticks`, 1 in `tick`, 0 in `analyze`. */
  ticks: number;
  /** A scenario with `"compare": true`: the answer holds both states. */
  compare: boolean;
  /** A run by `systemId`: what to reduce is the stored system, not a body it sent. */
  stored: boolean;
  nodeCount: number;
  dependencyCount: number;
}

/** The 200 body and what the request log reports of it. */
export interface EngineAnswer extends EngineRequestFacts {
  /** The response body, JSON text: `{ mode, engine }`, `{ mode, snapshot }` or `{ mode, ticks, snapshots }`. */
  json: string;
}

export type RunEngine = (input: RunEngineInput) => Promise<EngineAnswer>;

/**
 * Checks the body in the contract's order (4 to 8) and answers it. Every failure is an
 * `ApiError` with the contract's code (the engine's own failures come out as `EngineFailure`,
 * which the surface reports as ENGINE_ERROR).
 */
export function createRunEngine(deps: RunEngineDeps): RunEngine {
  const { limits, systems, cache } = deps;

  const answer = (
    input: RunEngineInput,
    request: EngineRequest,
    deadline: RunDeadline | undefined,
    storedSha256?: string,
  ): EngineAnswer => {
    const { mode, ticks, structure } = request;
    const facts = {
      mode,
      ticks,
      compare: request.compare === true,
      stored: request.stored === true,
      nodeCount: structure.nodeCount,
      dependencyCount: structure.dependencyCount,
    };
    input.onAccepted?.(facts);
    if (input.acceptedCodings !== undefined) {
      const cannotFit = answerCannotFit(request, input.acceptedCodings, limits);
      if (cannotFit !== undefined) throw new ApiError('LIMIT_EXCEEDED', cannotFit);
    }
    // A stored system's answer is a pure function of its structure (fixed by the SHA-256), the
    // mode and the tick count: an exact repeat is not recomputed. A scenario's answer is not
    // kept (scenarios vary per request); its compiled base still comes from the cache.
    const json =
      cache === undefined || storedSha256 === undefined || request.scenario !== undefined
        ? renderEngineResponse(request, deadline)
        : cache.answer(storedSha256, mode === 'ticks' ? `ticks ${ticks}` : mode, () =>
            renderEngineResponse(request, deadline),
          );
    return { ...facts, json };
  };

  /**
   * A stored system of `owner`. With a cache, the record is read first (a small read) and a
   * structure this process compiled before, by the record's SHA-256, is used as it is;
   * otherwise the structure is read, compiled and kept. Someone else's system is 404, never 403.
   */
  const runStored = async (
    envelope: EngineEnvelope,
    input: RunEngineInput,
    deadline: RunDeadline | undefined,
  ): Promise<EngineAnswer> => {
    const { owner } = input;
    const id = envelope.body.systemId;
    if (typeof id !== 'string' || owner === undefined) throw systemNotFound();
    // The system's settings (capacities, arrivals) apply over its structure: the compiled form
    // and the answers are kept per structure and settings.
    if (cache !== undefined) {
      const record = await systems!.getRecord(owner, id);
      if (record === undefined) throw systemNotFound();
      const key = cacheKeyOf(record);
      const compiled = cache.get(key);
      if (compiled !== undefined) {
        const holder = { nodes: compiled.nodes, dependencies: compiled.dependencies };
        const blame = blameOf(holder, record.settings);
        const source = { holder, compiled, ...(blame === undefined ? {} : { blame }) };
        const request = inTime(deadline, envelope, true, () =>
          compileEngineRequest(envelope, limits, source),
        );
        return answer(input, { ...request, stored: true }, deadline, key);
      }
    }
    const stored = await systems!.get(owner, id);
    if (stored === undefined) throw systemNotFound();
    const { settings } = stored.record;
    const holder = settings === undefined ? stored.structure : applySettings(stored.structure, settings);
    const blame = blameOf(stored.structure, settings);
    const request = inTime(deadline, envelope, true, () =>
      compileEngineRequest(envelope, limits, {
        holder,
        ...(blame === undefined ? {} : { blame }),
      }),
    );
    const key = cacheKeyOf(stored.record);
    cache?.set(key, request.structure);
    return answer(input, { ...request, stored: true }, deadline, key);
  };

  return async (input) => {
    // Mode and ticks first (checks 5 and 6), whichever structure the request runs on.
    const envelope = parseEngineEnvelope(input.body, limits);
    // From here on the caller's time is asked: decompressing and parsing the body (which nothing
    // can stop) may have used most of it, and checking and compiling a large one takes seconds.
    const deadline = runDeadline(input.remainingTimeMs, input.timeLimitMs);
    const runsStoredSystem =
      systems !== undefined && envelope.location === undefined && Object.hasOwn(envelope.body, 'systemId');
    if (runsStoredSystem) return runStored(envelope, input, deadline);
    const request = inTime(deadline, envelope, false, () => compileEngineRequest(envelope, limits));
    return answer(input, request, deadline);
  };
}

/**
 * Checks and compiles the request within the caller's time: stopped at once when what is left
 * would not cover writing an answer (a 64 MiB body of distinct keys parses in seconds before this
 * runs), and at the engine's checkpoints while it compiles; either is the 413 a run that cannot
 * finish gets, naming the time limit.
 */
function inTime(
  deadline: RunDeadline | undefined,
  envelope: EngineEnvelope,
  stored: boolean,
  compile: () => EngineRequest,
): EngineRequest {
  if (deadline === undefined) return compile();
  const asked = {
    mode: envelope.mode,
    compare: envelope.compare?.value === true && envelope.scenario !== undefined,
    stored,
  };
  const stopped = (beforeRun: boolean) =>
    new ApiError('LIMIT_EXCEEDED', stoppedMessage(deadline.limitMs, asked, false, beforeRun));
  // A stored system's body is a few bytes: its time went elsewhere (the store), and it is said as
  // a run stopped.
  if (deadline.shouldStop(0)) throw stopped(!stored);
  try {
    return withStopCheck(() => deadline.shouldStop(0), compile);
  } catch (error) {
    if (error instanceof RunStoppedError) throw stopped(false);
    throw error;
  }
}

/**
 * With settings, what says a problem of the setting that caused it: settings are checked when
 * written, but a refresh can bring a structure they no longer fit, and a run can find a number
 * too large for a double that a setting gave (a service time's p99).
 */
function blameOf(
  structure: { nodes: readonly unknown[] },
  settings: Settings | undefined,
): ((error: PayloadError) => PayloadError) | undefined {
  if (settings === undefined) return undefined;
  return (error) =>
    blameSettings(structure, settings, error) ??
    // No one setting gave it (an entry's latency sums many nodes' times): said as found, with
    // the settings it was found under.
    new PayloadError(error.path, `${problemOf(error)} (with the system's settings applied)`);
}

/** The structure's hash, and the settings' when there are any: what a run's answer depends on. */
function cacheKeyOf(record: SystemRecord): string {
  return record.settings === undefined ? record.sha256 : `${record.sha256}+${settingsKey(record.settings)}`;
}

function systemNotFound(): ApiError {
  return new ApiError('SYSTEM_NOT_FOUND', SYSTEM_NOT_FOUND_MESSAGE, {
    details: [{ path: 'systemId', message: SYSTEM_NOT_FOUND_DETAIL }],
  });
}
