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
