import type { CompiledStructure } from './compile';
import { type ScratchMemory, scratch } from './scratch';
import type { StateWithStep } from './step';

/** Per-node pressure and blocked flags of one state, reused across a timeline. */
export class PressureBuffers {
  readonly pressure: Float64Array;
  readonly blocked: Uint8Array;
  /** Arrays from `memory` (fresh ones outside an engine call). */
  constructor(nodeCount: number, memory: ScratchMemory = scratch) {
    this.pressure = memory.float64(nodeCount);
    this.blocked = memory.uint8(nodeCount);
  }
}

/** Fills pressure and blocked flags; returns the primary blockage (index) or -1. */
export function measurePressure(
  structure: CompiledStructure,
  state: StateWithStep,
  into: PressureBuffers,
): number {
  const { nodeCount, outStart, capacity, ids, open } = structure;
  const { next } = state;
  const { pressure, blocked } = into;
  let capacityBlockage = -1;
  let capacityPressure = 0;
  let terminalBlockage = -1;
  let terminalPressure = 0;
  // Stryker disable next-line EqualityOperator: one step past the end reads no node (NaN pressure, not blocked) and writes nowhere
  for (let v = 0; v < nodeCount; v++) {
    const after = next[v]!;
    let p: number;
    let hasOut: boolean;
    if (outStart[v + 1]! > outStart[v]! || (open && structure.hasWayOut(v))) {
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
        // Stryker disable next-line EqualityOperator: ids are unique, so < and <= agree
        if (p > capacityPressure || (p === capacityPressure && ids[v]! < ids[capacityBlockage]!)) {
          capacityPressure = p;
          capacityBlockage = v;
        }
      } else if (
        p > terminalPressure ||
        // Stryker disable next-line EqualityOperator: ids are unique, so < and <= agree
        (p === terminalPressure && ids[v]! < ids[terminalBlockage]!)
      ) {
        terminalPressure = p;
        terminalBlockage = v;
      }
    } else {
      blocked[v] = 0;
    }
  }
  return capacityBlockage >= 0 ? capacityBlockage : terminalBlockage;
}
