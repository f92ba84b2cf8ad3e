/**
 * `redocly lint` (recommended-strict: every warning an error) on the document as the code builds
 * it now, not on a copy, so additions to lib/api/openapi.ts are linted the day they land. Redocly
 * runs offline: telemetry off (redocly.yaml and REDOCLY_TELEMETRY), no update notice. Every run
 * has test/helpers/refuse-network.mjs preloaded, which records and refuses any connection, and
 * where strace exists a run under it shows no socket at all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';
import { serializeOpenApiDocument } from '../../lib/api/openapi';

const REDOCLY = join(PROJECT_ROOT, 'node_modules', '@redocly', 'cli', 'lib', 'index.js');
const CONFIG = join(PROJECT_ROOT, 'redocly.yaml');
const OFFLINE_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
};

const workDir = mkdtempSync(join(tmpdir(), 'sbe-openapi-lint-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

const REFUSE_NETWORK = join(PROJECT_ROOT, 'test/helpers/refuse-network.mjs');

interface LintRun {
  report: LintReport;
  /** The connections the process tried (each refused before it left the machine). */
  connections: string[];
}

function lint(
  document: string,
  name: string,
  options: { prefix?: string[]; env?: Record<string, string>; config?: string } = {},
): LintRun {
  const file = join(workDir, name);
  const networkLog = join(workDir, `${name}.network`);
  writeFileSync(file, document);
  writeFileSync(networkLog, '');
  const [command, ...args] = [
    ...(options.prefix ?? []),
    process.execPath,
    '--import',
    pathToFileURL(REFUSE_NETWORK).href,
    REDOCLY,
    'lint',
    file,
    '--format=json',
    `--config=${options.config ?? CONFIG}`,
  ];
  const run = spawnSync(command!, args, {
    env: { ...(options.env ?? OFFLINE_ENV), SBE_NETWORK_LOG: networkLog },
    encoding: 'utf8',
    cwd: workDir,
    timeout: 90_000,
  });
  const start = run.stdout.indexOf('{');
  if (start < 0) throw new Error(`redocly printed no report: ${run.stderr.slice(0, 2000)}`);
  const connections = readFileSync(networkLog, 'utf8').split('\n').filter(Boolean);
  return { report: JSON.parse(run.stdout.slice(start)) as LintReport, connections };
}

const summary = (report: LintReport) =>
  report.problems.map(
    (problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
  );

const hasStrace = spawnSync('strace', ['-V'], { encoding: 'utf8' }).status === 0;

describe('redocly lint', () => {
  it('finds no error and no warning in the document the code builds, offline', () => {
    const { report, connections } = lint(serializeOpenApiDocument(), 'openapi.json');
    expect(summary(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(connections).toEqual([]);
  }, 120_000);

  // The network check can fail: with its telemetry left on, Redocly does try to connect (the
  // attempt is refused by the preload, so nothing is sent).
  it('would see a connection if Redocly tried one', () => {
    const config = join(workDir, 'redocly-telemetry-on.yaml');
    writeFileSync(config, 'extends:\n  - recommended-strict\n');
    const { connections } = lint(serializeOpenApiDocument(), 'telemetry.json', {
      config,
      env: { PATH: process.env.PATH ?? '', HOME: workDir, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(connections.length).toBeGreaterThan(0);
  }, 120_000);

  // The lint can fail: a document without servers and with a HEAD that lost its path id.
  it('reports a planted fault', () => {
    const planted = JSON.parse(serializeOpenApiDocument());
    delete planted.servers;
    delete planted.paths['/api/systems/{id}'].head.parameters;
    const { report } = lint(JSON.stringify(planted), 'planted.json');
    expect(report.totals.errors).toBeGreaterThanOrEqual(2);
    expect(report.problems.map((problem) => problem.ruleId)).toEqual(
      expect.arrayContaining(['no-empty-servers', 'path-parameters-defined']),
    );
  }, 120_000);

  it.runIf(hasStrace)(
    'opens no network connection',
    () => {
      const trace = join(workDir, 'connect.trace');
      const { report } = lint(serializeOpenApiDocument(), 'traced.json', {
        prefix: ['strace', '-f', '-e', 'trace=connect', '-o', trace],
      });
      expect(report.totals.errors).toBe(0);
      const calls = readFileSync(trace, 'utf8');
      // The trace covered the run (strace attached, the lint exited), and no socket left the machine.
      expect(calls).toMatch(/\+\+\+ exited with 0 \+\+\+/);
      expect(calls.split('\n').filter((line) => /connect\(.*AF_INET/.test(line))).toEqual([]);
    },
    120_000,
  );
});
