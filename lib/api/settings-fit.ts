/**
 * Whether a system's settings fit its structure: the structure with them applied is one the
 * engine accepts. A setting can contradict the structure it is written for — a `capacity` beside
 * the node's own `servers` and `serviceTime`, `servers` on a node without a service time, a
 * `serviceTime` too small for the node's servers — and each is refused when the settings are
 * written (400 naming the setting), not found at every run after.
 */
import {
  analyze,
  type CompiledStructure,
  compileStructure,
  fieldToBlame,
  nodeFieldOf,
  PayloadError,
} from '../engine';
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
 * the structure is analyzed with them and, where that fails, without them. Settings that make a
 * structure that runs fail are refused (400 naming the setting, or `settings` where no one setting
 * gave the number); a structure that fails either way is not the settings' to answer for. Costs
 * one `analyze` of the system per settings write.
 */
export function compileRunnableWithSettings(
  structure: StructureArrays,
  settings: Settings,
  compiledAlone?: CompiledStructure,
): CompiledStructure {
  const compiled = compileWithSettings(structure, settings);
  const refused = settingsRunRefusal(structure, settings, compiled, compiledAlone);
  if (refused !== undefined) throw settingRefused(refused);
  return compiled;
}

/**
 * What a run refuses with `settings` applied (`compiled`) that it answers without them, said of
 * the setting to blame where one is; `undefined` when runs answer, or fail without the settings too.
 */
function settingsRunRefusal(
  structure: StructureArrays,
  settings: Settings,
  compiled: CompiledStructure,
  compiledAlone: CompiledStructure | undefined,
): PayloadError | undefined {
  const refused = runRefusal(compiled);
  if (refused === undefined) return undefined;
  const alone = compiledAlone ?? compiledOrRefused(structure, undefined);
  if (alone instanceof PayloadError || runRefusal(alone) !== undefined) return undefined;
  return (
    blameSettings(structure, settings, refused) ??
    new PayloadError(
      'settings',
      `runs cannot answer with them applied: ${refused.path}: ${problemOf(refused)}`,
    )
  );
}

/** What `analyze` refuses in `compiled`, or `undefined` when it answers. */
function runRefusal(compiled: CompiledStructure): PayloadError | undefined {
  try {
    analyze(compiled);
    return undefined;
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    return error;
  }
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
  compiledAlone?: CompiledStructure,
): string | undefined {
  const compiled = compiledOrRefused(structure, settings);
  if (!(compiled instanceof PayloadError)) {
    return settingsRunRefusal(structure, settings, compiled, compiledAlone)?.message;
  }
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
  const named = nodeFieldOf(error.path);
  const field = named?.field;
  const node = field === undefined ? undefined : (structure.nodes[named!.v] as { id?: unknown } | undefined);
  const id = node?.id;
  const perNode = settings.nodes ?? {};
  const own = typeof id === 'string' && Object.hasOwn(perNode, id) ? perNode[id] : undefined;
  if (own !== undefined) {
    const blamed = fieldToBlame(field!, (f) => own[f as keyof typeof own] !== undefined);
    if (blamed !== undefined)
      return new PayloadError(`settings.nodes.${id as string}.${blamed}`, problemOf(error));
  }
  if (field === 'capacity' && settings.defaultCapacity !== undefined) {
    return new PayloadError('settings.defaultCapacity', `${error.path}: ${problemOf(error)}`);
  }
  return undefined;
}
