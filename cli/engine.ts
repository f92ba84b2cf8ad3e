/**
 * `sbe-engine <analyze|tick|ticks> [file|-] [--ticks n] [--scenario file] [--compare]`: runs the
 * engine on a request body from a file or stdin and prints exactly the JSON body
 * `POST /api/engine` would return.
 */

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { classifyFailure, errorBody } from '../lib/api/errors';
import { parseJsonRequestBody } from '../lib/api/request-body';
import { MODES, type Mode } from '../lib/api/request-shape';
import { createRunEngine } from '../lib/app';
import type { Env } from '../lib/config/env';
import { readLimits } from '../lib/config/limits';
import { isMainModule } from '../lib/main-module';
import { type TextOutput, UsageError, usageErrorFrom, usageErrorLine } from './common';

export const USAGE = `Usage: sbe-engine [analyze|tick|ticks] [file|-] [--ticks n] [--scenario file] [--compare]

Runs the engine locally on a request body and prints the response JSON exactly as
POST /api/engine would return it (followed by a newline).

  [mode]       analyze, tick or ticks; overrides any "mode" in the body (without
               it, the body's own "mode" is used; a first argument with a "." or "/"
               in it, or "-", is then the file)
  [file|-]     the request body, direct ({ nodes, dependencies }) or nested
               ({ payload|system|record|data|graph: { nodes, dependencies } });
               "-" or nothing reads stdin
  --ticks n    steps to run in mode ticks (1-1000); overrides any "ticks" in the body
  --scenario file
               a JSON file holding a scenario { scale?, nodes?, dependencies? } to run
               the structure under (what if), "-" for stdin; overrides any "scenario"
               in the body
  --compare    add the baseline (the structure without the scenario) and the changes
  -h, --help   show this text

Errors in the request are printed to stderr as the API's { "error": { "code", "message" } }
body, with exit status 1; a mistake on the command line as one "error: ..." line, exit 2. The API's limits apply, read from the same environment variables
(MAX_BODY_BYTES, MAX_NODES, MAX_DEPENDENCIES, MAX_TICKS, ...).

Examples:
  sbe-engine analyze example.json
  cat example.json | sbe-engine ticks --ticks 3
  sbe-engine analyze example.json --scenario halve-b.json --compare
`;

export interface EngineCliIo {
  stdout: TextOutput;
  stderr: TextOutput;
  /** Read when no file (or `-`) is given. */
  stdin: AsyncIterable<Uint8Array | string> & { isTTY?: boolean };
  /** Where the limits are read from. Default `process.env`. */
  env?: Env;
}

/** The whole CLI minus process wiring. Returns the exit status; never throws. */
export async function runEngineCli(argv: readonly string[], io: EngineCliIo): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    if (command === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    const limits = readLimits(io.env ?? process.env);
    const scenario =
      command.scenarioFile === undefined ? undefined : await readScenarioFile(command.scenarioFile, io.stdin);
    const bytes = command.file === undefined ? await readStdin(io.stdin) : await readInputFile(command.file);
    const body = parseJsonRequestBody(bytes, {
      maxBytes: limits.maxBodyBytes,
      maxDecodedBytes: limits.maxDecodedBodyBytes,
    });
    // The API's own use case, without stored systems: a body is read as it stands.
    const answer = await createRunEngine({ limits })({ body: withCommandLine(body, command, scenario) });
    io.stdout.write(`${answer.json}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(usageErrorLine(error, 'sbe-engine --help'));
      return 2;
    }
    const { error: answer } = classifyFailure(error);
    io.stderr.write(`${JSON.stringify(errorBody(answer))}\n`);
    return 1;
  }
}

interface EngineCommand {
  /** `undefined`: the body's own mode. */
  mode: string | undefined;
  file: string | undefined;
  ticks: unknown;
  scenarioFile: string | undefined;
  compare: boolean;
}

function parseCommandLine(argv: readonly string[]): EngineCommand | 'help' {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    throw usageErrorFrom(error);
  }
  if (parsed.values.help) return 'help';
  // The mode may be left to the body: a first argument that reads as a path (`-`, or with a
  // dot or slash in it) and is no mode is the file. Anything else is the mode, so a mistyped
  // one is reported as the API reports it.
  const positionals = [...parsed.positionals];
  const first = positionals[0];
  const isPath =
    first !== undefined && !MODES.includes(first as Mode) && (first === '-' || /[./\\]/.test(first));
  const mode = first === undefined || isPath ? undefined : positionals.shift();
  const [file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const rawTicks = parsed.values.ticks;
  if (rawTicks !== undefined && mode !== undefined && mode !== 'ticks') {
    throw new UsageError('--ticks applies only to mode ticks');
  }
  // A number when it reads as one; otherwise the text itself, so the request check reports it
  // exactly as the API would report a bad "ticks".
  const ticks =
    rawTicks !== undefined && /^-?\d+(\.\d+)?$/.test(rawTicks.trim()) ? Number(rawTicks) : rawTicks;
  const scenarioFile = parsed.values.scenario;
  if (scenarioFile === '-' && (file === undefined || file === '-')) {
    throw new UsageError('stdin can hold the body or the scenario, not both; give the body as a file');
  }
  return {
    mode,
    file: file === '-' ? undefined : file,
    ticks,
    scenarioFile,
    compare: parsed.values.compare === true,
  };
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ticks: { type: 'string' },
      scenario: { type: 'string' },
      compare: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * The command line's mode (and ticks, scenario, compare) at the top level, where they take
 * precedence over the body's.
 */
function withCommandLine(body: unknown, command: EngineCommand, scenario: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return {
    ...body,
    ...(command.mode === undefined ? {} : { mode: command.mode }),
    ...(command.ticks === undefined ? {} : { ticks: command.ticks }),
    ...(command.scenarioFile === undefined ? {} : { scenario }),
    ...(command.compare ? { compare: true } : {}),
  };
}

/** The scenario file's JSON; what it holds is checked with the request, as the API checks it. */
async function readScenarioFile(path: string, stdin: EngineCliIo['stdin']): Promise<unknown> {
  const bytes = path === '-' ? await readStdin(stdin) : await readInputFile(path);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw new UsageError(
      `the scenario ${path === '-' ? 'on stdin' : path} is not JSON: ${(error as Error).message}`,
    );
  }
}

async function readInputFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`cannot read ${path}: ${reason}`);
  }
}

async function readStdin(stdin: EngineCliIo['stdin']): Promise<Buffer> {
  if (stdin.isTTY) throw new UsageError('no input: give a file, or pipe the request body on stdin');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Process wiring for `bin/sbe-engine.mjs` and `tsx cli/engine.ts`. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await runEngineCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  });
}

if (isMainModule(import.meta.url)) void main();
