/**
 * Whether a system's settings fit its structure: the structure with them applied is one the
 * engine accepts. A setting can contradict the structure it is written for — a `capacity` beside
 * the node's own `servers` and `serviceTime`, `servers` on a node without a service time, a
 * `serviceTime` too small for the node's servers — and each is refused when the settings are
 * written (400 naming the setting), not found at every run after.
 */
import { type CompiledStructure, compileStructure, PayloadError } from '../engine';
import type { Settings } from './connect-request';
import { problemOf } from './engine-request';
import { ApiError } from './errors';
import { applySettings } from './system-settings';

/**
 * The fields of one queue: a problem with any of them (a capacity that disagrees with servers /
 * serviceTime, servers without a service time, a service time too small for the servers) comes
 * from the three together, so a setting of another of them is blamed when the named one is the
 * structure's own; in this order.
 */
const QUEUE_FIELDS = ['capacity', 'servers', 'serviceTime'] as const;

/**
 * The structure compiled with `settings` applied; throws 400 `INVALID_REQUEST` naming the setting
 * the engine refuses (`settings.nodes.api.capacity: 3 disagrees with servers / serviceTime = 10;
 * drop one`).
 */
export function compileWithSettings(
  structure: { nodes: readonly unknown[]; dependencies: readonly unknown[] },
  settings: Settings,
): CompiledStructure {
  try {
    return compileStructure(applySettings(structure, settings));
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    const blamed = blameSettings(structure, settings, error);
    const path = blamed.path === '' ? 'settings' : blamed.path;
    const problem = blamed.path === '' ? `do not fit the structure: ${blamed.message}` : problemOf(blamed);
    throw new ApiError('INVALID_REQUEST', `${path}: ${problem}`, { details: [{ path, message: problem }] });
  }
}

/**
 * `error`, found in a structure with `settings` applied, said of the setting that caused it
 * (`nodes[3].capacity` → `settings.nodes.api.capacity`, or the node's setting that is there when
 * the field the engine names is the structure's own); as it came (its path empty) when no setting
 * of that node, nor the default capacity, is to blame.
 */
export function blameSettings(
  structure: { nodes: readonly unknown[] },
  settings: Settings,
  error: PayloadError,
): PayloadError {
  const match = /^nodes\[(\d+)\]\.(\w+)$/.exec(error.path);
  const node =
    match === null ? undefined : (structure.nodes[Number(match[1])] as { id?: unknown } | undefined);
  const id = node?.id;
  const perNode = settings.nodes ?? {};
  const own = typeof id === 'string' && Object.hasOwn(perNode, id) ? perNode[id] : undefined;
  if (own !== undefined) {
    const named = match![2] as keyof typeof own;
    const field =
      own[named] !== undefined
        ? named
        : (QUEUE_FIELDS as readonly string[]).includes(named)
          ? QUEUE_FIELDS.find((f) => own[f] !== undefined)
          : undefined;
    if (field !== undefined)
      return new PayloadError(`settings.nodes.${id as string}.${field}`, problemOf(error));
  }
  if (match?.[2] === 'capacity' && settings.defaultCapacity !== undefined) {
    return new PayloadError('settings.defaultCapacity', `${error.path}: ${problemOf(error)}`);
  }
  return new PayloadError('', error.message);
}
