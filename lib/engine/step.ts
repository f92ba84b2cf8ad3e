import { type CompiledStructure, FANOUT_ON, MAX_TOTAL_LOAD } from './compile';
import { PayloadError } from './errors';
import { FRESH_ARRAYS, type ScratchMemory } from './scratch';

/**
 * Everything one step computes from a state's loads. The same buffers are refilled on
 * every step so a timeline allocates nothing per tick.
 */
export interface StepBuffers {
  /** `out(v)`: what each node passes on. */
  outflow: Float64Array;
  /**
   * What the last dependency of each node carries beyond `out(v) × share`: the remainder
   * rule's rounding correction (see `dependencyFlow`).
   */
  lastCorrection: Float64Array;
  /** Per node, the running sum of what it receives and that sum's rounding error, interleaved. */
  received: Float64Array;
  /** `in(v)`. */
  inflow: Float64Array;
  /** Open structures: what left the system at each node in the step (empty otherwise). */
  exited: Float64Array;
  /**
   * Per node, the out-slot where its split redone capped ran out (`splitCapped`): that slot
   * carried `cutFlow`, the ones after it nothing; −1 for every other node. Reset by the next step.
   */
  cutSlot: Int32Array;
  /** What the cut slot carried (read only where `cutSlot` is set). */
  cutFlow: Float64Array;
  /** The nodes with a cut slot, so the next step resets only those. */
  cutNodes: number[];
}

/** Step buffers carved from `memory` for one call, or freshly allocated to be kept. */
export function createStepBuffers(structure: CompiledStructure, memory?: ScratchMemory): StepBuffers {
  const { nodeCount } = structure;
  const float64 = (length: number) => (memory ? memory.float64(length) : new Float64Array(length));
  return {
    outflow: float64(nodeCount),
    lastCorrection: float64(nodeCount),
    received: float64(2 * nodeCount),
    inflow: float64(nodeCount),
    exited: float64(structure.open ? nodeCount : 0),
    cutSlot: (memory ?? FRESH_ARRAYS).int32(nodeCount, -1),
    cutFlow: float64(nodeCount),
    // Stryker disable next-line ArrayDeclaration: same answer: a stray entry resets a slot no node has
    cutNodes: [],
  };
}

/**
 * The flow of one dependency: `out(from) × share`, plus, for the last dependency of a node,
 * the correction that makes the node's flows add up to its outflow.
 */
export function dependencyFlow(outflow: number, share: number, correction: number, isLast: boolean): number {
  return isLast ? outflow * share + correction : outflow * share;
}

/**
 * One synchronous step: reads `loads`, writes the step's outflows and inflows into `buffers`
 * and the resulting loads into `next`. Returns the total outflow (0 means the step moves
 * nothing).
 *
 * Each node splits its outflow over its dependencies in input order, the last one taking
 * the remainder (the others summed with compensation), so the flows leaving a node add up
 * to its outflow; each flow is added straight into its target's compensated running sum.
 * Both sums use Neumaier's error term computed branch-free (Knuth's TwoSum), which keeps the
 * loop free of data-dependent branches. Walking dependencies by source reads them in memory
 * order; only the targets' sums (sum and error side by side, one cache line) are visited in
 * the structure's own order. A load can only dip below zero by rounding residue: it is
 * clamped to 0.
 */
export function step(
  structure: CompiledStructure,
  loads: Float64Array,
  buffers: StepBuffers,
  next: Float64Array,
): number {
  if (structure.open) return openStep(structure, loads, buffers, next);
  const { nodeCount, outStart, outShare, outTarget, capacity } = structure;
  const { outflow, lastCorrection, received, inflow } = buffers;
  resetCuts(buffers);
  let moved = 0;

  for (let v = 0; v < nodeCount; v++) {
    const first = outStart[v]!;
    const last = outStart[v + 1]! - 1;
    lastCorrection[v] = 0;
    if (last < first) {
      outflow[v] = 0;
      continue;
    }
    const out = Math.min(loads[v]!, capacity[v]!);
    outflow[v] = out;
    // Stryker disable next-line ConditionalExpression: saves work; splitting nothing sends 0 along every dependency
    if (out === 0) continue;
    moved += out;
    let sum = 0;
    let error = 0;
    for (let k = first; k < last; k++) {
      const flow = out * outShare[k]!;
      const total = sum + flow;
      error += roundingError(sum, flow, total);
      sum = total;
      receive(received, outTarget[k]!, flow);
    }
    let remainder = out - (sum + error);
    // Stryker disable next-line EqualityOperator: same answer, other work (a split that lands on its outflow exactly, redone capped, sends the same parts)
    if (remainder < 0) remainder = splitCapped(structure, buffers, v, out, last);
    lastCorrection[v] = remainder - out * outShare[last]!;
    receive(received, outTarget[last]!, remainder);
  }

  // Stryker disable next-line EqualityOperator: one step past the end reads and writes nothing (typed arrays ignore it)
  for (let v = 0; v < nodeCount; v++) {
    const gathered = received[2 * v]! + received[2 * v + 1]!;
    received[2 * v] = 0;
    received[2 * v + 1] = 0;
    inflow[v] = gathered;
    next[v] = Math.max(loads[v]! - outflow[v]! + gathered, 0);
  }
  return moved;
}

/**
 * The step of an open structure: `A(v) = L(v) + arrival(v)` is what the node holds; a node with
 * a way out passes on `out(v) = min(A(v), capacity(v))`; of that, a fan-out node sends
 * `out × weight(e)` along each dependency and completes `out` itself, any other node sends
 * `out × weight(e) / (W + exit)` along each and lets the rest (its exit's share, summed as the
 * remainder so that the node's flows and its exit add up to its outflow) leave the system.
 * `L'(v) = A(v) − out(v) + in(v)`.
 */
function openStep(
  structure: CompiledStructure,
  loads: Float64Array,
  buffers: StepBuffers,
  next: Float64Array,
): number {
  const { nodeCount, outStart, outShare, outTarget, capacity, arrival, exit, openFields } = structure;
  const { outflow, lastCorrection, received, inflow, exited } = buffers;
  resetCuts(buffers);
  let moved = 0;

  for (let v = 0; v < nodeCount; v++) {
    const first = outStart[v]!;
    const last = outStart[v + 1]! - 1;
    const held = loads[v]! + arrival[v]!;
    const fanout = (openFields[v]! & FANOUT_ON) !== 0;
    lastCorrection[v] = 0;
    exited[v] = 0;
    if (last < first && !fanout && !(exit[v]! > 0)) {
      outflow[v] = 0;
      continue;
    }
    const out = Math.min(held, capacity[v]!);
    outflow[v] = out;
    if (out === 0) continue;
    moved += out;
    if (fanout) {
      for (let k = first; k <= last; k++) receive(received, outTarget[k]!, out * outShare[k]!);
      exited[v] = out;
      continue;
    }
    // The closed step's split (kept apart there, as tuned and pinned), with the exit taking the
    // remainder where the node has one.
    let sum = 0;
    let error = 0;
    const closedSplit = !(exit[v]! > 0);
    const end = closedSplit ? last : last + 1;
    for (let k = first; k < end; k++) {
      const flow = out * outShare[k]!;
      const total = sum + flow;
      error += roundingError(sum, flow, total);
      sum = total;
      receive(received, outTarget[k]!, flow);
    }
    let remainder = out - (sum + error);
    // Stryker disable next-line EqualityOperator: same answer, other work (a split that lands on its outflow exactly, redone capped, sends the same parts)
    if (remainder < 0) remainder = splitCapped(structure, buffers, v, out, end);
    if (closedSplit) {
      lastCorrection[v] = remainder - out * outShare[last]!;
      receive(received, outTarget[last]!, remainder);
    } else {
      exited[v] = remainder;
    }
  }

  let total = 0;
  for (let v = 0; v < nodeCount; v++) {
    const gathered = received[2 * v]! + received[2 * v + 1]!;
    received[2 * v] = 0;
    received[2 * v + 1] = 0;
    inflow[v] = gathered;
    const after = Math.max(loads[v]! + arrival[v]! - outflow[v]! + gathered, 0);
    next[v] = after;
    total += after;
  }
  // Arrivals add value every step and fan-out multiplies it (a cycle whose gain is 1 or more
  // grows it without limit). Past the bound every input total obeys (MAX_TOTAL_LOAD), numbers
  // would soon stop being finite: the caller is told which way to scale down.
  if (!(total <= MAX_TOTAL_LOAD)) throw new TotalPastTheBound();
  return moved;
}

/**
 * The total value past `MAX_TOTAL_LOAD` after a step: said for a run of ticks, which can run
 * fewer; the first step from the loads given says it in its own words (`firstStepFrom`).
 */
class TotalPastTheBound extends PayloadError {
  constructor() {
    super(
      'nodes',
      `the total value grows past ${MAX_TOTAL_LOAD} in this run (arrivals that pile up, or fan-out ` +
        'that creates more value than leaves): lower the arrivals or the fan-out weights, or run fewer ticks',
    );
  }
}

/**
 * Node `v`'s split when its flows before `end` (its last dependency, or past it where an exit
 * takes the remainder) add up past its outflow `out`: each flow rounds by up to half a unit of
 * the last place, which among the smallest doubles (1e-323 is two units of 5e-324) is a
 * quarter of the whole, so four such flows could carry three units out of two. Read in order,
 * each at most what is left: the flows before the one that meets what is left stand as sent,
 * that one takes what is left instead of its part (its slot and flow are kept for `flowOf`, so
 * reading a dependency's flow stays one lookup), and the rest, the remainder included, carry
 * nothing. Returns what is left for the
 * remainder: 0 once the split ran out (the usual case), or, where rounding the parts' sum had
 * overshot without the parts themselves doing so, what the plain parts leave.
 */
function splitCapped(
  structure: CompiledStructure,
  buffers: StepBuffers,
  v: number,
  out: number,
  end: number,
): number {
  const { outStart, outShare, outTarget } = structure;
  const { received } = buffers;
  let left = out;
  // Stryker disable next-line EqualityOperator: same answer: parts that overshot run out before `end` (one past it is reached only where rounding the parts' sum alone overshot)
  for (let k = outStart[v]!; k < end; k++) {
    const flow = out * outShare[k]!;
    if (flow < left) {
      left -= flow;
      continue;
    }
    // The parts before stand as sent; this one and those after it take back theirs.
    for (let j = k; j < end; j++) receive(received, outTarget[j]!, -(out * outShare[j]!));
    receive(received, outTarget[k]!, left);
    buffers.cutSlot[v] = k;
    buffers.cutFlow[v] = left;
    buffers.cutNodes.push(v);
    return 0;
  }
  return left;
}

/** Resets the cut slots of the previous step's capped splits. */
function resetCuts(buffers: StepBuffers): void {
  const { cutSlot, cutNodes } = buffers;
  for (const v of cutNodes) cutSlot[v] = -1;
  cutNodes.length = 0;
}

/** Adds `flow` to node `to`'s running sum, carrying the rounding error alongside. */
function receive(received: Float64Array, to: number, flow: number): void {
  const at = 2 * to;
  const sum = received[at]!;
  const total = sum + flow;
  received[at + 1]! += roundingError(sum, flow, total);
  received[at] = total;
}

/**
 * What `total = sum + addend` lost to rounding, exactly, whichever of the two is larger
 * (Knuth's TwoSum): branch-free, so hot loops stay free of data-dependent branches.
 */
export function roundingError(sum: number, addend: number, total: number): number {
  const part = total - sum;
  return sum - (total - part) + (addend - part);
}

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

/**
 * `stepFrom` for the step from the loads given, which `analyze` describes them by and every
 * timeline takes first: past the bound there no number of ticks helps, and it says so.
 */
export function firstStepFrom(
  structure: CompiledStructure,
  loads: Float64Array,
  buffers: StepBuffers,
  next: Float64Array,
): StateWithStep {
  try {
    return stepFrom(structure, loads, buffers, next);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: same answer: a step throws nothing else
    if (!(error instanceof TotalPastTheBound)) throw error;
    throw new PayloadError(
      'nodes',
      `the value one step moves adds up past ${MAX_TOTAL_LOAD} (the loads, the arrivals and what fan-out ` +
        'makes of them): lower the arrivals, the loads or the fan-out weights',
    );
  }
}
