/**
 * One worker thread of a handler pool (`local/handler-pool.ts`): one instance of a Lambda
 * function. It imports the function's entry once, with the environment the pool gave it (its
 * cold start), then runs the events the pool sends, one at a time, and posts each result back.
 *
 * What it writes to stdout and stderr (the function's log lines) goes to the main thread over
 * the same port as the results, so the server writes a request's log line before its answer,
 * as when the handler runs in the main thread.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import { announceRevocation } from '../lib/keys/dynamo-store';
import type { ContextFields, FromWorker, ToWorker, WorkerSetup } from './handler-pool';
import type { HttpApiHandler } from './http-adapter';

const port = parentPort!;
const { entry, niceness } = workerData as WorkerSetup;
// On Linux a nice value is a thread's own (setpriority(2) with pid 0 reaches the calling thread);
// elsewhere it would lower the whole server, the main thread included. Added to the value the
// thread started with (the server's, which may be above 0 already: `nice -n 15 npm start`),
// so the worker only ever lowers itself, which needs no privilege. A sandbox that forbids it
// anyway (a seccomp profile) leaves the worker at the server's priority, never unable to start.
if (process.platform === 'linux' && niceness !== 0) {
  try {
    setPriority(Math.min(19, getPriority() + niceness));
  } catch {}
}
const post = (message: FromWorker) => port.postMessage(message);

for (const stream of ['stdout', 'stderr'] as const) {
  process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    post({ kind: 'output', stream, chunk });
    const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
}

const module = (await import(entry)) as { handler?: unknown };
if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
const handler = module.handler as HttpApiHandler;

port.on('message', (message: ToWorker) => {
  if (message.kind === 'revoked') {
    announceRevocation(message.tableName, message.digest);
    return;
  }
  void invoke(message.event, lambdaContext(message.context));
});
post({ kind: 'ready' });

async function invoke(...args: Parameters<HttpApiHandler>): Promise<void> {
  try {
    post({ kind: 'result', result: await handler(...args) });
  } catch (error) {
    const { name, message, stack } =
      error instanceof Error ? error : { name: 'Error', message: String(error), stack: undefined };
    post({ kind: 'failed', error: { name, message, stack } });
  }
}

function lambdaContext({ deadline, ...fields }: ContextFields): Context {
  return {
    ...fields,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
