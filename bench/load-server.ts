/**
 * The local server as `npm run load` measures it: `npm start`'s server (embedded DynamoDB in
 * memory, free ports, no banner, request lines logged as always) in a process of its own, so its
 * memory is its own. Writes one JSON line with where it listens and its credentials to file
 * descriptor 3 (stdout carries the log), then serves until SIGTERM or SIGINT.
 */
import { writeSync } from 'node:fs';
import { startLocalServer } from '../local/server';

const server = await startLocalServer({ port: 0, dynamoPort: 0, quiet: true });
const ready = { url: server.url, apiKey: server.apiKey, userToken: server.userToken, pid: process.pid };
writeSync(3, `${JSON.stringify(ready)}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
