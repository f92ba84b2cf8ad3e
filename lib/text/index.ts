export { closestName } from './closest-name';
export { describeValue, isRecord, keyStep, quoteKey, quoteText } from './describe-value';
export { documentContainerCap, holdsMoreContainers } from './json-containers';
export { looksLikeJsonLines } from './json-lines';
export {
  CONTROL_CHARACTERS,
  isDisplayName,
  NAME_MAX_LENGTH,
  OWNER_RULE,
  OWNER_SHAPE,
  URL_MAX_LENGTH,
} from './rules';
export { credentialParameter, withoutCredentials } from './url-credential';
