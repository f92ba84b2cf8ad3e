/** What the CLIs share: where they write, and how a command-line mistake is reported. */
import { parseArgsProblem } from '../lib/script-args';

export interface TextOutput {
  write(chunk: string): unknown;
}

/** A mistake on the command line: reported on one line with a pointer to the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `error: <what>. Run "<help>" for usage.` */
export function usageErrorLine(error: UsageError, helpCommand: string): string {
  return `error: ${error.message}. Run "${helpCommand}" for usage.\n`;
}

/**
 * A command-line parser's complaint as a usage error: its first sentence, which names the flag
 * (node:util adds advice on positionals that starts a second one).
 */
export function usageErrorFrom(error: unknown): UsageError {
  return new UsageError(parseArgsProblem(error));
}

/**
 * Ends the process on a write to stdout that fails, as Unix tools end, never with Node's stack
 * trace for an unhandled 'error' event: silently with 141 (128 + SIGPIPE, the status a tool
 * killed by the signal has) when the reader has gone (`| head`: EPIPE), with one line on stderr
 * and 1 otherwise (a full disk: ENOSPC).
 */
export function endOnOutputError(stdout: NodeJS.WriteStream = process.stdout): void {
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(141);
    process.stderr.write(`error: could not write the output: ${error.message}\n`);
    process.exit(1);
  });
}
