/**
 * Whether a system's settings fit its structure: the structure with them applied is one the
 * engine accepts. A setting can contradict the structure it is written for — a `capacity` beside
 * the node's own `servers` and `serviceTime`, `servers` on a node without a service time, a
 * `serviceTime` too small for the node's servers — and each is refused when the settings are
 * written (400 naming the setting), not found at every run after. So are settings with which the
 * structure compiles but its runs cannot answer (a service time whose p99 is past a double),
 * found by running it with them (`settingsRunRefusal`).
 */
import {
  analyze,
  type CompiledStructure,
  compileStructure,
  fieldToBlame,
  NO_WAY_OUT,
  NO_WAY_OUT_FACT,
  nodeFieldOf,
  PayloadError,
  RunStoppedError,
  type ShouldStop,
  withStopCheck,
} from '../engine';
import { keyStep, quoteKey } from '../text';
import type { Settings } from './connect-request';
import { problemOf } from './engine-request';
import { ApiError } from './errors';
import { applySettings } from './system-settings';

/**
 * The structure compiled with `settings` applied; throws 400 `INVALID_REQUEST` naming the setting
 * the engine refuses (`settings.nodes.api.capacity: 3 disagrees with servers / serviceTime = 10;
 * drop one`).
 */
export function compileWithSettings(structure: StructureArrays, settings: Settings): CompiledStructure {
  const compiled = compiledOrRefused(structure, settings);
  if (!(compiled instanceof PayloadError)) return compiled;
  const blamed = blameSettings(structure, settings, compiled);
  throw settingRefused(
    blamed ?? new PayloadError('settings', `do not fit the structure: ${compiled.message}`),
  );
}

/**
 * `compileWithSettings`, and a check that runs on the system can answer with the settings: some
 * numbers past a double the engine finds only when it runs (a node's p99, an entry's latency), so
 * the structure is analyzed with them (`settingsRunRefusal`). Costs one `analyze` of the system
 * per settings write, and more only where it fails; a check `shouldStop` ends (the function's
 * time) leaves the settings unchecked, as they were before this check.
 */
export function compileRunnableWithSettings(
  structure: StructureArrays,
  settings: Settings,
  options: RunCheckOptions = {},
): CompiledStructure {
  const compiled = compileWithSettings(structure, settings);
  // Settings that say nothing change no run: nothing of theirs to check.
  if (settingsSayNothing(settings)) return compiled;
  const refused = settingsRunRefusal(structure, settings, compiled, options);
  if (refused !== undefined) throw settingRefused(refused);
  return compiled;
}

export interface RunCheckOptions {
  /** The structure compiled without the settings, where the caller has it. */
  compiledAlone?: CompiledStructure | undefined;
  /** What the run with the settings refused, where the caller ran it already (a dry run). */
  refused?: PayloadError | undefined;
  /** Asked at the engine's checkpoints: a check it stops finds nothing (a dry run: see below). */
  shouldStop?: ShouldStop | undefined;
}

/**
 * What a run refuses with `settings` applied (`compiled`) because of them; `undefined` when runs
 * answer, or when the check was stopped (where the caller gave the refusal, a dry run, what
 * `blameSettings` says of it then). A node's setting is named where it is the cause: the run
 * without that one setting does not refuse the same (an arrival set on one node can make
 * another's queue overflow: then the other's own setting is not the cause). Where no one setting
 * is, the settings as a whole are named (`settings: runs cannot answer with them applied:
 * nodes[0]: …`), if the structure runs without them; a structure that cannot run alone is the
 * structure's to fix, and settings that do not name the cause are not refused for it (they may
 * fix one of its problems and leave the next to be found).
 */
export function settingsRunRefusal(
  structure: StructureArrays,
  settings: Settings,
  compiled: CompiledStructure,
  options: RunCheckOptions = {},
): PayloadError | undefined {
  const { shouldStop } = options;
  // The node's setting the older rule names was run without, and is not the cause.
  let cleared = false;
  try {
    const refused = options.refused ?? runRefusal(compiled, shouldStop);
    if (refused === undefined) return undefined;
    const blamed = settingToBlame(structure, settings, refused);
    if (blamed !== undefined) {
      const without = compiledOrRefused(structure, withoutSetting(settings, blamed));
      const stillRefused = without instanceof PayloadError ? without : runRefusal(without, shouldStop);
      if (!sameRefusal(stillRefused, refused)) return blamedRefusal(blamed, refused);
      cleared = true;
    }
    const alone = options.compiledAlone ?? compiledOrRefused(structure, undefined);
    if ((alone instanceof PayloadError ? alone : runRefusal(alone, shouldStop)) !== undefined)
      return undefined;
    return new PayloadError(
      'settings',
      `runs cannot answer with them applied: ${refused.path}${idOf(structure, refused.path)}: ${problemOf(refused)}`,
    );
  } catch (error) {
    if (!(error instanceof RunStoppedError)) throw error;
    // Stopped by the time: a write takes the settings unchecked; a dry run, which has its
    // refusal already, names a node's queue setting as runs do (unless its run without it
    // finished: then it is not the cause), else the element (422).
    return options.refused === undefined || cleared
      ? undefined
      : blameSettings(structure, settings, options.refused);
  }
}

/** ` (node "B")` for a path in node B (`nodes[1].serviceTime`), so a reader of ids can find it. */
function idOf(structure: StructureArrays, path: string): string {
  const named = nodeFieldOf(path);
  const id = named === undefined ? undefined : (structure.nodes[named.v] as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? ` (node ${quoteKey(id)})` : '';
}

/** Whether settings say nothing (no default capacity, no node): they change no run. */
export function settingsSayNothing(settings: Settings): boolean {
  return settings.defaultCapacity === undefined && Object.keys(settings.nodes ?? {}).length === 0;
}

/** What `analyze` refuses in `compiled`, or `undefined` when it answers. */
function runRefusal(
  compiled: CompiledStructure,
  shouldStop: ShouldStop | undefined,
): PayloadError | undefined {
  try {
    withStopCheck(shouldStop, () => analyze(compiled));
    return undefined;
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    return error;
  }
}

/** Whether two refusals say the same of the same element. */
function sameRefusal(a: PayloadError | undefined, b: PayloadError): boolean {
  return a !== undefined && a.path === b.path && a.message === b.message;
}

/** 400 `INVALID_REQUEST` for a problem said of a setting (`settings.nodes.api.capacity: …`). */
export function settingRefused(blamed: PayloadError): ApiError {
  const problem = problemOf(blamed);
  return new ApiError('INVALID_REQUEST', `${blamed.path}: ${problem}`, {
    details: [{ path: blamed.path, message: problem }],
  });
}

/**
 * What the engine refuses in `structure` with `settings` applied, said of the setting to blame
 * where one is (`settings.nodes.api.capacity: …`); `undefined` when they fit. What a refresh
 * says of the settings it keeps.
 */
export function settingsMisfit(
  structure: StructureArrays,
  settings: Settings,
  options: RunCheckOptions = {},
): string | undefined {
  const compiled = compiledOrRefused(structure, settings);
  if (!(compiled instanceof PayloadError))
    return settingsRunRefusal(structure, settings, compiled, options)?.message;
  return (blameSettings(structure, settings, compiled) ?? compiled).message;
}

type StructureArrays = { nodes: readonly unknown[]; dependencies: readonly unknown[] };

/** The structure compiled with the settings applied, or the engine's refusal. */
function compiledOrRefused(
  structure: StructureArrays,
  settings: Settings | undefined,
): CompiledStructure | PayloadError {
  try {
    return compileStructure(settings === undefined ? structure : applySettings(structure, settings));
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    return error;
  }
}

/** A setting: a node's field, or the default capacity. */
type BlamedSetting = { id: string; field: string } | { id: undefined; field: 'defaultCapacity' };

/**
 * `error`, found in a structure with `settings` applied, said of the setting that caused it
 * (`nodes[3].capacity` → `settings.nodes.api.capacity`, or the node's setting that is there when
 * the field the engine names is the structure's own); `undefined` when no setting of that node,
 * nor the default capacity, is to blame.
 */
export function blameSettings(
  structure: { nodes: readonly unknown[] },
  settings: Settings,
  error: PayloadError,
): PayloadError | undefined {
  const blamed = settingToBlame(structure, settings, error);
  return blamed === undefined ? undefined : blamedRefusal(blamed, error);
}

function blamedRefusal(blamed: BlamedSetting, error: PayloadError): PayloadError {
  const problem = problemOf(error);
  return blamed.id === undefined
    ? new PayloadError('settings.defaultCapacity', `${error.path}: ${problem}`)
    : new PayloadError(
        `settings.nodes${keyStep(blamed.id)}.${blamed.field}`,
        problem === NO_WAY_OUT ? NO_WAY_OUT_IN_SETTINGS : problem,
      );
}

/**
 * `NO_WAY_OUT` said of settings: an exit or fan-out is the structure's alone (settings take
 * capacities, arrivals and queues), so the one fix settings have is to drop the servers.
 */
const NO_WAY_OUT_IN_SETTINGS = `${NO_WAY_OUT_FACT}; settings cannot give it one (an "exit" or "fanout": true is the structure's): drop "servers"`;

function settingToBlame(
  structure: { nodes: readonly unknown[] },
  settings: Settings,
  error: PayloadError,
): BlamedSetting | undefined {
  const named = nodeFieldOf(error.path);
  const field = named?.field;
  const node = field === undefined ? undefined : (structure.nodes[named!.v] as { id?: unknown } | undefined);
  const id = node?.id;
  const perNode = settings.nodes ?? {};
  const own = typeof id === 'string' && Object.hasOwn(perNode, id) ? perNode[id] : undefined;
  if (own !== undefined) {
    const blamed = fieldToBlame(field!, (f) => own[f as keyof typeof own] !== undefined);
    if (blamed !== undefined) return { id: id as string, field: blamed };
  }
  if (field === 'capacity' && settings.defaultCapacity !== undefined) {
    return { id: undefined, field: 'defaultCapacity' };
  }
  return undefined;
}

/** `settings` without the one setting `blamed` (ids such as `__proto__` stay plain keys). */
function withoutSetting(settings: Settings, blamed: BlamedSetting): Settings {
  const { id, field } = blamed;
  if (id === undefined) {
    const { defaultCapacity: _dropped, ...rest } = settings;
    return rest;
  }
  const nodes = Object.entries(settings.nodes ?? {}).map(([key, own]) =>
    key === id
      ? [key, Object.fromEntries(Object.entries(own).filter(([name]) => name !== field))]
      : [key, own],
  );
  return { ...settings, nodes: Object.fromEntries(nodes) };
}
