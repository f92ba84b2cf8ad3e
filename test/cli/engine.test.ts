import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../cli/engine';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { readLimits } from '../../lib/config/limits';
import { WORKED } from '../http/events';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'sbe-engine-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

/** Runs the CLI function with in-memory streams; stdin is `input` (not a terminal). */
async function run(argv: string[], input = '', env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runEngineCli(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: Readable.from([Buffer.from(input)]),
    env,
  });
  return { code, stdout, stderr };
}

/** What the API answers for the same body, as text. */
const apiBody = (body: unknown) => renderEngineResponse(parseEngineRequest(body, readLimits({})));

describe('sbe-engine', () => {
  // The worked example in a file, direct format, no mode in the body: the mode comes from argv.
  it('prints the analyze response for a file, exactly as the API would', async () => {
    const path = file('worked.json', JSON.stringify(WORKED));
    const { code, stdout, stderr } = await run(['analyze', path]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(`${apiBody({ mode: 'analyze', ...WORKED })}\n`);
    expect(JSON.parse(stdout).engine.primaryBlockage).toBe('B');
  });

  // The same structure piped in, nested under "payload", with --ticks overriding the body's ticks.
  it('reads stdin, accepts a container and lets --ticks override the body', async () => {
    const body = JSON.stringify({ mode: 'analyze', ticks: 9, payload: WORKED });
    const { code, stdout } = await run(['ticks', '-', '--ticks', '3'], body);
    expect(code).toBe(0);
    const answer = JSON.parse(stdout);
    expect(answer.mode).toBe('ticks');
    expect(answer.ticks).toBe(3);
    expect(answer.snapshots.at(-1).events.map((e: { type: string }) => e.type)).toEqual([
      'drained',
      'settled',
    ]);
    expect(stdout).toBe(`${apiBody({ mode: 'ticks', ticks: 3, payload: WORKED })}\n`);
  });

  // An open structure (arrivals, an exit, fan-out): the steady state comes out as the API's.
  it('answers open structures with their steady state, as the API would', async () => {
    const open = {
      nodes: [
        { id: 'F', arrival: 10, fanout: true },
        { id: 'B', capacity: 15, exit: 1 },
      ],
      dependencies: [{ from: 'F', to: 'B', weight: 2 }],
    };
    const { code, stdout } = await run(['analyze', file('open.json', JSON.stringify(open))]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${apiBody({ mode: 'analyze', ...open })}\n`);
    expect(JSON.parse(stdout).engine.headroom).toEqual({ scale: 0.75, node: 'B' });
  });

  it('reads stdin when no file is given', async () => {
    const { code, stdout } = await run(['tick'], JSON.stringify(WORKED));
    expect(code).toBe(0);
    expect(JSON.parse(stdout).snapshot.primaryBlockage).toBe('C');
  });

  // Errors use the API's error body on stderr and exit status 1; stdout stays empty.
  it.each<[string, string[], string, string]>([
    ['an unknown mode', ['simulate'], JSON.stringify(WORKED), 'INVALID_MODE'],
    ['a bad --ticks', ['ticks', '--ticks', 'abc'], JSON.stringify(WORKED), 'INVALID_TICKS'],
    [
      'a dangling dependency',
      ['analyze'],
      JSON.stringify({ nodes: [{ id: 'A' }], dependencies: [{ from: 'A', to: 'Z' }] }),
      'PAYLOAD_ERROR',
    ],
    ['broken JSON', ['analyze'], '{"nodes":', 'PAYLOAD_ERROR'],
  ])('reports %s as a JSON error on stderr with exit 1', async (_name, argv, input, code) => {
    const result = await run(argv, input);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const error = JSON.parse(result.stderr);
    expect(error.error.code).toBe(code);
    expect(typeof error.error.message).toBe('string');
  });

  // A mistake on the command line is not an API error: one line pointing at --help, exit 2.
  it.each<[string, string[], string, RegExp]>([
    ['--ticks without mode ticks', ['analyze', '--ticks', '3'], JSON.stringify(WORKED), /only to mode ticks/],
    ['an unknown option', ['analyze', '--tick', '3'], JSON.stringify(WORKED), /--tick/],
    ['a missing file', ['analyze', join(folder, 'missing.json')], '', /no such file/],
  ])('reports %s as a usage error with exit 2', async (_name, argv, input, message) => {
    const result = await run(argv, input);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .*\. Run "sbe-engine --help" for usage\.\n$/);
    expect(result.stderr).toMatch(message);
  });

  // The API's limits apply, from the same variables.
  it('applies the API limits from the environment', async () => {
    const result = await run(['analyze'], JSON.stringify(WORKED), { MAX_NODES: '2' });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.code).toBe('LIMIT_EXCEEDED');
  });

  it('prints usage for --help', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: sbe-engine [analyze|tick|ticks] [file|-] [--ticks n]');
  });

  // The installed launcher, as `npx sbe-engine` runs it: a real process, tsx registered by the launcher.
  it('runs through bin/sbe-engine.mjs', async () => {
    const path = file('launcher.json', JSON.stringify(WORKED));
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/sbe-engine.mjs', 'analyze', path], {
      cwd: repositoryRoot,
    });
    expect(stdout).toBe(`${apiBody({ mode: 'analyze', ...WORKED })}\n`);
  });

  // What if B's capacity halves? The scenario from a file, compared with the structure as it is:
  // the same text the API gives for the body with "scenario" and "compare".
  it('runs a scenario file and compares, as the API would', async () => {
    const body = file('what-if-body.json', JSON.stringify(WORKED));
    const scenario = { nodes: { B: { capacity: 2 } } };
    const scenarioPath = file('halve-b.json', JSON.stringify(scenario));
    const { code, stdout, stderr } = await run(['tick', body, '--scenario', scenarioPath, '--compare']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(`${apiBody({ mode: 'tick', ...WORKED, scenario, compare: true })}\n`);
    expect(JSON.parse(stdout).changes.primaryBlockage).toEqual({ before: 'C', after: 'B' });
    // The scenario on stdin, the body from a file; --scenario overrides one in the body.
    const piped = await run(
      [
        'analyze',
        file('with-own.json', JSON.stringify({ ...WORKED, scenario: { scale: 9 } })),
        '--scenario',
        '-',
      ],
      JSON.stringify(scenario),
    );
    expect(piped.stdout).toBe(`${apiBody({ mode: 'analyze', ...WORKED, scenario })}\n`);
  });

  // A scenario the structure does not fit is the API's error; a file that is not JSON, or
  // --compare alone, are reported as the API or the command line would.
  it('reports scenario mistakes', async () => {
    const body = file('mistakes.json', JSON.stringify(WORKED));
    const unknown = await run([
      'analyze',
      body,
      '--scenario',
      file('unknown.json', '{"nodes":{"Z":{"down":true}}}'),
    ]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({
      code: 'PAYLOAD_ERROR',
      message: 'scenario.nodes.Z: unknown node "Z"',
    });
    const notJson = await run(['analyze', body, '--scenario', file('broken.json', '{"scale":')]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^error: the scenario .*broken\.json is not JSON/);
    const alone = await run(['analyze', body, '--compare']);
    expect(alone.code).toBe(1);
    expect(JSON.parse(alone.stderr).error.message).toMatch(/^compare: needs a "scenario"/);
  });

  // As `npx sbe-engine --scenario file.json --compare` runs it, through the launcher.
  it('runs a scenario through bin/sbe-engine.mjs', async () => {
    const body = file('launcher-what-if.json', JSON.stringify(WORKED));
    const scenarioPath = file('launcher-scenario.json', JSON.stringify({ scale: 2 }));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/sbe-engine.mjs', 'analyze', body, '--scenario', scenarioPath, '--compare'],
      { cwd: repositoryRoot },
    );
    expect(stdout).toBe(
      `${apiBody({ mode: 'analyze', ...WORKED, scenario: { scale: 2 }, compare: true })}\n`,
    );
  });
});
