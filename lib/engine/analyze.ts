import { type CompiledStructure, compileForCall } from './compile';
import { cycleEvents } from './cycles';
import { describeState, type StateDescriber } from './describe';
import { measurePressure, PressureBuffers } from './pressure';
import { ReachWorkspace } from './reach';
import { scratch } from './scratch';
import { sortIds } from './sort-ids';
import { solveSteadyState } from './steady-state';
import { createStepBuffers, stepFrom } from './step';
import type { EngineEvent, EngineResult, Structure } from './types';

/**
 * Describes the structure as given (tick 0): the flows, pressures and blockages of the step
 * that would follow, where the primary blockage's value comes from, and every cycle.
 * Extra fields of nodes and dependencies are carried through.
 */
export function analyze(structure: Structure | CompiledStructure): EngineResult {
  return scratch.run(() => describeInputState(compileForCall(structure), describeState));
}

/** The `analyze` description of a compiled structure, as objects or as text (`describe`). */
export function describeInputState<T>(compiled: CompiledStructure, describe: StateDescriber<T>): T {
  const { nodeCount } = compiled;
  const state = stepFrom(
    compiled,
    compiled.initialLoads,
    createStepBuffers(compiled, scratch),
    scratch.float64(nodeCount),
  );
  const measured = new PressureBuffers(nodeCount, scratch);
  const primary = measurePressure(compiled, state, measured);
  const steady = compiled.open ? solveSteadyState(compiled) : undefined;
  const leadingEvents: EngineEvent[] = cycleEvents(compiled, 0);
  if (steady !== undefined && steady.unbounded.length > 0) {
    const nodes = steady.unbounded.map((v) => compiled.ids[v]!);
    sortIds(nodes);
    leadingEvents.push({ tick: 0, type: 'unbounded', nodes });
  }
  return describe({
    structure: compiled,
    state,
    measured,
    primary,
    options: {
      tick: 0,
      previous: undefined,
      carryExtras: true,
      settledAlready: false,
      leadingEvents,
      steady,
    },
    ws: new ReachWorkspace(nodeCount, scratch),
  });
}
