import { createServer } from 'node:net';
import { threadId } from 'node:worker_threads';

/**
 * Linux hands out 32768–60999 to `listen(0)` and to outgoing connections. A port chosen now and
 * bound later (a server's DynamoDB, restarted between tests) must come from below that range, or
 * another test file's connection can take it in between.
 */
const FIRST = 10_000;
const LAST = 32_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on now, outside the ephemeral range. Each process starts its search at
 * a place of its own (test files run in worker threads of one process, or in processes of their
 * own), so two test files running at once rarely probe the same ports.
 */
export async function freePort(): Promise<number> {
  const span = LAST - FIRST;
  const start = (process.pid * 7919 + threadId * 104_729) % span;
  for (let step = 0; step < span; step++) {
    const port = FIRST + ((start + step) % span);
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port from ${FIRST} to ${LAST} on 127.0.0.1`);
}
