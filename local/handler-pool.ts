/**
 * A pool of worker threads that each run one Lambda function's handler, as that many concurrent
 * instances of the function would: each worker imports the handler module once (its cold start)
 * and serves one event at a time; a request waits, first come first served, for a free worker.
 * The local server runs the engine's analyses here, so a run of several seconds on a large
 * structure no longer holds up every other request: the main thread reads the requests, writes
 * the answers and serves the other routes (docs/local.md#engine-runs-in-worker-threads).
 *
 * Workers start when requests wait and the pool is below its size (or ahead of time: `warm`),
 * and a worker that crashes (an uncaught exception, an exit, a failed import) is dropped, its
 * request rejected (the adapter answers 500 `INTERNAL_ERROR`) and a fresh one started for the
 * next.
 */
import { stat } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { HttpApiHandler } from './http-adapter';

export interface HandlerPoolOptions {
  /** The module that exports the function's `handler` (its entry), as a file URL. */
  entry: URL;
  /** The function's name, as its refusals say it (`Every connect worker … is busy`). Default `engine`. */
  functionName?: string;
  /** Most workers, i.e. concurrent instances of the function. At least 1. */
  size: number;
  /**
   * The environment every worker starts with: the one the in-process handlers were imported
   * with, taken when the pool is created (later changes to `process.env` do not reach it).
   */
  env: NodeJS.ProcessEnv;
  /**
   * Each worker's heap limit in MB (the function's memory, as Lambda's limit; at most the main
   * thread's own heap limit). A worker that runs out of it ends alone, failing its run, as a
   * Lambda instance that runs out of memory does: without a limit of its own, V8 aborted the
   * whole server.
   */
  heapMb: number;
  /**
   * Most requests that may wait for a free worker (default `MAX_WAITING`); one more is refused at
   * once (`PoolFullError`), as Lambda refuses an invocation past its concurrency: each waiting
   * request holds its body (up to 6 MiB) on the main thread.
   */
  maxWaiting?: number;
  /**
   * How much lower than the main thread the workers run on Linux: added to the nice value the
   * server runs at, up to 19 (`WORKER_NICENESS` unless given; 0 leaves them as the main thread),
   * since a worker may lower its priority but not raise it. Deployed, API Gateway and each function instance have CPUs of their own; here they
   * share the machine's, so the workers yield a core to the main thread, which routes every
   * request and serves the small ones (docs/local.md#engine-runs-in-worker-threads). Elsewhere a
   * nice value belongs to the whole process, so it is left alone.
   */
  niceness?: number;
}

/**
 * How much lower the workers run unless the pool says otherwise: 10 (`PRIORITY_BELOW_NORMAL` for a
 * server at the default 0) lets a small request's thread take a core from two engine runs at
 * once (a GET's p50 during two 100k/500k analyses 10–11 → 7 ms, max 50–55 → 44–52 ms,
 * docs/benchmark.md), and the engine runs no slower when nothing else wants the cores.
 * @internal test/local/handler-pool.test.ts reads the workers' nice value against it.
 */
export const WORKER_NICENESS = 10;

/**
 * How many requests may wait for a free worker unless the pool says otherwise: as many as `npm run
 * load` opens connections at most (256), so no load scenario is refused; their bodies, 6 MiB at
 * most each, are what it bounds.
 */
const MAX_WAITING = 256;

/** `1 request already waits`, `64 requests already wait`. */
export function waitingText(waiting: number): string {
  return waiting === 1 ? '1 request already waits' : `${waiting} requests already wait`;
}

/** A request refused because every worker is busy and `maxWaiting` requests already wait. */
export class PoolFullError extends Error {
  override readonly name = 'PoolFullError';
  constructor(
    readonly waiting: number,
    /** The function the pool's workers are instances of (`engine`, `connect`). */
    readonly functionName = 'engine',
  ) {
    super(`every ${functionName} worker is busy and ${waitingText(waiting)}`);
  }
}

/** A request the pool did not run because the server is stopping. */
export class PoolStoppingError extends Error {
  override readonly name = 'PoolStoppingError';
  constructor() {
    super('the local server is stopping');
  }
}

/** A request taken back from the queue because its client went away: it never ran. */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
  constructor() {
    super('the client went away before a worker was free');
  }
}

export interface HandlerPool {
  /**
   * Runs one event on a free worker; rejects when the worker crashes, the pool is closed, or
   * `signal` aborts while the event still waits for a worker.
   */
  readonly handler: (...args: Parameters<HttpApiHandler>) => Promise<unknown>;
  /**
   * Starts workers until `count` (at most the size) run, and resolves once every running worker
   * is ready: the first requests then find their instance warm. Rejects when one fails to start.
   */
  warm(count: number): Promise<void>;
  /**
   * Delivers a notice to every running worker, in order with the events sent after it: a worker
   * sees it before its next event.
   */
  notify(notice: WorkerNotice): void;
  /** Workers running now (started and not yet ended). */
  readonly threads: number;
  /** Takes no more requests, and rejects the waiting ones (none of them ran) with `PoolStoppingError`. */
  stopTaking(): void;
  /**
   * Takes no more requests (the waiting ones are rejected) and waits, up to `withinMs`, for the
   * runs in progress to end with their answers. `close` after it ends the workers.
   */
  drain(withinMs: number): Promise<void>;
  /**
   * Rejects the waiting requests, and ends every worker and so the runs in progress: those reject
   * with `PoolStoppingError` too.
   */
  close(): Promise<void>;
}

/** What the worker learns from `workerData`. */
export interface WorkerSetup {
  /** The function's entry module, as a file URL. */
  entry: string;
  /** The worker module (`handler-worker.ts`), as a file URL. */
  module: string;
  /** Whether the worker must register tsx itself: the flags it inherits do not load it. */
  registerTsx: boolean;
  /** How much the worker lowers its own thread, on Linux only (`HandlerPoolOptions.niceness`). */
  niceness: number;
}

/** A key revoked in the main thread, which the workers' key caches must forget at once. */
export interface WorkerNotice {
  kind: 'revoked';
  tableName: string;
  digest: string;
}

/** The serializable part of a Lambda context; the worker rebuilds the functions from `deadline`. */
export type ContextFields = Omit<Context, 'getRemainingTimeInMillis' | 'done' | 'fail' | 'succeed'> & {
  /** `Date.now()` at which `getRemainingTimeInMillis` reaches 0. */
  deadline: number;
};

/** Main thread → worker. */
export type ToWorker =
  | { kind: 'invoke'; event: APIGatewayProxyEventV2; context: ContextFields }
  | WorkerNotice;

/** Worker → main thread, all on one port, so a run's log lines arrive before its result. */
export type FromWorker =
  | { kind: 'output'; stream: 'stdout' | 'stderr'; chunk: string | Uint8Array }
  | { kind: 'ready' }
  | { kind: 'result'; result: unknown }
  | { kind: 'failed'; error: { name: string; message: string; stack?: string | undefined } };

interface Job {
  event: APIGatewayProxyEventV2;
  /** The context without its deadline, which starts when a worker takes the job. */
  context: Omit<ContextFields, 'deadline'>;
  /** The function's time for this request, counted from when a worker starts it. */
  timeMs: number;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  /** Whether it has imported the entry and takes events. */
  ready: boolean;
  /** Settles when it is ready, or rejects when it ends before. */
  started: Promise<void>;
  /** The job it runs; `undefined` while idle. */
  job: Job | undefined;
}

const WORKER_URL = new URL('./handler-worker.ts', import.meta.url);

/**
 * A worker's first module, in plain JavaScript, so it loads before TypeScript can: it registers
 * tsx unless the thread loads it already, then imports the worker module. A worker inherits the
 * main thread's flags, and with them tsx when the main thread was started with it (`npm start`
 * is `node --import tsx local/start.ts`, and so are the benchmarks); under a runner that
 * compiles TypeScript its own way (vitest) the worker registers tsx itself. Registering tsx
 * twice in one thread would compile every module twice, and passing the flags on explicitly
 * (`execArgv`) fails on V8 flags such as `--max-old-space-size`, which a worker may only inherit.
 */
const START_URL = new URL('./handler-worker-start.mjs', import.meta.url);

/**
 * Whether these flags load tsx (`--import tsx`, or tsx's own `--import …/tsx/dist/loader.mjs`).
 * @internal test/local/handler-pool.test.ts checks the flags it tells apart.
 */
export function flagsLoadTsx(execArgv: readonly string[]): boolean {
  return execArgv.some((flag) => /(^|[=/\\])tsx($|[/\\])/.test(flag));
}

export function createHandlerPool(options: HandlerPoolOptions): HandlerPool {
  if (!Number.isInteger(options.size) || options.size < 1) {
    throw new Error(`a handler pool needs at least one worker; got ${options.size}`);
  }
  const niceness = options.niceness ?? WORKER_NICENESS;
  // Only lowered: raising a thread's priority needs a privilege the server does not have (EACCES).
  if (!Number.isInteger(niceness) || niceness < 0 || niceness > 19) {
    throw new Error(`a handler pool's niceness is an integer from 0 to 19; got ${niceness}`);
  }
  // libuv's thread pool (file reads, DNS, zlib, crypto off the main thread) starts at its first
  // task, its threads taking the nice value of the thread that asks: asked here, by the main
  // thread, before any worker has lowered itself, it keeps the main thread's.
  stat(fileURLToPath(START_URL), () => undefined);
  const env = { ...options.env };
  const maxWaiting = options.maxWaiting ?? MAX_WAITING;
  const heapMb = Math.min(options.heapMb, Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20));
  const workerData: WorkerSetup = {
    entry: options.entry.href,
    module: WORKER_URL.href,
    registerTsx: !flagsLoadTsx(process.execArgv),
    niceness,
  };
  const workers = new Set<PoolWorker>();
  const queue: Job[] = [];
  let closed = false;
  /** Set by `close`: the workers end because the pool does, not because they failed. */
  let terminating = false;

  const start = (): PoolWorker => {
    const worker = new Worker(START_URL, {
      workerData,
      env,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    let started: { resolve(): void; reject(error: Error): void } = { resolve() {}, reject() {} };
    const member: PoolWorker = {
      worker,
      ready: false,
      started: new Promise<void>((resolve, reject) => {
        started = { resolve, reject };
      }),
      job: undefined,
    };
    member.started.catch(() => undefined); // told to whoever waits for it, if anyone does
    workers.add(member);
    worker.on('message', (message: FromWorker) => {
      if (message.kind === 'output') {
        process[message.stream].write(message.chunk);
        return;
      }
      if (message.kind === 'ready') {
        member.ready = true;
        started.resolve();
      } else {
        const job = member.job;
        member.job = undefined;
        if (message.kind === 'result') job?.resolve(message.result);
        else job?.reject(Object.assign(new Error(message.error.message), message.error));
      }
      dispatch();
    });
    // An uncaught exception (or a failed import) ends the worker: 'error', then 'exit'.
    const end = (error: Error) => {
      if (!workers.delete(member)) return;
      started.reject(error);
      // A run the pool's close ended was stopped, not failed: answered as the stop's 503.
      member.job?.reject(terminating ? new PoolStoppingError() : error);
      member.job = undefined;
      // A worker that never got ready fails the oldest waiting request, the one it was started
      // for: an entry that cannot load fails each request, rather than restarting for ever.
      if (!member.ready && !closed) queue.shift()?.reject(error);
      dispatch();
    };
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`the worker running the handler exited with code ${code}`)));
    return member;
  };

  /**
   * Gives waiting requests, oldest first, to the ready workers that are free, and starts workers
   * for those still waiting, up to the size. A request is not tied to the worker started for it:
   * whichever worker is free first takes it.
   */
  const dispatch = () => {
    if (closed) return;
    for (const member of workers) {
      if (queue.length === 0) return;
      if (!member.ready || member.job !== undefined) continue;
      const job = queue.shift()!;
      member.job = job;
      member.worker.postMessage({
        kind: 'invoke',
        event: job.event,
        // As a Lambda invocation's, the request's time runs from when its instance starts it,
        // not from when it arrived: time spent waiting for a worker is not taken from its run.
        context: { ...job.context, deadline: Date.now() + job.timeMs },
      } satisfies ToWorker);
    }
    let starting = 0;
    for (const member of workers) if (!member.ready) starting++;
    while (queue.length > starting && workers.size < options.size) {
      start();
      starting++;
    }
  };

  /** Takes no more requests, and rejects the waiting ones: none of them ran. */
  const stopTaking = () => {
    closed = true;
    for (const job of queue.splice(0)) job.reject(new PoolStoppingError());
  };

  return {
    handler: (event, context, signal) =>
      new Promise((resolve, reject) => {
        if (closed) {
          reject(new PoolStoppingError());
          return;
        }
        if (signal?.aborted === true) {
          reject(new ClientGoneError());
          return;
        }
        if (queue.length >= maxWaiting) {
          reject(new PoolFullError(queue.length, options.functionName));
          return;
        }
        const { getRemainingTimeInMillis, done, fail, succeed, ...fields } = context;
        const job: Job = { event, context: fields, timeMs: getRemainingTimeInMillis(), resolve, reject };
        queue.push(job);
        // A request whose client has gone while it waits is dropped, never run; one a worker
        // has taken runs to its end (ending the worker would cost the next request a cold start).
        signal?.addEventListener(
          'abort',
          () => {
            const at = queue.indexOf(job);
            if (at < 0) return;
            queue.splice(at, 1);
            reject(new ClientGoneError());
          },
          { once: true },
        );
        dispatch();
      }),
    async warm(count) {
      while (workers.size < Math.min(count, options.size)) start();
      await Promise.all([...workers].map((member) => member.started));
    },
    notify(notice) {
      for (const { worker } of workers) worker.postMessage(notice satisfies ToWorker);
    },
    get threads() {
      return workers.size;
    },
    stopTaking,
    async drain(withinMs) {
      stopTaking();
      const until = Date.now() + withinMs;
      while ([...workers].some((member) => member.job !== undefined) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      stopTaking();
      terminating = true;
      await Promise.all([...workers].map(({ worker }) => worker.terminate()));
    },
  };
}
