/**
 * Turns the parsed JSON body of `POST /api/engine` into a request the engine can run, applying
 * the contract's checks 4 to 8 in order. Checks 1 to 3 (auth, body size) and JSON parsing
 * happen before this, in the HTTP stack (lib/http/http-route.ts).
 */
import type { Limits } from '../config/limits';
import { applyScenario, type CompiledStructure, compileStructure, PayloadError } from '../engine';
// The names alone (lib/formats/types.ts), not the readers: this route reads no other format.
import { FORMAT_NAMES } from '../formats/types';
import { describeValue, isRecord } from '../text';
import { ApiError } from './errors';
import { CONTAINER_KEYS, type ContainerKey, isMode, MODES, type Mode } from './request-shape';

export interface EngineRequest {
  mode: Mode;
  /** Steps to run: the requested or default count in mode `ticks`, 1 in `tick`, 0 in `analyze`. */
  ticks: number;
  /** The structure as sent or stored (with a stored system's settings applied). */
  structure: CompiledStructure;
  /** With a `scenario`: the structure it makes of `structure`, which the answer describes. */
  scenario?: CompiledStructure;
  /** `"compare": true`: the answer adds the baseline (`structure`'s) and the changes. */
  compare?: boolean;
  /** With a `scenario`: the scenario as sent and its path, to say a problem its run finds of it. */
  scenarioInput?: EnvelopeField;
  /** Says a problem the run finds of what caused it (a stored system's settings), as `source.blame`. */
  blame?: (error: PayloadError) => PayloadError;
  /** Run on a stored system (`{ mode, systemId }`): what to reduce is the system, not a body. */
  stored?: boolean;
}

/** Where the structure sits in a body: at the top level (`container` undefined) or in a container. */
export interface StructureLocation {
  container: ContainerKey | undefined;
  /** The object holding `nodes` and `dependencies`: the body itself, or `body[container]`. */
  holder: Record<string, unknown>;
}

type JsonObject = Record<string, unknown>;

/**
 * Finds the structure the contract's precedence picks: a top-level `nodes` field makes the body
 * itself the structure; otherwise the first of `payload`, `system`, `record`, `data`, `graph` that
 * is an object holding a `nodes` array. `undefined` when there is none.
 */
export function locateStructure(body: JsonObject): StructureLocation | undefined {
  if (Object.hasOwn(body, 'nodes')) return { container: undefined, holder: body };
  for (const container of CONTAINER_KEYS) {
    const candidate = body[container];
    if (Object.hasOwn(body, container) && isRecord(candidate) && Array.isArray(candidate.nodes)) {
      return { container, holder: candidate };
    }
  }
  return undefined;
}

/**
 * What the engine route says of a graph in a tool's format: this route reads the engine's own
 * format only; the formats connect reads go through connect, a registration or the CLI.
 */
const FOREIGN_FORMATS = `a graph in another format (${FORMAT_NAMES.filter((name) => name !== 'native').join(', ')}) is read by POST /api/connect and POST /api/systems, which store it for runs by systemId, or by npx sbe-engine analyze <file>`;

/**
 * Validates and compiles the located structure. Throws `PayloadError` whose path is a path in
 * the whole body (`payload.dependencies[3].to`), so the caller can tell which copy is wrong.
 */
function compileLocatedStructure(location: StructureLocation | undefined): CompiledStructure {
  if (location === undefined) {
    throw new PayloadError(
      '',
      'no structure found: send "nodes" and "dependencies" arrays at the top level or inside one of ' +
        `${CONTAINER_KEYS.map((key) => `"${key}"`).join(', ')}; ${FOREIGN_FORMATS}`,
    );
  }
  const prefix = location.container === undefined ? '' : `${location.container}.`;
  for (const field of ['nodes', 'dependencies'] as const) {
    const value = location.holder[field];
    if (!Array.isArray(value)) {
      const problem =
        value === undefined
          ? `is missing; send an array (an empty one when there are no ${field})`
          : `must be an array, got ${describeValue(value)}`;
      throw new PayloadError(`${prefix}${field}`, problem);
    }
  }
  try {
    return compileStructure(location.holder);
  } catch (error) {
    if (!(error instanceof PayloadError) || prefix === '') throw error;
    throw new PayloadError(`${prefix}${error.path}`, problemOf(error));
  }
}

/** A structure found in a body, compiled, with the caller's own arrays (extra fields included) to store. */
export interface ExtractedStructure {
  compiled: CompiledStructure;
  structure: { nodes: unknown[]; dependencies: unknown[] };
}

/**
 * The structure of a body in either format, for callers with no mode (`/api/connect`): the
 * same location rules, validation and node and dependency limits as the engine's requests.
 * Throws `PayloadError` naming the element or the limit.
 */
export function extractStructure(
  body: unknown,
  limits: Pick<Limits, 'maxNodes' | 'maxDependencies'>,
): ExtractedStructure {
  if (!isRecord(body)) throw new PayloadError('', `must be a JSON object, got ${describeValue(body)}`);
  const location = locateStructure(body);
  const compiled = compileLocatedStructure(location);
  const prefix = location?.container === undefined ? '' : `${location.container}.`;
  if (compiled.nodeCount > limits.maxNodes) {
    throw new PayloadError(
      `${prefix}nodes`,
      `has ${compiled.nodeCount} nodes, the limit is ${limits.maxNodes}`,
    );
  }
  if (compiled.dependencyCount > limits.maxDependencies) {
    throw new PayloadError(
      `${prefix}dependencies`,
      `has ${compiled.dependencyCount} dependencies, the limit is ${limits.maxDependencies}`,
    );
  }
  const holder = location!.holder as { nodes: unknown[]; dependencies: unknown[] };
  return { compiled, structure: { nodes: holder.nodes, dependencies: holder.dependencies } };
}

/**
 * The part of a request body read before its structure: checks 4 (a JSON object), 5 (mode) and
 * 6 (ticks), and where the structure sits. A stored system's run reads this from its body and
 * then takes the structure from the store.
 */
export interface EngineEnvelope {
  mode: Mode;
  /** Steps to run: the requested or default count in mode `ticks`, 1 in `tick`, 0 in `analyze`. */
  ticks: number;
  /** The body as a JSON object. */
  body: JsonObject;
  /** The structure the contract's precedence picks in the body; `undefined` when it holds none. */
  location: StructureLocation | undefined;
  /** `scenario` and `compare` where the body has them, read like `mode` (top level first). */
  scenario: EnvelopeField | undefined;
  compare: EnvelopeField | undefined;
}

/** A field of the body and its path (`scenario`, or `payload.scenario` in a container). */
export interface EnvelopeField {
  path: string;
  value: unknown;
}

/**
 * Applies the contract's checks 4 to 6, in that order, to a parsed JSON body. Throws `ApiError`
 * with the contract's status and code for the first check that fails.
 */
export function parseEngineEnvelope(
  body: unknown,
  limits: Pick<Limits, 'defaultTicks' | 'maxTicks'>,
): EngineEnvelope {
  // 4. A JSON object.
  if (!isRecord(body)) {
    throw new ApiError('PAYLOAD_ERROR', `request body must be a JSON object, got ${describeValue(body)}`);
  }
  // The container decides where `mode` and `ticks` may also be read from, so it is chosen first;
  // a missing structure is still only reported after mode and ticks (check 7).
  const location = locateStructure(body);
  const envelopeField = (name: 'mode' | 'ticks' | 'scenario' | 'compare'): EnvelopeField | undefined => {
    if (Object.hasOwn(body, name)) return { path: name, value: body[name] };
    if (location?.container !== undefined && Object.hasOwn(location.holder, name)) {
      return { path: `${location.container}.${name}`, value: location.holder[name] };
    }
    return undefined;
  };

  // 5. A known mode.
  const modeField = envelopeField('mode');
  const allowedModes = MODES.map((mode) => `"${mode}"`).join(', ');
  if (modeField === undefined) {
    throw new ApiError('INVALID_MODE', `mode is missing; send one of ${allowedModes}`, {
      details: [{ path: 'mode', message: `required, one of ${allowedModes}` }],
    });
  }
  const mode = modeField.value;
  if (!isMode(mode)) {
    const problem = `must be one of ${allowedModes}, got ${describeValue(modeField.value)}`;
    throw new ApiError('INVALID_MODE', `${modeField.path} ${problem}`, {
      details: [{ path: modeField.path, message: problem }],
    });
  }

  // 6. A usable tick count (only mode `ticks` reads it).
  let ticks = mode === 'tick' ? 1 : 0;
  if (mode === 'ticks') {
    const ticksField = envelopeField('ticks');
    if (ticksField === undefined) {
      ticks = limits.defaultTicks;
    } else {
      const requested = ticksField.value;
      if (!isTickCount(requested, limits.maxTicks)) {
        const problem = `must be an integer from 1 to ${limits.maxTicks}, got ${describeValue(ticksField.value)}`;
        throw new ApiError('INVALID_TICKS', `${ticksField.path} ${problem}`, {
          details: [{ path: ticksField.path, message: problem }],
        });
      }
      ticks = requested;
    }
  }
  return {
    mode,
    ticks,
    body,
    location,
    scenario: envelopeField('scenario'),
    compare: envelopeField('compare'),
  };
}

/**
 * Checks 7 (a valid structure) and 8 (within the limits) for a request whose envelope passed:
 * the structure is the envelope's own, or `source` when given (a stored system's structure, at
 * the top level of its own object). Throws `ApiError` as `parseEngineEnvelope` does.
 */
export function compileEngineRequest(
  envelope: EngineEnvelope,
  limits: Limits,
  source?: {
    /** The object holding the `nodes` and `dependencies` to run. */
    holder: JsonObject;
    /**
     * Those very arrays compiled before (a stored system's cache): check 7 is then already
     * passed and is not repeated.
     */
    compiled?: CompiledStructure;
    /** Says a structure's problem of what caused it (a stored system's settings). */
    blame?: (error: PayloadError) => PayloadError;
  },
): EngineRequest {
  const location: StructureLocation | undefined =
    source === undefined ? envelope.location : { container: undefined, holder: source.holder };
  const compiled = source?.compiled;
  if (compiled !== undefined && compiled.nodes !== location?.holder.nodes) {
    throw new Error('a precompiled structure must come with the very arrays it was compiled from');
  }
  // 7. A valid structure.
  let structure: CompiledStructure;
  try {
    structure = compiled ?? compileLocatedStructure(location);
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    throw payloadError(source?.blame?.(error) ?? error);
  }

  // 7, continued: a scenario valid for that structure.
  const { scenario, compare } = scenarioOf(envelope, structure);

  // 8. Within the limits.
  const { mode, ticks } = envelope;
  assertWithinLimits(structure, location!, mode, ticks, limits, compare ? 2 : 1);
  // A problem the run finds names its element as the checks before it do: with the container
  // in the nested format (`payload.nodes[3].serviceTime`).
  const container = location?.container;
  const blame =
    source?.blame ??
    (container === undefined
      ? undefined
      : (error: PayloadError) => new PayloadError(`${container}.${error.path}`, problemOf(error)));
  return {
    mode,
    ticks,
    structure,
    ...(scenario === undefined ? {} : { scenario, scenarioInput: envelope.scenario! }),
    compare,
    ...(blame === undefined ? {} : { blame }),
  };
}

/**
 * The request's scenario applied to `structure`, and whether to compare. Throws PAYLOAD_ERROR
 * naming the field: a scenario the structure does not fit, a `compare` that is not a boolean,
 * or `compare` without a scenario.
 */
function scenarioOf(
  envelope: EngineEnvelope,
  structure: CompiledStructure,
): { scenario: CompiledStructure | undefined; compare: boolean } {
  const compareField = envelope.compare;
  let compare = false;
  if (compareField !== undefined) {
    if (typeof compareField.value !== 'boolean') {
      throw payloadError(
        new PayloadError(
          compareField.path,
          `must be true or false, got ${describeValue(compareField.value)}`,
        ),
      );
    }
    compare = compareField.value;
  }
  const scenarioField = envelope.scenario;
  if (scenarioField === undefined) {
    if (compare) {
      throw payloadError(
        new PayloadError(
          compareField!.path,
          'needs a "scenario" to compare with; send { "scenario": { … }, "compare": true }',
        ),
      );
    }
    return { scenario: undefined, compare };
  }
  try {
    return { scenario: applyScenario(structure, scenarioField.value, scenarioField.path), compare };
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    throw payloadError(error);
  }
}

/** A `PayloadError` as the contract's PAYLOAD_ERROR, its path in `details`. */
function payloadError(error: PayloadError): ApiError {
  const details = error.path === '' ? undefined : [{ path: error.path, message: problemOf(error) }];
  return new ApiError('PAYLOAD_ERROR', error.message, { details });
}

/**
 * Applies the contract's checks 4 to 8, in that order, to a parsed JSON body and returns what to
 * run. Throws `ApiError` with the contract's status and code for the first check that fails.
 */
export function parseEngineRequest(body: unknown, limits: Limits): EngineRequest {
  return compileEngineRequest(parseEngineEnvelope(body, limits), limits);
}

/**
 * What one element of a snapshot costs against `maxResponseElements`, in characters of id.
 * An element's own JSON (numbers, keys, punctuation) measures 60 to 100 characters, so ids
 * count as one more element per 100 characters: a structure with very long ids cannot slip a
 * multi-gigabyte timeline past an element count that only sees a handful of nodes.
 */
const ID_CHARS_PER_ELEMENT = 100;

function assertWithinLimits(
  structure: CompiledStructure,
  location: StructureLocation,
  mode: Mode,
  ticks: number,
  limits: Limits,
  /** 2 when the answer carries a baseline too. */
  answers: number,
): void {
  const prefix = location.container === undefined ? '' : `${location.container}.`;
  if (structure.nodeCount > limits.maxNodes) {
    throw new ApiError(
      'LIMIT_EXCEEDED',
      `too many nodes: ${structure.nodeCount}, the limit is ${limits.maxNodes}`,
      { details: [{ path: `${prefix}nodes`, message: `at most ${limits.maxNodes} nodes` }] },
    );
  }
  if (structure.dependencyCount > limits.maxDependencies) {
    throw new ApiError(
      'LIMIT_EXCEEDED',
      `too many dependencies: ${structure.dependencyCount}, the limit is ${limits.maxDependencies}`,
      {
        details: [
          { path: `${prefix}dependencies`, message: `at most ${limits.maxDependencies} dependencies` },
        ],
      },
    );
  }
  if (mode !== 'ticks') return;
  const perSnapshot = answers * snapshotElements(structure, location);
  if (ticks * perSnapshot <= limits.maxResponseElements) return;
  const affordable = Math.floor(limits.maxResponseElements / perSnapshot);
  const advice =
    affordable >= 1
      ? `ask for at most ${affordable} ${affordable === 1 ? 'tick' : 'ticks'}`
      : 'this structure is too large for mode "ticks"; use "tick" repeatedly or "analyze"';
  throw new ApiError(
    'LIMIT_EXCEEDED',
    `${ticks} ticks of this structure${answers === 2 ? ' and its baseline' : ''} would return ` +
      `${ticks * perSnapshot} snapshot elements, ` +
      `the limit is ${limits.maxResponseElements}: ${advice}`,
    { details: [{ path: 'ticks', message: advice }] },
  );
}

/** `nodes + dependencies + floor(id characters / ID_CHARS_PER_ELEMENT)` for one snapshot. */
function snapshotElements(structure: CompiledStructure, location: StructureLocation): number {
  // Compiled, so every id, from and to is a string.
  const nodes = location.holder.nodes as readonly { id: string }[];
  const dependencies = location.holder.dependencies as readonly { from: string; to: string }[];
  let idChars = 0;
  for (const node of nodes) idChars += node.id.length;
  for (const dependency of dependencies) idChars += dependency.from.length + dependency.to.length;
  return structure.nodeCount + structure.dependencyCount + Math.floor(idChars / ID_CHARS_PER_ELEMENT);
}

/** `ticks` as the contract bounds it, capped at the deployment's MAX_TICKS. Strings are refused, not coerced. */
function isTickCount(value: unknown, maxTicks: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= maxTicks;
}

/** A `PayloadError`'s message without the leading path. */
export function problemOf(error: PayloadError): string {
  const lead = `${error.path}: `;
  return error.path !== '' && error.message.startsWith(lead)
    ? error.message.slice(lead.length)
    : error.message;
}
