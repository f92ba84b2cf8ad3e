import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HttpResult } from '../../../lib/http/responses';
import { DynamoApiKeyStore, hashApiKey, importApiKey } from '../../../lib/keys';
import { startTestDatabase, type TestDatabase } from '../../helpers/dynalite';
import { captureOutput, httpEvent, WORKED } from '../../http/events';

const KEY = 'sbe_entrymoduletestkey0123456789abcdefgh';

describe('functions/engine/handler (the Lambda entry)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await startTestDatabase();
    await importApiKey(new DynamoApiKeyStore({ doc: db.doc, tableName: db.tableName }), KEY, {
      owner: 'owner-1',
      name: 'entry test',
    });
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await db.close();
  });

  // A deploy that forgot TABLE_NAME fails at cold start, naming the variable.
  it('fails fast when TABLE_NAME is missing', async () => {
    vi.resetModules();
    vi.stubEnv('TABLE_NAME', undefined as unknown as string);
    await expect(import('../../../functions/engine/handler')).rejects.toThrow(
      'TABLE_NAME is required but not set',
    );
  });

  // Configured from the environment like a Lambda, it checks the key against DynamoDB and runs the engine.
  it('serves a request with a key stored in DynamoDB', async () => {
    vi.resetModules();
    vi.stubEnv('TABLE_NAME', db.tableName);
    vi.stubEnv('DYNAMODB_ENDPOINT', db.endpoint);
    const { handler, settled } = await import('../../../functions/engine/handler');
    const event = httpEvent({
      headers: { authorization: `Bearer ${KEY}` },
      body: { mode: 'tick', ...WORKED },
    });
    const { result } = await captureOutput(() => handler(event as never, {} as never) as Promise<HttpResult>);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).snapshot.primaryBlockage).toBe('C');
    // Lambda may freeze the instance once the handler returns: the key's lastUsedAt write has
    // already landed by then.
    const stored = await new DynamoApiKeyStore({ doc: db.doc, tableName: db.tableName }).getByDigest(
      hashApiKey(KEY),
    );
    expect(stored?.lastUsedAt).toBeDefined();
    await settled();

    const refused = await captureOutput(
      () =>
        handler(
          httpEvent({
            headers: { authorization: 'Bearer sbe_notstorednotstorednotstorednotstored' },
            body: {},
          }) as never,
          {} as never,
        ) as Promise<HttpResult>,
    );
    expect(refused.result.statusCode).toBe(403);
  });
});
