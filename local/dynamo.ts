import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { closeServer, isAddressInUse, listen } from './listen';

/** dynalite ships no types; this is the part of its API the local server uses. */
type DynaliteFactory = (options: {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}) => Server;
const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;

export interface EmbeddedDynamoOptions {
  /** Loopback port; 0 picks a free one. */
  port: number;
  /** When `port` is taken, listen on a free port instead of failing. */
  fallbackToFreePort?: boolean;
  /** A folder for a persistent LevelDB store; in memory when omitted. */
  dataDir?: string;
  host?: string;
}

export interface EmbeddedDynamo {
  /** e.g. `http://127.0.0.1:8000` */
  endpoint: string;
  port: number;
  /** True when the requested port was taken and a free one was used instead. */
  fellBack: boolean;
  close(): Promise<void>;
}

/** Thrown when the requested DynamoDB port is in use and falling back was not allowed. */
class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  readonly port: number;

  constructor(what: string, port: number, hint: string) {
    super(`${what} port ${port} is already in use; ${hint}`);
    this.port = port;
  }
}

/** Starts dynalite on the loopback interface. Tables become ACTIVE at once. */
export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions): Promise<EmbeddedDynamo> {
  const host = options.host ?? '127.0.0.1';
  if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true });
  const create = () =>
    dynalite({
      createTableMs: 0,
      deleteTableMs: 0,
      updateTableMs: 0,
      ...(options.dataDir === undefined ? {} : { path: options.dataDir }),
    });

  // The port is probed before dynalite exists: a LevelDB folder is locked as soon as its
  // store opens, so a store created for a port that turns out to be taken would keep DATA_DIR
  // locked against the retry.
  let port = options.port;
  let fellBack = false;
  if (port !== 0 && !(await portIsFree(port, host))) {
    if (!options.fallbackToFreePort) throw dynamoPortInUse(port);
    port = 0;
    fellBack = true;
  }
  const server = create();
  try {
    await listen(server, port, host);
  } catch (error) {
    await closeServer(server).catch(() => undefined);
    throw isAddressInUse(error) ? dynamoPortInUse(port) : error;
  }
  const bound = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://${host}:${bound}`,
    port: bound,
    fellBack,
    close: () => closeServer(server),
  };
}

function dynamoPortInUse(port: number): PortInUseError {
  return new PortInUseError(
    'DynamoDB',
    port,
    'set DYNAMO_PORT to a free port (or 0 for any), or stop whatever is using it',
  );
}

/** Whether something could listen on `port` right now. */
function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error) => (isAddressInUse(error) ? resolve(false) : reject(error)));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}
