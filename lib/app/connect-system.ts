/**
 * Register a system: fetch the external API's document (SSRF-safe, `lib/outbound`), read the
 * graph in it (`lib/formats`: the engine's own format or one a tool serves), check it by the
 * engine's rules and store it for its owner; or, as a dry run, answer what it found and store
 * nothing. The external token is used for that one fetch and kept nowhere.
 */
import {
  checkSettingsIds,
  parseConnectRequest,
  readOptionsOf,
  type Settings,
  structureFromUpstream,
} from '../api/connect-request';
import { problemOf } from '../api/engine-request';
import { ApiError } from '../api/errors';
import { limitSeconds } from '../api/run-deadline';
import {
  compileRunnableWithSettings,
  compileWithSettings,
  settingRefused,
  settingsRunRefusal,
} from '../api/settings-fit';
import type { Limits } from '../config/limits';
import {
  analyze,
  type Bottleneck,
  type CompiledStructure,
  type EngineResult,
  type Headroom,
  PayloadError,
  RunStoppedError,
  withStopCheck,
} from '../engine';
import type { FetchJsonOptions } from '../outbound';
import {
  type CompiledStructureCache,
  type PublicSystemRecord,
  type SystemStore,
  unknownSettingsIds,
} from '../systems';
import { inContractTerms } from './errors';
import { fetchDocument } from './fetch-document';
import { checkDeadline, type FunctionTime, storeNewSystem } from './time-to-store';

export interface ConnectSystemDeps {
  systems: Pick<SystemStore, 'create' | 'delete'>;
  limits: Pick<Limits, 'maxNodes' | 'maxDependencies' | 'maxDecodedBodyBytes'>;
  /** The deployment's outbound settings: hosts exempt from the address rules, the deadline. */
  outbound: Pick<FetchJsonOptions, 'allowHosts' | 'deadlineMs' | 'resolveHost' | 'trace'>;
  /**
   * The compiled stored systems of this process: a registration keeps the structure it has
   * just compiled, so a run on the new system in the same process starts from it.
   */
  cache?: CompiledStructureCache;
}

/** The registered system as its owner sees it, and what the mapping had to say (when anything). */
export type ConnectedSystem = PublicSystemRecord & { warnings?: string[] };

/** Most entry points a dry run lists by id. */
const DRY_RUN_ENTRIES = 100;

/** What a registration would store, and what the engine makes of it, with nothing stored. */
export interface DryRunAnswer {
  dryRun: true;
  format: string;
  unit: string;
  nodes: number;
  dependencies: number;
  /** Ids of the nodes that take arrivals (entry points), in input order, the first 100. */
  entries: string[];
  /** How many nodes take arrivals in all. */
  entryCount: number;
  warnings: string[];
  /**
   * The engine's `analyze`, summed up: where value piles up, from where, the headroom, the
   * bottlenecks (open structures) and the traffic lost (when a node is down: never on connect).
   */
  analysis: Pick<EngineResult, 'primaryBlockage' | 'origin' | 'trace'> & {
    headroom: Headroom | null;
    /** With service times or SLOs (in the document or the settings): as `analyze` gives it. */
    latencyHeadroom?: Headroom | null;
    bottlenecks: Bottleneck[];
  };
}

export type ConnectSystem = (
  owner: string,
  body: unknown,
  /** Told each URL before it is checked and fetched: the body's, then every redirect's (the request line). */
  fetching?: (url: string) => void,
  /** The function's time left (`time-to-store.ts`): nothing is stored that it may not cover. */
  time?: FunctionTime,
) => Promise<ConnectedSystem | DryRunAnswer>;

export function createConnectSystem(deps: ConnectSystemDeps): ConnectSystem {
  const { systems, limits, outbound, cache } = deps;
  return (owner, body, fetching, time) =>
    inContractTerms(async () => {
      const request = parseConnectRequest(body);
      const token = request.auth?.token;
      const startedWithMs = time?.remainingMs();
      // The answer may be as large, decoded, as a request body the engine takes (64 MiB by
      // default): a system connect registers is one the engine could have been sent.
      const answer = await fetchDocument(request.url, { outbound, limits }, { token, fetching, time });
      const readOptions = readOptionsOf(request);
      const { structure, compiled, format, unit, warnings } = structureFromUpstream(
        answer,
        limits,
        request.format ?? 'auto',
        undefined,
        readOptions,
      );
      const { settings } = request;
      if (settings !== undefined) checkSettingsIds(unknownSettingsIds(structure, settings));
      // Settings the structure refuses, or that its runs cannot answer with, are refused here, not
      // at every run after (a dry run's own analysis says the latter).
      const withSettings =
        settings === undefined
          ? compiled
          : request.dryRun === true
            ? compileWithSettings(structure, settings)
            : compileRunnableWithSettings(structure, settings, {
                compiledAlone: compiled,
                shouldStop: checkDeadline(time),
              });
      if (request.dryRun === true) {
        // The answer as the engine would give it on the system, settings applied.
        return dryRunAnswer(
          withSettings,
          { format, unit, warnings },
          {
            structure,
            settings,
            compiledAlone: compiled,
            time,
            ...(startedWithMs === undefined ? {} : { readingMs: startedWithMs - time!.remainingMs() }),
          },
        );
      }
      return storeNewSystem(
        { systems, cache },
        {
          owner,
          name: request.name,
          url: request.url,
          structure,
          format,
          unit,
          ...(readOptions === undefined ? {} : { readOptions }),
          ...(settings === undefined ? {} : { settings }),
        },
        { compiled, warnings },
        time,
      );
    });
}

/**
 * The dry run's analysis. A structure the engine accepts can still hold numbers its run cannot
 * answer (a service time whose 99th percentile is past a double): runs on the system would answer
 * `PAYLOAD_ERROR`, so the dry run says so now, as the registration says it: 400 `INVALID_REQUEST`
 * where the settings cause it (naming the setting, or `settings`: `settingsRunRefusal`, as a
 * connect with them is refused), else 422 `UPSTREAM_INVALID` naming the element. (A registration
 * runs the engine only to check settings: it stores a document's own such numbers.)
 */
function analyzedOrRefused(compiled: CompiledStructure, sent: DryRunSent): EngineResult {
  try {
    // The answer is a few lines: the run may take the function's time up to the store's reserve.
    return withStopCheck(checkDeadline(sent.time, { afterWrite: true }), () => analyze(compiled));
  } catch (error) {
    if (error instanceof RunStoppedError) throw dryRunOutOfTime(compiled, sent);
    if (!(error instanceof PayloadError)) throw error;
    const { structure, settings, compiledAlone } = sent;
    const refused =
      settings === undefined
        ? undefined
        : settingsRunRefusal(structure, settings, compiled, {
            refused: error,
            compiledAlone,
            shouldStop: checkDeadline(sent.time),
          });
    if (refused !== undefined) throw settingRefused(refused);
    throw new ApiError(
      'UPSTREAM_INVALID',
      `The structure read cannot be run by the engine: ${error.message}`,
      {
        details: [{ path: error.path, message: problemOf(error) }],
      },
    );
  }
}

/**
 * A dry run whose analysis would outlast the function: 413 naming the time limit, as an engine
 * run stopped for time is answered, never the function's timeout with no body. Runs on the system
 * have the engine function's time, no more, so the structure is what to reduce.
 */
function dryRunOutOfTime(compiled: CompiledStructure, sent: DryRunSent): ApiError {
  const { time, readingMs } = sent;
  const limitMs = time?.limitMs ?? time?.remainingMs() ?? 0;
  const seconds = limitSeconds(limitMs);
  const count = (n: number, one: string, many: string) =>
    `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  const size = `${count(compiled.nodeCount, 'node', 'nodes')}, ${count(compiled.dependencyCount, 'dependency', 'dependencies')}`;
  if (readingMs !== undefined && readingMs >= limitMs / 2) {
    // The fetch took the time (a slow API), not the analysis: the structure is not to blame.
    return new ApiError(
      'LIMIT_EXCEEDED',
      `The dry run's analysis could not finish within this request's time limit (${seconds} s) and was stopped: fetching and reading the document (${size}) took ${(readingMs / 1000).toFixed(1)} s of it. Try again when the API answers faster, or read less of the document.`,
    );
  }
  return new ApiError(
    'LIMIT_EXCEEDED',
    `The dry run's analysis could not finish within this request's time limit (${seconds} s) and was stopped; the structure read (${size}) takes longer to analyze than this request has. A registration (without "dryRun") does not analyze it, but runs on it have the engine's own time limit, which it may outlast too: read less of the document.`,
  );
}

/** What a dry run was sent: the structure read, the settings, and the structure compiled alone. */
interface DryRunSent {
  structure: { nodes: readonly unknown[]; dependencies: readonly unknown[] };
  settings: Settings | undefined;
  compiledAlone: CompiledStructure;
  /** The function's time: the runs that decide between 400 and 422 give way to it. */
  time: FunctionTime | undefined;
  /** How much of it fetching and reading the document took, ms (with a clock). */
  readingMs?: number;
}

function dryRunAnswer(
  compiled: CompiledStructure,
  read: { format: string; unit: string; warnings: string[] },
  sent: DryRunSent,
): DryRunAnswer {
  const result = analyzedOrRefused(compiled, sent);
  const entries: string[] = [];
  let entryCount = 0;
  for (const node of result.nodes) {
    if (!((node.arrival ?? 0) > 0)) continue;
    entryCount++;
    if (entries.length < DRY_RUN_ENTRIES) entries.push(node.id);
  }
  return {
    dryRun: true,
    ...read,
    nodes: compiled.nodeCount,
    dependencies: compiled.dependencyCount,
    entries,
    entryCount,
    analysis: {
      primaryBlockage: result.primaryBlockage,
      origin: result.origin,
      trace: result.trace,
      headroom: result.headroom ?? null,
      ...(result.latencyHeadroom === undefined ? {} : { latencyHeadroom: result.latencyHeadroom }),
      bottlenecks: result.bottlenecks ?? [],
    },
  };
}
