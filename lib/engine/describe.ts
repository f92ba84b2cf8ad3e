import { compareIds } from './compare-ids';
import type { CompiledStructure } from './compile';
import { type ReachWorkspace, solveReach } from './reach';
import { dependencyFlow, type StepBuffers, step } from './step';
import { mostProbablePath } from './trace';
import type { DependencyState, EngineEvent, EngineResult, NodeInput, NodeState, Origin, Role } from './types';

/** A state's loads together with the step that follows it. */
export interface StateWithStep {
  loads: Float64Array;
  step: StepBuffers;
  /** Loads after the step (`L'`). */
  next: Float64Array;
  /** Total value the step moves; 0 means the state is settled. */
  moved: number;
}

/** Runs the step that follows `loads` (results into `buffers` and `next`) and pairs them up. */
export function stepFrom(
  structure: CompiledStructure,
  loads: Float64Array,
  buffers: StepBuffers,
  next: Float64Array,
): StateWithStep {
  return { loads, step: buffers, next, moved: step(structure, loads, buffers, next) };
}

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

/** Per-node pressure and blocked flags of one state, reused across a timeline. */
export class PressureBuffers {
  readonly pressure: Float64Array;
  readonly blocked: Uint8Array;
  constructor(nodeCount: number) {
    this.pressure = new Float64Array(nodeCount);
    this.blocked = new Uint8Array(nodeCount);
  }
}

/** Fills pressure and blocked flags; returns the primary blockage (index) or -1. */
export function measurePressure(
  structure: CompiledStructure,
  state: StateWithStep,
  into: PressureBuffers,
): number {
  const { nodeCount, outStart, capacity, ids } = structure;
  const { next } = state;
  const { pressure, blocked } = into;
  let capacityBlockage = -1;
  let capacityPressure = 0;
  let terminalBlockage = -1;
  let terminalPressure = 0;
  for (let v = 0; v < nodeCount; v++) {
    const after = next[v]!;
    let p: number;
    let hasOut: boolean;
    if (outStart[v + 1]! > outStart[v]!) {
      hasOut = true;
      const excess = after - capacity[v]!;
      p = Math.max(excess, 0);
    } else {
      hasOut = false;
      p = after;
    }
    pressure[v] = p;
    if (p > 0) {
      blocked[v] = 1;
      if (hasOut) {
        if (p > capacityPressure || (p === capacityPressure && ids[v]! < ids[capacityBlockage]!)) {
          capacityPressure = p;
          capacityBlockage = v;
        }
      } else if (p > terminalPressure || (p === terminalPressure && ids[v]! < ids[terminalBlockage]!)) {
        terminalPressure = p;
        terminalBlockage = v;
      }
    } else {
      blocked[v] = 0;
    }
  }
  return capacityBlockage >= 0 ? capacityBlockage : terminalBlockage;
}

/** Origin of the blockage's value and the most probable path from it. */
export function findOrigin(
  structure: CompiledStructure,
  loads: Float64Array,
  blockage: number,
  ws: ReachWorkspace,
): { origin: Origin | null; trace: string[] } {
  solveReach(structure, blockage, ws);
  const { reach, reachers, reacherCount } = ws;
  const { ids } = structure;
  let sum = 0;
  let compensation = 0;
  let best = -1;
  let bestContribution = 0;
  for (let i = 0; i < reacherCount; i++) {
    const u = reachers[i]!;
    const load = loads[u]!;
    const r = reach[u]!;
    if (!(load > 0 && r > 0)) continue;
    const contribution = load * r;
    const total = sum + contribution;
    compensation += sum >= contribution ? sum - total + contribution : contribution - total + sum;
    sum = total;
    if (contribution > bestContribution || (contribution === bestContribution && ids[u]! < ids[best]!)) {
      bestContribution = contribution;
      best = u;
    }
  }
  if (best < 0) return { origin: null, trace: [] };
  const totalContribution = sum + compensation;
  const share = bestContribution >= totalContribution ? 1 : bestContribution / totalContribution;
  return {
    origin: { id: ids[best]!, load: loads[best]!, contribution: bestContribution, share },
    trace: mostProbablePath(structure, best, blockage, ws),
  };
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
  for (let e = 0; e < dependencyCount; e++) {
    // Read from the compiled arrays: touching a million scattered input objects again costs
    // more than building the results.
    const weight = givenWeight[e]!;
    const source = dependencyFrom[e]!;
    const slot = slotOfDependency[e]!;
    const isLast = slot === outStart[source + 1]! - 1;
    const flow = dependencyFlow(outflow[source]!, outShare[slot]!, lastCorrection[source]!, isLast);
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
  const nodes = buildNodes(structure, state, measured, options.carryExtras);
  const dependencies = buildDependencies(structure, state, options.carryExtras);
  const events = stateEvents(structure, state, measured, options);
  const { origin, trace } =
    primary >= 0 ? findOrigin(structure, state.loads, primary, ws) : { origin: null, trace: [] as string[] };
  return {
    nodes,
    dependencies,
    primaryBlockage: primary >= 0 ? structure.ids[primary]! : null,
    events,
    origin,
    trace,
  };
}
