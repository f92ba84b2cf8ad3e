/**
 * DynamoDB's faults as the SDK meets them over HTTP (a proxy in front of dynalite answers with
 * DynamoDB's own error bodies): which are retried, how many times, and which the service counts
 * as "storage unavailable" once the retries are spent.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { failedOnRetry, holdsWrite, isStoreUnavailable, StoreBusyError } from '../../lib/storage/faults';
import { ensureTable } from '../../lib/storage/table';
import { type RunningDynalite, startDynalite } from '../helpers/dynalite';
import {
  DYNAMO_ERRORS,
  type DynamoErrorName,
  type FaultProxy,
  startFaultProxy,
} from '../helpers/fault-proxy';

let dynalite: RunningDynalite;
let proxy: FaultProxy;
const tableName = 'faults';

beforeAll(async () => {
  dynalite = await startDynalite();
  proxy = await startFaultProxy(dynalite.endpoint);
  const { client } = createDynamoClients({ endpoint: dynalite.endpoint, region: 'us-east-1' });
  await ensureTable(client, tableName);
  client.destroy();
});

afterAll(async () => {
  await proxy.close();
  await dynalite.close();
});

/** A client through the proxy, as the functions build theirs, with retries that do not sleep. */
function proxiedClient(retry: { attemptTimeoutMs?: number } = {}) {
  return createDynamoClients({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    env: {},
    retry: { retryDelayMs: () => 1, ...retry },
  }).client;
}

const getItem = () =>
  new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'OWNER#a' }, sk: { S: 'x' } } });

describe('the retry policy', () => {
  // DynamoDB throttles twice, then answers: the caller never notices.
  it('retries a throttle and succeeds on the third attempt', async () => {
    proxy.reset((_call, attempt) =>
      attempt < 3 ? { kind: 'error', error: 'ProvisionedThroughputExceededException' } : undefined,
    );
    const client = proxiedClient();
    const answer = await client.send(getItem());
    expect(answer.$metadata.attempts).toBe(3);
    expect(proxy.calls).toMatchObject([{ operation: 'GetItem', attempts: 3 }]);
    client.destroy();
  });

  const faults: Array<[string, Parameters<FaultProxy['reset']>[0]]> = [
    ...(Object.keys(DYNAMO_ERRORS) as DynamoErrorName[])
      .filter((error) => error !== 'ValidationException')
      .map((error): [string, Parameters<FaultProxy['reset']>[0]] => [
        error,
        () => ({ kind: 'error', error }),
      ]),
    ['an attempt that never answers', () => ({ kind: 'hang' })],
    ['a dropped connection', () => ({ kind: 'reset' })],
  ];

  // Every fault is tried exactly maxAttempts times, then thrown as "storage unavailable".
  it.each(faults)(
    'gives up on %s after maxAttempts attempts and calls it unavailable',
    async (_name, rule) => {
      proxy.reset(rule);
      const client = proxiedClient({ attemptTimeoutMs: 150 });
      const failure = await client.send(getItem()).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect(isStoreUnavailable(failure)).toBe(true);
      expect(proxy.calls).toHaveLength(1);
      // DYNAMO_RETRY.maxAttempts: the first attempt and two retries.
      expect(proxy.calls[0]!.attempts).toBe(3);
      client.destroy();
    },
  );

  // The SDK read the error body: the name is DynamoDB's own, not a generic HTTP error.
  it('surfaces DynamoDB’s error name and message', async () => {
    proxy.reset(() => ({ kind: 'error', error: 'RequestLimitExceeded' }));
    const client = proxiedClient();
    const failure = (await client.send(getItem()).catch((error: unknown) => error)) as Error & {
      $metadata: { httpStatusCode: number };
    };
    expect(failure.name).toBe('RequestLimitExceeded');
    expect(failure.message).toBe(DYNAMO_ERRORS.RequestLimitExceeded.message);
    expect(failure.$metadata.httpStatusCode).toBe(400);
    client.destroy();
  });

  // A request DynamoDB refuses (an item too large) is the request's fault, not the table's: one
  // attempt, and not "unavailable" (a 500, never a 503 that invites a retry).
  it('does not retry a refused request, nor call it unavailable', async () => {
    proxy.reset(() => ({ kind: 'error', error: 'ValidationException' }));
    const client = proxiedClient();
    const failure = await client.send(getItem()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'ValidationException' });
    expect(isStoreUnavailable(failure)).toBe(false);
    expect(proxy.calls[0]!.attempts).toBe(1);
    client.destroy();
  });

  // A refused condition is an answer, not a fault: one attempt, and not "unavailable".
  it('does not retry a failed condition', async () => {
    proxy.reset();
    const client = proxiedClient();
    const put = () =>
      client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { pk: { S: 'OWNER#a' }, sk: { S: 'once' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    await put();
    const failure = await put().catch((error: unknown) => error);
    expect((failure as Error).name).toBe('ConditionalCheckFailedException');
    expect(isStoreUnavailable(failure)).toBe(false);
    expect(proxy.calls.map((call) => call.attempts)).toEqual([1, 1]);
    client.destroy();
  });

  it('calls a bug a bug', () => {
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreUnavailable('a string')).toBe(false);
    expect(isStoreUnavailable(new StoreBusyError('still unprocessed'))).toBe(true);
  });
});

describe('holdsWrite (is the stored item the one this call wrote?)', () => {
  it('compares every written attribute, bytes by content, nested objects whole', () => {
    const written = { pk: 'p', sk: 's', data: new Uint8Array([1, 2]), settings: { a: 1, b: undefined } };
    expect(
      holdsWrite({ ...written, data: new Uint8Array([1, 2]), settings: { a: 1 }, extra: 1 }, written),
    ).toBe(true);
    expect(holdsWrite({ ...written, data: new Uint8Array([1, 3]) }, written)).toBe(false);
    expect(holdsWrite({ ...written, settings: { a: 2 } }, written)).toBe(false);
    expect(holdsWrite({ ...written, settings: { a: 1, c: 1 } }, written)).toBe(false);
    expect(holdsWrite(undefined, written)).toBe(false);
  });

  it('knows a failure on a retry from one on the first attempt', () => {
    expect(failedOnRetry({ $metadata: { attempts: 2 } })).toBe(true);
    expect(failedOnRetry({ $metadata: { attempts: 1 } })).toBe(false);
    expect(failedOnRetry(new Error('x'))).toBe(false);
  });
});
