export type { AllowedHosts } from './allow-hosts';
export type { OutboundErrorCode } from './errors';
export { type FetchJsonOptions, fetchJson } from './fetch-json';
export { JsonLinesText } from './response-body';
