import type { CompiledStructure } from './compile';

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
  /** The corrections, gathered per receiving node. */
  correctionReceived: Float64Array;
  /** `in(v)`. */
  inflow: Float64Array;
}

export function createStepBuffers(structure: CompiledStructure): StepBuffers {
  return {
    outflow: new Float64Array(structure.nodeCount),
    lastCorrection: new Float64Array(structure.nodeCount),
    correctionReceived: new Float64Array(structure.nodeCount),
    inflow: new Float64Array(structure.nodeCount),
  };
}

/**
 * The flow of one dependency: `out(from) × share`, plus, for the last dependency of a node,
 * the correction that makes the node's flows add up to its outflow exactly.
 */
export function dependencyFlow(outflow: number, share: number, correction: number, isLast: boolean): number {
  return isLast ? outflow * share + correction : outflow * share;
}

/**
 * One synchronous step: reads `loads`, writes the step's outflows and inflows into `buffers`
 * and the resulting loads into `next`. Returns the total outflow (0 means the step moves
 * nothing).
 *
 * Conservation: a node's outflow is split so that its last dependency takes the remainder
 * (the other flows summed with compensation), so the flows leaving a node add up to its
 * outflow; each node then gathers its inflow over its incoming dependencies, again with
 * compensated summation. Both use Neumaier's error term computed branch-free (Knuth's
 * TwoSum), which keeps the hot loops free of data-dependent branches. Gathering reads each
 * source's outflow (one number per node) rather than a per-dependency flow, so a step
 * touches little memory. A load can only dip below zero by rounding residue: it is clamped
 * to 0.
 */
export function step(
  structure: CompiledStructure,
  loads: Float64Array,
  buffers: StepBuffers,
  next: Float64Array,
): number {
  const { nodeCount, outStart, outShare, capacity, inStart, inSource, inShare, lastTarget } = structure;
  const { outflow, lastCorrection, correctionReceived, inflow } = buffers;
  let moved = 0;

  correctionReceived.fill(0);
  for (let v = 0; v < nodeCount; v++) {
    const first = outStart[v]!;
    const last = outStart[v + 1]! - 1;
    if (last < first) {
      outflow[v] = 0;
      lastCorrection[v] = 0;
      continue;
    }
    const out = Math.min(loads[v]!, capacity[v]!);
    outflow[v] = out;
    moved += out;
    if (last === first || out === 0) {
      lastCorrection[v] = 0;
      continue;
    }
    let sum = 0;
    let error = 0;
    for (let k = first; k < last; k++) {
      const flow = out * outShare[k]!;
      const total = sum + flow;
      const part = total - sum;
      error += sum - (total - part) + (flow - part);
      sum = total;
    }
    const correction = Math.max(out - (sum + error), 0) - out * outShare[last]!;
    lastCorrection[v] = correction;
    correctionReceived[lastTarget[v]!]! += correction;
  }

  for (let v = 0; v < nodeCount; v++) {
    const end = inStart[v + 1]!;
    let sum = correctionReceived[v]!;
    let error = 0;
    for (let j = inStart[v]!; j < end; j++) {
      const flow = outflow[inSource[j]!]! * inShare[j]!;
      const total = sum + flow;
      const part = total - sum;
      error += sum - (total - part) + (flow - part);
      sum = total;
    }
    const received = sum + error;
    inflow[v] = received;
    next[v] = Math.max(loads[v]! - outflow[v]! + received, 0);
  }
  return moved;
}
