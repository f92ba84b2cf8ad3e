import { compareIds } from './compare-ids';
import type { CompiledStructure } from './compile';
import { assertFinite, assertFiniteNumber } from './finite';
import { findOrigin } from './origin';
import type { PressureBuffers } from './pressure';
import type { ReachWorkspace } from './reach';
import { dependencyFlow, type StateWithStep } from './step';
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
}

function roleOf(structure: CompiledStructure, v: number): Role {
  const out = structure.outStart[v + 1]! > structure.outStart[v]!;
  const inn = structure.inStart[v + 1]! > structure.inStart[v]!;
  return out ? (inn ? 'relay' : 'source') : inn ? 'sink' : 'isolated';
}

const NODE_FIELDS_OWNED = new Set([
  'id',
  'load',
  'capacity',
  'inflow',
  'outflow',
  'pressure',
  'blocked',
  'role',
]);
const DEPENDENCY_FIELDS_OWNED = new Set(['from', 'to', 'weight', 'flow']);

/**
 * Copies the caller's extra fields onto `target`. `defineProperty` keeps names such as
 * `__proto__` ordinary data fields; fields the engine computes are never taken from input.
 */
function copyExtras(source: object, target: Record<string, unknown>, owned: ReadonlySet<string>): void {
  for (const key of Object.keys(source)) {
    if (owned.has(key)) continue;
    Object.defineProperty(target, key, {
      value: (source as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}

function buildNodes(
  structure: CompiledStructure,
  state: StateWithStep,
  measured: PressureBuffers,
  carryExtras: boolean,
): NodeState[] {
  const { nodeCount, ids, capacity, nodes, nodeHasExtra } = structure;
  const { loads, step } = state;
  const { inflow, outflow } = step;
  const { pressure, blocked } = measured;
  const result = new Array<NodeState>(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    const cap = capacity[v]!;
    const role = roleOf(structure, v);
    if (carryExtras && nodeHasExtra[v] === 1) {
      const node: Record<string, unknown> = { id: ids[v], load: loads[v] };
      if (cap !== Number.POSITIVE_INFINITY) node.capacity = cap;
      copyExtras(nodes[v] as NodeInput, node, NODE_FIELDS_OWNED);
      node.inflow = inflow[v];
      node.outflow = outflow[v];
      node.pressure = pressure[v];
      node.blocked = blocked[v] === 1;
      node.role = role;
      result[v] = node as NodeState;
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
): DependencyState[] {
  const {
    dependencyCount,
    dependencies,
    dependencyHasExtra,
    givenWeight,
    dependencyFrom,
    dependencyTo,
    ids,
    slotOfDependency,
    outStart,
    outShare,
  } = structure;
  const { outflow, lastCorrection } = state.step;
  const result = new Array<DependencyState>(dependencyCount);
  let poison = 0;
  for (let e = 0; e < dependencyCount; e++) {
    // Read from the compiled arrays: touching a million scattered input objects again costs
    // more than building the results.
    const weight = givenWeight[e]!;
    const source = dependencyFrom[e]!;
    const slot = slotOfDependency[e]!;
    const isLast = slot === outStart[source + 1]! - 1;
    const flow = dependencyFlow(outflow[source]!, outShare[slot]!, lastCorrection[source]!, isLast);
    poison += flow * 0;
    const from = ids[source]!;
    const to = ids[dependencyTo[e]!]!;
    if (carryExtras && dependencyHasExtra[e] === 1) {
      const dependency: Record<string, unknown> = { from, to };
      if (!Number.isNaN(weight)) dependency.weight = weight;
      copyExtras(dependencies[e]!, dependency, DEPENDENCY_FIELDS_OWNED);
      dependency.flow = flow;
      result[e] = dependency as DependencyState;
    } else if (Number.isNaN(weight)) {
      result[e] = { from, to, flow };
    } else {
      result[e] = { from, to, weight, flow };
    }
  }
  if (poison !== 0) {
    for (let e = 0; e < dependencyCount; e++) assertFiniteNumber(result[e]!.flow, `dependencies[${e}].flow`);
  }
  return result;
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
  for (let v = 0; v < nodeCount; v++) {
    const was = previous ? previous.blocked[v] === 1 : false;
    const is = blocked[v] === 1;
    if (is && !was) newlyBlocked.push(v);
    else if (was && !is) cleared.push(v);
    if (previous && previous.loads[v]! > 0 && state.loads[v] === 0) drained.push(v);
  }
  const events: EngineEvent[] = [];
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
 * result and of every snapshot. `measured` must already hold this state's pressures and
 * `primary` its primary blockage (see `measurePressure`).
 */
export function describeState(
  structure: CompiledStructure,
  state: StateWithStep,
  measured: PressureBuffers,
  primary: number,
  options: DescribeOptions,
  ws: ReachWorkspace,
): EngineResult {
  assertFinite(state.loads, 'nodes', 'load');
  assertFinite(state.step.inflow, 'nodes', 'inflow');
  assertFinite(state.step.outflow, 'nodes', 'outflow');
  assertFinite(measured.pressure, 'nodes', 'pressure');
  const nodes = buildNodes(structure, state, measured, options.carryExtras);
  const dependencies = buildDependencies(structure, state, options.carryExtras);
  const events = stateEvents(structure, state, measured, options);
  const { origin, trace } =
    primary >= 0 ? findOrigin(structure, state.loads, primary, ws) : { origin: null, trace: [] as string[] };
  if (origin !== null) {
    assertFiniteNumber(origin.contribution, 'origin.contribution');
    assertFiniteNumber(origin.share, 'origin.share');
  }
  return {
    nodes,
    dependencies,
    primaryBlockage: primary >= 0 ? structure.ids[primary]! : null,
    events,
    origin,
    trace,
  };
}
