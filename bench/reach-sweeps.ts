import type { CompiledStructure } from '../lib/engine';
import { measurePressure, PressureBuffers } from '../lib/engine/pressure';
import { ReachWorkspace, solveReach } from '../lib/engine/reach';
import { createStepBuffers, stepFrom } from '../lib/engine/step';

/**
 * The large-cycle solver's sweeps for the primary blockage of `compiled` (summed over the
 * cycles it solves), as `analyze` would spend them; 0 without a blockage.
 */
export function reachSweeps(compiled: CompiledStructure): number {
  const n = compiled.nodeCount;
  const state = stepFrom(compiled, compiled.initialLoads, createStepBuffers(compiled), new Float64Array(n));
  const primary = measurePressure(compiled, state, new PressureBuffers(n));
  if (primary < 0) return 0;
  const workspace = new ReachWorkspace(n);
  solveReach(compiled, primary, workspace);
  return workspace.sweeps;
}
