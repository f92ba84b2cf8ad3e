/**
 * The processes `npm run load` measures, each on its own so each one's memory is its own:
 * - `load-server.ts dynamo`: dynalite on a free loopback port, as the local server embeds it;
 * - `load-server.ts`: `npm start`'s server (free port, no banner, request lines logged as
 *   always, every engine worker started ahead), using the DynamoDB that DYNAMODB_ENDPOINT names.
 * Each writes one JSON line (where it listens, its pid, the server's credentials) to file
 * descriptor 3 (stdout carries the log), then serves until SIGTERM or SIGINT.
 */
import { writeSync } from 'node:fs';
import { startEmbeddedDynamo } from '../local/dynamo';
import { startLocalServer } from '../local/server';

const started =
  process.argv[2] === 'dynamo'
    ? await startEmbeddedDynamo({ port: 0 }).then((dynamo) => ({
        ready: { endpoint: dynamo.endpoint, pid: process.pid },
        close: () => dynamo.close(),
      }))
    : await startLocalServer({ port: 0, quiet: true, engineWorkersAtStart: 'all' }).then((server) => ({
        ready: { url: server.url, apiKey: server.apiKey, userToken: server.userToken, pid: process.pid },
        close: () => server.close(),
      }));
writeSync(3, `${JSON.stringify(started.ready)}\n`);
const stop = () => void started.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
