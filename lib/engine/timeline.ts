import { type CompiledStructure, compileForCall } from './compile';
import { describeState, type StateDescriber } from './describe';
import { measurePressure, PressureBuffers } from './pressure';
import { ReachWorkspace } from './reach';
import { scratch } from './scratch';
import { createStepBuffers, firstStepFrom, stepFrom } from './step';
import { checkpoint } from './stop-check';
import type { Snapshot, Structure } from './types';

/** Executes one step; the snapshot describes the new state (`tick: 1`). */
export function tick(structure: Structure | CompiledStructure): Snapshot {
  return ticks(structure, 1)[0]!;
}

/**
 * Executes `count` steps; `snapshots[i - 1]` describes the state after `i` steps. Events
 * compare each state with the one before it (for the first, the input state).
 */
export function ticks(structure: Structure | CompiledStructure, count: number): Snapshot[] {
  assertTickCount(count);
  return scratch.run(() => {
    const snapshots: Snapshot[] = [];
    describeTimeline(compileForCall(structure), count, (state) => {
      const described = describeState(state);
      snapshots.push({
        tick: state.options.tick,
        nodes: described.nodes,
        dependencies: described.dependencies,
        primaryBlockage: described.primaryBlockage,
        events: described.events,
        origin: described.origin,
        trace: described.trace,
      });
    });
    return snapshots;
  });
}

export function assertTickCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`ticks must be a non-negative integer, got ${String(count)}`);
  }
}

/**
 * Executes `count` steps and hands each new state to `describe`, in order, as it is reached:
 * the states live in reused buffers, so `describe` must take what it needs before returning.
 */
export function describeTimeline(
  compiled: CompiledStructure,
  count: number,
  describe: StateDescriber<void>,
): void {
  const { nodeCount } = compiled;
  const buffers = createStepBuffers(compiled, scratch);
  const ws = new ReachWorkspace(nodeCount, scratch);

  // Three load vectors rotate: the previous state, the current one, and the one after it.
  let previousLoads = scratch.copyOf(compiled.initialLoads);
  let loads = scratch.float64(nodeCount);
  let next = scratch.float64(nodeCount);
  let previousMeasured = new PressureBuffers(nodeCount, scratch);
  let measured = new PressureBuffers(nodeCount, scratch);

  measurePressure(compiled, firstStepFrom(compiled, previousLoads, buffers, loads), previousMeasured);

  let settledAlready = false;
  for (let i = 1; i <= count; i++) {
    checkpoint();
    const state = stepFrom(compiled, loads, buffers, next);
    const primary = measurePressure(compiled, state, measured);
    describe({
      structure: compiled,
      state,
      measured,
      primary,
      options: {
        tick: i,
        previous: { loads: previousLoads, blocked: previousMeasured.blocked },
        carryExtras: false,
        settledAlready,
        leadingEvents: [],
      },
      ws,
    });
    if (state.moved === 0) settledAlready = true;
    const recycled = previousLoads;
    previousLoads = loads;
    loads = next;
    next = recycled;
    const recycledMeasured = previousMeasured;
    previousMeasured = measured;
    measured = recycledMeasured;
  }
}
