/**
 * `npm test`'s static checks (`npm run typecheck`, `lint` and `knip`'s commands), in two lanes at
 * once: the type checks (TypeScript 7's native compiler, about 7 s for the service and 2 s for
 * the explorer) and knip's production pass in one, lint and knip's full pass (about 11 s) in the
 * other. Each command's output is printed whole when it ends, under its name. A lane stops at its
 * first failure; the exit code is that command's (the first lane's when both fail), 0 when all
 * pass.
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../lib/script-args';

/**
 * Each lane's commands, run in order; the lanes run side by side. Lint runs as its npm script;
 * knip's two passes (its script runs them one after the other) go one to each lane, and the type
 * check runs the compiler the typecheck script runs: TypeScript 7, the package
 * `typescript-native`. The service's check took 30 s (43 s of CPU) with TypeScript 5.9 and takes
 * 7 s (13 s of CPU) with it. TypeScript 5.9 stays the `typescript` package, for the tools that
 * call its API (knip, openapi-typescript), which TypeScript 7 does not have.
 */
// Plain diagnostics: TypeScript 7 colours them when FORCE_COLOR is set at all, 0 included.
const TSC = ['node', 'node_modules/typescript-native/bin/tsc', '--noEmit', '--pretty', 'false'];
const LANES: ReadonlyArray<ReadonlyArray<readonly string[]>> = [
  [TSC, [...TSC, '-p', 'explorer'], ['knip', '--production']],
  [['npm', 'run', '-s', 'lint'], ['knip']],
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
