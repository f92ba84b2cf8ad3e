import { execFile, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../cli/engine';
import type { Settings } from '../../lib/api/connect-request';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { applySettings } from '../../lib/api/system-settings';
import { readLimits } from '../../lib/config/limits';
import { readGraph } from '../../lib/formats';
import { fixturesIn } from '../formats/fixtures';
import { generate, toOtlp, toZipkin, workedExample } from '../formats/spans/traces';
import { WORKED } from '../http/events';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const FORMAT_FIXTURES = join(repositoryRoot, 'test/formats/fixtures');
const folder = mkdtempSync(join(tmpdir(), 'sbe-engine-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function file(name: string, content: string | Uint8Array): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

/** Runs the CLI function with in-memory streams; stdin is `input` (not a terminal). */
async function run(
  argv: string[],
  input: string | Uint8Array | AsyncIterable<Uint8Array> = '',
  env: Record<string, string> = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await runEngineCli(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin:
      typeof input === 'string' || input instanceof Uint8Array ? Readable.from([Buffer.from(input)]) : input,
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

  // A malformed limit is the caller's to fix: named, with what it takes, as a usage error. It was
  // the service's opaque INTERNAL_ERROR ("…please try again later"), naming nothing.
  it.each([
    [{ MAX_NODES: 'abc' }, 'error: MAX_NODES must be an integer from 1 to 1000000; got "abc". Run'],
    [{ MAX_TICKS: '0' }, 'error: MAX_TICKS must be an integer from 1 to 1000; got 0. Run'],
    [{ MAX_DEPENDENCIES: ' ' }, 'error: MAX_DEPENDENCIES is set but empty; unset it to use the default. Run'],
  ])('names a malformed limit %j', async (env, said) => {
    const result = await run(['analyze'], JSON.stringify(WORKED), env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(said)).toBe(true);
  });

  // The gateway's limits and the response's do not apply to the CLI: a value past what the API
  // takes (7 MB of body, over API Gateway's 6 MiB) stops nothing.
  it('reads none of the limits it does not apply', async () => {
    const env = { MAX_BODY_BYTES: '7000000', MAX_DECODED_BODY_BYTES: 'x', MAX_RESPONSE_BYTES: '1' };
    const result = await run(['analyze'], JSON.stringify(WORKED), env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${apiBody({ mode: 'analyze', ...WORKED })}\n`);
  });

  // Two bodies one after another (two files concatenated, a gzip of two members) are not a
  // span export read line by line: said so, not "got an array" of a body that sent none.
  it('says a file holds several documents when no format reads them line by line', async () => {
    const body = JSON.stringify({ mode: 'analyze', ...WORKED });
    const result = await run(['analyze'], `${body}\n${body}\n`);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error).toEqual({
      code: 'PAYLOAD_ERROR',
      message:
        'The file holds 2 JSON documents one after another, and none is a span export (the only documents read line by line): send one request body, or one graph, per run.',
    });
    // A format named with --format says which line it could not read, as before.
    const forced = await run(['analyze', '--format', 'otlp-traces'], '{"data":[]}\n{"data":[]}\n');
    expect(forced.code).toBe(1);
    const { error } = JSON.parse(forced.stderr);
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.details[0].path).toBe('[0]');
  });

  // An array no format claims (Zipkin-like spans with a numeric id) is never an engine body: it
  // is read as connect reads it, and the error names the formats tried and the shape it has, not
  // "request body must be a JSON object, got an array".
  it('reads an array no format claims as connect does, naming the formats', async () => {
    const result = await run(['analyze', '-'], '[{"traceId":"a","id":1}]');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error).toMatchObject({
      code: 'UPSTREAM_INVALID',
      message:
        'The document is not a graph the service can read: no known format fits this document (an array of 1, the first with keys "traceId", "id"); tried native, dependency-links, cytoscape, node-link, jgf, backstage, xray, otlp-traces, jaeger-traces, zipkin-spans, prometheus',
    });
  });

  // Bytes that are not UTF-8: what the CLI reads, and what the file likely is instead (the API's
  // own message spoke of API Gateway's U+FFFD).
  it('says what a file that is not UTF-8 likely is', async () => {
    const utf16 = await run(['analyze'], Buffer.from('\ufeff{}', 'utf16le'));
    expect(utf16.code).toBe(1);
    expect(JSON.parse(utf16.stderr).error).toEqual({
      code: 'PAYLOAD_ERROR',
      message:
        'The input is not UTF-8 text: the CLI reads JSON (or JSON Lines) in UTF-8, or gzip of it. It starts with a UTF-16 byte order mark: convert it first (`iconv -f UTF-16 -t UTF-8`).',
    });
    const brotli = await run(['analyze'], brotliCompressSync(JSON.stringify({ mode: 'analyze', ...WORKED })));
    expect(JSON.parse(brotli.stderr).error.message).toContain('If it is compressed with brotli or deflate');
    // xz, zstd and bzip2 have signatures of their own (each format's specification): named.
    // A stream header's first bytes, then bytes that are no UTF-8, as a compressed stream's are.
    for (const [name, magic] of [
      ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
      ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
      ['bzip2', [0x42, 0x5a, 0x68, 0x39]],
    ] as const) {
      const compressed = await run(['analyze'], Buffer.from([...magic, 0xff, 0xc0, 0x80, 0x00]));
      expect(JSON.parse(compressed.stderr).error.message).toContain(
        `It starts as ${name} does: decompress it first (\`${name} -dc file | sbe-engine …\`); only gzip is read as it is.`,
      );
    }
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
    // Where, in one line, as the API says it; the file's text is not quoted (V8's message quoted
    // it, line breaks included).
    const secret = await run(['analyze', body, '--scenario', file('secret.json', 'x-secret\n{}\n')]);
    expect(secret.stderr).toMatch(/is not JSON: expected a value at line 1, column 1\. Run/);
    expect(secret.stderr).not.toContain('x-secret');
    expect(secret.stderr.trim().split('\n')).toHaveLength(1);
    const alone = await run(['analyze', body, '--compare']);
    expect(alone.code).toBe(1);
    expect(JSON.parse(alone.stderr).error.message).toMatch(/^compare: needs a "scenario"/);
    // Bytes that are not UTF-8 are refused, never read as replacement characters.
    const latin1 = await run([
      'analyze',
      body,
      '--scenario',
      file('latin1.json', Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d])),
    ]);
    expect(latin1.code).toBe(2);
    expect(latin1.stderr).toMatch(/^error: the scenario .*latin1\.json is not valid UTF-8\. /);
  });

  // A scenario file is read as the body is: a byte order mark before it, or gzip, changes nothing.
  it('reads a scenario with a byte order mark, or gzipped', async () => {
    const body = file('bom-body.json', JSON.stringify(WORKED));
    const scenario = { scale: 2 };
    const expected = `${apiBody({ mode: 'analyze', ...WORKED, scenario })}\n`;
    const withBom = await run([
      'analyze',
      body,
      '--scenario',
      file('bom.json', `\uFEFF${JSON.stringify(scenario)}`),
    ]);
    expect(withBom.stdout).toBe(expected);
    const zipped = await run([
      'analyze',
      body,
      '--scenario',
      file('scenario.json.gz', gzipSync(JSON.stringify(scenario))),
    ]);
    expect(zipped.stdout).toBe(expected);
    // A gzip file cut short names the file, not "the input".
    const cut = await run([
      'analyze',
      body,
      '--scenario',
      file('cut.json.gz', gzipSync(JSON.stringify(scenario)).subarray(0, 12)),
    ]);
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(
      /^error: the scenario .*cut\.json\.gz is gzip-compressed \(magic bytes 1f 8b\) but does not decompress: /,
    );
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

// Graphs in the formats connect reads: read by the same registry and mapping, then the engine,
// with no server and no table. Each answer is the API's for the body connect would have stored.
describe('sbe-engine on traces and other formats', () => {
  // docs' span worked example, 100 requests into frontend over 10 s, as the Collector's file
  // exporter writes it (an export per line) and as one OTLP document.
  const spans = generate(workedExample(), 100, 100_000);
  const lines = `${[spans.slice(0, 200), spans.slice(200)].map((part) => JSON.stringify(toOtlp(part))).join('\n')}\n`;
  const otlp = toOtlp(spans);
  const servers = {
    nodes: { frontend: { servers: 1 }, api: { servers: 2 }, auth: { servers: 1 }, db: { servers: 1 } },
  };

  /** The body a run by systemId gets: the document read as connect reads it, settings applied. */
  function registered(document: unknown, options: Parameters<typeof readGraph>[2], settings?: Settings) {
    const read = readGraph(document, 'auto', options);
    const structure = { nodes: read.nodes, dependencies: read.dependencies };
    return settings === undefined ? structure : applySettings(structure, settings);
  }

  // From your traces to your headroom: spans, the window they cover, the servers of each service.
  it('reads a JSON Lines trace file with a window and settings, as a registered system runs', async () => {
    const { code, stdout, stderr } = await run([
      'analyze',
      file('traces.jsonl', lines),
      '--window',
      '10',
      '--settings',
      file('servers.json', JSON.stringify(servers)),
    ]);
    expect(stderr).toBe('read as otlp-traces: 4 nodes, 3 dependencies, one step is one second\n');
    expect(code).toBe(0);
    expect(stdout).toBe(`${apiBody({ mode: 'analyze', ...registered(otlp, { window: 10 }, servers) })}\n`);
    const engine = JSON.parse(stdout).engine;
    // frontend: 10 requests a second of 20 ms on one server, 0.2 busy: it saturates at ×5.
    expect(engine.headroom).toEqual({ scale: 5, node: 'frontend' });
    expect(engine.nodes.find((node: { id: string }) => node.id === 'api').throughput).toBeCloseTo(20, 9);
  });

  // Without a window: the reader's warning on stderr; the sampling rate scales the arrivals.
  it('says what the reading had to say, and divides by the sampling rate', async () => {
    const { code, stdout, stderr } = await run(
      ['analyze', '-', '--sample-rate', '0.5'],
      JSON.stringify(otlp),
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^read as otlp-traces: 4 nodes, 3 dependencies, one step is one second\nwarning: no window given: the 100 requests that entered/,
    );
    expect(stdout).toBe(`${apiBody({ mode: 'analyze', ...registered(otlp, { sampleRate: 0.5 }) })}\n`);
  });

  // Zipkin's bare array, a Prometheus answer, its labels named: detected by the registry alone.
  it('detects every format, and takes --format and --labels', async () => {
    const zipkin = toZipkin(spans);
    const fromZipkin = await run([
      'ticks',
      file('zipkin.json', JSON.stringify(zipkin)),
      '--ticks',
      '2',
      '--window',
      '10',
    ]);
    expect(fromZipkin.code).toBe(0);
    expect(fromZipkin.stderr).toBe('read as zipkin-spans: 4 nodes, 3 dependencies, one step is one second\n');
    expect(fromZipkin.stdout).toBe(
      `${apiBody({ mode: 'ticks', ticks: 2, ...registered(zipkin, { window: 10 }) })}\n`,
    );

    const rates = {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: { source_app: 'web', destination_app: 'api' }, value: [1, '4'] },
          { metric: { source_app: 'api', destination_app: 'db' }, value: [1, '8'] },
        ],
      },
    };
    const path = file('rates.json', JSON.stringify(rates));
    const labels = { from: 'source_app', to: 'destination_app' };
    const fromRates = await run([
      'analyze',
      path,
      '--format',
      'prometheus',
      '--labels',
      'source_app,destination_app',
    ]);
    expect(fromRates.code).toBe(0);
    expect(fromRates.stdout).toBe(`${apiBody({ mode: 'analyze', ...registered(rates, { labels }) })}\n`);
    expect(fromRates.stderr).toContain('warning: 1 service is called by no other ("web")');
    // Without the labels, the answer has none of the known pairs: connect's 422, on stderr.
    const unnamed = await run(['analyze', path]);
    expect(unnamed.code).toBe(1);
    expect(JSON.parse(unnamed.stderr).error).toMatchObject({
      code: 'UPSTREAM_INVALID',
      message: expect.stringMatching(
        /^The document is not a graph the service can read: data\.result: no series names a caller/,
      ),
    });
    // Forced, a format that does not fit says so.
    const forced = await run(['analyze', path, '--format', 'xray']);
    expect(JSON.parse(forced.stderr).error.message).toMatch(/not xray: /);
  });

  // Every real payload of the format tests, as `auto`: read as connect reads it (the engine's own
  // format needs both of its arrays), or refused with connect's words. A node-link, Cytoscape.js
  // or JGF v1 graph has a `nodes` array where an engine body has it, and was once run as a broken
  // engine body ("dependencies: is missing") although connect reads it.
  it('reads every fixture of the formats as connect does', async () => {
    const folders = readdirSync(FORMAT_FIXTURES, { withFileTypes: true }).filter((entry) =>
      entry.isDirectory(),
    );
    let read = 0;
    for (const { name: folder } of folders) {
      for (const { file: name, document } of fixturesIn(folder)) {
        const path = join(FORMAT_FIXTURES, folder, name);
        const result = await run(['analyze', path]);
        let expected: ReturnType<typeof registered> | Error;
        try {
          expected = registered(document, undefined);
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) {
          expect({ path, code: result.code }).toEqual({ path, code: 1 });
          const error = JSON.parse(result.stderr).error as { code: string; message: string };
          expect({ path, code: error.code }).toEqual({ path, code: 'UPSTREAM_INVALID' });
          expect(error.message).toContain(expected.message);
        } else {
          read++;
          expect({ path, code: result.code, stdout: result.stdout }).toEqual({
            path,
            code: 0,
            stdout: `${apiBody({ mode: 'analyze', ...expected })}\n`,
          });
        }
      }
    }
    expect(read).toBeGreaterThan(40);
    // With a mode of its own, a body is a request body, whatever else it carries: one missing its
    // dependencies is told so (not to give a mode it has).
    const half = file(
      'mode-links.json',
      JSON.stringify({ mode: 'analyze', nodes: [{ id: 'a' }], links: [] }),
    );
    const told = await run(['analyze', half]);
    expect(told.code).toBe(1);
    expect(JSON.parse(told.stderr).error.message).toBe(
      'dependencies: is missing; send an array (an empty one when there are no dependencies)',
    );
  });

  // A JSON Lines line that is not JSON is named, as connect names it.
  it('names the line of a JSON Lines file that is not JSON', async () => {
    const { code, stderr } = await run([
      'analyze',
      file('broken.jsonl', `${JSON.stringify(otlp)}\n{"resourceSpans":\n`),
    ]);
    expect(code).toBe(1);
    expect(JSON.parse(stderr).error).toMatchObject({
      code: 'UPSTREAM_INVALID',
      details: [{ path: 'line 2' }],
      message: expect.stringMatching(
        /^The file is JSON Lines \(a JSON object or array on each line\), but line 2: is not JSON/,
      ),
    });
  });

  // The engine's own format stands as it is: the read options are not its, and say so.
  it("leaves the engine's own format as it is, settings applied", async () => {
    const path = file('own.json', JSON.stringify({ payload: WORKED }));
    const plain = await run(['analyze', path, '--window', '60']);
    expect(plain.stdout).toBe(`${apiBody({ mode: 'analyze', payload: WORKED })}\n`);
    expect(plain.stderr).toBe(
      "warning: --window is not read for the engine's own format (its numbers are as sent): ignored\n",
    );
    const settings = { nodes: { B: { capacity: 2 } } };
    const set = await run(['analyze', path, '--settings', file('b.json', JSON.stringify(settings))]);
    expect(set.stderr).toBe('');
    expect(set.stdout).toBe(`${apiBody({ mode: 'analyze', payload: applySettings(WORKED, settings) })}\n`);
    // A body no format claims is the engine's to refuse, naming the formats the CLI also reads.
    const nothing = await run(['analyze'], JSON.stringify({ services: [] }));
    expect(nothing.code).toBe(1);
    expect(JSON.parse(nothing.stderr).error).toMatchObject({
      code: 'PAYLOAD_ERROR',
      message: expect.stringContaining('otlp-traces, jaeger-traces, zipkin-spans, prometheus) is read by'),
    });
  });

  // Settings are checked as PATCH /api/systems/{id} checks them: the API's 400 naming the field.
  it('checks the settings as the API does', async () => {
    const traces = file('checked.json', JSON.stringify(otlp));
    const unknown = await run([
      'analyze',
      traces,
      '--settings',
      file('unknown-node.json', '{"nodes":{"cache":{"servers":1}}}'),
    ]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'settings.nodes.cache names no node of the structure',
    });
    const bad = await run([
      'analyze',
      traces,
      '--settings',
      file('bad-servers.json', '{"nodes":{"api":{"servers":0}}}'),
    ]);
    expect(JSON.parse(bad.stderr).error.message).toBe(
      'settings.nodes.api.servers must be a whole number from 1 to 10000, got 0',
    );
    // Settings that contradict the structure (a capacity beside servers and a service time that
    // make another) are refused naming the setting, as PATCH refuses them, not the node they set.
    const body = file(
      'entry-and-db.json',
      JSON.stringify({
        mode: 'analyze',
        nodes: [
          { id: 'e', arrival: 1, fanout: true },
          { id: 'a', exit: 1 },
        ],
        dependencies: [{ from: 'e', to: 'a' }],
      }),
    );
    const contradicting = await run([
      'analyze',
      body,
      '--settings',
      file('contradicting.json', '{"nodes":{"a":{"serviceTime":0.1,"servers":1,"capacity":3}}}'),
    ]);
    expect(contradicting.code).toBe(1);
    expect(JSON.parse(contradicting.stderr).error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'settings.nodes.a.capacity: 3 disagrees with servers / serviceTime = 10; drop one',
    });
    // A problem only the run finds (a service time whose 99th percentile is past a double) is
    // said of the setting that gave it, as a run of a registered system says it.
    for (const document of [
      body,
      file(
        'entry-and-db-nested.json',
        JSON.stringify({ mode: 'analyze', payload: JSON.parse(readFileSync(body, 'utf8')) }),
      ),
    ]) {
      const huge = await run([
        'analyze',
        document,
        '--settings',
        file('huge.json', '{"nodes":{"a":{"serviceTime":1e308}}}'),
      ]);
      expect(huge.code).toBe(1);
      const error = JSON.parse(huge.stderr).error;
      expect(error.code).toBe('PAYLOAD_ERROR');
      expect(error.message).toMatch(/^settings\.nodes\.a\.serviceTime: makes the node's p99 larger/);
      expect(error.details).toEqual([{ path: 'settings.nodes.a.serviceTime', message: expect.any(String) }]);
    }
  });

  // Command-line mistakes: one line, exit 2.
  it.each<[string, string[], RegExp]>([
    [
      'an unknown format',
      ['analyze', '--format', 'graphml'],
      /^error: --format must be one of "auto", "native", .*got "graphml"/,
    ],
    [
      'a window that is not a number',
      ['analyze', '--window', '5m'],
      /^error: --window must be a finite number of seconds > 0, got the string "5m"/,
    ],
    [
      'a negative window',
      ['analyze', '--window=-1'],
      /^error: --window must be a finite number of seconds > 0, got -1/,
    ],
    // Only the spans show it: rates of 1e+300 a second and more. Still the flag's mistake.
    [
      'a window too short for the spans it reads',
      ['analyze', '--window', '5e-324'],
      /^error: --window 5e-324 makes the services' arrivals add up to more than 1e\+300, the largest total the engine accepts/,
    ],
    [
      'a sampling rate over 1',
      ['analyze', '--sample-rate', '2'],
      /^error: --sample-rate must be a number above 0 and at most 1/,
    ],
    ['one label', ['analyze', '--labels', 'client'], /^error: --labels takes two label names, from,to/],
    ['an empty label', ['analyze', '--labels', 'a,'], /^error: --labels \(to\) must be a label name/],
    [
      'no mode for a graph',
      [],
      /^error: give a mode, analyze, tick or ticks: a graph in another format has none of its own/,
    ],
    [
      'settings that are not JSON',
      ['analyze', '--settings', join(folder, 'not-json.txt')],
      /^error: the settings .* are not JSON/,
    ],
  ])('reports %s as a usage error', async (_name, argv, message) => {
    writeFileSync(join(folder, 'not-json.txt'), '{"nodes":');
    const result = await run(argv, JSON.stringify(otlp));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/\. Run "sbe-engine --help" for usage\.\n$/);
  });

  it('lists the formats and the new flags in --help', async () => {
    const { stdout } = await run(['--help']);
    expect(stdout).toContain('otlp-traces, jaeger-traces, zipkin-spans, prometheus');
    for (const flag of [
      '--format name',
      '--window s',
      '--sample-rate r',
      '--labels from,to',
      '--settings file',
    ])
      expect(stdout).toContain(flag);
  });
});

// The CLI is not a gateway: a file of any size the engine's node and dependency limits allow,
// plain or gzip-compressed (detected by its magic bytes), with a byte limit only when asked for.
describe('sbe-engine on large and compressed input', () => {
  const LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;
  // A chain of 100,000 services (the default node limit), 8.6 MB of JSON: over the API's 6 MiB.
  const chain = (() => {
    const id = (i: number) => `service-${String(i).padStart(6, '0')}`;
    const nodes: object[] = [{ id: id(0), arrival: 5, capacity: 10 }];
    const dependencies: object[] = [];
    for (let i = 1; i < 100_000; i++) {
      nodes.push({ id: id(i), capacity: 10 + (i % 7) });
      dependencies.push({ from: id(i - 1), to: id(i) });
    }
    return { nodes, dependencies };
  })();
  let big = '';
  let bigGz = '';
  beforeAll(() => {
    const text = JSON.stringify(chain);
    big = file('chain.json', text);
    bigGz = file('chain.json.gz', gzipSync(text));
  });

  /** The API's error body on stderr: one line, no stack. */
  function errorOf(result: { code: number; stdout: string; stderr: string }) {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).not.toMatch(/\bat .*:\d+:\d+/);
    return JSON.parse(result.stderr).error as { code: string; message: string };
  }

  // Before: 413 "larger than the limit of 6291456 bytes ... or compress it (Content-Encoding: ...)".
  it("analyzes a file over the API's 6 MiB exactly as the API would, and its gzip byte for byte", async () => {
    expect(statSync(big).size).toBeGreaterThan(LAMBDA_PAYLOAD_BYTES);
    const plain = await run(['analyze', big]);
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(`${apiBody({ mode: 'analyze', ...chain })}\n`);
    expect(JSON.parse(plain.stdout).engine.nodes).toHaveLength(100_000);
    // Before: "The request body is not valid UTF-8".
    const compressed = await run(['analyze', bigGz]);
    expect(compressed.stderr).toBe('');
    expect(compressed.code).toBe(0);
    expect(compressed.stdout === plain.stdout).toBe(true);
  });

  // On stdin too, and for JSON Lines (a trace file compressed as it is archived).
  it('reads gzip on stdin, and gzip-compressed JSON Lines', async () => {
    const piped = await run(['tick'], gzipSync(JSON.stringify(WORKED)));
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe(`${apiBody({ mode: 'tick', ...WORKED })}\n`);
    const spans = generate(workedExample(), 100, 100_000);
    const lines = `${[spans.slice(0, 200), spans.slice(200)].map((part) => JSON.stringify(toOtlp(part))).join('\n')}\n`;
    const plain = await run(['analyze', file('traces-plain.jsonl', lines), '--window', '10']);
    const compressed = await run(['analyze', file('traces.jsonl.gz', gzipSync(lines)), '--window', '10']);
    expect(plain.code).toBe(0);
    expect(compressed).toEqual(plain);
  });

  // What does apply is the engine's own limits, with their own error (before: the 413 on bytes).
  it.each<[string, Record<string, string>, string]>([
    ['nodes', { MAX_NODES: '50000' }, 'too many nodes: 100000, the limit is 50000'],
    ['dependencies', { MAX_DEPENDENCIES: '1000' }, 'too many dependencies: 99999, the limit is 1000'],
  ])('refuses a structure over the engine limit on %s with its error', async (_name, env, message) => {
    for (const path of [big, bigGz]) {
      const error = errorOf(await run(['analyze', path], '', env));
      expect(error).toMatchObject({ code: 'LIMIT_EXCEEDED', message });
    }
  });

  // --max-body restores a byte limit, named in the refusal; it never suggests Content-Encoding.
  it('refuses a body over --max-body, naming the flag', async () => {
    const text = JSON.stringify(WORKED);
    const path = file('max-body.json', text);
    const size = Buffer.byteLength(text);
    const exact = await run(['analyze', path, '--max-body', String(size)]);
    expect(exact.stdout).toBe(`${apiBody({ mode: 'analyze', ...WORKED })}\n`);
    const error = errorOf(await run(['analyze', path, '--max-body', String(size - 1)]));
    expect(error).toEqual({
      code: 'LIMIT_EXCEEDED',
      message: `The input is larger than --max-body ${size - 1} bytes; give a larger --max-body, or leave it out: without it the CLI has no byte limit.`,
    });
    expect(error.message).not.toContain('Content-Encoding');
    // A value that starts with a dash reads as a flag: the line says how to write one.
    const negative = await run(['analyze', path, '--max-body', '-5']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(
      /^error: --max-body takes a value: write it as --max-body=<value> when it starts with a dash\. Run /,
    );
    // Counted once decompressed too: the gzip of a body over the limit is no way around it.
    const compressed = errorOf(
      await run(['analyze', file('max-body.json.gz', gzipSync(text)), '--max-body', String(size - 1)]),
    );
    expect(compressed.message).toBe(
      `The input is gzip-compressed and decompresses to more than --max-body ${size - 1} bytes; give a larger --max-body.`,
    );
  });

  // Reading stops at the limit: stdin that never ends is refused after about the limit.
  it('stops reading stdin once it passes --max-body', async () => {
    let pulled = 0;
    async function* endless() {
      const spaces = Buffer.alloc(64 * 1024, 0x20);
      for (;;) {
        pulled++;
        yield spaces;
      }
    }
    const error = errorOf(await run(['analyze', '--max-body', '1000000'], endless()));
    expect(error.message).toMatch(/^The input is larger than --max-body 1000000 bytes/);
    expect(pulled).toBe(Math.ceil(1_000_001 / (64 * 1024)));
  });

  // Before: "The request body is not valid UTF-8" whatever the gzip held.
  it('refuses gzip that does not decompress with one clear line', async () => {
    const whole = gzipSync(JSON.stringify(WORKED));
    const flipped = Buffer.from(whole);
    flipped[12] = flipped[12]! ^ 0xff;
    for (const [bytes, reason] of [
      [whole.subarray(0, whole.length - 9), 'unexpected end of file'],
      [Buffer.from([0x1f, 0x8b]), 'unexpected end of file'],
      [flipped, /^invalid /],
    ] as const) {
      const error = errorOf(await run(['analyze', file('corrupt.gz', bytes)]));
      expect(error.code).toBe('PAYLOAD_ERROR');
      const prefix = 'The input looks gzip-compressed (magic bytes 1f 8b) but does not decompress: ';
      expect(error.message.startsWith(prefix)).toBe(true);
      expect(error.message.slice(prefix.length).replace(/\.$/, '')).toMatch(reason);
    }
  });

  // Gzip members of 32 MiB of zeros each (32 KB each compressed), one after another as gzip
  // allows: 28 of them are 0.9 MB on disk and 896 MiB decompressed, 160 are 5 MB and 5 GiB.
  // Decompressing them to their end would take gigabytes and seconds; zlib stops at the limit.
  it('refuses a gzip bomb at the decompressed-size limit without decompressing it all', async () => {
    const member = gzipSync(Buffer.alloc(32 * 1024 * 1024));
    const small = file('bomb-small.gz', Buffer.concat(Array(28).fill(member)));
    expect(statSync(small).size).toBeLessThan(1_000_000);
    const flagged = errorOf(await run(['analyze', small, '--max-body', '1000000']));
    expect(flagged).toEqual({
      code: 'LIMIT_EXCEEDED',
      message:
        'The input is gzip-compressed and decompresses to more than --max-body 1000000 bytes; give a larger --max-body.',
    });
  });

  // No byte limit is not no limit: the objects and arrays are counted before the parse, as the
  // API counts them. 60 KB of gzip inflate to 24 MB of `[{},{},…]`, eight million objects, which
  // no structure within the limits needs (300 MB of them filled the heap: V8's fatal error).
  it('refuses a body of more objects and arrays than any structure needs, before parsing it', async () => {
    const count = 8_000_000;
    const text = Buffer.alloc(2 + count * 3 - 1, ',');
    text[0] = 0x5b;
    for (let i = 0; i < count; i++) text.write('{}', 1 + i * 3);
    text[text.length - 1] = 0x5d;
    const bomb = file('objects.json.gz', gzipSync(text, { level: 9 }));
    expect(statSync(bomb).size).toBeLessThan(100_000);
    expect(errorOf(await run(['analyze', bomb]))).toEqual({
      code: 'LIMIT_EXCEEDED',
      message:
        'The request body holds more than 2500000 JSON objects and arrays, more than any structure within the limits needs, and parsing them would take too long; send a smaller one.',
    });
  });

  // The API's limit on a decompressed body (MAX_DECODED_BODY_BYTES) is a gateway's, as its 6 MiB
  // is: a gzipped file reads as the plain one does, whatever the size it inflates to.
  it('reads a gzip body past MAX_DECODED_BODY_BYTES, as it reads the plain file', async () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `service-${i}`);
    const text = JSON.stringify({
      mode: 'analyze',
      nodes: ids.map((id) => ({ id, load: 1 })),
      dependencies: ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id })),
    });
    expect(text.length).toBeGreaterThan(1_000_000);
    const env = { MAX_DECODED_BODY_BYTES: '1000000' };
    const zipped = await run(['analyze', file('over-decoded.json.gz', gzipSync(text))], '', env);
    const plain = await run(['analyze', file('over-decoded.json', text)], '', env);
    expect(zipped.code).toBe(0);
    expect(zipped.stdout).toBe(plain.stdout);
    // A scenario file too: gzipped past the limit, read as the plain one (it had been refused,
    // naming MAX_DECODED_BODY_BYTES, where the same file plain was read).
    const scenario = JSON.stringify({
      scale: 2,
      nodes: Object.fromEntries(ids.map((id) => [id, { load: 2, arrival: 0, capacity: null }])),
    });
    expect(scenario.length).toBeGreaterThan(1_000_000);
    const body = file('over-decoded-body.json', text);
    const zippedScenario = await run(
      ['analyze', body, '--scenario', file('scenario.json.gz', gzipSync(scenario))],
      '',
      env,
    );
    const plainScenario = await run(
      ['analyze', body, '--scenario', file('scenario.json', scenario)],
      '',
      env,
    );
    expect(zippedScenario.stderr).toBe('');
    expect(zippedScenario.code).toBe(0);
    expect(zippedScenario.stdout).toBe(plainScenario.stdout);
    // --max-body holds for the side files too, plain or once gzip is undone.
    for (const name of ['scenario.json', 'scenario.json.gz']) {
      const capped = await run(
        [
          'analyze',
          body,
          '--max-body',
          '1000000',
          '--scenario',
          file(name, name.endsWith('.gz') ? gzipSync(scenario) : scenario),
        ],
        '',
        env,
      );
      expect(capped.code, name).toBe(2);
      expect(capped.stderr, name).toMatch(
        /^error: the scenario .* (is larger than|decompresses to more than) 1000000 bytes, the --max-body given/,
      );
    }
  });

  it.each(['12x', '0', '-5', '1e6', '', String(2 ** 30)])(
    'reports --max-body=%s as a usage error',
    async (value) => {
      const result = await run(['analyze', `--max-body=${value}`], JSON.stringify(WORKED));
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error: --max-body must be a whole number of bytes from 1 to \d+, got ".*"\. Run "sbe-engine --help" for usage\.\n$/,
      );
    },
  );

  it('says in --help that there is no byte limit, what --max-body does and that gzip is detected', async () => {
    const { stdout } = await run(['--help']);
    expect(stdout).toContain('[--max-body bytes]');
    expect(stdout).toContain('no byte limit applies by default');
    expect(stdout).toMatch(/Without it there is no byte limit: the CLI runs locally, so the API's\s+6 MiB/);
    expect(stdout).toMatch(/Gzip is\s+detected by its first bytes \(1f 8b\)/);
    expect(stdout).toMatch(/MAX_BODY_BYTES and MAX_DECODED_BODY_BYTES,\s+limits of the gateway, do not/);
  });

  // An answer of some 400 KB, more than a pipe holds, so the CLI is still writing when its
  // reader goes.
  const bigChain = () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => `n${i}`);
    const path = join(folder, 'chain-3000.json');
    writeFileSync(
      path,
      JSON.stringify({
        mode: 'analyze',
        nodes: ids.map((id) => ({ id, load: 1 })),
        dependencies: ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id })),
      }),
    );
    return path;
  };

  // `sbe-engine analyze big.json | head -c 50`: the reader closes the pipe early. The CLI ends as
  // Unix tools do (status 141, as a tool killed by SIGPIPE), saying nothing: no stack trace.
  it('ends silently with status 141 when its reader goes (| head)', async () => {
    const child = spawn(process.execPath, ['bin/sbe-engine.mjs', 'analyze', bigChain()], {
      cwd: repositoryRoot,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });

  // `sbe-engine analyze big.json > /dev/full`: one line saying why, status 1.
  it.runIf(existsSync('/dev/full'))(
    'says in one line that it could not write the output (a full disk)',
    async () => {
      const full = openSync('/dev/full', 'w');
      try {
        const child = spawn(process.execPath, ['bin/sbe-engine.mjs', 'analyze', bigChain()], {
          cwd: repositoryRoot,
          stdio: ['ignore', full, 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const code = await new Promise((resolve) => child.on('close', resolve));
        expect(code).toBe(1);
        expect(stderr).toMatch(/^error: could not write the output: ENOSPC[^\n]*\n$/);
      } finally {
        closeSync(full);
      }
    },
  );

  // A real process: gzip piped into the launcher's stdin, as `gzip -c x.json | npx sbe-engine`.
  it('reads gzip piped into bin/sbe-engine.mjs', async () => {
    const child = spawn(process.execPath, ['bin/sbe-engine.mjs', 'analyze'], { cwd: repositoryRoot });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin.end(gzipSync(JSON.stringify(WORKED)));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toBe(`${apiBody({ mode: 'analyze', ...WORKED })}\n`);
  });
});
