/**
 * Every npm script of the project's own answers `--help` with its usage and exit 0, doing
 * nothing else (no server started, no file written, no benchmark run); an unknown flag is one
 * line naming it with where the usage is, exit 2, never a stack trace. Run as a reader runs
 * them: `npm run <script> -- --help`. The commands run a few at a time (each test waits on its
 * own process, and the file took 20–30 s one after another).
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';
import { PROJECT_ROOT } from '../infra/project';

const run = promisify(execFile);

/** The script, and the start of its usage text. */
const SCRIPTS: Array<[string, string]> = [
  ['start', 'Usage: npm start'],
  ['checks', 'Usage: npm run checks'],
  ['bench', 'Usage: npm run bench'],
  ['bench:bundle', 'Usage: npm run bench:bundle'],
  ['bench:explorer', 'Usage: npm run bench:explorer'],
  ['load', 'Usage: npm run load'],
  ['openapi', 'Usage: npm run openapi'],
  ['keys', 'Usage: npm run keys'],
  ['sweep', 'Usage: npm run sweep'],
  ['token', 'Usage: npm run token'],
  ['screenshots', 'Usage: npm run screenshots'],
];

function npmRun(script: string, flag: string) {
  return npmRunWith(script, [flag]);
}

async function npmRunWith(script: string, flags: readonly string[]) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '-s', script, '--', ...flags], {
      cwd: PROJECT_ROOT,
      // Nothing is running: the scripts must not need a server or a table to print their usage.
      env: { ...process.env, PORT: '3999' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run <script> -- --help', () => {
  it.concurrent.for(SCRIPTS)(
    '%s prints its usage and exits 0, doing nothing else',
    async ([script, usage], { expect }) => {
      const openapi = statSync(join(PROJECT_ROOT, 'openapi.json')).mtimeMs;
      const { code, stdout, stderr } = await npmRun(script, '--help');
      expect(code, stderr).toBe(0);
      expect(stdout).toContain(usage);
      expect(stdout).not.toMatch(/listening|^wrote |^(PASS|MISS) /m);
      expect(statSync(join(PROJECT_ROOT, 'openapi.json')).mtimeMs).toBe(openapi);
    },
  );

  it.concurrent.for(SCRIPTS)(
    '%s refuses an unknown flag in one line, exit 2',
    async ([script], { expect }) => {
      const { code, stdout, stderr } = await npmRun(script, '--frobnicate');
      expect(code).toBe(2);
      expect(stdout).toBe('');
      const errorLines = stderr.split('\n').filter((line) => line.startsWith('error:'));
      expect(errorLines).toHaveLength(1);
      expect(errorLines[0]).toMatch(/'--frobnicate'.*for usage\.$/);
      expect(stderr).not.toMatch(/\n\s+at /);
    },
  );
});

// A value a script cannot use is refused the same way: one line naming the flag and what it
// takes, exit 2, no stack trace (bench:bundle threw "--rounds must be a positive integer" with
// its stack before).
describe('npm run <script> with a bad value', () => {
  it.concurrent.for<[string, string[], RegExp]>([
    ['bench:bundle', ['--rounds', '0'], /^error: --rounds takes a whole number of 1 or more, got "0"\./],
    [
      'bench:bundle',
      ['--rounds', 'many'],
      /^error: --rounds takes a whole number of 1 or more, got "many"\./,
    ],
    ['bench', ['--only=everything'], /^error: --only takes "compare", .* got "everything"\./],
    ['load', ['--duration', '0'], /^error: --duration must be an integer from 1 to \d+, got "0"\./],
    ['load', ['--scenario', 'bogus'], /^error: --scenario must be all, or one or more of /],
    ['load', ['--url', 'http://127.0.0.1:3000'], /^error: --url needs --api-key/],
  ])('%s %s is refused in one line, exit 2', async ([script, flags, message], { expect }) => {
    const { code, stdout, stderr } = await npmRunWith(script, flags);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n').filter((line) => line.startsWith('error:'))).toHaveLength(1);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

// Scripts that are a tool's command line pass --help to the tool, which prints its own usage.
// (test, typecheck and knip run several tools in turn; --help reaches the last.)
describe('npm run <tool script> -- --help', () => {
  it.concurrent.for<[string, string]>([
    ['lint', 'Checks the specified files'],
    ['format', 'Checks the specified files'],
    ['openapi:lint', 'redocly lint'],
    ['synth', 'cdk synth'],
    ['test:unit', 'vitest'],
  ])('%s prints the tool’s usage and exits 0', async ([script, usage], { expect }) => {
    const { code, stdout, stderr } = await npmRun(script, '--help');
    expect(code, stderr).toBe(0);
    expect(stdout + stderr).toContain(usage);
  });
});
