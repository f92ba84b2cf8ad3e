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
    // node:util's own messages name the flag ("Unknown option '--bogus'").
    const message =
      error instanceof Error ? (error.message.split('\n')[0] ?? '').replace(/\.$/, '') : String(error);
    process.stderr.write(`error: ${message}. Run "${line.command} -- --help" for usage.\n`);
    process.exit(2);
  }
  if (values.help === true) {
    const options = Object.keys(line.options).length > 0 ? ' -- [options]' : '';
    process.stdout.write(`Usage: ${line.command}${options}\n\n${line.usage.trim()}\n`);
    process.exit(0);
  }
  return values as ReturnType<typeof parseArgs<{ options: T }>>['values'];
}
