/** What the CLIs share: where they write, and how a command-line mistake is reported. */

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
