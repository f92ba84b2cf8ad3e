export { QuotaExceededError } from '../storage/quotas';
export { CompiledStructureCache, processSystemCache } from './compiled-cache';
export { DynamoSystemStore } from './dynamo-store';
export { SettingsChangedError, SystemChangedError, SystemInputError } from './errors';
export {
  matchedSettingsRevision,
  type PublicSystemRecord,
  type SystemRecord,
  settingsETag,
  toPublicSystemRecord,
  unmatchedSettingsRevision,
} from './record';
export { type NodeSettings, type SystemSettings, unknownSettingsIds } from './settings';
export type { StoredStructure, StoredSystem, SystemStore } from './store';
