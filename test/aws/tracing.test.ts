/**
 * lib/aws/tracing.ts as it runs in a traced Lambda: a child process with Lambda's environment
 * (the trace header of a sampled request, the X-Ray daemon's address) sends what it records to
 * a UDP socket of this test, standing in for the daemon, on loopback. A DynamoDB call (against
 * dynalite) and an outbound fetch each become a subsegment; the fetch's names its host only.
 */
import { spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';
import { traceAwsClient, traceOutbound } from '../../lib/aws/tracing';
import { type RunningDynalite, startDynalite } from '../helpers/dynalite';

let daemon: Socket;
let dynamo: RunningDynalite;
const received: string[] = [];

beforeAll(async () => {
  dynamo = await startDynalite();
  daemon = createSocket('udp4');
  daemon.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  daemon.close();
  await dynamo.close();
});

/** Runs `script` (ESM, imports relative to the project root) as a sampled Lambda invocation would. */
function runTraced(script: string): Promise<{ code: number | null; stderr: string }> {
  const { port } = daemon.address() as AddressInfo;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_FUNCTION_NAME: 'sbe-test',
      LAMBDA_TASK_ROOT: PROJECT_ROOT,
      POWERTOOLS_TRACE_ENABLED: 'true',
      POWERTOOLS_SERVICE_NAME: 'system-behavior-engine',
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      AWS_REGION: 'eu-west-1',
      DYNAMODB_ENDPOINT: dynamo.endpoint,
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

/** The JSON documents the daemon received (each datagram: a header line, then the segment). */
function segments(): Array<Record<string, unknown>> {
  return received.map((datagram) => JSON.parse(datagram.slice(datagram.indexOf('\n') + 1)));
}

describe('tracing, on in a Lambda', () => {
  it('records a subsegment per DynamoDB call and one for the outbound fetch, with its host only', async () => {
    const { code, stderr } = await runTraced(`
      import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
      import { createDynamoClients } from './lib/aws/dynamo.ts';
      import { traceAwsClient, traceOutbound } from './lib/aws/tracing.ts';
      const { client } = createDynamoClients();
      traceAwsClient(client);
      await client.send(new ListTablesCommand({}));
      const answer = await traceOutbound('https://api.example.com/graph?token=s3cr3t', async () => 42);
      if (answer !== 42) throw new Error('traceOutbound changed the result');
      client.destroy();
      // Subsegments are sent when they close; give the UDP sends a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
    `);
    expect(stderr).not.toMatch(/Error:/);
    expect(code).toBe(0);
    const names = segments().map((segment) => segment.name);
    expect(names).toEqual(expect.arrayContaining(['DynamoDB', '## outbound fetch']));
    const outbound = segments().find((segment) => segment.name === '## outbound fetch')!;
    expect(outbound.annotations).toEqual({ host: 'api.example.com' });
    expect(received.join('')).not.toContain('s3cr3t');
  }, 60_000);
});

describe('tracing, off (outside Lambda, or not turned on)', () => {
  it('passes results, errors and clients through untouched', async () => {
    expect(await traceOutbound('https://api.example.com/', async () => 'answer')).toBe('answer');
    await expect(
      traceOutbound('not a url', async () => {
        throw new Error('upstream down');
      }),
    ).rejects.toThrow('upstream down');
    const client = { middlewareStack: { add: () => undefined } };
    expect(traceAwsClient(client)).toBe(client);
  });
});
