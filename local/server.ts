import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { buildExplorer } from '../explorer/build';
import { createDynamoClients } from '../lib/aws/dynamo';
import { type Env, envInt, envString, optionalEnv } from '../lib/config/env';
import { readLimits } from '../lib/config/limits';
import { readCorsSettings } from '../lib/http/cors';
import { FUNCTIONS, type FunctionName, type RouteDefinition, routeKeys, routes } from '../lib/http/routes';
import {
  ACCEPTED_KEY_RULE,
  type ApiKeyRecord,
  DynamoApiKeyStore,
  importApiKey,
  issueApiKey,
  looksLikeApiKey,
} from '../lib/keys';
import { removeLocalServerPointer, writeLocalServerPointer } from '../lib/local-server-pointer';
import { createLogger } from '../lib/logging';
import { isMainModule } from '../lib/main-module';
import { ensureTable, LOCAL_DYNAMO_PORT, LOCAL_TABLE_NAME } from '../lib/storage/table';
import { readSystemCacheBytes } from '../lib/systems/compiled-cache';
import { loadOrCreateLocalIssuer, localIssuerFile, signAccessToken } from '../lib/tokens';
import { WORKED_EXAMPLE } from '../lib/worked-example';
import { answerClientErrors } from './client-errors';
import { startEmbeddedDynamo } from './dynamo';
import { createHandlerPool } from './handler-pool';
import { createHttpAdapter, type HttpApiHandler, type LoadedRoute } from './http-adapter';
import { closeServer, isAddressInUse, listen } from './listen';
import { sampleTraces } from './sample-traces';

export interface LocalServerOptions {
  /** HTTP port; 0 picks a free one. Default env PORT, else 3000. */
  port?: number;
  /** Default 127.0.0.1. The server is meant for this machine only. */
  host?: string;
  /** Folder for a persistent DynamoDB. Default env DATA_DIR, else in memory. */
  dataDir?: string;
  /** The API key to seed. Default env DEV_API_KEY, else a freshly generated key. */
  apiKey?: string;
  /**
   * Embedded DynamoDB port; 0 picks a free one. Default env DYNAMO_PORT; when neither is
   * given, 8000 is tried and a free port is used if 8000 is taken.
   */
  dynamoPort?: number;
  /**
   * A DynamoDB to use instead of the embedded one (DynamoDB Local, dynalite, LocalStack, …), e.g.
   * `http://127.0.0.1:8000`. Default env DYNAMODB_ENDPOINT; when neither is given, dynalite is
   * started in this process. The table is created there if missing.
   */
  dynamoEndpoint?: string;
  /** Default env TABLE_NAME, else `sbe-local`. */
  tableName?: string;
  /** API key cache TTL of the engine handler. Default env API_KEY_CACHE_TTL_MS, else the verifier's default. */
  apiKeyCacheTtlMs?: number;
  /** Print nothing (tests). */
  quiet?: boolean;
  /**
   * Write the pointer file the local tools find this server by (`lib/local-server-pointer.ts`),
   * and remove it on close. `npm start` does; tests' servers do not, so they never take the place
   * of a developer's running server.
   */
  writePointer?: boolean;
  /** The local token issuer's key file. Default: under DATA_DIR, else a per-PORT temp folder. */
  issuerFile?: string;
  /** Longest a request may take to arrive, headers and body. Default env REQUEST_TIMEOUT_MS, else 30 s. */
  requestTimeoutMs?: number;
  /** Longest the headers may take to arrive. Default env HEADERS_TIMEOUT_MS, else 10 s. */
  headersTimeoutMs?: number;
  /**
   * Worker threads that run `POST /api/engine`, as that many concurrent instances of the engine
   * function. Default env ENGINE_WORKERS, else `os.availableParallelism()`.
   */
  engineWorkers?: number;
  /**
   * Engine workers started with the server, warm before it listens; the others start when
   * requests overlap. Default 1. `npm run load` starts them all, to measure warm instances.
   */
  engineWorkersAtStart?: number | 'all';
  /**
   * Worker threads that run the connect function's routes that read a document or check one
   * (connect, registration, settings, refresh), as that many concurrent instances of it. Default
   * env CONNECT_WORKERS, else 8: those requests mostly wait on the network, not the CPU.
   */
  connectWorkers?: number;
  /**
   * Every function's Lambda timeout, as its handler sees it (`getRemainingTimeInMillis`).
   * Default: env FUNCTION_TIMEOUT_MS, else each function's deployed timeout (`FUNCTIONS` in
   * lib/http/routes.ts).
   */
  functionTimeoutMs?: number;
  /** Where unset options are read from. Default `process.env`. */
  env?: Env;
}

export interface LocalServer {
  url: string;
  apiKey: string;
  /** An access token of the local issuer for the user `local-dev`, valid for an hour. */
  userToken: string;
  /** The local issuer's key file (`npm run token` signs with it). */
  issuerFile: string;
  dynamoEndpoint: string;
  tableName: string;
  close(): Promise<void>;
}

const DEFAULT_PORT = 3000;
const DEV_KEY_OWNER = 'local-dev';
/**
 * The user of the token `npm start` prints: the owner of the seeded API key, so that key runs
 * the systems registered with that token. `npm run token -- --user <sub>` makes others.
 */
const LOCAL_USER = DEV_KEY_OWNER;

/**
 * The sample external APIs a local run can register with `POST /api/connect`: the worked example,
 * and ten seconds of traces as the OpenTelemetry Collector's file exporter writes them
 * (`sample-traces.ts`).
 */
const SAMPLE_PATH = '/examples/worked-example.json';
const SAMPLE_DOCUMENTS: ReadonlyMap<string, string> = new Map([
  [SAMPLE_PATH, JSON.stringify(WORKED_EXAMPLE)],
  ['/examples/traces.jsonl', sampleTraces()],
]);
const PORT_RANGE = { min: 0, max: 65_535 };
const WORKERS_RANGE = { min: 1, max: 256 };
/**
 * Connect's workers unless set: its requests mostly wait on an upstream (up to 10 s each), and
 * deployed each gets an instance of its own, so more of them than CPUs: with one per CPU, two
 * connects to slow upstreams held a quick settings change for 7.5 s.
 */
const CONNECT_WORKERS_DEFAULT = 8;
/** Lambda's own range for a function's timeout, in milliseconds (1 s to 15 min). */
const FUNCTION_TIMEOUT_RANGE = { min: 1000, max: 900_000 };

/**
 * The routes served by worker threads (`local/handler-pool.ts`), a pool per function: the engine
 * runs, which take seconds on the largest structures, and the connect function's routes that
 * fetch, read and check a document or run the engine to check settings (a dry run's analysis,
 * settings that runs cannot answer), which take as long; and, in a pool of their own, the reads of
 * one system (a full-size one is 20 MB of JSON to read, join and compress: a 66 MB one held the
 * main thread 8 s). Every other route (listings, deletes, keys, the OpenAPI document) and the
 * files the server serves itself stay in the main thread, which answers them while the workers
 * work: a GET waited 12 s behind a settings check on the main thread, and a connect's fetch, its
 * answer unread meanwhile, failed as too slow.
 */
const POOLED_ROUTES: Readonly<
  Record<'engine' | 'connect' | 'connectReads', ReadonlySet<RouteDefinition['name']>>
> = {
  engine: new Set(['runEngine']),
  connect: new Set(['connectSystem', 'registerSystem', 'updateSystemSettings', 'refreshSystem']),
  // A pool of its own: behind connects waiting on slow upstreams, the explorer's Open waited for
  // them (5.5 s with one connect worker), where it should wait for nothing but its own read.
  connectReads: new Set(['getSystem']),
};
/** Workers of the connect function that read one system (`connectReads`): reads are short. */
const CONNECT_READ_WORKERS = 2;

/**
 * The handler modules read their configuration from the environment once, when first
 * imported, exactly like a Lambda cold start. A second server in the same process therefore
 * shares the first one's handlers, which is only right if it shares their configuration.
 */
let handlerEnvironment: string | undefined;
/** The embedded DynamoDBs' endpoints this process put into DYNAMODB_ENDPOINT for the handlers. */
const embeddedEndpoints = new Set<string>();

/** DYNAMODB_ENDPOINT as the user set it, not as an earlier server of this process set it for its handlers. */
function userDynamoEndpoint(env: Env): string | undefined {
  const value = optionalEnv(env, 'DYNAMODB_ENDPOINT');
  return value === undefined || embeddedEndpoints.has(value) ? undefined : value;
}

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const env = options.env ?? process.env;
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? envInt(env, 'PORT', DEFAULT_PORT, PORT_RANGE);
  const tableName = options.tableName ?? envString(env, 'TABLE_NAME', LOCAL_TABLE_NAME);
  const dataDir = options.dataDir ?? optionalEnv(env, 'DATA_DIR');
  const explicitDynamoPort =
    options.dynamoPort ??
    (optionalEnv(env, 'DYNAMO_PORT') === undefined
      ? undefined
      : envInt(env, 'DYNAMO_PORT', LOCAL_DYNAMO_PORT, PORT_RANGE));
  const externalEndpoint = readExternalEndpoint(options.dynamoEndpoint ?? userDynamoEndpoint(env));
  if (externalEndpoint !== undefined && explicitDynamoPort !== undefined) {
    throw new Error(
      'DYNAMO_PORT sets the port of the embedded DynamoDB, which is not started when DYNAMODB_ENDPOINT ' +
        'is set; unset one of them',
    );
  }
  const devApiKey = options.apiKey ?? optionalEnv(env, 'DEV_API_KEY');
  const timeouts = readTimeouts(env, options);
  const engineWorkers = readWorkers(
    env,
    'ENGINE_WORKERS',
    'engineWorkers',
    options.engineWorkers,
    availableParallelism(),
  );
  const connectWorkers = readWorkers(
    env,
    'CONNECT_WORKERS',
    'connectWorkers',
    options.connectWorkers,
    CONNECT_WORKERS_DEFAULT,
  );
  // Every function's timeout as its handler sees it: try a run that would outlast Lambda's.
  const functionTimeoutMs =
    options.functionTimeoutMs ??
    (optionalEnv(env, 'FUNCTION_TIMEOUT_MS') === undefined
      ? undefined
      : envInt(env, 'FUNCTION_TIMEOUT_MS', 0, FUNCTION_TIMEOUT_RANGE));
  const cors = readCorsSettings(env);
  if (devApiKey !== undefined && !looksLikeApiKey(devApiKey)) {
    // The value itself is never repeated: it is meant to be a secret.
    throw new Error(
      `DEV_API_KEY must be ${ACCEPTED_KEY_RULE} (the service checks every presented key against ` +
        'that shape); unset it to get a generated key',
    );
  }

  const dynamo: DynamoInUse =
    externalEndpoint === undefined
      ? {
          ...(await startEmbeddedDynamo({
            port: explicitDynamoPort ?? LOCAL_DYNAMO_PORT,
            fallbackToFreePort: explicitDynamoPort === undefined,
            host: '127.0.0.1',
            ...(dataDir === undefined ? {} : { dataDir }),
          })),
          external: false,
        }
      : { endpoint: externalEndpoint, external: true, fellBack: false, close: async () => undefined };
  const cleanup: Array<() => Promise<void>> = [() => dynamo.close()];
  // Once: a second close (a second signal, a test's clean-up) waits for the same stop.
  let closing: Promise<void> | undefined;
  const closeAll = () => {
    closing ??= (async () => {
      for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
    })();
    return closing;
  };

  try {
    const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint });
    cleanup.push(async () => client.destroy());
    await ensureTable(client, tableName).catch((error: unknown) => {
      if (!dynamo.external) throw error;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new Error(
        `the DynamoDB at ${dynamo.endpoint} (DYNAMODB_ENDPOINT) did not answer as DynamoDB: ${reason}`,
      );
    });
    const store = new DynamoApiKeyStore({ doc, tableName });
    const seeded = await seedApiKey(store, devApiKey);

    const issuerFile = options.issuerFile ?? localIssuerFile({ dataDir, port });
    const issuer = loadOrCreateLocalIssuer(issuerFile);
    const userToken = signAccessToken(issuer, { sub: LOCAL_USER });
    if (!dynamo.external) embeddedEndpoints.add(dynamo.endpoint);
    configureHandlerEnvironment(dynamo.endpoint, tableName, options.apiKeyCacheTtlMs, issuerFile);
    // The engine's workers start with the environment just set; this thread's functions get no
    // compiled-structure cache, as the stack deploys connect: no engine run here would read it.
    const engineEnvironment = { ...process.env };
    readSystemCacheBytes(engineEnvironment); // a malformed SYSTEM_CACHE_MIB stops the start, not each run
    const loadedRoutes = await withEnvironment({ SYSTEM_CACHE_MIB: '0' }, loadRoutes);
    const enginePool = createHandlerPool({
      entry: functionEntry('engine'),
      size: engineWorkers,
      env: engineEnvironment,
      heapMb: FUNCTIONS.engine.memoryMb,
    });
    // After the server stops taking requests (cleanup runs in reverse), before DynamoDB stops.
    cleanup.push(() => enginePool.close());
    // One instance starts with the server, so the first engine request finds it warm; the
    // others start when requests overlap. Awaited before the server listens.
    const atStart = options.engineWorkersAtStart ?? 1;
    const warming = enginePool.warm(atStart === 'all' ? engineWorkers : atStart);
    warming.catch(() => undefined);
    // Connect's workers as its main-thread handlers: no compiled-structure cache. None starts
    // with the server: the first such request starts one (about a second, a cold start).
    const connectPoolOf = (size: number) => {
      const pool = createHandlerPool({
        entry: functionEntry('connect'),
        functionName: 'connect',
        size,
        env: { ...process.env, SYSTEM_CACHE_MIB: '0' },
        heapMb: FUNCTIONS.connect.memoryMb,
      });
      cleanup.push(() => pool.close());
      return pool;
    };
    const connectPool = connectPoolOf(connectWorkers);
    const readPool = connectPoolOf(CONNECT_READ_WORKERS);
    const pools = { engine: enginePool, connect: connectPool, connectReads: readPool };
    const pooledRoutes = loadedRoutes.map((route) => {
      const pool = (Object.keys(pools) as Array<keyof typeof pools>).find((name) =>
        POOLED_ROUTES[name].has(route.name),
      );
      return pool === undefined ? route : { ...route, handler: pools[pool].handler };
    });
    // The connect function revokes keys in this thread; the engine's key caches are in the workers.
    const stopForwarding = store.onRevoked((digest) =>
      enginePool.notify({ kind: 'revoked', tableName, digest }),
    );
    cleanup.push(async () => stopForwarding());
    const logger = createLogger({ env });
    let stopping = false;
    const server = createServer(
      {
        requestTimeout: timeouts.requestMs,
        headersTimeout: timeouts.headersMs,
        // Node checks both timeouts on this interval (30 s by default): check often enough
        // that a stalled request is answered close to its limit.
        connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
      },
      createHttpAdapter({
        routes: pooledRoutes,
        stopping: () => stopping,
        maxBodyBytes: readLimits(process.env).maxBodyBytes,
        ...(functionTimeoutMs === undefined ? {} : { timeoutMs: functionTimeoutMs }),
        logger,
        cors,
        sampleDocuments: SAMPLE_DOCUMENTS,
        pageFiles: await buildExplorer(),
      }),
    );
    server.on('clientError', answerClientErrors(logger));
    // Cleanup runs in reverse: stop taking requests, let their background writes finish, and
    // only then stop DynamoDB, which would otherwise receive writes while closing.
    cleanup.push(async () => {
      await Promise.all(loadedRoutes.map((route) => route.settled?.()));
    });
    await warming;
    await listen(server, port, host).catch((error: unknown) => {
      throw isAddressInUse(error)
        ? new Error(`port ${port} on ${host} is already in use; set PORT to a free port (or 0 for any)`)
        : error;
    });
    cleanup.push(async () => {
      // New connections are refused first; a connect, registration, settings change or refresh
      // under way then finishes its writes and its answer goes out (within connect's time), so a
      // stop never leaves a quota hold or a stored system its caller was not told of. Engine
      // runs write nothing: they end with their connections.
      stopping = true;
      server.close();
      // Engine requests still waiting for a worker are answered 503 (stopping) while their
      // connections are open; before, they were cut with no answer when the connections closed.
      enginePool.stopTaking();
      readPool.stopTaking();
      await connectPool.drain(functionTimeoutMs ?? FUNCTIONS.connect.timeoutSeconds * 1000);
      await closeServer(server);
      await Promise.all(loadedRoutes.map((route) => route.settled?.()));
    });

    const url = `http://${host}:${(server.address() as AddressInfo).port}`;
    if (options.writePointer === true) {
      // Before the banner: whoever reads the banner can run the local tools at once.
      writeLocalServerPointer({
        url,
        dynamoEndpoint: dynamo.endpoint,
        tableName,
        issuerFile,
        pid: process.pid,
      });
      cleanup.push(async () => removeLocalServerPointer());
    }
    if (!options.quiet) {
      process.stdout.write(
        banner({
          url,
          apiKey: seeded.key,
          userToken,
          keySource: seeded.source,
          dynamo,
          dataDir,
          tableName,
          revoked: seeded.revoked,
          engineWorkers,
        }),
      );
    }
    return {
      url,
      apiKey: seeded.key,
      userToken,
      issuerFile,
      dynamoEndpoint: dynamo.endpoint,
      tableName,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * How long a client may take to send its request. API Gateway gives an integration 30 s in
 * all; a request that has not even arrived by then is not worth waiting for, and Node's own
 * default (5 minutes) would keep a stalled upload's connection open that long.
 */
export const DEFAULT_TIMEOUTS = Object.freeze({ requestMs: 30_000, headersMs: 10_000 });

function readTimeouts(env: Env, options: LocalServerOptions): { requestMs: number; headersMs: number } {
  const requestMs =
    options.requestTimeoutMs ??
    envInt(env, 'REQUEST_TIMEOUT_MS', DEFAULT_TIMEOUTS.requestMs, { min: 100, max: 600_000 });
  const headersMs =
    options.headersTimeoutMs ??
    envInt(env, 'HEADERS_TIMEOUT_MS', Math.min(DEFAULT_TIMEOUTS.headersMs, requestMs), {
      min: 100,
      max: requestMs,
    });
  return { requestMs, headersMs };
}

/**
 * How many requests of a function proceed at once, as concurrent Lambda instances would each have
 * their own: the engine one worker per CPU the process may use, connect `CONNECT_WORKERS_DEFAULT`.
 * ENGINE_WORKERS and CONNECT_WORKERS override them (1 runs them one at a time, still off the main
 * thread).
 */
function readWorkers(
  env: Env,
  variable: 'ENGINE_WORKERS' | 'CONNECT_WORKERS',
  option: 'engineWorkers' | 'connectWorkers',
  given: number | undefined,
  byDefault: number,
): number {
  const workers = given ?? envInt(env, variable, Math.min(byDefault, WORKERS_RANGE.max), WORKERS_RANGE);
  if (!Number.isInteger(workers) || workers < WORKERS_RANGE.min || workers > WORKERS_RANGE.max) {
    throw new Error(`${option} must be an integer from ${WORKERS_RANGE.min} to ${WORKERS_RANGE.max}`);
  }
  return workers;
}

interface SeededKey {
  key: string;
  source: 'DEV_API_KEY' | 'generated';
  /** A DEV_API_KEY revoked earlier in a persistent DATA_DIR stays revoked. */
  revoked: boolean;
}

async function seedApiKey(store: DynamoApiKeyStore, devApiKey: string | undefined): Promise<SeededKey> {
  if (devApiKey === undefined) {
    const { key } = await issueApiKey(store, { owner: DEV_KEY_OWNER, name: 'local server' });
    return { key, source: 'generated', revoked: false };
  }
  // Idempotent: with a persistent DATA_DIR the key is already there from the last run.
  const record: ApiKeyRecord = await importApiKey(store, devApiKey, {
    owner: DEV_KEY_OWNER,
    name: 'DEV_API_KEY',
  });
  return { key: devApiKey, source: 'DEV_API_KEY', revoked: record.status !== 'active' };
}

function configureHandlerEnvironment(
  endpoint: string,
  tableName: string,
  cacheTtlMs: number | undefined,
  issuerFile: string,
): void {
  process.env.TABLE_NAME = tableName;
  process.env.LOCAL_ISSUER_FILE = issuerFile;
  // The connect function may fetch from this machine's loopback, where the sample API is served.
  process.env.CONNECT_ALLOW_HOSTS ??= '127.0.0.1';
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  // dynalite ignores credentials, but the SDK refuses to sign without some.
  if (!process.env.AWS_ACCESS_KEY_ID || !process.env.AWS_SECRET_ACCESS_KEY) {
    process.env.AWS_ACCESS_KEY_ID = 'local';
    process.env.AWS_SECRET_ACCESS_KEY = 'local';
  }
  if (cacheTtlMs !== undefined) process.env.API_KEY_CACHE_TTL_MS = String(cacheTtlMs);

  const wanted = JSON.stringify([endpoint, tableName, process.env.API_KEY_CACHE_TTL_MS ?? null, issuerFile]);
  if (handlerEnvironment !== undefined && handlerEnvironment !== wanted) {
    throw new Error(
      'the Lambda handlers in this process were already loaded for another DynamoDB endpoint or table; ' +
        'run each local server with its own settings in its own process',
    );
  }
  handlerEnvironment = wanted;
}

/** A route with its function's handler and, when the entry exports one, its `settled` (background work done). */
interface RunnableRoute extends LoadedRoute {
  settled?: () => Promise<void>;
}

/** Runs `work` with these variables set in `process.env`, and puts their values back after. */
async function withEnvironment<T>(variables: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const before = Object.keys(variables).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, variables);
  try {
    return await work();
  } finally {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The module that exports a function's `handler`, as a file URL. */
function functionEntry(name: FunctionName): URL {
  return new URL(FUNCTIONS[name].entry, new URL('../', import.meta.url));
}

/** Imports each function's entry module once, as Lambda would, and gives every route its function's `handler`. */
async function loadRoutes(): Promise<RunnableRoute[]> {
  const loaded = new Map<FunctionName, { handler: HttpApiHandler; settled?: () => Promise<void> }>();
  for (const [name, { entry }] of Object.entries(FUNCTIONS) as Array<[FunctionName, { entry: string }]>) {
    const module = (await import(functionEntry(name).href)) as {
      handler?: unknown;
      settled?: unknown;
    };
    if (typeof module.handler !== 'function') {
      throw new Error(`${entry} does not export a handler function (function ${name})`);
    }
    const settled =
      typeof module.settled === 'function' ? (module.settled as () => Promise<void>) : undefined;
    loaded.set(name, { handler: module.handler as HttpApiHandler, ...(settled ? { settled } : {}) });
  }
  return routes.map((route) => ({ ...route, ...loaded.get(route.function)! }));
}

/** The DynamoDB the server uses: the embedded dynalite, or the one DYNAMODB_ENDPOINT names. */
interface DynamoInUse {
  endpoint: string;
  external: boolean;
  /** The embedded one's port was taken and a free one is used. */
  fellBack: boolean;
  close(): Promise<void>;
}

/** DYNAMODB_ENDPOINT as a base URL, or a start-stopping message that names the variable. */
function readExternalEndpoint(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('DYNAMODB_ENDPOINT must be a URL such as http://127.0.0.1:8000');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new Error('DYNAMODB_ENDPOINT must be an http:// or https:// URL without credentials');
  }
  return url.origin + url.pathname.replace(/\/$/, '');
}

interface BannerFacts {
  url: string;
  apiKey: string;
  userToken: string;
  keySource: SeededKey['source'];
  revoked: boolean;
  dynamo: DynamoInUse;
  dataDir: string | undefined;
  tableName: string;
  engineWorkers: number;
}

/**
 * A POST with a bearer credential and a JSON body, ready to paste into a POSIX shell once the
 * banner's `export` lines are pasted: the URL and credential are the shell variables they set
 * (`$SBE_URL`, `$SBE_KEY`, `$SBE_TOKEN`), as in the README, so the same lines work there.
 */
function curlPost(path: string, bearer: '$SBE_KEY' | '$SBE_TOKEN', body: unknown): string {
  return [
    `curl -sS "$SBE_URL${path}" \\`,
    `  -H "Authorization: Bearer ${bearer}" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '${JSON.stringify(body)}'`,
  ].join('\n');
}

/** A curl for the worked example, with the API key as `$SBE_KEY`. */
export function workedExampleCurl(): string {
  return curlPost('/api/engine', '$SBE_KEY', { mode: 'analyze', ...WORKED_EXAMPLE });
}

/** A curl that registers the sample external API of this server (its URL is in the body, spelled out). */
function connectCurl(url: string): string {
  return curlPost('/api/connect', '$SBE_TOKEN', { name: 'worked example', url: `${url}${SAMPLE_PATH}` });
}

function banner(facts: BannerFacts): string {
  const storage = facts.dynamo.external
    ? 'external (DYNAMODB_ENDPOINT); the embedded DynamoDB is not started'
    : `embedded (dynalite), ${facts.dataDir === undefined ? 'in memory' : `persistent in ${facts.dataDir}`}`;
  const lines = [
    '',
    'System Behavior Engine, local server',
    `  URL       ${facts.url}`,
    `  Explorer  ${facts.url}/  (the engine in your browser, worked example one click away)`,
    `  API key   ${facts.apiKey}  (${facts.keySource === 'DEV_API_KEY' ? 'from DEV_API_KEY' : 'generated for this run'})`,
    `  DynamoDB  ${facts.dynamo.endpoint}, table ${facts.tableName}, ${storage}`,
    `  Routes    ${routeKeys().join(', ')}`,
    `  Engine    POST /api/engine runs in ${facts.engineWorkers} worker thread${facts.engineWorkers === 1 ? '' : 's'} (ENGINE_WORKERS)`,
  ];
  if (facts.dynamo.fellBack) {
    lines.push(
      `  Note      port ${LOCAL_DYNAMO_PORT} was taken, so DynamoDB listens on ${new URL(facts.dynamo.endpoint).port}`,
    );
  }
  if (facts.revoked) {
    lines.push('  Warning   DEV_API_KEY is revoked in this DATA_DIR: requests with it get 403');
  }
  lines.push(
    '',
    'Paste these lines first: the commands below, in the README and in docs/ use them.',
    `  export SBE_URL=${facts.url}`,
    `  export SBE_KEY=${facts.apiKey}`,
    `  export SBE_TOKEN=${facts.userToken}`,
    `(SBE_TOKEN: an access token of user ${LOCAL_USER}, the owner of SBE_KEY, valid for an hour.)`,
    '',
    'Try the worked example:',
    workedExampleCurl(),
    '',
    'Register the sample external API served here as a system (answers 201 with its id):',
    connectCurl(facts.url),
    '',
    'Then run the engine on it by id, with the API key:',
    curlPost('/api/engine', '$SBE_KEY', { mode: 'analyze', systemId: '<id from above>' }),
    '',
    'Create an API key of your own with the token:',
    curlPost('/api/keys', '$SBE_TOKEN', { name: 'my laptop' }),
    '',
    'The local tools find this server by themselves (its ports and DATA_DIR included):',
    '  npm run token -- --user alice     # a token for another user',
    '  npm run keys -- list              # the API keys, as an operator sees them',
    '',
    'Ctrl-C stops the server.',
    '',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * `npm start`'s server: started with its pointer written, stopped on Ctrl-C or SIGTERM. Its
 * command line is read first by local/start.ts, which loads this module only then, so that
 * `npm start -- --help` answers without loading the server.
 */
export async function runLocalServer(): Promise<void> {
  let server: LocalServer;
  try {
    server = await startLocalServer({ writePointer: true });
  } catch (error) {
    process.stderr.write(`local server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const stop = (signal: NodeJS.Signals) => {
    process.stderr.write(`local server: ${signal}, stopping\n`);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Run as a script (`node --import tsx local/server.ts`), it starts as `npm start` does.
if (isMainModule(import.meta.url)) void import('./start');
