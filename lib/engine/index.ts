export { analyze } from './analyze';
export { type CompiledStructure, compileStructure, MAX_TOTAL_LOAD } from './compile';
export { PayloadError, ResultTooLargeError } from './errors';
export { JsonWriter } from './json-writer';
export { releaseScratchMemory } from './scratch';
export { createSimulation } from './simulation';
export { tick, ticks } from './timeline';
export type * from './types';
export { writeAnalyze, writeTick, writeTicks } from './write-json';
