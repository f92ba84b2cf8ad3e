import { type CompiledStructure, compileForCall } from './compile';
import { cycleEvents } from './cycles';
import { describeState, type StateDescriber } from './describe';
import { readLatency } from './open/latency-reading';
import { measurePressure, PressureBuffers } from './pressure';
import { ReachWorkspace } from './reach';
import { scratch } from './scratch';
import { sortIds } from './sort-ids';
import { readSteadyState } from './steady-reading';
import { steadyStateOf } from './steady-state';
import { createStepBuffers, firstStepFrom } from './step';
import { checkpoint } from './stop-check';
import type { EngineEvent, EngineResult, Structure } from './types';

/**
 * Describes the structure as given (tick 0): the flows, pressures and blockages of the step
 * that would follow, where the primary blockage's value comes from, and every cycle; for an
 * open structure, the steady state, which leads (it decides the primary blockage when it
 * overloads anything).
 * Extra fields of nodes and dependencies are carried through.
 */
export function analyze(structure: Structure | CompiledStructure): EngineResult {
  return scratch.run(() => describeInputState(compileForCall(structure), describeState));
}

/** The `analyze` description of a compiled structure, as objects or as text (`describe`). */
export function describeInputState<T>(compiled: CompiledStructure, describe: StateDescriber<T>): T {
  // Compiling a large structure takes a while: the caller may be out of time already.
  checkpoint();
  const { nodeCount } = compiled;
  const state = firstStepFrom(
    compiled,
    compiled.initialLoads,
    createStepBuffers(compiled, scratch),
    scratch.float64(nodeCount),
  );
  const measured = new PressureBuffers(nodeCount, scratch);
  let primary = measurePressure(compiled, state, measured);
  const steady = compiled.open ? readSteadyState(compiled, steadyStateOf(compiled)) : undefined;
  const leadingEvents: EngineEvent[] = cycleEvents(compiled, 0);
  if (steady !== undefined) {
    const { unbounded } = steady.steady;
    if (unbounded.length > 0) {
      const nodes = unbounded.map((v) => compiled.ids[v]!);
      sortIds(nodes);
      leadingEvents.push({ tick: 0, type: 'unbounded', nodes });
    }
    leadingEvents.push(...steady.events);
    // The steady state leads: what it overloads is blocked, and its worst problem is the primary blockage.
    // Stryker disable next-line EqualityOperator: one past the end
    for (let v = 0; v < nodeCount; v++) if (steady.saturated[v] === 1) measured.blocked[v] = 1;
    if (steady.primary >= 0) primary = steady.primary;
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
      // Stryker disable next-line ConditionalExpression: same answer, other work (a closed structure has no service times, and readLatency answers undefined before it reads the steady state)
      latency: steady === undefined ? undefined : readLatency(compiled, steady),
    },
    ws: new ReachWorkspace(nodeCount, scratch),
  });
}
