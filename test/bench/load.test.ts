/**
 * `npm run load`, briefly: every autocannon scenario for a few requests against a server it starts
 * itself, and the bare node:http peer. The numbers are not checked (speed is for the benchmark to
 * show); that every scenario ran all its requests, without an error, and that the report has its
 * parts, is. A count of requests rather than a window of time, so a busy machine makes the test
 * slower, never wrong (a 1-second window once saw no answer from the `large` scenario).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';

/** Per scenario: enough for the connect scenario's three kinds of request on both connections. */
const REQUESTS = 6;

describe('npm run load', () => {
  it('runs every autocannon scenario and the bare peer without errors, and reports them', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/load.ts',
        // Every scenario but busy, which lasts as long as two 100k/500k analyses take and
        // whose behaviour test/local/responsive.test.ts checks.
        '--scenario',
        'small,large,system,connect,mixed',
        '--amount',
        String(REQUESTS),
        '--connections',
        '2',
      ],
      { cwd: PROJECT_ROOT, timeout: 90_000 },
    );
    for (const scenario of ['small', 'large', 'system', 'connect', 'mixed', 'bare node:http, small body']) {
      expect(stdout).toMatch(
        new RegExp(`\\| ${scenario} +\\| +\\d+ \\|.*\\| +${REQUESTS} \\| +0 \\| \\d+ → \\d+ MiB`),
      );
    }
    expect(stdout).toMatch(
      /small body: the service serves \d+\.\d+× the requests per second of a bare node:http/,
    );
    expect(stdout).toContain('no errors');
  });

  it('refuses a server that is not on this machine, before sending anything', async () => {
    const attempt = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/load.ts', '--url', 'http://10.0.0.1:3000', '--api-key', 'k', '--token', 't'],
      { cwd: PROJECT_ROOT },
    );
    await expect(attempt).rejects.toThrow(/--url must be an http:\/\/ URL on this machine/);
  });
});
