// A worker thread's first module, in plain JavaScript (local/handler-pool.ts): registers tsx
// when the thread does not load it already, then imports the worker module (handler-worker.ts).
import { workerData } from 'node:worker_threads';

if (workerData.registerTsx) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.module);
