import { type CompiledStructure, compileForCall } from './compile';
import { cycleEvents } from './cycles';
import { describeState } from './describe';
import { measurePressure, PressureBuffers } from './pressure';
import { ReachWorkspace } from './reach';
import { scratch } from './scratch';
import { createStepBuffers, stepFrom } from './step';
import type { EngineResult, Structure } from './types';

/**
 * Describes the structure as given (tick 0): the flows, pressures and blockages of the step
 * that would follow, where the primary blockage's value comes from, and every cycle.
 * Extra fields of nodes and dependencies are carried through.
 */
export function analyze(structure: Structure | CompiledStructure): EngineResult {
  return scratch.run(() => analyzeCompiled(compileForCall(structure)));
}

function analyzeCompiled(compiled: CompiledStructure): EngineResult {
  const { nodeCount } = compiled;
  const state = stepFrom(
    compiled,
    compiled.initialLoads,
    createStepBuffers(compiled, scratch),
    scratch.float64(nodeCount),
  );
  const measured = new PressureBuffers(nodeCount, scratch);
  const primary = measurePressure(compiled, state, measured);
  const result = describeState(
    compiled,
    state,
    measured,
    primary,
    { tick: 0, previous: undefined, carryExtras: true, settledAlready: false },
    new ReachWorkspace(nodeCount, scratch),
  );
  const cycles = cycleEvents(compiled, 0);
  if (cycles.length > 0) result.events = [...cycles, ...result.events];
  return result;
}
