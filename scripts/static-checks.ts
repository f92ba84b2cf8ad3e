/**
 * `npm test`'s static checks (`npm run typecheck`, `lint` and `knip`'s commands), in two lanes at
 * once: the service's type check (about 23 s, single-threaded) in one, the explorer's type check,
 * lint and both unused-code passes (about 23 s together) in the other. One after another they
 * took some 46 s on 2 cores, one of them idle. Each command's output is printed whole when it
 * ends, under its name. A lane stops at its first failure; the exit code is that command's (the
 * first lane's when both fail), 0 when all pass.
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../lib/script-args';

/**
 * Each lane's commands, run in order; the lanes run side by side. Lint and knip run as their npm
 * scripts, so their flags stay written once; the type check's two projects are split between the
 * lanes, its script running them one after the other.
 */
const LANES: ReadonlyArray<ReadonlyArray<readonly string[]>> = [
  [['tsc', '--noEmit']],
  [
    ['tsc', '--noEmit', '-p', 'explorer'],
    ['npm', 'run', '-s', 'lint'],
    ['npm', 'run', '-s', 'knip'],
  ],
];

scriptArgs({
  command: 'npm run checks',
  usage: `The static checks npm test runs before the tests: the type checks (service and explorer),
Biome and knip's two passes, two at a time. Each command's output is printed when it ends.

  -h, --help    this text`,
  options: {},
});

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BINARIES = join(PROJECT_ROOT, 'node_modules', '.bin');

/** Runs one command (node_modules/.bin first on its path), in the project's root; resolves with its exit code once its output is printed. */
function run(command: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${BINARIES}${delimiter}${process.env.PATH ?? ''}`, FORCE_COLOR: '0' },
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const finish = (code: number) => {
      process.stdout.write(`\n> ${command.join(' ')}${code === 0 ? '' : `  (exit ${code})`}\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code);
    };
    child.on('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      finish(127);
    });
    child.on('close', (code, signal) => finish(code ?? (signal === null ? 1 : 128)));
  });
}

async function runLane(commands: ReadonlyArray<readonly string[]>): Promise<number> {
  for (const command of commands) {
    const code = await run(command);
    if (code !== 0) return code;
  }
  return 0;
}

const codes = await Promise.all(LANES.map(runLane));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
