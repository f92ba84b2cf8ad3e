import { keyStep } from '../text/describe-value';
import { compareIds } from './compare-ids';
import {
  ARRIVAL_GIVEN,
  type CompiledStructure,
  EXIT_GIVEN,
  FANOUT_GIVEN,
  FANOUT_ON,
  SERVERS_GIVEN,
  SERVICE_TIME_GIVEN,
  SLO_GIVEN,
} from './compile';
import { PayloadError } from './errors';
import { assertFinite, assertFiniteNumber } from './finite';
import type { LatencyReading } from './open/latency-reading';
import { nodeLatency } from './open/node-latency';
import { latencyHeadroom } from './open/slo';
import { findOrigin } from './origin';
import type { PressureBuffers } from './pressure';
import type { ReachWorkspace } from './reach';
import type { SteadyReading } from './steady-reading';
import { CarriedValue, keepsWhatReaches } from './steady-state';
import { dependencyFlow, type StateWithStep, type StepBuffers } from './step';
import { checkpoint } from './stop-check';
import type { DependencyState, EngineEvent, EngineResult, NodeInput, NodeState, Role } from './types';

/** What the state before this one looked like, for `blocked` / `cleared` / `drained` events. */
export interface PreviousState {
  loads: Float64Array;
  blocked: Uint8Array;
}

export interface DescribeOptions {
  tick: number;
  /** Absent for `analyze`: every blocked node is then reported as newly blocked. */
  previous: PreviousState | undefined;
  /** `analyze` carries the caller's extra fields through; snapshots do not. */
  carryExtras: boolean;
  /** A `settled` event is given once per response. */
  settledAlready: boolean;
  /** Events listed before the state's own (the `cycle` and `unbounded` events of `analyze`). */
  leadingEvents: readonly EngineEvent[];
  /** `analyze` of an open structure: its steady state, read (throughput, utilization, headroom). */
  steady?: SteadyReading | undefined;
  /** `analyze` of an open structure where some node has a `serviceTime`: its latencies. */
  latency?: LatencyReading | undefined;
}

/**
 * One state ready to describe: `measured` already holds its pressures and `primary` its
 * primary blockage (see `measurePressure`); `ws` is the reach workspace for its origin.
 */
export interface StateToDescribe {
  structure: CompiledStructure;
  state: StateWithStep;
  measured: PressureBuffers;
  primary: number;
  options: DescribeOptions;
  ws: ReachWorkspace;
}

/** Turns one state into a result: objects (`describeState`) or JSON text (`writeState`). */
export type StateDescriber<T> = (described: StateToDescribe) => T;

export function roleOf(structure: CompiledStructure, v: number): Role {
  // With a node down, some dependencies have no CSR slot; the role still counts them.
  if (structure.roles.length > 0) return ROLE_OF_BITS[structure.roles[v]!]!;
  const out = structure.outStart[v + 1]! > structure.outStart[v]!;
  const inn = structure.inStart[v + 1]! > structure.inStart[v]!;
  return out ? (inn ? 'relay' : 'source') : inn ? 'sink' : 'isolated';
}

/** Indexed by `HAS_OUT | HAS_IN`. */
const ROLE_OF_BITS: readonly Role[] = ['isolated', 'source', 'sink', 'relay'];

const NODE_FIELDS_OWNED = new Set([
  // Stryker disable next-line StringLiteral: the node already holds its id, load and capacity, so copying the input's keeps their place and value
  'id',
  // Stryker disable next-line StringLiteral: the same
  'load',
  // Stryker disable next-line StringLiteral: the same
  'capacity',
  'inflow',
  'outflow',
  'pressure',
  'blocked',
  'role',
]);
/** An open structure's nodes also own their open fields and what is computed from them. */
const OPEN_NODE_FIELDS_OWNED = new Set([
  ...NODE_FIELDS_OWNED,
  'arrival',
  // Stryker disable next-line StringLiteral: same answer (the node's own exit, fanout and slo are read from it, and nothing else sets them: copied or not, they are what was sent)
  'exit',
  // Stryker disable next-line StringLiteral: the same
  'fanout',
  'exited',
  'serviceTime',
  'servers',
  // Stryker disable next-line StringLiteral: the same
  'slo',
  'throughput',
  'utilization',
  'lost',
]);
/**
 * With a latency model (some node gives `serviceTime`, `servers` or `slo`), the latency fields
 * are the engine's too. Without one, nothing of latency is computed, and a caller's fields of
 * those names come back as sent, as before the model existed: the answer is the same bytes.
 */
const LATENCY_NODE_FIELDS_OWNED = new Set([
  ...OPEN_NODE_FIELDS_OWNED,
  'responseTime',
  'waiting',
  'inFlight',
  'p99',
  'latency',
  'latencyLimit',
]);
const DEPENDENCY_FIELDS_OWNED = new Set([
  // Stryker disable next-line StringLiteral: the dependency already holds its from, to and weight, so copying the input's keeps their place and value
  'from',
  // Stryker disable next-line StringLiteral: the same
  'to',
  // Stryker disable next-line StringLiteral: the same
  'weight',
  'flow',
]);
/** In `analyze` of an open structure a dependency also owns its steady `throughput`. */
const OPEN_DEPENDENCY_FIELDS_OWNED = new Set([...DEPENDENCY_FIELDS_OWNED, 'throughput']);

/**
 * Copies the caller's extra fields onto `target`. `defineProperty` keeps names such as
 * `__proto__` ordinary data fields; fields the engine computes are never taken from input. An
 * extra holding a number JSON cannot write (`path` names the element) is refused: see
 * `firstUnwritableNumber`.
 */
function copyExtras(
  source: object,
  target: Record<string, unknown>,
  owned: ReadonlySet<string>,
  path: string,
): void {
  for (const key of Object.keys(source)) {
    if (owned.has(key)) continue;
    const value = (source as Record<string, unknown>)[key];
    const unwritable = firstUnwritableNumber(value, `${path}${fieldPath(key)}`);
    if (unwritable !== undefined) {
      throw new PayloadError(
        unwritable.path,
        `a number too large for a double (read as ${unwritable.value}, as 1e400 is), which the answer could only write as null; send it as a string or leave it out`,
      );
    }
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
}

/** `.name`, or `["name"]` for a key that is not a plain identifier (or is long: `keyStep`). */
function fieldPath(key: string): string {
  return keyStep(key, IDENTIFIER);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The first number in `value`, in document order, that is not finite, and its path below `path`.
 * JSON has no such numbers, but `JSON.parse` reads a literal past the largest double (`1e400`)
 * as `Infinity`, and a caller's extras are carried through as they were read: the answer would
 * print it as `null` and never say so. Walked with a stack of its own, however deep the extra is
 * nested (a deeply nested one is refused where it is printed, write-state.ts).
 */
function firstUnwritableNumber(value: unknown, path: string): { path: string; value: number } | undefined {
  // Most extras are strings, booleans or finite numbers: nothing to walk.
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, value };
  // Stryker disable next-line ConditionalExpression,LogicalOperator: same answer, other work (the walk below passes over a primitive or null the same way)
  if (value === null || typeof value !== 'object') return undefined;
  // The stack holds each value with the container it sits in and its key there; a container
  // walked is recorded (its own container and key), so a path is spelled only for the number
  // found: spelling one for each of 5 million values took seconds, and the walk an extra of that
  // size costs is checked against the caller's time (`checkpoint`).
  // The root's own entries are never read (its path is `path`, and a number there is answered
  // above): −1 marks it, the key is none.
  // Stryker disable next-line UnaryOperator: see above (the root's own parent is never read)
  const containerParent: number[] = [-1];
  // Stryker disable next-line StringLiteral: see above (the root's own key is never read)
  const containerKey: Array<string | number> = [''];
  const values: unknown[] = [value];
  // Stryker disable next-line ArrayDeclaration: see above (undefined is not ≥ 0 either)
  const parents: number[] = [-1];
  // Stryker disable next-line ArrayDeclaration,StringLiteral: see above (the root's key is never read)
  const keys: Array<string | number> = [''];
  const pathOf = (parent: number, key: string | number): string => {
    const parts: Array<string | number> = [key];
    for (let c = parent; c > 0; c = containerParent[c]!) parts.push(containerKey[c]!);
    let spelled = path;
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = parts[i]!;
      // Stryker disable next-line ConditionalExpression,StringLiteral: same answer (fieldPath writes a number as [5] too)
      spelled += typeof part === 'number' ? `[${part}]` : fieldPath(part);
    }
    return spelled;
  };
  let walked = 0;
  // About what JSON the extra takes, for the caller's time: once walked, it is written in one go.
  let bytes = 0;
  while (values.length > 0) {
    const v = values.pop();
    const parent = parents.pop()!;
    const key = keys.pop()!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: same answer, other work (how often the caller's time is asked)
    if (++walked % WALK_CHECK_EVERY === 0) checkpoint();
    bytes += estimatedBytes(key, v);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path: pathOf(parent, key), value: v };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    // The root is container 0 (its path is `path` itself); any other is recorded here.
    let id = 0;
    if (parent >= 0) {
      id = containerParent.length;
      containerParent.push(parent);
      containerKey.push(key);
    }
    if (Array.isArray(v)) {
      // Stryker disable next-line ArithmeticOperator: same answer, other work (an element past the end reads undefined, nothing to walk)
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        parents.push(id);
        keys.push(i);
      }
    } else {
      const names = Object.keys(v);
      // Stryker disable next-line ArithmeticOperator: same answer, other work (a key past the end reads undefined, nothing to walk)
      for (let k = names.length - 1; k >= 0; k--) {
        values.push((v as Record<string, unknown>)[names[k]!]);
        parents.push(id);
        keys.push(names[k]!);
      }
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (the caller's time asked after a small extra too)
  if (walked >= WALK_CHECK_EVERY) checkpoint(bytes);
  return undefined;
}

/**
 * About what JSON a key and its value take when written, for the caller's time: strings at twice
 * their length (UTF-8 past ASCII, escapes), numbers at 12 (a double's digits), containers' own
 * brackets and the rest at a few.
 */
// Stryker disable all: same answer, other work (an estimate of the time writing takes)
function estimatedBytes(key: string | number, value: unknown): number {
  return (
    (typeof key === 'string' ? 2 * key.length + 4 : 1) +
    (typeof value === 'string' ? 2 * value.length + 2 : 12)
  );
}
// Stryker restore all

/** Values of an extra walked between two asks of the caller's time. */
const WALK_CHECK_EVERY = 65_536;

/** The flow of dependency `e` in the step that follows the state. */
export function flowOf(structure: CompiledStructure, step: StepBuffers, e: number): number {
  const source = structure.dependencyFrom[e]!;
  const slot = structure.slotOfDependency[e]!;
  // A dependency out of a down node has no slot and carries nothing.
  if (slot < 0) return 0;
  // A split that ran out at its cut slot (`splitCapped`): that slot took what was left, the rest nothing.
  const cut = step.cutSlot[source]!;
  // Stryker disable next-line EqualityOperator: same answer: a split cannot run out at its first slot (a first part as large as the outflow leaves the others less than half a unit each, which round to 0)
  if (cut >= 0 && slot >= cut) return slot === cut ? step.cutFlow[source]! : 0;
  const isLast = slot === structure.outStart[source + 1]! - 1;
  return dependencyFlow(
    step.outflow[source]!,
    structure.outShare[slot]!,
    step.lastCorrection[source]!,
    isLast,
  );
}

/**
 * A node with the caller's extra fields, keys in the order every result uses: the engine's
 * input fields, the extras, then what the engine computed.
 */
export function nodeWithExtras(
  structure: CompiledStructure,
  v: number,
  state: StateWithStep,
  measured: PressureBuffers,
): NodeState {
  const cap = structure.capacity[v]!;
  const node: Record<string, unknown> = { id: structure.ids[v], load: state.loads[v] };
  if (cap !== Number.POSITIVE_INFINITY) node.capacity = cap;
  copyExtras(structure.nodes[v] as NodeInput, node, NODE_FIELDS_OWNED, `nodes[${v}]`);
  node.inflow = state.step.inflow[v];
  node.outflow = state.step.outflow[v];
  node.pressure = measured.pressure[v];
  node.blocked = measured.blocked[v] === 1;
  node.role = roleOf(structure, v);
  return node as NodeState;
}

/**
 * A dependency with the caller's extra fields, in the same key order as `nodeWithExtras`, and
 * its steady `throughput` last when it has one (`analyze` of an open structure).
 */
export function dependencyWithExtras(
  structure: CompiledStructure,
  e: number,
  flow: number,
  throughput: number | undefined,
  steady: boolean,
): DependencyState {
  const { ids, givenWeight } = structure;
  const dependency: Record<string, unknown> = {
    from: ids[structure.dependencyFrom[e]!],
    to: ids[structure.dependencyTo[e]!],
  };
  if (!Number.isNaN(givenWeight[e]!)) dependency.weight = givenWeight[e];
  copyExtras(
    structure.dependencies[e]!,
    dependency,
    steady ? OPEN_DEPENDENCY_FIELDS_OWNED : DEPENDENCY_FIELDS_OWNED,
    `dependencies[${e}]`,
  );
  dependency.flow = flow;
  if (throughput !== undefined) dependency.throughput = throughput;
  return dependency as DependencyState;
}

/**
 * A node of an open structure, keys in the order every result uses: the engine's input fields
 * (the open ones when given), the extras, what the step computed (`exited` included), and, in
 * `analyze`, the steady state's `throughput` and `utilization`.
 */
export function openNode(
  structure: CompiledStructure,
  v: number,
  state: StateWithStep,
  measured: PressureBuffers,
  steady: SteadyReading | undefined,
  carryExtras: boolean,
  latencies?: LatencyReading,
): NodeState {
  const { ids, capacity, arrival, exit, openFields } = structure;
  const bits = openFields[v]!;
  const cap = capacity[v]!;
  const node: Record<string, unknown> = { id: ids[v], load: state.loads[v] };
  if (cap !== Number.POSITIVE_INFINITY) node.capacity = cap;
  if ((bits & ARRIVAL_GIVEN) !== 0) node.arrival = arrival[v];
  if ((bits & EXIT_GIVEN) !== 0) node.exit = exit[v];
  if ((bits & FANOUT_GIVEN) !== 0) node.fanout = (bits & FANOUT_ON) !== 0;
  if ((bits & SERVICE_TIME_GIVEN) !== 0) node.serviceTime = structure.latency.serviceTime[v];
  if ((bits & SERVERS_GIVEN) !== 0) node.servers = structure.latency.servers[v];
  if ((bits & SLO_GIVEN) !== 0) node.slo = structure.latency.slo[v];
  if (carryExtras && structure.nodeHasExtra[v] === 1) {
    const owned =
      structure.latency.serviceTime.length > 0 ? LATENCY_NODE_FIELDS_OWNED : OPEN_NODE_FIELDS_OWNED;
    copyExtras(structure.nodes[v] as NodeInput, node, owned, `nodes[${v}]`);
  }
  node.inflow = state.step.inflow[v];
  node.outflow = state.step.outflow[v];
  node.exited = state.step.exited[v];
  node.pressure = measured.pressure[v];
  node.blocked = measured.blocked[v] === 1;
  node.role = roleOf(structure, v);
  if (steady !== undefined) {
    const x = steady.steady.throughput[v]!;
    if (x !== Number.POSITIVE_INFINITY) {
      node.throughput = x;
      const utilization = steady.utilization[v]!;
      if (!Number.isNaN(utilization)) node.utilization = utilization;
      const latency = nodeLatency(structure, v, x, utilization);
      if (latency !== undefined) {
        node.responseTime = latency.responseTime;
        node.waiting = latency.waiting;
        node.inFlight = latency.inFlight;
        node.p99 = latency.p99;
      }
      if (latencies !== undefined && structure.arrival[v]! > 0)
        describeEntryLatency(node, structure, latencies, v);
      if (keepsWhatReaches(structure, v)) node.lost = steady.steady.lost[v];
    } else if (latencies !== undefined && structure.arrival[v]! > 0) {
      // An entry in a loop that grows without limit: its requests never finish, and it says so.
      describeEntryLatency(node, structure, latencies, v);
    }
  }
  return node as NodeState;
}

/** An entry's `latency`, or its `latencyLimit` where its requests get stuck (as `writeEntryLatency`). */
function describeEntryLatency(
  node: Record<string, unknown>,
  structure: CompiledStructure,
  latencies: LatencyReading,
  v: number,
): void {
  const limit = latencies.limitedBy[v]!;
  if (limit < 0) node.latency = latencies.latency[v];
  else node.latencyLimit = { node: structure.ids[limit], reason: latencies.reasonOf(limit) };
}

function buildNodes(
  structure: CompiledStructure,
  state: StateWithStep,
  measured: PressureBuffers,
  options: DescribeOptions,
): NodeState[] {
  const { carryExtras } = options;
  if (structure.open) {
    // Stryker disable next-line ArrayDeclaration: same answer (every index is set below)
    const nodes = new Array<NodeState>(structure.nodeCount);
    for (let v = 0; v < structure.nodeCount; v++) {
      nodes[v] = openNode(structure, v, state, measured, options.steady, carryExtras, options.latency);
    }
    return nodes;
  }
  const { nodeCount, ids, capacity, nodeHasExtra } = structure;
  const { loads, step } = state;
  const { inflow, outflow } = step;
  const { pressure, blocked } = measured;
  // Stryker disable next-line ArrayDeclaration: presizing only; every slot is set below
  const result = new Array<NodeState>(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    const cap = capacity[v]!;
    const role = roleOf(structure, v);
    // Stryker disable next-line ConditionalExpression: a node without extras built by the general path is the same object
    if (carryExtras && nodeHasExtra[v] === 1) {
      result[v] = nodeWithExtras(structure, v, state, measured);
    } else if (cap === Number.POSITIVE_INFINITY) {
      result[v] = {
        id: ids[v]!,
        load: loads[v]!,
        inflow: inflow[v]!,
        outflow: outflow[v]!,
        pressure: pressure[v]!,
        blocked: blocked[v] === 1,
        role,
      };
    } else {
      result[v] = {
        id: ids[v]!,
        load: loads[v]!,
        capacity: cap,
        inflow: inflow[v]!,
        outflow: outflow[v]!,
        pressure: pressure[v]!,
        blocked: blocked[v] === 1,
        role,
      };
    }
  }
  return result;
}

function buildDependencies(
  structure: CompiledStructure,
  state: StateWithStep,
  carryExtras: boolean,
  steady: SteadyReading | undefined,
): DependencyState[] {
  const { dependencyCount, dependencyHasExtra, givenWeight, dependencyFrom, dependencyTo, ids } = structure;
  // `analyze` of an open structure: each dependency's steady throughput (finite, or absent).
  const carried = steady === undefined ? undefined : new CarriedValue(structure);
  // Stryker disable next-line ArrayDeclaration: presizing only; every slot is set below
  const result = new Array<DependencyState>(dependencyCount);
  let poison = 0;
  for (let e = 0; e < dependencyCount; e++) {
    // Read from the compiled arrays: touching a million scattered input objects again costs
    // more than building the results.
    const weight = givenWeight[e]!;
    const source = dependencyFrom[e]!;
    const flow = flowOf(structure, state.step, e);
    // Stryker disable next-line AssignmentOperator,ArithmeticOperator: the quick check only decides whether to search for a non-finite flow; a wrong search finds none
    poison += flow * 0;
    const throughput = carried?.ofDependency(e, steady!.steady.throughput);
    const from = ids[source]!;
    const to = ids[dependencyTo[e]!]!;
    // Stryker disable next-line ConditionalExpression: a dependency without extras built by the general path is the same object
    if (carryExtras && dependencyHasExtra[e] === 1) {
      result[e] = dependencyWithExtras(structure, e, flow, throughput, steady !== undefined);
      continue;
    }
    // Whole literals, one per shape: a field added later grows the object out of line, and a
    // million such objects are copied by every young-generation collection (docs/benchmark.md).
    if (throughput === undefined)
      result[e] = Number.isNaN(weight) ? { from, to, flow } : { from, to, weight, flow };
    else
      result[e] = Number.isNaN(weight)
        ? { from, to, flow, throughput }
        : { from, to, weight, flow, throughput };
  }
  // Stryker disable next-line ConditionalExpression: the same
  if (poison !== 0) throwFirstNonFiniteFlow(structure, state.step);
  return result;
}

/**
 * Called when a pass over the flows found one that is not finite (`poison`): throws naming the
 * first, the same way for the object path and the text path.
 */
export function throwFirstNonFiniteFlow(structure: CompiledStructure, step: StepBuffers): void {
  // Stryker disable next-line EqualityOperator: runs only when a flow is not finite, and throws at it before the end
  for (let e = 0; e < structure.dependencyCount; e++) {
    assertFiniteNumber(flowOf(structure, step, e), `dependencies[${e}].flow`);
  }
}

function sortedByIds(structure: CompiledStructure, indices: number[]): number[] {
  const { ids } = structure;
  return indices.sort((a, b) => compareIds(ids[a]!, ids[b]!));
}

function stateEvents(
  structure: CompiledStructure,
  state: StateWithStep,
  measured: PressureBuffers,
  options: DescribeOptions,
): EngineEvent[] {
  const { nodeCount, ids } = structure;
  const { tick, previous } = options;
  const { pressure, blocked } = measured;
  const newlyBlocked: number[] = [];
  const cleared: number[] = [];
  const drained: number[] = [];
  // Stryker disable next-line EqualityOperator: one past the end reads no node (undefined: not blocked, no load) and adds no event
  for (let v = 0; v < nodeCount; v++) {
    const was = previous ? previous.blocked[v] === 1 : false;
    const is = blocked[v] === 1;
    // A `blocked` event means pressure now: a node only the steady state overloads has none.
    if (is && !was && pressure[v]! > 0) newlyBlocked.push(v);
    else if (was && !is) cleared.push(v);
    if (previous && previous.loads[v]! > 0 && state.loads[v] === 0) drained.push(v);
  }
  const events: EngineEvent[] = [...options.leadingEvents];
  for (const v of sortedByIds(structure, newlyBlocked)) {
    events.push({ tick, type: 'blocked', node: ids[v]!, pressure: pressure[v]! });
  }
  for (const v of sortedByIds(structure, cleared)) events.push({ tick, type: 'cleared', node: ids[v]! });
  for (const v of sortedByIds(structure, drained)) events.push({ tick, type: 'drained', node: ids[v]! });
  if (state.moved === 0 && !options.settledAlready) events.push({ tick, type: 'settled' });
  return events;
}

/**
 * Describes one state and the step that follows it: the shared body of the `analyze`
 * result and of every snapshot.
 */
export function describeState(described: StateToDescribe): EngineResult {
  const { structure, state, measured, options } = described;
  const summary = summarizeState(described);
  return {
    nodes: buildNodes(structure, state, measured, options),
    dependencies: buildDependencies(structure, state, options.carryExtras, options.steady),
    primaryBlockage: summary.primaryBlockage,
    events: summary.events,
    origin: summary.origin,
    trace: summary.trace,
    ...(summary.headroom === undefined ? {} : { headroom: summary.headroom }),
    ...(summary.latencyHeadroom === undefined ? {} : { latencyHeadroom: summary.latencyHeadroom }),
    ...(summary.bottlenecks === undefined ? {} : { bottlenecks: summary.bottlenecks }),
    ...(summary.lost === undefined ? {} : { lost: summary.lost }),
  };
}

/** The parts of a described state that are not one entry per node or dependency. */
export type StateSummary = Pick<
  EngineResult,
  'primaryBlockage' | 'events' | 'origin' | 'trace' | 'headroom' | 'latencyHeadroom' | 'bottlenecks' | 'lost'
>;

/**
 * Checks the state's numbers and works out its events, origin and trace: everything of a
 * description but the node and dependency entries, which `describeState` builds as objects and
 * `writeState` writes as JSON text straight from the same arrays.
 */
export function summarizeState(described: StateToDescribe): StateSummary {
  const { structure, state, measured, primary, options, ws } = described;
  assertFinite(state.loads, 'nodes', 'load');
  assertFinite(state.step.inflow, 'nodes', 'inflow');
  assertFinite(state.step.outflow, 'nodes', 'outflow');
  assertFinite(measured.pressure, 'nodes', 'pressure');
  // Stryker disable next-line StringLiteral: a guard never met first: what exits a node is part of its outflow, checked above
  assertFinite(state.step.exited, 'nodes', 'exited');
  const events = stateEvents(structure, state, measured, options);
  const { steady } = options;
  // A blockage the steady state names draws on the arrivals (an unbounded one on nothing finite).
  const fromArrivals = steady?.primaryKind !== undefined;
  const { origin, trace } =
    // Stryker disable next-line ConditionalExpression: without a blockage the search finds no contribution either (the answer is the same null)
    primary >= 0 && steady?.primaryKind !== 'unbounded'
      ? findOrigin(structure, state.loads, primary, ws, fromArrivals)
      : { origin: null, trace: [] as string[] };
  // Stryker disable all: the last line of defence: a contribution past the largest double names no origin (origin.ts) and a share is at most 1, so no input reaches it
  if (origin !== null) {
    assertFiniteNumber(origin.contribution, 'origin.contribution');
    assertFiniteNumber(origin.share, 'origin.share');
  }
  // Stryker restore all
  const summary: StateSummary = {
    primaryBlockage: primary >= 0 ? structure.ids[primary]! : null,
    events,
    origin,
    trace,
  };
  if (steady !== undefined) {
    summary.headroom = steady.headroom;
    if (options.latency !== undefined) {
      summary.latencyHeadroom = latencyHeadroom(structure, steady, options.latency);
    }
    summary.bottlenecks = steady.bottlenecks;
    if (steady.steady.totalLost > 0) summary.lost = steady.steady.totalLost;
  }
  return summary;
}
