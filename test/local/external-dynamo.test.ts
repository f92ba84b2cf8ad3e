/**
 * `DYNAMODB_ENDPOINT=… npm start`: the local server uses that DynamoDB instead of starting its
 * own. Here the "external" DynamoDB is a dynalite this test starts itself, and the server is the
 * real `npm start` command line (tsx local/server.ts) in a child process, read from its banner.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { TABLE_KEYS } from '../../lib/storage/table';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../local/dynamo';
import { WORKED } from '../http/events';

const run = promisify(execFile);

interface Started {
  child: ChildProcess;
  output: string;
  url: string;
  apiKey: string;
}

/** Runs `npm start`'s command with `env` added; resolves once the banner is out, or rejects with the output. */
/** A temp directory of this test's own: npm start writes its pointer there, not over a developer's. */
const TEMP = mkdtempSync(join(tmpdir(), 'sbe-external-tmp-'));

function startServer(env: Record<string, string>): Promise<Started> {
  const issuerDir = mkdtempSync(join(tmpdir(), 'sbe-external-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/server.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TMPDIR: TEMP, PORT: '0', DATA_DIR: issuerDir, LOG_LEVEL: 'SILENT', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /URL {7}(http:\/\/\S+)/.exec(output)?.[1];
      const apiKey = /API key {3}(\S+)/.exec(output)?.[1];
      if (url !== undefined && apiKey !== undefined && output.includes('Ctrl-C')) {
        resolve({ child, output, url, apiKey });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      rmSync(issuerDir, { recursive: true, force: true });
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

function stop(started: Started | undefined): Promise<void> {
  if (started === undefined || started.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    started.child.once('exit', () => resolve());
    started.child.kill('SIGTERM');
  });
}

describe('npm start with DYNAMODB_ENDPOINT', () => {
  let external: EmbeddedDynamo;
  let client: DynamoDBClient;
  let server: Started | undefined;

  beforeAll(async () => {
    external = await startEmbeddedDynamo({ port: 0 });
    client = createDynamoClients({ endpoint: external.endpoint, env: {} }).client;
  });
  afterAll(async () => {
    await stop(server);
    client.destroy();
    await external.close();
    rmSync(TEMP, { recursive: true, force: true });
  });

  // The table is created where the variable points, with the stack's key schema; the seeded key
  // lives there, so the engine route answers with it; the banner says which DynamoDB it is.
  it('uses that DynamoDB, creating the table with the key schema CDK deploys', async () => {
    server = await startServer({ DYNAMODB_ENDPOINT: external.endpoint, TABLE_NAME: 'sbe-external' });
    expect(server.output).toContain(
      `DynamoDB  ${external.endpoint}, table sbe-external, external (DYNAMODB_ENDPOINT); the embedded DynamoDB is not started`,
    );
    // The keys CLI finds that DynamoDB and table by itself, through the server's pointer.
    const listed = await run('npm', ['run', '-s', 'keys', '--', 'list', '--json'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TMPDIR: TEMP },
    });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ owner: 'local-dev', status: 'active' }]);

    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'sbe-external' }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: TABLE_KEYS.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey.name, KeyType: 'RANGE' },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');

    const response = await fetch(`${server.url}/api/engine`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'analyze', ...WORKED }),
    });
    expect(response.status).toBe(200);
    const { Items } = await client.send(new ScanCommand({ TableName: 'sbe-external' }));
    expect(Items?.some((item) => item.pk?.S?.startsWith('APIKEY#'))).toBe(true);
    await stop(server);
    server = undefined;
  });

  // A table that exists with other keys is not this service's: the start stops and says so.
  it('refuses an existing table whose keys differ', async () => {
    await client.send(
      new CreateTableCommand({
        TableName: 'someone-elses',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await expect(
      startServer({ DYNAMODB_ENDPOINT: external.endpoint, TABLE_NAME: 'someone-elses' }),
    ).rejects.toThrow(/someone-elses/);
  });

  it('stops with a message naming the variable when nothing answers there, or it is no URL', async () => {
    await expect(startServer({ DYNAMODB_ENDPOINT: 'not a url' })).rejects.toThrow(
      /DYNAMODB_ENDPOINT must be a URL such as http:\/\/127\.0\.0\.1:8000/,
    );
    const nothing = await startEmbeddedDynamo({ port: 0 });
    await nothing.close(); // a loopback port where nothing listens any more
    await expect(startServer({ DYNAMODB_ENDPOINT: nothing.endpoint })).rejects.toThrow(
      `the DynamoDB at ${nothing.endpoint} (DYNAMODB_ENDPOINT) did not answer as DynamoDB`,
    );
    await expect(startServer({ DYNAMODB_ENDPOINT: external.endpoint, DYNAMO_PORT: '0' })).rejects.toThrow(
      /DYNAMO_PORT sets the port of the embedded DynamoDB/,
    );
  });
});
