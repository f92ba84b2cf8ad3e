import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { threadId } from 'node:worker_threads';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createHandlerPool,
  flagsLoadTsx,
  type HandlerPool,
  PoolFullError,
  WORKER_NICENESS,
} from '../../local/handler-pool';
import { createHttpAdapter, type LoadedRoute } from '../../local/http-adapter';
import { closeServer, listen } from '../../local/listen';
import { threadNiceness } from './fixtures/pool-handler';

const ENTRY = new URL('./fixtures/pool-handler.ts', import.meta.url);

interface Ran {
  path: string;
  threadId: number;
  served: number;
  setting: string | null;
  requestId: string;
  functionName: string;
  remainingMs: number;
  niceness: number | null;
}

const pools: HandlerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function pool(
  size: number,
  env: NodeJS.ProcessEnv = process.env,
  entry = ENTRY,
  heapMb = 512,
  maxWaiting?: number,
  niceness?: number,
): HandlerPool {
  const created = createHandlerPool({
    entry,
    size,
    env,
    heapMb,
    ...(maxWaiting === undefined ? {} : { maxWaiting }),
    ...(niceness === undefined ? {} : { niceness }),
  });
  pools.push(created);
  return created;
}

function event(path: string, query: Record<string, string> = {}): APIGatewayProxyEventV2 {
  return { rawPath: path, queryStringParameters: query } as unknown as APIGatewayProxyEventV2;
}

let requests = 0;
function context(remainingMs = 30_000): Context {
  requests += 1;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'sbe-local-runEngine',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:sbe-local-runEngine',
    memoryLimitInMB: '1769',
    awsRequestId: `request-${requests}`,
    logGroupName: '/aws/lambda/sbe-local-runEngine',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function run(on: HandlerPool, path: string, query?: Record<string, string>): Promise<Ran> {
  const result = (await on.handler(event(path, query), context())) as { body: string };
  return JSON.parse(result.body) as Ran;
}

describe('createHandlerPool', () => {
  // Each worker is one instance of the function: it imports the entry once, with the environment
  // the server gave its handlers, and gets a Lambda context it can ask for the time left.
  it('runs events in a worker thread that imported the entry once, with the pool’s environment', async () => {
    const env = { ...process.env, POOL_TEST_SETTING: 'given to the pool' };
    const workers = pool(1, env);
    env.POOL_TEST_SETTING = 'changed after';

    const first = await run(workers, '/echo');
    const second = await run(workers, '/echo');
    expect(first.threadId).not.toBe(threadId);
    expect(second.threadId).toBe(first.threadId);
    expect([first.served, second.served]).toEqual([1, 2]);
    expect(first.setting).toBe('given to the pool');
    expect(first).toMatchObject({ path: '/echo', functionName: 'sbe-local-runEngine' });
    expect(second.requestId).toBe(`request-${requests}`);
    expect(second.remainingMs).toBeGreaterThan(0);
    expect(second.remainingMs).toBeLessThanOrEqual(30_000);
  });

  // As concurrent Lambda instances: up to `size` at once, the rest wait their turn in order.
  it('runs at most `size` events at once, and the waiting ones first come, first served', async () => {
    const two = pool(2);
    await two.warm(2);
    const runs = Array.from({ length: 5 }, () => run(two, '/busy', { ms: '50' }));
    expect(two.threads).toBe(2);
    const answers = await Promise.all(runs);
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(2);
    expect(answers.reduce((sum, answer) => Math.max(sum, answer.served), 0)).toBeGreaterThanOrEqual(3);

    const one = pool(1);
    const inTurn = await Promise.all(Array.from({ length: 4 }, () => run(one, '/busy', { ms: '20' })));
    expect(inTurn.map((answer) => answer.served)).toEqual([1, 2, 3, 4]);
    expect(one.threads).toBe(1);
  });

  // A Lambda invocation's time runs from when its instance starts it: a request that waited
  // for the only worker still gets its whole time (it had 2 s and waited some 1.2 s).
  it('counts a request’s time from when a worker takes it, not from when it arrived', async () => {
    const one = pool(1);
    await one.warm(1);
    const busy = run(one, '/busy', { ms: '1200' });
    const waited = (await one.handler(event('/echo'), context(2_000))) as { body: string };
    await busy;
    expect((JSON.parse(waited.body) as Ran).remainingMs).toBeGreaterThan(1_500);
  });

  // A client that gives up while its request waits takes it back: it is never run, and the
  // worker goes on to the next (whose count shows the dropped one was not served).
  it('drops a waiting request whose signal aborts, and runs the next', async () => {
    const one = pool(1);
    await one.warm(1);
    const busy = run(one, '/busy', { ms: '400' });
    const gone = new AbortController();
    const dropped = one.handler(event('/echo'), context(), gone.signal).catch((error: unknown) => error);
    gone.abort();
    expect(await dropped).toMatchObject({ name: 'ClientGoneError' });
    const next = await run(one, '/echo');
    expect((await busy).served).toBe(1);
    expect(next.served).toBe(2);
    const already = new AbortController();
    already.abort();
    await expect(one.handler(event('/echo'), context(), already.signal)).rejects.toMatchObject({
      name: 'ClientGoneError',
    });
  });

  it('a handler that throws fails its run with that error, and the worker serves the next', async () => {
    const workers = pool(1);
    const before = await run(workers, '/echo');
    const failure = await workers.handler(event('/throw'), context()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ name: 'TypeError', message: 'the handler failed' });
    const after = await run(workers, '/echo');
    expect(after.threadId).toBe(before.threadId);
    expect(after.served).toBe(3);
  });

  // A crash ends that instance only: its run fails, and a fresh one (a cold start) takes the next.
  it.each([
    ['/uncaught', /uncaught in the worker/],
    ['/exit', /exited with code 7/],
  ])('a crash (%s) fails its run, and a fresh worker takes the next', async (path, reason) => {
    const workers = pool(1);
    const before = await run(workers, '/echo');
    await expect(workers.handler(event(path), context())).rejects.toThrow(reason);
    const after = await run(workers, '/echo');
    expect(after.threadId).not.toBe(before.threadId);
    expect(after.served).toBe(1);
    expect(workers.threads).toBe(1);
  });

  it('an entry that does not load fails each run, not the pool', async () => {
    const workers = pool(1, process.env, new URL('./fixtures/no-such-handler.ts', import.meta.url));
    await expect(workers.handler(event('/echo'), context())).rejects.toThrow(/no-such-handler/);
    await expect(workers.handler(event('/echo'), context())).rejects.toThrow(/no-such-handler/);
    expect(workers.threads).toBe(0);
  });

  // The server's log output is the main thread's: a run's lines are written before its result.
  it('what the handler writes reaches the main thread’s stdout before the run ends', async () => {
    const workers = pool(1);
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const ran = await run(workers, '/log');
      expect(written.join('')).toContain(`"message":"from the worker","requestId":"${ran.requestId}"`);
    } finally {
      spy.mockRestore();
    }
  });

  // Stopping the server must not leave threads behind (a test file's process would not end).
  // A run ended by the close was stopped, not failed: it rejects as the waiting ones do (the
  // server answers 503, stopping), never as a crash (500, and a failure on stderr).
  it('close fails the waiting runs, ends the running ones and leaves no thread', async () => {
    const workers = pool(1);
    await workers.warm(1);
    const failed = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: Error) => error.message,
      );
    const running = failed(workers.handler(event('/busy', { ms: '5000' }), context()));
    const waiting = failed(workers.handler(event('/echo'), context()));
    expect(workers.threads).toBe(1);
    await workers.close();
    expect(await running).toBe('the local server is stopping');
    expect(await waiting).toBe('the local server is stopping');
    expect(workers.threads).toBe(0);
    await expect(workers.handler(event('/echo'), context())).rejects.toThrow('the local server is stopping');
  });

  // The server's stop refuses what still waits first, while its connections are open to answer,
  // and lets the running one go on until the close.
  it('stopTaking rejects the waiting runs at once and leaves the running one', async () => {
    const workers = pool(1);
    await workers.warm(1);
    const running = workers.handler(event('/busy', { ms: '300' }), context());
    const waiting = workers.handler(event('/echo'), context());
    workers.stopTaking();
    await expect(waiting).rejects.toThrow('the local server is stopping');
    expect(((await running) as { statusCode: number }).statusCode).toBe(200);
    await expect(workers.handler(event('/echo'), context())).rejects.toThrow('the local server is stopping');
  });

  // As provisioned instances: started ahead, so the first requests do not wait for a cold start.
  it('warm starts workers ahead, at most `size`, and reports one that cannot start', async () => {
    const workers = pool(2);
    await workers.warm(5);
    expect(workers.threads).toBe(2);
    expect((await run(workers, '/echo')).served).toBe(1);
    expect(workers.threads).toBe(2);

    const broken = pool(1, process.env, new URL('./fixtures/no-such-handler.ts', import.meta.url));
    await expect(broken.warm(1)).rejects.toThrow(/no-such-handler/);
    expect(broken.threads).toBe(0);
  });

  // A request that waits is not tied to the worker started for it: a warm worker that is free
  // first takes it (it answers an echo long before a new worker has loaded tsx and the entry).
  it('gives a waiting request to the first free worker, not to the one starting for it', async () => {
    const workers = pool(2);
    await workers.warm(1);
    const [first, second] = await Promise.all([run(workers, '/echo'), run(workers, '/echo')]);
    expect(second.threadId).toBe(first.threadId);
    expect(second.served).toBe(2);
    expect(workers.threads).toBe(2);
  });

  // A run that outgrows the function's memory ends its worker alone (ERR_WORKER_OUT_OF_MEMORY),
  // as Lambda ends an instance: its run fails and a fresh worker takes the next. Without a heap
  // limit of the worker's own, V8 aborted the whole process, server and all.
  it('a run past its heap limit fails, and a fresh worker takes the next', async () => {
    const workers = pool(1, process.env, ENTRY, 64);
    const before = await run(workers, '/echo');
    await expect(workers.handler(event('/allocate'), context())).rejects.toMatchObject({
      code: 'ERR_WORKER_OUT_OF_MEMORY',
    });
    const after = await run(workers, '/echo');
    expect(after.threadId).not.toBe(before.threadId);
    expect(after.served).toBe(1);
  });

  // One worker busy and one request waiting, with room for one: the next is refused at once (as
  // Lambda refuses an invocation past its concurrency), and the two taken both run.
  it('refuses a request at once when as many as it allows already wait', async () => {
    const workers = pool(1, process.env, ENTRY, 512, 1);
    await workers.warm(1);
    const busy = run(workers, '/busy', { ms: '300' });
    const waiting = run(workers, '/echo');
    await expect(workers.handler(event('/echo'), context())).rejects.toBeInstanceOf(PoolFullError);
    expect((await busy).path).toBe('/busy');
    expect((await waiting).path).toBe('/echo');
  });

  // The workers stand in for function instances, which have CPUs of their own when deployed: on
  // a shared machine they yield a core to the main thread, which serves the small requests. On
  // Linux the nice value is the thread's own, so the main thread keeps its own.
  it.runIf(process.platform === 'linux')(
    'lowers its workers’ threads, and only theirs, to their nice value',
    async () => {
      const before = threadNiceness()!;
      const lowered = await run(pool(1), '/echo');
      // Lowered by WORKER_NICENESS from where the thread started (the server's), at most to 19:
      // under `nice -n 15` the workers were once set to 10, above the server, or failed to start
      // where raising a priority takes a privilege.
      expect(lowered.niceness).toBe(Math.min(19, before + WORKER_NICENESS));
      expect(WORKER_NICENESS).toBeGreaterThan(0);
      expect(threadNiceness()).toBe(before);

      const asMain = await run(pool(1, process.env, ENTRY, 512, undefined, 0), '/echo');
      expect(asMain.niceness).toBe(before);
    },
  );

  it('refuses a niceness it could not set, or that would not lower the workers', () => {
    for (const niceness of [-1, 20, 2.5, Number.NaN]) {
      expect(() => createHandlerPool({ entry: ENTRY, size: 1, env: {}, heapMb: 64, niceness })).toThrow(
        /niceness is an integer from 0 to 19/,
      );
    }
  });

  it('refuses a size below 1', () => {
    expect(() => createHandlerPool({ entry: ENTRY, size: 0, env: {}, heapMb: 64 })).toThrow(
      /at least one worker/,
    );
  });
});

describe('flagsLoadTsx', () => {
  // The worker registers tsx itself unless the flags it inherits load it already.
  it('recognizes tsx in the flags `tsx` and `node --import tsx` give, and nothing else', () => {
    expect(
      flagsLoadTsx([
        '--require',
        '/repo/node_modules/tsx/dist/preflight.cjs',
        '--import',
        'file:///repo/node_modules/tsx/dist/loader.mjs',
      ]),
    ).toBe(true);
    expect(flagsLoadTsx(['--import', 'tsx'])).toBe(true);
    expect(flagsLoadTsx(['--import=tsx'])).toBe(true);
    expect(
      flagsLoadTsx(['--conditions', 'development', '--require', '/repo/node_modules/vitest/x.cjs']),
    ).toBe(false);
    expect(flagsLoadTsx(['--import', '/home/me/tsx-notes/setup.mjs'])).toBe(false);
  });
});

describe('a pooled route over HTTP', () => {
  // A client that closes its connection while its request waits for a worker: the adapter takes
  // the request back (the pool never runs it) and answers nothing, logging no failure.
  it('takes back the request of a client that went away while it waited', async () => {
    const one = pool(1);
    await one.warm(1);
    const route: LoadedRoute = {
      method: 'GET',
      path: '/busy',
      name: 'busy',
      function: 'engine',
      auth: 'none',
      handler: one.handler,
    };
    const failures: string[] = [];
    const server = createServer(
      createHttpAdapter({
        routes: [route],
        maxBodyBytes: 1024,
        onHandlerError: (error) => failures.push(String(error)),
      }),
    );
    await listen(server, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const holding = fetch(`${base}/busy?ms=600`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const gaveUp = await fetch(`${base}/busy?ms=0`, { signal: AbortSignal.timeout(150) }).catch(
        (error: unknown) => error,
      );
      expect(gaveUp).toMatchObject({ name: 'TimeoutError' });
      expect(((await (await holding).json()) as Ran).served).toBe(1);
      // The one that gave up was never served: the next request is the worker's second.
      expect(((await (await fetch(`${base}/busy?ms=0`)).json()) as Ran).served).toBe(2);
      expect(failures).toEqual([]);
    } finally {
      await closeServer(server);
    }
  });

  // The adapter answers a run that failed in its worker as it answers a handler that threw.
  it('answers a crashed worker’s request with 500 INTERNAL_ERROR and the contract’s error body', async () => {
    const workers = pool(1);
    const route = (path: string): LoadedRoute => ({
      method: 'GET',
      path,
      name: path.slice(1),
      function: 'engine',
      auth: 'none',
      handler: workers.handler,
    });
    const failures: string[] = [];
    const server = createServer(
      createHttpAdapter({
        routes: [route('/uncaught'), route('/echo')],
        maxBodyBytes: 1024,
        onHandlerError: (error) => failures.push(String(error)),
      }),
    );
    await listen(server, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const crashed = await fetch(`${base}/uncaught`);
      expect(crashed.status).toBe(500);
      const body = (await crashed.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('INTERNAL_ERROR');
      expect(body.error.message).not.toContain('uncaught in the worker');
      expect(failures).toEqual([expect.stringContaining('uncaught in the worker')]);
      expect((await fetch(`${base}/echo`)).status).toBe(200);
    } finally {
      await closeServer(server);
    }
  });
});
