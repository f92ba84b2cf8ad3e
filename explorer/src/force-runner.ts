import type { ForceAnswer, ForceRequest } from './force-placement';

/**
 * The page's side of the force worker (force-worker.ts): one layout at a time. A new request
 * ends the worker still busy with an older one (its answer would not be drawn), so a large
 * structure replaced by another does not keep a core busy for nothing.
 */
let worker: Worker | undefined;
let busy: { id: number; reject: (reason: unknown) => void } | undefined;
let nextId = 0;

/** Positions by ForceAtlas2 for `nodeCount` nodes joined by `edges`, laid out for a view `aspect` wide and 1 high. */
export function forceLayout(
  nodeCount: number,
  edges: ReadonlyArray<readonly [number, number]>,
  aspect: number,
): Promise<ForceAnswer> {
  if (busy !== undefined) {
    worker?.terminate();
    worker = undefined;
    busy.reject(new Error('superseded'));
    busy = undefined;
  }
  worker ??= new Worker('/force-worker.js', { type: 'module' });
  const from = Int32Array.from(edges, ([a]) => a);
  const to = Int32Array.from(edges, ([, b]) => b);
  const id = ++nextId;
  const request: ForceRequest = { id, nodeCount, from, to, aspect };
  const started = worker;
  return new Promise((resolve, reject) => {
    busy = { id, reject };
    started.onmessage = (event: MessageEvent<ForceAnswer>) => {
      if (busy?.id !== event.data.id) return;
      busy = undefined;
      resolve(event.data);
    };
    started.onerror = (event) => {
      event.preventDefault();
      if (busy?.id === id) busy = undefined;
      if (worker === started) worker = undefined;
      started.terminate();
      reject(new Error(event.message || 'the force layout worker failed'));
    };
    started.postMessage(request, [from.buffer, to.buffer]);
  });
}
