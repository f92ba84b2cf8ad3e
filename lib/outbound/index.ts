export { type AllowedHosts, readConnectAllowHosts } from './allow-hosts';
export type { OutboundErrorCode } from './errors';
export { OutboundError } from './errors';
export { type FetchJsonOptions, fetchJson, readConnectDeadlineMs } from './fetch-json';
export { JsonLinesText } from './response-body';
