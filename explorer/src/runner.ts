import type { LatencyPoints } from './latency-points';
import type { RunAnswer, RunRequest, WorkerRequest } from './protocol';

/**
 * Where a request body runs: in the engine worker (the service's own code, the same bytes as the
 * API) or on the server (`POST /api/engine` with an API key).
 */
const worker = new Worker('/engine-worker.js', { type: 'module' });
let nextRun = 0;
const pending = new Map<number, (answer: RunAnswer) => void>();
worker.onmessage = (event: MessageEvent<RunAnswer>) => {
  pending.get(event.data.id)?.(event.data);
  pending.delete(event.data.id);
};

/** A request as a caller writes it: the id is the runner's (distributed, so each kind keeps its fields). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

function ask(request: Unnumbered<WorkerRequest>): Promise<RunAnswer> {
  const id = ++nextRun;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, ...request });
  });
}

export function runInWorker(body: string, kind: RunRequest['kind'] = 'run'): Promise<RunAnswer> {
  return ask({ kind, body });
}

/**
 * The latency chart's points for `entry` of the structure `body` describes (a body the worker
 * ran: the answer on show), placing `slo` on the curve; `undefined` when it has no curve.
 */
export async function latencyPointsInWorker(
  body: string,
  entry: string,
  slo: number | undefined,
): Promise<LatencyPoints | undefined> {
  const answer = await ask({ kind: 'latency', body, entry, ...(slo === undefined ? {} : { slo }) });
  return answer.latency;
}

export async function runOnServer(body: string, apiKey: string): Promise<RunAnswer> {
  const started = performance.now();
  const response = await fetch('/api/engine', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body,
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) return { id: 0, status: response.status, text, ms };
  const { names } = await runInWorker(body, 'names');
  return { id: 0, status: response.status, text, ms, ...(names === undefined ? {} : { names }) };
}
