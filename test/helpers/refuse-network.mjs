/**
 * Preloaded (`node --import`) into a tool a test runs, to prove it stays offline: every TCP or
 * TLS connection the process starts (fetch and undici included, which connect through
 * `net.Socket`) is written to the file named by SBE_NETWORK_LOG and refused before any lookup
 * or packet, so even a tool that does try sends nothing anywhere. Unix sockets are allowed.
 */
import { appendFileSync } from 'node:fs';
import net from 'node:net';

const log = process.env.SBE_NETWORK_LOG;
const connect = net.Socket.prototype.connect;

net.Socket.prototype.connect = function refuseConnect(...args) {
  const [first] = args;
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  if (typeof options.path === 'string') return connect.apply(this, args);
  if (log)
    appendFileSync(log, `${JSON.stringify({ host: options.host ?? 'localhost', port: options.port })}\n`);
  const error = Object.assign(new Error('network refused by test/helpers/refuse-network.mjs'), {
    code: 'ECONNREFUSED',
  });
  process.nextTick(() => this.destroy(error));
  return this;
};
