/** Each user route's body in words, for the HTTP stack's answer to a body that is not JSON. */
export { BODY_SHAPES } from '../api/connect-request';
export {
  type ConnectedSystem,
  type ConnectSystem,
  type ConnectSystemDeps,
  createConnectSystem,
  type DryRunAnswer,
} from './connect-system';
export { type CreatedKey, type CreateKey, createCreateKey } from './create-key';
export { createDeleteSystem, type DeleteSystem } from './delete-system';
export { createGetSystem, type GetSystem, type SystemWithStructure } from './get-system';
export { createListKeys, type ListKeys } from './list-keys';
export { createListSystems, type ListSystems, type SystemPageAnswer } from './list-systems';
export { createRefreshSystem, type RefreshSystem, type RefreshSystemDeps } from './refresh-system';
export { createRegisterSystem, type RegisterSystem, type RegisterSystemDeps } from './register-system';
export { createRevokeKey, type RevokeKey } from './revoke-key';
export {
  createRunEngine,
  type EngineAnswer,
  type RunEngine,
  type RunEngineDeps,
  type RunEngineInput,
} from './run-engine';
export { createUpdateSettings, type UpdateSettings } from './update-settings';
