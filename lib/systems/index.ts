export { CompiledStructureCache, processSystemCache } from './compiled-cache';
export { DynamoSystemStore } from './dynamo-store';
export { SystemChangedError, SystemInputError } from './errors';
export { type PublicSystemRecord, type SystemRecord, toPublicSystemRecord } from './record';
export type { StoredStructure, StoredSystem, SystemStore } from './store';
