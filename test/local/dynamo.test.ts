import { createServer, type Server } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { startEmbeddedDynamo } from '../../local/dynamo';

describe('startEmbeddedDynamo', () => {
  let blocker: Server;
  let takenPort: number;

  // Something else already listens on a port (another DynamoDB Local, say).
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    takenPort = (blocker.address() as { port: number }).port;
  });

  afterAll(() => new Promise((resolve) => blocker.close(resolve)));

  // The user asked for that port explicitly (DYNAMO_PORT): say so clearly rather than silently moving.
  it('fails with a clear error when an explicitly chosen port is taken', async () => {
    const attempt = startEmbeddedDynamo({ port: takenPort, fallbackToFreePort: false });
    await expect(attempt).rejects.toMatchObject({ name: 'PortInUseError', port: takenPort });
    await expect(startEmbeddedDynamo({ port: takenPort })).rejects.toThrow(
      `DynamoDB port ${takenPort} is already in use; set DYNAMO_PORT`,
    );
  });

  // The default port was taken: fall back to a free one and report that it did.
  it('falls back to a free port when allowed', async () => {
    const dynamo = await startEmbeddedDynamo({ port: takenPort, fallbackToFreePort: true });
    try {
      expect(dynamo.fellBack).toBe(true);
      expect(dynamo.port).not.toBe(takenPort);
      expect(dynamo.endpoint).toBe(`http://127.0.0.1:${dynamo.port}`);
      const { client } = createDynamoClients({ endpoint: dynamo.endpoint });
      await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
      client.destroy();
    } finally {
      await dynamo.close();
    }
  });
});
