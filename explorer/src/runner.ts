import type { BareStructure } from './bare-structure';
import type { LatencyPoints } from './latency-points';
import type { RunAnswer, RunRequest, WorkerRequest } from './protocol';
import { NoConnection, RunStopped, WorkerFailed } from './run-failure';

/**
 * Where a request body runs: in the engine worker (the service's own code, the same bytes as the
 * API) or on the server (`POST /api/engine` with an API key). A request given an `AbortSignal`
 * rejects with the signal's reason once it is aborted: the server request is aborted, and a
 * worker run is stopped by ending that worker (a run is one synchronous call: it cannot be
 * interrupted otherwise); the requests it still held go to a new one.
 */
let worker: Worker | undefined;
let nextRun = 0;
const pending = new Map<
  number,
  { message: WorkerRequest; resolve: (answer: RunAnswer) => void; reject: (reason: unknown) => void }
>();

/** The worker, started on first use and again after it failed or was ended. */
function currentWorker(): Worker {
  if (worker !== undefined) return worker;
  const started = new Worker('/engine-worker.js', { type: 'module' });
  started.onmessage = (event: MessageEvent<RunAnswer>) => {
    pending.get(event.data.id)?.resolve(event.data);
    pending.delete(event.data.id);
  };
  // Its script failed to load, or it threw: every request it held fails, and the next starts a
  // new worker (not at once: a script that never loads would otherwise restart for ever).
  started.onerror = (event) => {
    event.preventDefault();
    endWorker();
    const failure = new WorkerFailed(event.message || 'the engine worker could not start');
    for (const { reject } of pending.values()) reject(failure);
    pending.clear();
  };
  worker = started;
  return started;
}

function endWorker(): void {
  worker?.terminate();
  worker = undefined;
}

/** A request as a caller writes it: the id is the runner's (distributed, so each kind keeps its fields). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

function ask(request: Unnumbered<WorkerRequest>, signal?: AbortSignal): Promise<RunAnswer> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const id = ++nextRun;
  const message = { id, ...request } as WorkerRequest;
  return new Promise((resolve, reject) => {
    pending.set(id, { message, resolve, reject });
    currentWorker().postMessage(message);
    signal?.addEventListener(
      'abort',
      () => {
        if (!pending.delete(id)) return;
        reject(signal.reason);
        // The worker may be in the middle of it: a new one takes the requests still waiting.
        endWorker();
        for (const waiting of pending.values()) currentWorker().postMessage(waiting.message);
      },
      { once: true },
    );
  });
}

export function runInWorker(
  body: string,
  kind: RunRequest['kind'] = 'run',
  signal?: AbortSignal,
): Promise<RunAnswer> {
  return ask({ kind, body }, signal);
}

/**
 * The nodes and dependencies `body` holds as written, with their readable names, for drawing
 * when a run gave no result; `undefined` when it holds none the page can read.
 */
export async function structureInWorker(
  body: string,
  signal: AbortSignal,
): Promise<{ structure: BareStructure; names: Array<[string, string]> } | undefined> {
  const { structure, names } = await ask({ kind: 'structure', body }, signal);
  return structure === undefined ? undefined : { structure, names: names ?? [] };
}

/**
 * The latency chart's points for `entry` of the structure `body` describes (a body the worker
 * ran: the answer on show), placing `slo` on the curve; `undefined` when it has no curve (or the
 * worker failed meanwhile).
 */
export async function latencyPointsInWorker(
  body: string,
  entry: string,
  slo: number | undefined,
): Promise<LatencyPoints | undefined> {
  try {
    const answer = await ask({ kind: 'latency', body, entry, ...(slo === undefined ? {} : { slo }) });
    return answer.latency;
  } catch {
    return undefined;
  }
}

/**
 * `POST /api/engine`, given up after `timeoutMs` (rejecting with `RunStopped('timeout')`); any
 * answer, 4xx and 5xx included, resolves. No answer at all rejects with `NoConnection`.
 */
export async function runOnServer(
  body: string,
  apiKey: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<RunAnswer> {
  const started = performance.now();
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new RunStopped('timeout')), timeoutMs);
  const either = AbortSignal.any([signal, timeout.signal]);
  try {
    let response: Response;
    let text: string;
    try {
      response = await fetch('/api/engine', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body,
        signal: either,
      });
      text = await response.text();
    } catch (thrown) {
      if (either.aborted) throw either.reason;
      throw new NoConnection(thrown instanceof Error ? thrown.message : String(thrown));
    }
    const ms = performance.now() - started;
    if (response.status !== 200) return { id: 0, status: response.status, text, ms };
    // The names are a nicety: a worker failing meanwhile costs them, not the server's answer.
    const names = await runInWorker(body, 'names', signal).then(
      (answer) => answer.names,
      (thrown: unknown) => {
        if (signal.aborted) throw thrown;
        return undefined;
      },
    );
    return { id: 0, status: response.status, text, ms, ...(names === undefined ? {} : { names }) };
  } finally {
    clearTimeout(timer);
  }
}
