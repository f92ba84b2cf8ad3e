/**
 * One registration of `npm run bench -- --only=spans` (bench/spans.ts), in a process of its own
 * so that its memory is its own: dynalite in this process, the connect use case fetching
 * `argv[2]` (a span document the bench serves on 127.0.0.1) with `window` `argv[3]` seconds.
 * Writes one JSON line to file descriptor 3: the time, the resident set before and its peak
 * during the registration (Linux's VmHWM, reset first; elsewhere sampled every 5 ms), and what
 * was registered or why not.
 */
import { readFileSync, writeFileSync, writeSync } from 'node:fs';
import { startTestDatabase } from '../test/helpers/dynalite';
import { loopbackConnect } from './registration';

const [url, window] = process.argv.slice(2);
if (url === undefined || window === undefined) throw new Error('usage: spans-connect.ts <url> <window>');

/** The kernel's peak resident set of this process, in bytes, or undefined off Linux. */
function highWaterMark(): number | undefined {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** Starts the kernel's peak over from the current resident set; false where it cannot. */
function resetHighWaterMark(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

const db = await startTestDatabase();
const connect = loopbackConnect(db);
globalThis.gc?.();
const startRss = process.memoryUsage.rss();
const kernelPeak = resetHighWaterMark();
let sampled = startRss;
const sampler = setInterval(() => {
  sampled = Math.max(sampled, process.memoryUsage.rss());
}, 5);
const started = performance.now();
let outcome: Record<string, unknown>;
try {
  const answer = await connect('bench', { name: 'spans', url, window: Number(window) });
  if ('dryRun' in answer) throw new Error('expected a registration');
  outcome = {
    registered: true,
    format: answer.format,
    nodes: answer.nodes,
    dependencies: answer.dependencies,
  };
} catch (error) {
  outcome = { registered: false, error: error instanceof Error ? error.message : String(error) };
}
const ms = performance.now() - started;
clearInterval(sampler);
sampled = Math.max(sampled, process.memoryUsage.rss());
const peakRssBytes = (kernelPeak ? highWaterMark() : undefined) ?? sampled;
writeSync(3, `${JSON.stringify({ ...outcome, ms, startRssBytes: startRss, peakRssBytes })}\n`);
await db.close();
