export { analyze } from './analyze';
export { type CompiledStructure, compileStructure, MAX_TOTAL_LOAD } from './compile';
export { describeValue, isRecord, MAX_ECHOED_CHARS, quoteText } from './describe-value';
export { PayloadError } from './errors';
export { releaseScratchMemory } from './scratch';
export { createSimulation } from './simulation';
export { tick, ticks } from './timeline';
export type * from './types';
