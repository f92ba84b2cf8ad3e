/**
 * What if: a scenario changes a compiled structure — traffic scaled, loads, arrivals and
 * capacities set, weights changed, dependencies cut, nodes taken down — and the engine runs on
 * the result. The scenario's structure is derived from the base's validated arrays: no id is
 * looked up again and no field of the structure is checked again, only the scenario itself.
 * Except for `down`, and the steady state of a cut that strands a node (`strandedByCuts`), the
 * result is the structure a caller would get by editing the input and compiling it (a property
 * test compares the two answers byte for byte).
 */
import { describeValue, isRecord, keyStep, quoteText } from '../text/describe-value';
import {
  ARRIVAL_GIVEN,
  assembleCompiled,
  type CompiledStructure,
  EXIT_GIVEN,
  FANOUT_GIVEN,
  FANOUT_ON,
  isQueueWithoutWayOut,
  type LatencyFields,
  MAX_TOTAL_LOAD,
  NO_WAY_OUT,
  type OpenFieldArrays,
  SERVERS_GIVEN,
  SERVICE_TIME_GIVEN,
  withNodeValues,
} from './compile';
import { fieldToBlame, nodeFieldOf, PayloadError } from './errors';
import { isServerCount, MAX_SERVERS } from './open/server-count';
import { FRESH_ARRAYS, scratch } from './scratch';
import type { DependencyInput } from './types';

/** A scenario as callers send it. */
export interface Scenario {
  /** Multiplies every load and arrival (after the nodes' own values are set). */
  scale?: number;
  nodes?: Record<string, NodeChange>;
  dependencies?: DependencyChange[];
}

export interface NodeChange {
  load?: number;
  arrival?: number;
  /** `null` removes the node's capacity. */
  capacity?: number | null;
  /** The node passes nothing on: no dependency, exit or fan-out carries anything out of it. */
  down?: true;
  /** Mean time one request occupies one server, in steps. */
  serviceTime?: number;
  /** How many servers serve it: its capacity becomes `servers / serviceTime`. */
  servers?: number;
}

export interface DependencyChange {
  from: string;
  to: string;
  /** Set on every copy of the pair. */
  weight?: number;
  /** Removes every copy of the pair. */
  cut?: true;
}

const SCENARIO_FIELDS = ['scale', 'nodes', 'dependencies'];
const NODE_FIELDS = ['load', 'arrival', 'capacity', 'down', 'serviceTime', 'servers'];
const DEPENDENCY_FIELDS = ['from', 'to', 'weight', 'cut'];

/** A scenario checked against its structure: node and dependency ends as indices. */
interface ResolvedScenario {
  scale: Scenario['scale'];
  nodes: { v: number; change: NodeChange; path: string }[];
  dependencies: { from: number; to: number; change: DependencyChange; path: string }[];
}

/**
 * The structure `base` becomes under `scenario`, compiled. Throws `PayloadError` naming the
 * scenario's first problem by its path (`scenario.nodes.B.capacity: must be …`); `path` is where
 * the scenario sits in the request.
 */
export function applyScenario(
  base: CompiledStructure,
  scenario: unknown,
  path = 'scenario',
): CompiledStructure {
  const resolved = resolveScenario(base, scenario, path);
  return scratch.run(() => {
    const mark = scratch.mark();
    try {
      return derive(base, resolved, path);
    } finally {
      scratch.release(mark);
    }
  });
}

/**
 * `error`, which running the structure `base` makes under `scenario` (at `path`) raised while
 * `base` itself runs without it, said of the scenario's change that caused it: the field of the
 * named node that the scenario sets (`scenario.nodes.api.serviceTime`), else another field of
 * that node's queue that it sets, else that node's change, else `scale`, else the scenario as a
 * whole. Where the path named is not the structure's own, the message keeps that one too
 * (`scenario.scale: with the scenario applied, nodes[0]: its requests' end-to-end latency …`).
 */
export function blameScenario(
  base: CompiledStructure,
  scenario: unknown,
  path: string,
  error: PayloadError,
): PayloadError {
  const resolved = resolveScenario(base, scenario, path);
  const named = nodeFieldOf(error.path);
  const changed = named === undefined ? undefined : resolved.nodes.find(({ v }) => v === named.v);
  if (changed !== undefined) {
    const sets = (name: string) => (changed.change as Record<string, unknown>)[name] !== undefined;
    // Stryker disable next-line ConditionalExpression: same answer (no change sets a field named "undefined", and it is no queue field)
    const field = named!.field === undefined ? undefined : fieldToBlame(named!.field, sets);
    // The message of a field's problem is `nodes[i].field: problem`: the problem is said of the setting.
    if (field !== undefined && field === named!.field)
      return new PayloadError(`${changed.path}.${field}`, error.message.slice(error.path.length + 2));
    const at = field === undefined ? changed.path : `${changed.path}.${field}`;
    return new PayloadError(at, `with the scenario applied, ${error.message}`);
  }
  const at = resolved.scale === undefined ? path : `${path}.scale`;
  return new PayloadError(at, `with the scenario applied, ${error.message}`);
}

/** The scenario checked against the structure, ends resolved; throws at its first problem. */
function resolveScenario(base: CompiledStructure, scenario: unknown, path: string): ResolvedScenario {
  if (!isRecord(scenario)) {
    throw new PayloadError(
      path,
      `must be an object { scale?, nodes?, dependencies? }, got ${describeValue(scenario)}`,
    );
  }
  rejectUnknownFields(scenario, SCENARIO_FIELDS, path, 'a scenario');
  const { scale, nodes, dependencies } = scenario;
  const nodeEntries = nodes === undefined ? [] : nodeChangeEntries(nodes, `${path}.nodes`);
  if (dependencies !== undefined && !Array.isArray(dependencies)) {
    throw new PayloadError(
      `${path}.dependencies`,
      `must be an array of { from, to, weight?, cut? }, got ${describeValue(dependencies)}`,
    );
  }
  const dependencyEntries = (dependencies ?? []) as unknown[];
  if (scale === undefined && nodeEntries.length === 0 && dependencyEntries.length === 0) {
    throw new PayloadError(path, 'changes nothing; give "scale", "nodes" or "dependencies"');
  }
  if (scale !== undefined) checkNumber(scale, `${path}.scale`, 'a finite number >= 0', AT_LEAST_ZERO);

  // Ids the scenario names, resolved in one pass over the structure's ids.
  const wanted = new Map<string, number>();
  for (const [id] of nodeEntries) wanted.set(id, -1);
  for (const entry of dependencyEntries) {
    if (!isRecord(entry)) continue;
    if (typeof entry.from === 'string') wanted.set(entry.from, -1);
    if (typeof entry.to === 'string') wanted.set(entry.to, -1);
  }
  if (wanted.size > 0) {
    const { ids } = base;
    for (let v = 0; v < ids.length; v++) if (wanted.has(ids[v]!)) wanted.set(ids[v]!, v);
  }

  const resolvedNodes: ResolvedScenario['nodes'] = [];
  for (const [id, change] of nodeEntries) {
    const at = `${path}.nodes${keyStep(id)}`;
    const v = wanted.get(id)!;
    if (v < 0) throw new PayloadError(at, `unknown node ${quoteText(id)}`);
    resolvedNodes.push({ v, change: checkNodeChange(change, at), path: at });
  }

  const resolvedDependencies: ResolvedScenario['dependencies'] = [];
  const firstOfPair = new Map<number, number>();
  for (let i = 0; i < dependencyEntries.length; i++) {
    const at = `${path}.dependencies[${i}]`;
    const change = checkDependencyChange(dependencyEntries[i], at);
    const from = endIndex(wanted, change.from, `${at}.from`);
    const to = endIndex(wanted, change.to, `${at}.to`);
    const key = from * base.nodeCount + to;
    const earlier = firstOfPair.get(key);
    if (earlier !== undefined) {
      throw new PayloadError(
        at,
        `names the pair ${quoteText(change.from)} → ${quoteText(change.to)} again (first named by ${path}.dependencies[${earlier}]); give each pair once`,
      );
    }
    firstOfPair.set(key, i);
    resolvedDependencies.push({ from, to, change, path: at });
  }
  return { scale: scale as number | undefined, nodes: resolvedNodes, dependencies: resolvedDependencies };
}

function nodeChangeEntries(nodes: unknown, at: string): [string, unknown][] {
  if (!isRecord(nodes)) {
    throw new PayloadError(at, `must be an object keyed by node id, got ${describeValue(nodes)}`);
  }
  return Object.entries(nodes);
}

function checkNodeChange(change: unknown, at: string): NodeChange {
  if (!isRecord(change)) {
    throw new PayloadError(
      at,
      `must be an object { load?, arrival?, capacity?, down?, serviceTime?, servers? }, got ${describeValue(change)}`,
    );
  }
  rejectUnknownFields(change, NODE_FIELDS, at, "a node's change");
  const { load, arrival, capacity, down, serviceTime, servers } = change;
  if (
    load === undefined &&
    arrival === undefined &&
    capacity === undefined &&
    down === undefined &&
    serviceTime === undefined &&
    servers === undefined
  ) {
    throw new PayloadError(
      at,
      'changes nothing; give "load", "arrival", "capacity", "down", "serviceTime" or "servers"',
    );
  }
  if (serviceTime !== undefined)
    checkNumber(serviceTime, `${at}.serviceTime`, 'a finite number > 0', ABOVE_ZERO);
  if (servers !== undefined && !isServerCount(servers)) {
    throw new PayloadError(
      `${at}.servers`,
      `must be a whole number from 1 to ${MAX_SERVERS}, got ${describeValue(servers)}`,
    );
  }
  if (load !== undefined) checkNumber(load, `${at}.load`, 'a finite number >= 0', AT_LEAST_ZERO);
  if (arrival !== undefined) checkNumber(arrival, `${at}.arrival`, 'a finite number >= 0', AT_LEAST_ZERO);
  if (capacity !== undefined && capacity !== null) {
    checkNumber(capacity, `${at}.capacity`, 'a finite number > 0 or null', ABOVE_ZERO);
  }
  if (down !== undefined && down !== true) {
    throw new PayloadError(
      `${at}.down`,
      `must be true (leave it out for a node that is up), got ${describeValue(down)}`,
    );
  }
  return change as NodeChange;
}

function checkDependencyChange(change: unknown, at: string): DependencyChange {
  if (!isRecord(change)) {
    throw new PayloadError(at, `must be an object { from, to, weight?, cut? }, got ${describeValue(change)}`);
  }
  rejectUnknownFields(change, DEPENDENCY_FIELDS, at, "a dependency's change");
  for (const end of ['from', 'to'] as const) {
    const id = change[end];
    if (typeof id !== 'string' || id.length === 0) {
      throw new PayloadError(`${at}.${end}`, `must be a non-empty string, got ${describeValue(id)}`);
    }
  }
  const { weight, cut } = change;
  if (weight === undefined && cut === undefined) {
    throw new PayloadError(at, 'changes nothing; give "weight" or "cut"');
  }
  if (weight !== undefined) checkNumber(weight, `${at}.weight`, 'a finite number > 0', ABOVE_ZERO);
  if (cut !== undefined && cut !== true) {
    throw new PayloadError(
      `${at}.cut`,
      `must be true (leave it out to keep the dependency), got ${describeValue(cut)}`,
    );
  }
  if (cut === true && weight !== undefined) {
    throw new PayloadError(
      at,
      'a cut dependency carries nothing, so it takes no weight; drop "weight" or "cut"',
    );
  }
  return change as unknown as DependencyChange;
}

function endIndex(wanted: ReadonlyMap<string, number>, id: string, at: string): number {
  const v = wanted.get(id)!;
  if (v < 0) throw new PayloadError(at, `unknown node ${quoteText(id)}`);
  return v;
}

function rejectUnknownFields(
  record: Record<string, unknown>,
  known: readonly string[],
  at: string,
  what: string,
): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    throw new PayloadError(
      `${at}${keyStep(key)}`,
      `unknown field; ${what} takes ${known.map((field) => `"${field}"`).join(', ')}`,
    );
  }
}

const AT_LEAST_ZERO = (value: number) => value >= 0;
const ABOVE_ZERO = (value: number) => value > 0;

function checkNumber(
  value: unknown,
  at: string,
  expected: string,
  accepts: (value: number) => boolean,
): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || !accepts(value)) {
    throw new PayloadError(at, `must be ${expected}, got ${describeValue(value)}`);
  }
}

/** The scenario's structure, compiled: the base's arrays copied where the scenario changes them. */
function derive(base: CompiledStructure, scenario: ResolvedScenario, path: string): CompiledStructure {
  const { nodeCount } = base;
  // First, as it also checks that each pair named exists.
  const dependencies = deriveDependencies(base, scenario);
  const initialLoads = new Float64Array(base.initialLoads);
  const capacity = new Float64Array(base.capacity);
  const setsArrival = scenario.nodes.some(({ change }) => change.arrival !== undefined);
  const setsLatency = scenario.nodes.some(
    ({ change }) => change.serviceTime !== undefined || change.servers !== undefined,
  );
  const anyDown = scenario.nodes.some(({ change }) => change.down === true);
  const open = openFieldsFor(base, setsArrival || setsLatency, anyDown);
  if (setsLatency) open.latency = copiedLatency(base);
  const down = anyDown ? new Uint8Array(nodeCount) : new Uint8Array(0);

  for (const { v, change } of scenario.nodes) {
    if (change.load !== undefined) initialLoads[v] = change.load;
    if (change.capacity !== undefined) capacity[v] = change.capacity ?? Number.POSITIVE_INFINITY;
    if (change.arrival !== undefined) {
      open.arrival[v] = change.arrival;
      open.fields[v]! |= ARRIVAL_GIVEN;
    }
    if (change.serviceTime !== undefined) {
      open.latency.serviceTime[v] = change.serviceTime;
      open.fields[v]! |= SERVICE_TIME_GIVEN;
    }
    if (change.servers !== undefined) {
      open.latency.servers[v] = change.servers;
      open.fields[v]! |= SERVERS_GIVEN;
    }
    if (change.down === true) {
      down[v] = 1;
      // No way out while down: its exit and fan-out do nothing, and it is described without them.
      if (open.fields.length > 0) {
        open.exit[v] = 0;
        open.fields[v]! &= ~(EXIT_GIVEN | FANOUT_GIVEN | FANOUT_ON);
      }
    }
  }
  for (const { v, change, path: at } of scenario.nodes) {
    if (open.fields.length === 0 || (open.fields[v]! & SERVERS_GIVEN) === 0) continue;
    if ((open.fields[v]! & SERVICE_TIME_GIVEN) === 0) {
      throw new PayloadError(
        `${at}.servers`,
        'servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
      );
    }
    // A node with servers has the capacity they give: one number, changed through them.
    if (change.capacity !== undefined) {
      throw new PayloadError(
        `${at}.capacity`,
        'the node\'s capacity is servers / serviceTime; change "servers" or "serviceTime" instead',
      );
    }
    if (change.serviceTime !== undefined || change.servers !== undefined) {
      const servers = open.latency.servers[v]!;
      const serviceTime = open.latency.serviceTime[v]!;
      capacity[v] = servers / serviceTime;
      // As the structure's own fields are checked (compile.ts, serverCapacity).
      if (!(capacity[v]! < Number.POSITIVE_INFINITY)) {
        throw new PayloadError(
          change.serviceTime === undefined ? `${at}.servers` : `${at}.serviceTime`,
          `${servers} server${servers === 1 ? '' : 's'} of serviceTime ${serviceTime} ${servers === 1 ? 'has' : 'have'} a capacity per step beyond the largest number`,
        );
      }
    }
  }
  if (anyDown && open.hasFanout) {
    open.hasFanout = false;
    for (let v = 0; v < nodeCount; v++) if ((open.fields[v]! & FANOUT_ON) !== 0) open.hasFanout = true;
  }

  const { scale } = scenario;
  let total = 0;
  for (let v = 0; v < nodeCount; v++) {
    if (scale !== undefined) initialLoads[v] = initialLoads[v]! * scale;
    total += initialLoads[v]!;
  }
  if (open.arrival.length > 0) {
    for (let v = 0; v < nodeCount; v++) {
      if (scale !== undefined) open.arrival[v] = open.arrival[v]! * scale;
      total += open.arrival[v]!;
    }
  }
  if (!(total <= MAX_TOTAL_LOAD)) {
    throw new PayloadError(
      scale === undefined ? path : `${path}.scale`,
      `makes the loads and arrivals add up to more than ${MAX_TOTAL_LOAD}, the largest total the ` +
        'engine accepts; scale down',
    );
  }

  refuseQueuesLeftWithoutWayOut(base, scenario, dependencies.dependencyFrom, open, down);

  // Only node values changed: the base's dependencies, shares and components serve as they are;
  // with the arrivals unchanged too, so does its steady state (capacities play no part in it).
  if (!anyDown && scenario.dependencies.length === 0) {
    const sameFlows = scale === undefined && !setsArrival;
    return withNodeValues(base, { initialLoads, capacity, open }, sameFlows);
  }

  const { dependencyFrom, dependencyTo } = dependencies;
  const outDegree = scratch.int32(nodeCount + 1);
  const inDegree = scratch.int32(nodeCount + 1);
  for (let e = 0; e < dependencyFrom.length; e++) {
    const from = dependencyFrom[e]!;
    if (anyDown && down[from] === 1) continue;
    outDegree[from]!++;
    inDegree[dependencyTo[e]!]!++;
  }

  const stranded = strandedByCuts(base, scenario, outDegree, open, down);

  // Weights changed, nothing cut or down: the same rows, so the same components.
  const sameDependencies = !anyDown && dependencyFrom === base.dependencyFrom ? base : undefined;
  return assembleCompiled(
    FRESH_ARRAYS,
    {
      nodes: base.nodes,
      ids: base.ids,
      initialLoads,
      capacity,
      nodeHasExtra: base.nodeHasExtra,
      ...dependencies,
      open,
      outDegree,
      inDegree,
      down,
      stranded,
    },
    sameDependencies,
  );
}

/**
 * Per node, 1 where the scenario's cuts took its last way out while it is up: it had the
 * dependency cut, and keeps no other, nor an exit or fan-out (`outDegree` counts the dependencies
 * left). What reaches it then stays there, as on a node taken down, and the steady
 * state counts it lost: a what-if never reads as a relief by stranding traffic. Empty when no
 * cut strands a node.
 */
function strandedByCuts(
  base: CompiledStructure,
  scenario: ResolvedScenario,
  outDegree: Int32Array,
  open: OpenFieldArrays,
  down: Uint8Array,
): Uint8Array {
  let stranded: Uint8Array | undefined;
  for (const { from, change } of scenario.dependencies) {
    // Stryker disable next-line ConditionalExpression: same answer (a reweighted dependency is still there, so its node has one left below)
    if (change.cut !== true) continue;
    if (outDegree[from]! > 0) continue;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: same answer (a node down loses what reaches it either way)
    if (down.length > 0 && down[from] === 1) continue;
    // An exit or fan-out is a way out of its own (open structures only: a closed one has neither).
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer (a closed structure's empty arrays read undefined: no exit, no fan-out)
    const isOpen = open.fields.length > 0;
    if (isOpen && (open.exit[from]! > 0 || (open.fields[from]! & FANOUT_ON) !== 0)) continue;
    stranded ??= new Uint8Array(base.nodeCount);
    stranded[from] = 1;
  }
  return stranded ?? EMPTY_STRANDED;
}

const EMPTY_STRANDED = new Uint8Array(0);

/**
 * Refuses, as the structure's own (compile.ts), a node with servers that the scenario leaves with
 * no way out while it is up: servers it gives a node without one, or cuts of every dependency of
 * a node with servers, no exit and no fan-out. Said of the change that does it.
 */
function refuseQueuesLeftWithoutWayOut(
  base: CompiledStructure,
  scenario: ResolvedScenario,
  dependencyFrom: Int32Array,
  open: OpenFieldArrays,
  down: Uint8Array,
): void {
  // Stryker disable next-line ConditionalExpression: same answer, other work (without servers no node is stuck)
  if (open.latency.servers.length === 0) return;
  const keepsWayOut = new Uint8Array(base.nodeCount);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let e = 0; e < dependencyFrom.length; e++) keepsWayOut[dependencyFrom[e]!] = 1;
  const stuck = (v: number) => isQueueWithoutWayOut(open, down, v, keepsWayOut[v] === 1);
  for (const { v, change, path } of scenario.nodes) {
    if (change.servers !== undefined && stuck(v)) {
      throw new PayloadError(`${path}.servers`, NO_WAY_OUT);
    }
  }
  for (const { from, change, path } of scenario.dependencies) {
    // Stryker disable next-line ConditionalExpression: same answer (a dependency reweighted is kept, so the node it leaves is not stuck)
    if (change.cut === true && stuck(from)) {
      throw new PayloadError(
        path,
        `cutting it leaves ${quoteText(base.ids[from]!)}, a node with servers, no way out: what reaches it would stay there and none of it be served; give it an "exit" in the structure, or keep a dependency`,
      );
    }
  }
}

/** The base's open-field arrays, copied when the scenario changes them, created when it opens a closed structure. */
function openFieldsFor(base: CompiledStructure, setsArrival: boolean, anyDown: boolean): OpenFieldArrays {
  const { nodeCount } = base;
  if (!base.open) {
    if (!setsArrival) {
      return {
        arrival: base.arrival,
        exit: base.exit,
        fields: base.openFields,
        hasFanout: false,
        latency: base.latency,
      };
    }
    return {
      arrival: new Float64Array(nodeCount),
      exit: new Float64Array(nodeCount),
      fields: new Uint8Array(nodeCount),
      hasFanout: false,
      latency: base.latency,
    };
  }
  return {
    arrival: new Float64Array(base.arrival),
    exit: anyDown ? new Float64Array(base.exit) : base.exit,
    fields: new Uint8Array(base.openFields),
    hasFanout: base.hasFanout,
    latency: base.latency,
  };
}

/** The base's latency fields, copied (created, when it has none) for a scenario to change. */
function copiedLatency(base: CompiledStructure): LatencyFields {
  const { nodeCount, latency } = base;
  const copy = (values: Float64Array) =>
    values.length === 0 ? new Float64Array(nodeCount) : new Float64Array(values);
  return { serviceTime: copy(latency.serviceTime), servers: copy(latency.servers), slo: copy(latency.slo) };
}

/** The dependency arrays under the scenario: weights set on, and cut pairs left out of, copies. */
function deriveDependencies(base: CompiledStructure, scenario: ResolvedScenario) {
  const { nodeCount, dependencyCount } = base;
  const unchanged = {
    dependencies: base.dependencies,
    dependencyFrom: base.dependencyFrom,
    dependencyTo: base.dependencyTo,
    givenWeight: base.givenWeight,
    dependencyHasExtra: base.dependencyHasExtra,
  };
  if (scenario.dependencies.length === 0) return unchanged;

  // Which change, if any, each dependency's pair has: looked up only for nodes a change starts at.
  const changeOfPair = new Map<number, number>();
  const startsChange = new Uint8Array(nodeCount);
  scenario.dependencies.forEach(({ from, to }, i) => {
    changeOfPair.set(from * nodeCount + to, i);
    startsChange[from] = 1;
  });
  const found = new Uint8Array(scenario.dependencies.length);
  const givenWeight = new Float64Array(base.givenWeight);
  const keep = new Uint8Array(dependencyCount).fill(1);
  let kept = dependencyCount;
  for (let e = 0; e < dependencyCount; e++) {
    const from = base.dependencyFrom[e]!;
    if (startsChange[from] === 0) continue;
    const i = changeOfPair.get(from * nodeCount + base.dependencyTo[e]!);
    if (i === undefined) continue;
    found[i] = 1;
    const { change } = scenario.dependencies[i]!;
    if (change.cut === true) {
      keep[e] = 0;
      kept--;
    } else if (change.weight !== undefined) {
      givenWeight[e] = change.weight;
    }
  }
  const missing = found.indexOf(0);
  if (missing >= 0) {
    const { change, path } = scenario.dependencies[missing]!;
    throw new PayloadError(
      path,
      `no dependency from ${quoteText(change.from)} to ${quoteText(change.to)} in the structure`,
    );
  }
  if (kept === dependencyCount) return { ...unchanged, givenWeight };

  const dependencies = new Array<DependencyInput>(kept);
  const dependencyFrom = new Int32Array(kept);
  const dependencyTo = new Int32Array(kept);
  const keptWeight = new Float64Array(kept);
  const dependencyHasExtra = new Uint8Array(kept);
  let at = 0;
  for (let e = 0; e < dependencyCount; e++) {
    if (keep[e] === 0) continue;
    dependencies[at] = base.dependencies[e]!;
    dependencyFrom[at] = base.dependencyFrom[e]!;
    dependencyTo[at] = base.dependencyTo[e]!;
    keptWeight[at] = givenWeight[e]!;
    dependencyHasExtra[at] = base.dependencyHasExtra[e]!;
    at++;
  }
  return { dependencies, dependencyFrom, dependencyTo, givenWeight: keptWeight, dependencyHasExtra };
}
