export { analyze } from './analyze';
export { type Changes, compareStates, digestState, type StateDigest } from './compare';
export {
  type CompiledStructure,
  compileStructure,
  MAX_TOTAL_LOAD,
  NO_WAY_OUT,
  NO_WAY_OUT_FACT,
} from './compile';
export { fieldToBlame, nodeFieldOf, PayloadError, ResultTooLargeError } from './errors';
export { JsonWriter } from './json-writer';
export { type LatencyCurve, latencyCurve } from './open/latency-curve';
export { applyScenario, blameScenario, type Scenario } from './scenario';
/** @internal no product path calls it yet; tests check it releases both buffers. */
export { releaseScratchMemory } from './scratch';
/** @internal the step alone, for bench/engine.ts and its tests; no product path runs it. */
export { createSimulation } from './simulation';
export { RunStoppedError, type ShouldStop, withStopCheck } from './stop-check';
export { tick, ticks } from './timeline';
export type * from './types';
export { type StateObserver, writeAnalyze, writeTick, writeTicks } from './write-json';
