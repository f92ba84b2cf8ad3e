/**
 * The command line of the project's scripts (`npm start`, the benchmarks, `npm run openapi`):
 * `--help` (or `-h`) prints the usage and exits 0 before anything else happens; a flag the
 * script does not take is one line on stderr naming it, with where the usage is, and exit 2 —
 * never a stack trace, never a run with the flag ignored.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

export interface ScriptCommandLine<T extends ParseArgsOptionsConfig> {
  /** How the script is run, e.g. `npm run load`: the usage text starts with it. */
  command: string;
  /** What the script does and its options, one per line, shown after the usage line. */
  usage: string;
  options: T;
}

/** What the script was given, or the process ends: 0 after `--help`, 2 after a mistake. */
export function scriptArgs<T extends ParseArgsOptionsConfig>(
  line: ScriptCommandLine<T>,
  argv: readonly string[] = process.argv.slice(2),
): ReturnType<typeof parseArgs<{ options: T }>>['values'] {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { ...line.options, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    refuseCommandLine(line.command, parseArgsProblem(error));
  }
  if (values.help === true) {
    const options = Object.keys(line.options).length > 0 ? ' -- [options]' : '';
    process.stdout.write(`Usage: ${line.command}${options}\n\n${line.usage.trim()}\n`);
    process.exit(0);
  }
  return values as ReturnType<typeof parseArgs<{ options: T }>>['values'];
}

/**
 * node:util's `parseArgs` error in one line: its own first line names the flag ("Unknown option
 * '--bogus'"), except for a value that starts with a dash, whose first line alone ("argument is
 * ambiguous") does not say what to do.
 */
export function parseArgsProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(message);
  if (ambiguous !== null) {
    return `${ambiguous[1]} takes a value: write it as ${ambiguous[1]}=<value> when it starts with a dash`;
  }
  // The first sentence: the rest is advice for positional arguments these commands do not take.
  return (message.split('\n')[0] ?? '').split(/\.\s/)[0]!.replace(/\.$/, '');
}

/**
 * A mistake on the command line: one line on stderr naming it, where the usage is, and exit 2.
 *
 * @internal also how `npm run load` (bench/load.ts) refuses an option value it cannot use.
 */
export function refuseCommandLine(command: string, problem: string): never {
  process.stderr.write(`error: ${problem}. Run "${command} -- --help" for usage.\n`);
  process.exit(2);
}
