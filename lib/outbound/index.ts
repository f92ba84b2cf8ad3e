export { type AllowedHosts, readConnectAllowHosts } from './allow-hosts';
export { OutboundError } from './errors';
export { fetchJson } from './fetch-json';
