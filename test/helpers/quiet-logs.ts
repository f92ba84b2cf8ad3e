/**
 * Keeps the service's JSON log lines (request logs, warnings) out of `npm test`'s output: each
 * line a test's code writes to stdout or stderr is held back, and printed only when the test
 * fails, after vitest's report of the failure. Everything else a process writes passes as it is.
 * A vitest setup file: it runs in every test worker before the test file.
 */
import { afterEach, beforeEach } from 'vitest';

/** A line of the service's own logger (Powertools' JSON). */
const LOG_LINE = /^\{"(level|cold_start|timestamp)"/;

/** Lines written outside any test (a beforeAll starting a server), then those of the running test. */
const outside: string[] = [];
let held = outside;

/**
 * Where the stream's own `write` is kept: test files that share a worker's modules (vitest.config.ts)
 * run this file once each, and each time wraps the stream's own `write`, not the last wrapper.
 */
const OWN_WRITE = Symbol.for('quiet-logs: the stream’s own write');

function holdLogLines(stream: NodeJS.WriteStream & { [OWN_WRITE]?: typeof stream.write }): void {
  stream[OWN_WRITE] ??= stream.write.bind(stream);
  const write = stream[OWN_WRITE] as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text =
      typeof chunk === 'string'
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : '';
    if (LOG_LINE.test(text)) {
      held.push(text.endsWith('\n') ? text : `${text}\n`);
      // Outside tests nothing clears them but a failure: the last thousand are plenty to read.
      if (held === outside && outside.length > 1000) outside.shift();
      // Keeps to write()'s contract: a callback, if given, hears that the chunk was handled.
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

holdLogLines(process.stdout);
holdLogLines(process.stderr);

const realStderr = process.stderr;

beforeEach(({ onTestFailed, task }) => {
  const mine: string[] = [];
  held = mine;
  onTestFailed(() => {
    const lines = [...outside.splice(0), ...mine];
    if (lines.length === 0) return;
    realStderr.write(
      `\n── log lines held back during "${task.name}" (${lines.length}) ──\n${lines.join('')}`,
    );
  });
});

afterEach(() => {
  held = outside;
});
