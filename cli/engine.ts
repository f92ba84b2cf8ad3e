/**
 * `sbe-engine <analyze|tick|ticks> [file|-] [--ticks n]`: runs the engine on a request body
 * from a file or stdin and prints exactly the JSON body `POST /api/engine` would return.
 */

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { classifyFailure, errorBody } from '../lib/api/errors';
import { parseJsonRequestBody } from '../lib/api/request-body';
import { createRunEngine } from '../lib/app';
import type { Env } from '../lib/config/env';
import { readLimits } from '../lib/config/limits';
import { isMainModule } from '../lib/main-module';
import { type TextOutput, UsageError, usageErrorLine } from './common';

export const USAGE = `Usage: sbe-engine <analyze|tick|ticks> [file|-] [--ticks n]

Runs the engine locally on a request body and prints the response JSON exactly as
POST /api/engine would return it (followed by a newline).

  <mode>       analyze, tick or ticks; overrides any "mode" in the body
  [file|-]     the request body, direct ({ nodes, dependencies }) or nested
               ({ payload|system|record|data|graph: { nodes, dependencies } });
               "-" or nothing reads stdin
  --ticks n    steps to run in mode ticks (1-1000); overrides any "ticks" in the body
  -h, --help   show this text

Errors in the request are printed to stderr as the API's { "error": { "code", "message" } }
body, with exit status 1; a mistake on the command line as one "error: ..." line, exit 2. The API's limits apply, read from the same environment variables
(MAX_BODY_BYTES, MAX_NODES, MAX_DEPENDENCIES, MAX_TICKS, ...).

Examples:
  sbe-engine analyze example.json
  cat example.json | sbe-engine ticks --ticks 3
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
    const bytes = command.file === undefined ? await readStdin(io.stdin) : await readInputFile(command.file);
    const body = parseJsonRequestBody(bytes, {
      maxBytes: limits.maxBodyBytes,
      maxDecodedBytes: limits.maxDecodedBodyBytes,
    });
    // The API's own use case, without stored systems: a body is read as it stands.
    const answer = await createRunEngine({ limits })({ body: withCommandLine(body, command) });
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
  mode: string;
  file: string | undefined;
  ticks: unknown;
}

function parseCommandLine(argv: readonly string[]): EngineCommand | 'help' {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help) return 'help';
  const [mode, file, ...extra] = parsed.positionals;
  if (mode === undefined) throw new UsageError('give a mode: analyze, tick or ticks');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const rawTicks = parsed.values.ticks;
  if (rawTicks !== undefined && mode !== 'ticks') throw new UsageError('--ticks applies only to mode ticks');
  // A number when it reads as one; otherwise the text itself, so the request check reports it
  // exactly as the API would report a bad "ticks".
  const ticks =
    rawTicks !== undefined && /^-?\d+(\.\d+)?$/.test(rawTicks.trim()) ? Number(rawTicks) : rawTicks;
  return { mode, file: file === '-' ? undefined : file, ticks };
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { ticks: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}

/** The command line's mode (and ticks) at the top level, where they take precedence over the body's. */
function withCommandLine(body: unknown, command: EngineCommand): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return { ...body, mode: command.mode, ...(command.ticks === undefined ? {} : { ticks: command.ticks }) };
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
