/**
 * `npm start`: reads the command line (`--help`, or a flag it does not take) before anything
 * else, then loads and starts the local server (local/server.ts). Loading the server first made
 * `npm start -- --help` take about a second of CPU to print its usage.
 */
import { scriptArgs } from '../lib/script-args';

scriptArgs({
  command: 'npm start',
  usage: `The API and the explorer on http://127.0.0.1:3000, with an embedded DynamoDB and a printed
API key and user token. Settings are environment variables (docs/local.md), e.g.
PORT=3100 DATA_DIR=./data npm start:

  PORT                    where to listen on 127.0.0.1 (default 3000; 0 for any free port)
  DATA_DIR                keep the embedded DynamoDB's data there (default: in memory)
  DYNAMO_PORT             the embedded DynamoDB's port (default 8000, or a free one)
  DYNAMODB_ENDPOINT       use this DynamoDB instead of the embedded one (TABLE_NAME: its table)
  DEV_API_KEY             the API key to seed (default: a fresh one)
  ENGINE_WORKERS          worker threads running POST /api/engine (default: one per CPU)
  CONNECT_WORKERS         worker threads running connect, registrations, settings and refreshes (default: 8)
  FUNCTION_TIMEOUT_MS     every function's timeout as its handler sees it (default: as deployed)
  CONNECT_ALLOW_HOSTS     hosts connect may fetch despite the address rules
  -h, --help              this text`,
  options: {},
});

const { runLocalServer } = await import('./server');
await runLocalServer();
