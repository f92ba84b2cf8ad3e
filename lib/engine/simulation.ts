import { type CompiledStructure, compileStructure } from './compile';
import { createStepBuffers, step } from './step';
import type { Structure } from './types';

/** The step alone, without describing states: for long runs and for measuring the kernel. */
export interface Simulation {
  readonly nodeCount: number;
  readonly dependencyCount: number;
  /** Executes one step; returns the total value it moved. */
  step(): number;
  /** The current loads, indexed like the input nodes (a live view: copy it to keep it). */
  loads(): Float64Array;
}

/** @internal the step alone, for bench/engine.ts and its tests; no product path runs it. */
export function createSimulation(structure: Structure | CompiledStructure): Simulation {
  const compiled = compileStructure(structure);
  const buffers = createStepBuffers(compiled);
  let current = Float64Array.from(compiled.initialLoads);
  let next = new Float64Array(compiled.nodeCount);
  return {
    nodeCount: compiled.nodeCount,
    dependencyCount: compiled.dependencyCount,
    step() {
      const moved = step(compiled, current, buffers, next);
      const previous = current;
      current = next;
      next = previous;
      return moved;
    },
    loads: () => current,
  };
}
