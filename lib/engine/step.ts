import type { CompiledStructure } from './compile';

/**
 * Everything one step computes from a state's loads. The same buffers are refilled on
 * every step so a timeline allocates nothing per tick.
 */
export interface StepBuffers {
  /** `out(v)`: what each node passes on. */
  outflow: Float64Array;
  /** `flow(e)` per out slot (see `CompiledStructure.slotOfDependency` for per-dependency order). */
  slotFlow: Float64Array;
  /** `in(v)`. */
  inflow: Float64Array;
}

export function createStepBuffers(structure: CompiledStructure): StepBuffers {
  return {
    outflow: new Float64Array(structure.nodeCount),
    slotFlow: new Float64Array(structure.dependencyCount),
    inflow: new Float64Array(structure.nodeCount),
  };
}

/**
 * One synchronous step: reads `loads`, writes the step's flows into `buffers` and the
 * resulting loads into `next`. Returns the total outflow (0 means the step moves nothing).
 *
 * Conservation: each node's outflow is split so that the last dependency takes the
 * remainder, so the flows leaving a node add up to its outflow; inflows are gathered with
 * Neumaier summation. A load can only dip below zero by rounding residue: it is clamped to 0.
 */
export function step(
  structure: CompiledStructure,
  loads: Float64Array,
  buffers: StepBuffers,
  next: Float64Array,
): number {
  const { nodeCount, outStart, outShare, capacity, inStart, inOutSlot } = structure;
  const { outflow, slotFlow, inflow } = buffers;
  let moved = 0;

  for (let v = 0; v < nodeCount; v++) {
    const first = outStart[v]!;
    const end = outStart[v + 1]!;
    if (first === end) {
      outflow[v] = 0;
      continue;
    }
    const load = loads[v]!;
    const cap = capacity[v]!;
    const out = Math.min(load, cap);
    outflow[v] = out;
    moved += out;
    const last = end - 1;
    if (out === 0) {
      for (let k = first; k <= last; k++) slotFlow[k] = 0;
      continue;
    }
    let sum = 0;
    let compensation = 0;
    for (let k = first; k < last; k++) {
      const flow = out * outShare[k]!;
      slotFlow[k] = flow;
      const total = sum + flow;
      compensation += sum >= flow ? sum - total + flow : flow - total + sum;
      sum = total;
    }
    const remainder = out - (sum + compensation);
    slotFlow[last] = Math.max(remainder, 0);
  }

  for (let v = 0; v < nodeCount; v++) {
    const end = inStart[v + 1]!;
    let sum = 0;
    let compensation = 0;
    for (let j = inStart[v]!; j < end; j++) {
      const flow = slotFlow[inOutSlot[j]!]!;
      const total = sum + flow;
      compensation += sum >= flow ? sum - total + flow : flow - total + sum;
      sum = total;
    }
    const received = sum + compensation;
    inflow[v] = received;
    const after = loads[v]! - outflow[v]! + received;
    next[v] = Math.max(after, 0);
  }
  return moved;
}
