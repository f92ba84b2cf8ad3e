export { closestName } from './closest-name';
export { describeValue, isRecord, quoteText } from './describe-value';
export { looksLikeJsonLines } from './json-lines';
export { documentPartsCap, holdsMoreJsonParts } from './json-parts';
export {
  CONTROL_CHARACTERS,
  isDisplayName,
  NAME_MAX_LENGTH,
  OWNER_RULE,
  OWNER_SHAPE,
  URL_MAX_LENGTH,
} from './rules';
