import { describeValue, isRecord, quoteText } from '../text/describe-value';
import { type Components, stronglyConnectedComponents } from './components';
import { PayloadError } from './errors';
import { IdIndex } from './id-index';
import { isServerCount, MAX_SERVERS } from './open/server-count';
import type { KeptReach } from './reach';
import { type ArrayMemory, FRESH_ARRAYS, scratch } from './scratch';
import type { SteadyState } from './steady-state';
import { sweepOrder } from './sweep-order';
import type { DependencyInput, NodeInput } from './types';

/** What a compiled structure computes or keeps rather than holds as a field. */
type CompiledFunctions =
  | 'components'
  | 'sweepOrder'
  | 'freedFirstSweepOrder'
  | 'hasWayOut'
  | 'isFanout'
  | 'shareNotKept'
  | 'sharesFlows'
  | 'keptSteadyState'
  | 'keepSteadyState'
  | 'repeatsLoopSolves'
  | 'keptLoopSystem'
  | 'releaseLoopSystems'
  | 'keptReach'
  | 'keepReach';

/**
 * A validated structure in the form the algorithms want: ids mapped to indices once,
 * adjacency in compressed sparse rows (CSR), numbers in typed arrays. Built by
 * `compileStructure`; reusable for any number of `analyze` / `tick` / `ticks` calls.
 *
 * Out-edges of node `v` are the CSR slots `outStart[v] .. outStart[v + 1]`, in input order;
 * in-edges of `v` are the slots `inStart[v] .. inStart[v + 1]`, also in input order.
 */
export class CompiledStructure {
  readonly nodeCount: number;
  readonly dependencyCount: number;
  /** The caller's objects, kept for their ids and extra fields. */
  readonly nodes: readonly NodeInput[];
  readonly dependencies: readonly DependencyInput[];
  readonly ids: readonly string[];
  readonly initialLoads: Float64Array;
  /** `Infinity` where no capacity is set. */
  readonly capacity: Float64Array;
  /** 1 where the node has a field the engine does not own (carried into `analyze` output). */
  readonly nodeHasExtra: Uint8Array;
  readonly dependencyHasExtra: Uint8Array;
  /** The weight as given, NaN where omitted (results echo it only when given). */
  readonly givenWeight: Float64Array;
  readonly dependencyFrom: Int32Array;
  readonly dependencyTo: Int32Array;

  readonly outStart: Int32Array;
  readonly outTarget: Int32Array;
  /** `weight(e) / W(from)` for the dependency in each out slot. */
  readonly outShare: Float64Array;
  /** The out slot of each dependency, so per-slot flows can be reported per dependency. */
  readonly slotOfDependency: Int32Array;

  readonly inStart: Int32Array;
  readonly inSource: Int32Array;
  /** For each in slot, `weight(e) / W(from)` of its dependency (the in-slot copy of `outShare`). */
  readonly inShare: Float64Array;

  /** Share of a node's outflow that returns to itself through self-dependencies. */
  readonly selfShare: Float64Array;
  /**
   * Whether the dependencies' weights (1 where not given) span more than `WIDE_WEIGHT_RATIO`
   * (largest / smallest): the sweep order then weighs the shares beside the edges (sweep-order.ts).
   */
  readonly weightsSpanWide: boolean;

  /**
   * Whether any node carries `arrival`, `exit` or `fanout` (an open system). A structure that
   * uses none of them is computed and described exactly as before they existed, and the
   * arrays below are empty.
   */
  readonly open: boolean;
  /** Whether any node has `fanout: true`. */
  readonly hasFanout: boolean;
  /** Value entering each node per step (0 where not given). */
  readonly arrival: Float64Array;
  /** The exit weight as given (0 where not given). */
  readonly exit: Float64Array;
  /** Per node, which open fields it gave: `ARRIVAL_GIVEN | EXIT_GIVEN | FANOUT_GIVEN | FANOUT_ON`. */
  readonly openFields: Uint8Array;
  /**
   * Per node, the share of its outflow that leaves the system there: `exit / (exit + W)`,
   * and 1 for a fan-out node (what it processes completes there).
   */
  readonly exitShare: Float64Array;
  /**
   * `weight(e) / W(from)` per in slot for the trace's path products: `inShare` itself, but for a
   * fan-out node (whose `outShare` is its weight, calls per unit) the split of its calls.
   */
  readonly pathInShare: Float64Array;
  /** The latency fields (`serviceTime`, `servers`, `slo`); empty arrays when no node has one. */
  readonly latency: LatencyFields;
  /**
   * 1 for a node that is down (a scenario's `down`): its dependencies have no CSR slot, so it
   * has no way out and they carry nothing. Empty when no node is down.
   */
  readonly down: Uint8Array;
  /**
   * 1 for a node up whose last way out a scenario cut (it had a dependency, an exit or fan-out
   * in the structure, and has none after the cuts): what reaches it stays there, and the steady
   * state counts it lost, as a down node's. Empty when the scenario strands none. A node without a
   * way out in the structure as sent is where value piles up (the seed's sink), never stranded.
   */
  readonly stranded: Uint8Array;
  /**
   * When a node is down, each node's role bits (`HAS_OUT | HAS_IN`) from all its dependencies,
   * since the CSR rows then leave some out; empty otherwise (roles come from the rows).
   */
  readonly roles: Uint8Array;

  private componentsCache: Components | undefined;
  /** Loops' local systems kept between solves (`keptLoopSystem`), by the solver's key. */
  #loopSystems: Map<string, unknown> | undefined;
  #hasSlo: boolean | undefined;
  /** Whether another structure shares these loops' systems (a scenario of other node values). */
  #loopsShared = false;
  /** The last reach solved on these loops while they are shared (`keptReach`). */
  #keptReach: KeptReach | undefined;
  private sweepOrderCache: Int32Array | undefined;
  private freedFirstSweepOrderCache: Int32Array | undefined;
  /** Where the arrays above came from; the components and sweep order come from there too. */
  readonly #memory: ArrayMemory;
  /** A structure with the very same dependencies, whose components and sweep order are these. */
  readonly #sameDependencies: CompiledStructure | undefined;
  /**
   * A structure whose steady state is this one's, number for number: the same dependencies and
   * shares, arrivals, exits and fan-out, nothing down (a scenario that changes only capacities,
   * loads or service times). The steady state either of them solves is kept there for the other.
   */
  readonly #sameFlows: CompiledStructure | undefined;
  #keptSteadyState: SteadyState | undefined;

  constructor(
    memory: ArrayMemory,
    fields: Omit<CompiledStructure, CompiledFunctions>,
    sameDependencies?: CompiledStructure,
    sameFlows?: CompiledStructure,
  ) {
    this.#memory = memory;
    this.#sameDependencies = sameDependencies;
    this.#sameFlows = sameFlows;
    this.nodeCount = fields.nodeCount;
    this.dependencyCount = fields.dependencyCount;
    this.nodes = fields.nodes;
    this.dependencies = fields.dependencies;
    this.ids = fields.ids;
    this.initialLoads = fields.initialLoads;
    this.capacity = fields.capacity;
    this.nodeHasExtra = fields.nodeHasExtra;
    this.dependencyHasExtra = fields.dependencyHasExtra;
    this.givenWeight = fields.givenWeight;
    this.dependencyFrom = fields.dependencyFrom;
    this.dependencyTo = fields.dependencyTo;
    this.outStart = fields.outStart;
    this.outTarget = fields.outTarget;
    this.outShare = fields.outShare;
    this.slotOfDependency = fields.slotOfDependency;
    this.inStart = fields.inStart;
    this.inSource = fields.inSource;
    this.inShare = fields.inShare;
    this.selfShare = fields.selfShare;
    this.weightsSpanWide = fields.weightsSpanWide;
    this.open = fields.open;
    this.hasFanout = fields.hasFanout;
    this.arrival = fields.arrival;
    this.exit = fields.exit;
    this.openFields = fields.openFields;
    this.exitShare = fields.exitShare;
    this.pathInShare = fields.pathInShare;
    this.latency = fields.latency;
    this.down = fields.down;
    this.stranded = fields.stranded;
    this.roles = fields.roles;
    // A structure of the same shares (other arrivals, a scale, other service times) solves the
    // same loops as its base: a compare solves both, so their systems are worth keeping.
    const owner = this.#loopSystemOwner();
    if (owner !== this) owner.#loopsShared = true;
  }

  /** Whether `v` can pass value on: a dependency, an exit, or fan-out. */
  hasWayOut(v: number): boolean {
    if (this.outStart[v + 1]! > this.outStart[v]!) return true;
    return this.open && (this.exit[v]! > 0 || (this.openFields[v]! & FANOUT_ON) !== 0);
  }

  isFanout(v: number): boolean {
    return this.open && (this.openFields[v]! & FANOUT_ON) !== 0;
  }

  /**
   * `1 − selfShare[v]`: the share of what `v` processes that does not come straight back to it.
   * For a routing node that depends on itself, summed from its other shares and its exit: a
   * self-dependency keeping 440,000 parts in 440,010 leaves `1 − 0.99998`, which as a difference
   * has lost five digits before any solve divides by it. (A fan-out node's calls need not sum to
   * 1, so its difference stands.)
   */
  shareNotKept(v: number): number {
    const stay = this.selfShare[v]!;
    if (!(stay > 0) || this.isFanout(v)) return 1 - stay;
    let sum = this.open ? this.exitShare[v]! : 0;
    const end = this.outStart[v + 1]!;
    for (let k = this.outStart[v]!; k < end; k++) if (this.outTarget[k] !== v) sum += this.outShare[k]!;
    return sum;
  }

  /** Strongly connected components, computed on first use. */
  components(): Components {
    this.componentsCache ??=
      this.#sameDependencies?.components() ??
      stronglyConnectedComponents(this.nodeCount, this.outStart, this.outTarget, this.#memoryToKeep());
    return this.componentsCache;
  }

  /** Per component, the order in which to sweep it (see `sweepOrder`), computed on first use. */
  sweepOrder(): Int32Array {
    this.sweepOrderCache ??=
      this.#sameOrder()?.sweepOrder() ??
      // Stryker disable next-line StringLiteral: any other value reads as not 'just-freed'
      sweepOrder(this, this.components(), this.#memoryToKeep(), 'waited-longest', this.weightsSpanWide);
    return this.sweepOrderCache;
  }

  /**
   * The other sweep order (`sweepOrder` with `ties: 'just-freed'`), for the steady state's sweeps
   * that did not settle in the first one; computed on first use.
   */
  freedFirstSweepOrder(): Int32Array {
    this.freedFirstSweepOrderCache ??=
      this.#sameOrder()?.freedFirstSweepOrder() ??
      sweepOrder(this, this.components(), this.#memoryToKeep(), 'just-freed', this.weightsSpanWide);
    return this.freedFirstSweepOrderCache;
  }

  /**
   * The structure whose sweep orders are this one's: the one with the same dependencies, when
   * both order by count or both have the very same shares (a scenario that changes weights has
   * the same rows and other shares, which a weighted order follows).
   */
  // Stryker disable next-line BlockStatement: an order built again rather than shared is the same order (only the work differs)
  #sameOrder(): CompiledStructure | undefined {
    const same = this.#sameDependencies;
    // Stryker disable next-line ConditionalExpression: see above
    if (same === undefined) return undefined;
    const byEdges = !same.weightsSpanWide && !this.weightsSpanWide;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: see above; sharing an order of other shares is what the tests catch
    return byEdges || same.outShare === this.outShare ? same : undefined;
  }

  /**
   * Whether this structure's loops are solved more than once in one call: an SLO search solves
   * them again for an entry's expected calls and for the latencies at other traffic, and a
   * scenario of other node values (a compare) solves its base's loops again. Their local
   * systems are then kept between solves (`keptLoopSystem`); otherwise each solve builds its own
   * in scratch memory, which a single solve needs no longer than it runs.
   */
  get repeatsLoopSolves(): boolean {
    this.#hasSlo ??= this.latency.slo.some((target) => target > 0);
    return this.#hasSlo || this.#loopSystemOwner().#loopsShared;
  }

  /**
   * The local system a solver keeps for one loop under `key`: built by `build` on first use, in
   * memory that lasts as long as the structure, and shared with the structure of the very same
   * dependencies and shares (another structure's node values: an entry's own arrivals).
   */
  keptLoopSystem<T>(key: string, build: (memory: ArrayMemory) => T): T {
    const owner = this.#loopSystemOwner();
    owner.#loopSystems ??= new Map();
    let system = owner.#loopSystems.get(key) as T | undefined;
    if (system === undefined) {
      system = build(owner.#memoryToKeep());
      owner.#loopSystems.set(key, system);
    }
    return system;
  }

  /**
   * Lets go of the loops' systems kept for the call, and of the mark a scenario of the same
   * shares left: a structure kept across calls (a stored system's, cached by a warm instance)
   * then holds only what its compile bound counts, and a later call without an SLO or a scenario
   * keeps nothing. The next call that solves its loops again builds them anew.
   */
  releaseLoopSystems(): void {
    const owner = this.#loopSystemOwner();
    owner.#loopSystems = undefined;
    owner.#keptReach = undefined;
    owner.#loopsShared = false;
  }

  /** The structure whose loop systems are this one's: the first with these dependencies and shares. */
  #loopSystemOwner(): CompiledStructure {
    const same = this.#sameDependencies;
    // (A scenario that reweights makes all three kinds of shares anew, so one of them tells.)
    return same !== undefined && same.outShare === this.outShare ? same.#loopSystemOwner() : this;
  }

  /**
   * The reach solved for `target` (reach.ts) by a structure of these very dependencies and shares,
   * when a compare kept it for the other side.
   */
  keptReach(target: number): KeptReach | undefined {
    const kept = this.#loopSystemOwner().#keptReach;
    return kept?.target === target ? kept : undefined;
  }

  /**
   * Keeps the reach `copy` makes for every structure of these dependencies and shares, when
   * another one shares them (a compare: the two sides' blockage is often the same node); one
   * target at a time.
   */
  keepReach(copy: () => KeptReach): void {
    const owner = this.#loopSystemOwner();
    // Stryker disable next-line ConditionalExpression: same answer, other work: a reach kept where no other structure reads it (a copy per solve, let go with the loop systems)
    if (owner.#loopsShared) owner.#keptReach = copy();
  }

  /** Whether another structure's steady state is this one's (see `#sameFlows`). */
  get sharesFlows(): boolean {
    return this.#sameFlows !== undefined;
  }

  /** The steady state kept for this structure's flows, if one was kept. */
  keptSteadyState(): SteadyState | undefined {
    return this.#sameFlows?.keptSteadyState() ?? this.#keptSteadyState;
  }

  /** Keeps `state` (in memory of its own, not scratch) for every structure with these flows. */
  keepSteadyState(state: SteadyState): void {
    if (this.#sameFlows !== undefined) this.#sameFlows.keepSteadyState(state);
    else this.#keptSteadyState = state;
  }

  /**
   * Where lazily computed arrays that live as long as the structure go: its own memory, except
   * that a structure compiled into scratch memory takes fresh arrays while a scratch phase is
   * open (a nested engine call, e.g. from a getter on an input object), since that phase's
   * memory is given back before the structure is done with.
   */
  #memoryToKeep(): ArrayMemory {
    return this.#memory === scratch && scratch.releasePending ? FRESH_ARRAYS : this.#memory;
  }
}

/**
 * `base` with other node values (loads, capacities, arrivals): the dependencies, the shares, the
 * components and the sweep order are `base`'s own, since none of them depends on those values.
 * An arrival that opens a closed structure changes no share either (no node has an exit). With
 * `sameFlows` (the arrivals unchanged, so the steady state too) the two keep one steady state.
 */
export function withNodeValues(
  base: CompiledStructure,
  values: { initialLoads: Float64Array; capacity: Float64Array; open: OpenFieldArrays },
  sameFlows = false,
): CompiledStructure {
  const { initialLoads, capacity, open } = values;
  const isOpen = open.fields.length > 0;
  return new CompiledStructure(
    FRESH_ARRAYS,
    {
      ...fieldsOf(base),
      initialLoads,
      capacity,
      open: isOpen,
      hasFanout: open.hasFanout,
      arrival: open.arrival,
      exit: open.exit,
      openFields: open.fields,
      exitShare: isOpen && !base.open ? new Float64Array(base.nodeCount) : base.exitShare,
      latency: open.latency,
    },
    base,
    sameFlows ? base : undefined,
  );
}

/** A compiled structure's fields, as its constructor takes them. */
function fieldsOf(c: CompiledStructure): Omit<CompiledStructure, CompiledFunctions> {
  return {
    nodeCount: c.nodeCount,
    dependencyCount: c.dependencyCount,
    nodes: c.nodes,
    dependencies: c.dependencies,
    ids: c.ids,
    initialLoads: c.initialLoads,
    capacity: c.capacity,
    nodeHasExtra: c.nodeHasExtra,
    dependencyHasExtra: c.dependencyHasExtra,
    givenWeight: c.givenWeight,
    dependencyFrom: c.dependencyFrom,
    dependencyTo: c.dependencyTo,
    outStart: c.outStart,
    outTarget: c.outTarget,
    outShare: c.outShare,
    slotOfDependency: c.slotOfDependency,
    inStart: c.inStart,
    inSource: c.inSource,
    inShare: c.inShare,
    selfShare: c.selfShare,
    weightsSpanWide: c.weightsSpanWide,
    open: c.open,
    hasFanout: c.hasFanout,
    arrival: c.arrival,
    exit: c.exit,
    openFields: c.openFields,
    exitShare: c.exitShare,
    pathInShare: c.pathInShare,
    latency: c.latency,
    down: c.down,
    stranded: c.stranded,
    roles: c.roles,
  };
}

/** Bits of `openFields`. */
export const ARRIVAL_GIVEN = 1;
export const EXIT_GIVEN = 2;
export const FANOUT_GIVEN = 4;
export const FANOUT_ON = 8;
export const SERVICE_TIME_GIVEN = 16;
export const SERVERS_GIVEN = 32;
export const SLO_GIVEN = 64;

/**
 * Per node, the M/M/c latency fields as given: `serviceTime` (mean steps one request occupies
 * one server), `servers` and `slo` (a latency target for requests entering there). 0 where not
 * given; all three empty when no node gives any.
 */
export interface LatencyFields {
  serviceTime: Float64Array;
  servers: Float64Array;
  slo: Float64Array;
}

const EMPTY_FLOAT64: Float64Array = new Float64Array(0);
const EMPTY_UINT8: Uint8Array = new Uint8Array(0);
/** No node gives a latency field. */
const NO_LATENCY: LatencyFields = {
  serviceTime: EMPTY_FLOAT64,
  servers: EMPTY_FLOAT64,
  slo: EMPTY_FLOAT64,
};

/**
 * Validates a structure and compiles it. Throws `PayloadError` naming the first offending
 * element, e.g. `dependencies[12].to: unknown node "db"`.
 */
export function compileStructure(structure: unknown): CompiledStructure {
  if (structure instanceof CompiledStructure) return structure;
  return scratch.run(() => compileRecord(structure, FRESH_ARRAYS));
}

/**
 * `compileStructure` for the length of one engine call (inside `scratch.run`): a structure the
 * caller sent as plain data is compiled into scratch memory, since nothing keeps it past the
 * call. Its arrays are overwritten by the next call; it must not escape.
 */
export function compileForCall(structure: unknown): CompiledStructure {
  if (structure instanceof CompiledStructure) return structure;
  return compileRecord(structure, scratch);
}

function compileRecord(structure: unknown, memory: ArrayMemory): CompiledStructure {
  if (!isRecord(structure)) {
    throw new PayloadError('', `structure must be an object with "nodes" and "dependencies" arrays`);
  }
  const nodes = structure.nodes;
  const dependencies = structure.dependencies;
  if (!Array.isArray(nodes)) throw new PayloadError('nodes', `must be an array, got ${describeValue(nodes)}`);
  if (!Array.isArray(dependencies)) {
    throw new PayloadError('dependencies', `must be an array, got ${describeValue(dependencies)}`);
  }
  // Compile's working arrays (id index, degrees, fill pointers) are given back once it is done
  // when the structure's own arrays are fresh; compiled into scratch for one call, the two are
  // interleaved and all stay until the call ends.
  // (Giving them back or not changes only how much scratch memory the call uses.)
  // Stryker disable next-line ConditionalExpression: see above
  const mark = memory === FRESH_ARRAYS ? scratch.mark() : -1;
  try {
    return fillCompiled(nodes as NodeInput[], dependencies as DependencyInput[], memory);
  } finally /* Stryker disable next-line BlockStatement: see above */ {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
    if (mark >= 0) scratch.release(mark);
  }
}

/*
 * The arrays a compiled structure keeps, carved in three stages, each only once the input
 * before it has been validated, so a malformed input costs no more than it did to read (and
 * in small functions, so the hot loops below only index).
 */
function nodeArrays(memory: ArrayMemory, nodeCount: number) {
  return {
    initialLoads: memory.float64(nodeCount),
    capacity: memory.float64(nodeCount),
    nodeHasExtra: memory.uint8(nodeCount),
  };
}

function dependencyArrays(memory: ArrayMemory, dependencyCount: number) {
  return {
    dependencyFrom: memory.int32(dependencyCount),
    dependencyTo: memory.int32(dependencyCount),
    givenWeight: memory.float64(dependencyCount),
    dependencyHasExtra: memory.uint8(dependencyCount),
  };
}

function adjacencyArrays(memory: ArrayMemory, nodeCount: number, dependencyCount: number) {
  return {
    selfShare: memory.float64(nodeCount),
    outStart: memory.int32(nodeCount + 1),
    inStart: memory.int32(nodeCount + 1),
    outTarget: memory.int32(dependencyCount),
    outShare: memory.float64(dependencyCount),
    slotOfDependency: memory.int32(dependencyCount),
    inSource: memory.int32(dependencyCount),
    inShare: memory.float64(dependencyCount),
  };
}

function fillCompiled(
  nodes: readonly NodeInput[],
  dependencies: readonly DependencyInput[],
  memory: ArrayMemory,
): CompiledStructure {
  const nodeCount = nodes.length;
  const dependencyCount = dependencies.length;
  const indexOf = new IdIndex(nodeCount, scratch);
  // Stryker disable next-line ArrayDeclaration: preallocating only saves growing the array
  const ids = new Array<string>(nodeCount);
  const { initialLoads, capacity, nodeHasExtra } = nodeArrays(memory, nodeCount);
  const open = new OpenFields();
  let totalLoad = 0;

  for (let i = 0; i < nodeCount; i++) {
    const node: unknown = nodes[i];
    if (!isRecord(node))
      throw new PayloadError(`nodes[${i}]`, `must be an object, got ${describeValue(node)}`);
    const id = node.id;
    if (typeof id !== 'string' || id.length === 0) {
      throw new PayloadError(`nodes[${i}].id`, `must be a non-empty string, got ${describeValue(id)}`);
    }
    const previous = indexOf.add(id, i);
    if (previous >= 0) {
      throw new PayloadError(
        `nodes[${i}].id`,
        `duplicate id ${quoteText(id)} (first used by nodes[${previous}])`,
      );
    }
    ids[i] = id;

    const load = optionalNumber(node.load, AT_LEAST_ZERO, 'nodes', i, 'load');
    const cap = optionalNumber(node.capacity, ABOVE_ZERO, 'nodes', i, 'capacity');
    initialLoads[i] = load ?? 0;
    totalLoad += load ?? 0;
    if (totalLoad > MAX_TOTAL_LOAD) throw totalLoadTooLarge(i, 'load', open.fields.length > 0);
    capacity[i] = cap ?? Number.POSITIVE_INFINITY;
    // The flag sends an element to the general path (its input's fields copied, JSON.stringify),
    // which prints the same for one without extras: flagging too many changes only the work.
    // Stryker disable next-line ArithmeticOperator,ConditionalExpression: see above
    const ownFields = 1 + (load === undefined ? 0 : 1) + (cap === undefined ? 0 : 1);
    const fields = fieldCount(node);
    // More fields than the closed ones: the open fields (read apart, so that the common loop
    // stays small), extras, or both.
    if (fields !== ownFields) {
      const openCount = open.read(node, i, memory, nodeCount);
      totalLoad += open.arrival.length > 0 ? open.arrival[i]! : 0;
      if (totalLoad > MAX_TOTAL_LOAD) throw totalLoadTooLarge(i, 'arrival');
      if (openCount > 0 && (open.fields[i]! & SERVERS_GIVEN) !== 0) {
        capacity[i] = serverCapacity(open.latency, i, cap);
      }
      // Stryker disable next-line ConditionalExpression: see above
      if (fields !== ownFields + openCount) nodeHasExtra[i] = 1;
    }
  }

  const { dependencyFrom, dependencyTo, givenWeight, dependencyHasExtra } = dependencyArrays(
    memory,
    dependencyCount,
  );
  const outDegree = scratch.int32(nodeCount + 1);
  const inDegree = scratch.int32(nodeCount + 1);

  let lastFromId: unknown;
  let lastFrom = -1;
  for (let e = 0; e < dependencyCount; e++) {
    const dependency: unknown = dependencies[e];
    if (!isRecord(dependency)) {
      throw new PayloadError(`dependencies[${e}]`, `must be an object, got ${describeValue(dependency)}`);
    }
    // Dependencies usually come grouped by source: reuse the last lookup when the id repeats.
    const fromId = dependency.from;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: looking the id up again finds the same node
    const from = fromId === lastFromId && lastFrom >= 0 ? lastFrom : resolveEnd(indexOf, fromId, e, 'from');
    lastFromId = fromId;
    lastFrom = from;
    const to = resolveEnd(indexOf, dependency.to, e, 'to');
    dependencyFrom[e] = from;
    dependencyTo[e] = to;
    outDegree[from]!++;
    inDegree[to]!++;

    const w = optionalNumber(dependency.weight, ABOVE_ZERO, 'dependencies', e, 'weight');
    givenWeight[e] = w ?? Number.NaN;
    // Stryker disable next-line ConditionalExpression: flagging too many changes only the work, as for nodes
    if (fieldCount(dependency) !== (w === undefined ? 2 : 3)) dependencyHasExtra[e] = 1;
  }

  return assembleCompiled(memory, {
    nodes,
    dependencies,
    ids,
    initialLoads,
    capacity,
    nodeHasExtra,
    dependencyFrom,
    dependencyTo,
    givenWeight,
    dependencyHasExtra,
    open,
    outDegree,
    inDegree,
    down: EMPTY_UINT8,
  });
}

/**
 * What a structure is once its input is read and validated: ids resolved, numbers checked, in
 * typed arrays. `assembleCompiled` builds the adjacency from it; a scenario (scenario.ts) derives
 * one from another structure's without reading or checking any input again.
 */
export interface ValidatedParts {
  nodes: readonly NodeInput[];
  dependencies: readonly DependencyInput[];
  ids: readonly string[];
  initialLoads: Float64Array;
  capacity: Float64Array;
  nodeHasExtra: Uint8Array;
  dependencyFrom: Int32Array;
  dependencyTo: Int32Array;
  givenWeight: Float64Array;
  dependencyHasExtra: Uint8Array;
  open: OpenFieldArrays;
  /** Per node (one slot more), the dependencies that carry value out of and into it. */
  outDegree: Int32Array;
  inDegree: Int32Array;
  /** 1 for a node that is down (scenario.ts); empty when none is. */
  down: Uint8Array;
  /** 1 for a node whose last way out a scenario cut (`CompiledStructure.stranded`); empty when none is. */
  stranded?: Uint8Array;
}

/** The open fields' arrays (all empty for a closed structure). */
export interface OpenFieldArrays {
  arrival: Float64Array;
  exit: Float64Array;
  fields: Uint8Array;
  hasFanout: boolean;
  latency: LatencyFields;
}

/**
 * Builds the adjacency (CSR rows in input order, each node's shares) of validated parts. A
 * dependency out of a down node gets no slot: it carries nothing, and every algorithm, which
 * walks the rows, sees a node without a way out.
 */
export function assembleCompiled(
  memory: ArrayMemory,
  parts: ValidatedParts,
  /** A structure with the very same dependencies (and none down): its components serve. */
  sameDependencies?: CompiledStructure,
): CompiledStructure {
  const { ids, dependencyFrom, dependencyTo, givenWeight, outDegree, inDegree, down } = parts;
  const nodeCount = ids.length;
  const dependencyCount = dependencyFrom.length;
  const { selfShare, outStart, inStart, outTarget, outShare, slotOfDependency, inSource, inShare } =
    adjacencyArrays(memory, nodeCount, dependencyCount);
  // Prefix sums turn degrees into CSR row starts; each dependency then takes the next free
  // slot of its row, so rows keep input order. (In these loops a pass one past the end writes
  // only past the typed arrays' ends, which is dropped.)
  // Stryker disable next-line EqualityOperator: see above
  for (let v = 0; v < nodeCount; v++) {
    outStart[v + 1] = outStart[v]! + outDegree[v]!;
    inStart[v + 1] = inStart[v]! + inDegree[v]!;
  }
  const outFill = scratch.int32(nodeCount);
  outFill.set(outStart.subarray(0, nodeCount));
  const inFill = scratch.int32(nodeCount);
  inFill.set(inStart.subarray(0, nodeCount));
  const outWeight = scratch.float64(dependencyCount);
  const inOutSlot = scratch.int32(dependencyCount);
  const anyDown = down.length > 0;
  let smallestWeight = Number.POSITIVE_INFINITY;
  let largestWeight = 0;
  // Stryker disable next-line EqualityOperator: see above
  for (let e = 0; e < dependencyCount; e++) {
    const from = dependencyFrom[e]!;
    if (anyDown && down[from] === 1) {
      slotOfDependency[e] = -1;
      continue;
    }
    const to = dependencyTo[e]!;
    const slot = outFill[from]!++;
    outTarget[slot] = to;
    const given = givenWeight[e]!;
    const weight = Number.isNaN(given) ? 1 : given;
    outWeight[slot] = weight;
    // Stryker disable next-line EqualityOperator: an equal weight leaves the bound as it is
    if (weight < smallestWeight) smallestWeight = weight;
    // Stryker disable next-line EqualityOperator: see above
    if (weight > largestWeight) largestWeight = weight;
    slotOfDependency[e] = slot;
    const inSlot = inFill[to]!++;
    inSource[inSlot] = from;
    inOutSlot[inSlot] = slot;
  }

  const { arrival: arrivalOf, exit: exitOf, fields: openFields, hasFanout } = parts.open;
  const isOpen = openFields.length > 0;
  const exitShare = isOpen ? memory.float64(nodeCount) : EMPTY_FLOAT64;
  // Stryker disable next-line EqualityOperator: see above
  for (let v = 0; v < nodeCount; v++) {
    const first = outStart[v]!;
    const end = outStart[v + 1]!;
    if (isOpen && (openFields[v]! & FANOUT_ON) !== 0) {
      // A fan-out node's dependencies each receive `out × weight`: calls per unit processed.
      for (let k = first; k < end; k++) {
        outShare[k] = outWeight[k]!;
        if (outTarget[k] === v) selfShare[v]! += outWeight[k]!;
      }
      exitShare[v] = 1;
      continue;
    }
    const exitWeight = isOpen ? exitOf[v]! : 0;
    let total = exitWeight;
    for (let k = first; k < end; k++) total += outWeight[k]!;
    // Weights near the largest double can overflow their sum; scaling by the largest keeps the ratios.
    let scale = 1;
    if (total === Number.POSITIVE_INFINITY) {
      scale = exitWeight;
      for (let k = first; k < end; k++) scale = Math.max(scale, outWeight[k]!);
      total = exitWeight / scale;
      for (let k = first; k < end; k++) total += outWeight[k]! / scale;
    }
    for (let k = first; k < end; k++) {
      const share = outWeight[k]! / scale / total;
      outShare[k] = share;
      if (outTarget[k] === v) selfShare[v]! += share;
    }
    if (exitWeight > 0) exitShare[v] = exitWeight / scale / total;
  }

  // Stryker disable next-line EqualityOperator: see above
  for (let j = 0; j < inStart[nodeCount]!; j++) inShare[j] = outShare[inOutSlot[j]!]!;
  const pathInShare = hasFanout
    ? fanoutPathShares(
        memory,
        nodeCount,
        dependencyCount,
        outStart,
        outWeight,
        openFields,
        inOutSlot,
        inShare,
      )
    : inShare;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (without servers the loop finds none)
  if (parts.open.latency.servers.length > 0) refuseQueuesWithoutWayOut(parts, outStart);

  return new CompiledStructure(
    memory,
    {
      nodeCount,
      dependencyCount,
      nodes: parts.nodes,
      dependencies: parts.dependencies,
      ids,
      initialLoads: parts.initialLoads,
      capacity: parts.capacity,
      nodeHasExtra: parts.nodeHasExtra,
      dependencyHasExtra: parts.dependencyHasExtra,
      givenWeight,
      dependencyFrom,
      dependencyTo,
      outStart,
      outTarget,
      outShare,
      slotOfDependency,
      inStart,
      inSource,
      inShare,
      selfShare,
      weightsSpanWide: largestWeight > WIDE_WEIGHT_RATIO * smallestWeight,
      open: isOpen,
      hasFanout,
      arrival: arrivalOf,
      exit: exitOf,
      openFields,
      exitShare,
      pathInShare,
      latency: parts.open.latency,
      down,
      stranded: parts.stranded ?? EMPTY_UINT8,
      roles: anyDown ? declaredRoles(memory, nodeCount, dependencyFrom, dependencyTo) : EMPTY_UINT8,
    },
    sameDependencies,
  );
}

/** Role codes (`ROLE_CODES`) from every dependency, those that carry nothing while down included. */
function declaredRoles(
  memory: ArrayMemory,
  nodeCount: number,
  dependencyFrom: Int32Array,
  dependencyTo: Int32Array,
): Uint8Array {
  const roles = memory.uint8(nodeCount);
  for (let e = 0; e < dependencyFrom.length; e++) {
    roles[dependencyFrom[e]!]! |= HAS_OUT;
    roles[dependencyTo[e]!]! |= HAS_IN;
  }
  return roles;
}

/**
 * Weights within this factor of each other leave the sweep order to the edges alone. Spread
 * over 30× to 900× (random 200k/1M) the order that weighs the shares took fewer sweeps (42
 * against 67) but no less time: its sweeps were slower and building both orders costs more;
 * spread over 1e-3…1e3 it took 35 sweeps against 154, a second less (docs/benchmark.md).
 */
const WIDE_WEIGHT_RATIO = 1000;

/**
 * The capacity per step of node `i`'s `servers` of `serviceTime`: `servers / serviceTime`.
 * A `capacity` sent beside them must say the same (within 1e-9 relative): two answers to one
 * question would leave the engine to pick one.
 */
function serverCapacity(latency: LatencyFields, i: number, given: number | undefined): number {
  const derived = latency.servers[i]! / latency.serviceTime[i]!;
  if (!(derived < Number.POSITIVE_INFINITY)) {
    throw new PayloadError(
      `nodes[${i}].serviceTime`,
      latency.servers[i] === 1
        ? 'is too small for 1 server: its capacity per step is beyond the largest number'
        : `is too small for ${latency.servers[i]} servers: their capacity per step is beyond the largest number`,
    );
  }
  if (given !== undefined && !(Math.abs(given - derived) <= 1e-9 * derived)) {
    throw new PayloadError(
      `nodes[${i}].capacity`,
      `${given} disagrees with servers / serviceTime = ${derived}; drop one`,
    );
  }
  // Shown as the quotient, as the docs say: the capacity given agrees with it to 1e-9 only.
  return derived;
}

/** Why a node without a way out takes no `servers`, without the advice (which depends on who asks). */
export const NO_WAY_OUT_FACT =
  'the node has no way out (no dependency, no "exit", no "fanout"): what reaches it stays there and none of it is served, so it has no queue';

export const NO_WAY_OUT = `${NO_WAY_OUT_FACT}; give it an "exit" (or "fanout": true), or drop "servers"`;

/**
 * Whether node `v` has servers and, while up, no way out: no dependency (`hasDependency`), no
 * exit, no fan-out. What reaches such a node stays there and none of it is served (its pressure
 * grows), so it has no queue to saturate, and an M/M/c queue there would say it saturates where
 * the steady state gives it no utilization at all. A node that is down has no way out by design:
 * it is `down`. The structure's check refuses it, and a scenario's says so of its change.
 */
export function isQueueWithoutWayOut(
  open: OpenFieldArrays,
  down: Uint8Array,
  v: number,
  hasDependency: boolean,
): boolean {
  return (
    open.latency.servers[v]! > 0 &&
    !hasDependency &&
    !(open.exit[v]! > 0) &&
    (open.fields[v]! & FANOUT_ON) === 0 &&
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: same answer (with no node down, down[v] is undefined; a node up and stuck beside one down is a scenario's, refused before the structure's check; the `false` twin, a down node refused, is killed)
    !(down.length > 0 && down[v] === 1)
  );
}

/** Refuses the structure's first node with servers and no way out (`isQueueWithoutWayOut`). */
function refuseQueuesWithoutWayOut(parts: ValidatedParts, outStart: Int32Array): void {
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < parts.open.latency.servers.length; v++) {
    if (isQueueWithoutWayOut(parts.open, parts.down, v, outStart[v + 1] !== outStart[v])) {
      throw new PayloadError(`nodes[${v}].servers`, NO_WAY_OUT);
    }
  }
}

/** Bits of `roles`: a node with both is a relay, with neither isolated. */
const HAS_OUT = 1;
const HAS_IN = 2;

/**
 * The open fields (`arrival`, `exit`, `fanout`) of the nodes, read one node at a time. Their
 * arrays exist only once a node uses one of them, so a closed structure carries none.
 */
class OpenFields implements OpenFieldArrays {
  arrival: Float64Array = EMPTY_FLOAT64;
  exit: Float64Array = EMPTY_FLOAT64;
  fields: Uint8Array = EMPTY_UINT8;
  hasFanout = false;
  latency: LatencyFields = NO_LATENCY;

  /** Reads node `i`'s open fields; returns how many it has. Throws naming a bad one. */
  read(node: Record<string, unknown>, i: number, memory: ArrayMemory, nodeCount: number): number {
    if (
      node.arrival === undefined &&
      node.exit === undefined &&
      node.fanout === undefined &&
      node.serviceTime === undefined &&
      node.servers === undefined &&
      node.slo === undefined
    ) {
      return 0;
    }
    if (this.fields.length === 0) {
      this.arrival = memory.float64(nodeCount);
      this.exit = memory.float64(nodeCount);
      this.fields = memory.uint8(nodeCount);
    }
    const arrival = optionalNumber(node.arrival, AT_LEAST_ZERO, 'nodes', i, 'arrival');
    const exit = optionalNumber(node.exit, AT_LEAST_ZERO, 'nodes', i, 'exit');
    const fanout = node.fanout;
    if (fanout !== undefined && typeof fanout !== 'boolean') {
      throw new PayloadError(`nodes[${i}].fanout`, `must be true or false, got ${describeValue(fanout)}`);
    }
    if (fanout === true && exit !== undefined) {
      throw new PayloadError(
        `nodes[${i}].exit`,
        'a fan-out node completes what it processes, so it takes no exit; drop "exit" or "fanout"',
      );
    }
    let bits = 0;
    let count = 0;
    if (arrival !== undefined) {
      bits |= ARRIVAL_GIVEN;
      this.arrival[i] = arrival;
      count++;
    }
    if (exit !== undefined) {
      bits |= EXIT_GIVEN;
      this.exit[i] = exit;
      count++;
    }
    if (fanout !== undefined) {
      bits |= fanout ? FANOUT_GIVEN | FANOUT_ON : FANOUT_GIVEN;
      this.hasFanout ||= fanout;
      count++;
    }
    bits |= this.#readLatency(node, i, memory, nodeCount);
    if ((bits & SERVICE_TIME_GIVEN) !== 0) count++;
    if ((bits & SERVERS_GIVEN) !== 0) count++;
    if ((bits & SLO_GIVEN) !== 0) count++;
    this.fields[i] = bits;
    return count;
  }

  /** Node `i`'s `serviceTime`, `servers` and `slo`; returns their bits. */
  #readLatency(node: Record<string, unknown>, i: number, memory: ArrayMemory, nodeCount: number): number {
    const serviceTime = optionalNumber(node.serviceTime, ABOVE_ZERO, 'nodes', i, 'serviceTime');
    const slo = optionalNumber(node.slo, ABOVE_ZERO, 'nodes', i, 'slo');
    const servers = node.servers;
    if (servers !== undefined && !isServerCount(servers)) {
      throw new PayloadError(
        `nodes[${i}].servers`,
        `must be a whole number from 1 to ${MAX_SERVERS}, got ${describeValue(servers)}`,
      );
    }
    if (servers !== undefined && serviceTime === undefined) {
      throw new PayloadError(
        `nodes[${i}].servers`,
        'servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
      );
    }
    if (serviceTime === undefined && slo === undefined) return 0;
    if (this.latency === NO_LATENCY) {
      this.latency = {
        serviceTime: memory.float64(nodeCount),
        servers: memory.float64(nodeCount),
        slo: memory.float64(nodeCount),
      };
    }
    let bits = 0;
    if (serviceTime !== undefined) {
      bits |= SERVICE_TIME_GIVEN;
      this.latency.serviceTime[i] = serviceTime;
    }
    if (servers !== undefined) {
      bits |= SERVERS_GIVEN;
      this.latency.servers[i] = servers as number;
    }
    if (slo !== undefined) {
      bits |= SLO_GIVEN;
      this.latency.slo[i] = slo;
    }
    return bits;
  }
}

/** `inShare`, with each fan-out node's slots replaced by the split of its calls, `weight / W`. */
function fanoutPathShares(
  memory: ArrayMemory,
  nodeCount: number,
  dependencyCount: number,
  outStart: Int32Array,
  outWeight: Float64Array,
  openFields: Uint8Array,
  inOutSlot: Int32Array,
  inShare: Float64Array,
): Float64Array {
  const split = scratch.float64(dependencyCount);
  for (let v = 0; v < nodeCount; v++) {
    if ((openFields[v]! & FANOUT_ON) === 0) continue;
    const first = outStart[v]!;
    const end = outStart[v + 1]!;
    let largest = 0;
    for (let k = first; k < end; k++) largest = Math.max(largest, outWeight[k]!);
    let total = 0;
    for (let k = first; k < end; k++) total += outWeight[k]! / largest;
    for (let k = first; k < end; k++) split[k] = outWeight[k]! / largest / total;
  }
  const path = memory.float64(dependencyCount);
  for (let j = 0; j < dependencyCount; j++) {
    const slot = inOutSlot[j]!;
    path[j] = split[slot]! > 0 ? split[slot]! : inShare[j]!;
  }
  return path;
}

/**
 * The largest total load a structure may hold. Every number the engine reports is at most the
 * total load (flows, inflows and pressures move or measure the same value; shares are at most
 * 1), up to rounding, so bounding the total keeps every result a finite double with room to
 * spare: without it, two loads of 1e308 flowing into one node would make an inflow of
 * 2e308, which is Infinity, which JSON prints as `null`.
 */
export const MAX_TOTAL_LOAD = 1e300;

function totalLoadTooLarge(
  index: number,
  field: 'load' | 'arrival' = 'load',
  withArrivals = false,
): PayloadError {
  const what =
    index === 0 && field === 'load'
      ? 'is'
      : field === 'arrival' || withArrivals
        ? 'and the loads and arrivals up to it add up to'
        : 'and the loads before it add up to';
  return new PayloadError(
    `nodes[${index}].${field}`,
    `${what} more than ${MAX_TOTAL_LOAD}, the largest total load the engine accepts (so that every ` +
      'flow and pressure stays a finite number); scale the loads down',
  );
}

interface NumberRule {
  accepts(value: number): boolean;
  expected: string;
}
const AT_LEAST_ZERO: NumberRule = { accepts: (value) => value >= 0, expected: 'a finite number >= 0' };
const ABOVE_ZERO: NumberRule = { accepts: (value) => value > 0, expected: 'a finite number > 0' };

/** An optional numeric field: `undefined` when absent, else a finite number the rule accepts. */
function optionalNumber(
  value: unknown,
  rule: NumberRule,
  list: 'nodes' | 'dependencies',
  index: number,
  field: string,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !rule.accepts(value) || value === Number.POSITIVE_INFINITY) {
    throw new PayloadError(
      `${list}[${index}].${field}`,
      `must be ${rule.expected}, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** Own enumerable fields, counted without allocating a key array. */
// Stryker disable next-line BlockStatement: a wrong count only flags elements for the general path (see fillCompiled)
function fieldCount(record: Record<string, unknown>): number {
  let count = 0;
  // Stryker disable next-line UpdateOperator: see above
  for (const _ in record) count++;
  return count;
}

function resolveEnd(indexOf: IdIndex, id: unknown, e: number, end: 'from' | 'to'): number {
  if (typeof id !== 'string' || id.length === 0) {
    throw new PayloadError(
      `dependencies[${e}].${end}`,
      `must be a non-empty string, got ${describeValue(id)}`,
    );
  }
  const index = indexOf.get(id);
  if (index < 0) throw new PayloadError(`dependencies[${e}].${end}`, `unknown node ${quoteText(id)}`);
  return index;
}
