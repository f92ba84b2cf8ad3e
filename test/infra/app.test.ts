/** The CDK app as the CLI runs it: a mistyped setting stops it with one line naming the key. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';

describe('infra/app.ts', () => {
  it('refuses a bad context value with one line and exit code 1, no stack trace', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'sbe-app-'));
    try {
      // How the CDK CLI hands `-c throttleRateLimit=0` and the output folder to the app.
      const child = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          CDK_CONTEXT_JSON: JSON.stringify({ throttleRateLimit: '0' }),
          CDK_OUTDIR: outdir,
        },
        encoding: 'utf8',
      });
      expect(child.status).toBe(1);
      expect(child.stderr.trim()).toBe(
        'Invalid setting: context throttleRateLimit must be an integer from 1 to 10000 (requests per second) ' +
          '(see docs/deploy.md#settings)',
      );
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  // Whatever account and region the CLI found, the stack names neither: the template is the same
  // for every deployer, and `cdk deploy` takes both from the credentials in use.
  it('synthesizes an environment-agnostic stack, even when the CLI knows the account', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'sbe-app-'));
    try {
      const child = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          CDK_DEFAULT_ACCOUNT: '123456789012',
          CDK_DEFAULT_REGION: 'eu-west-1',
          // No bundling and no CloudFormation schema validation (2 s of CPU): neither is what this
          // checks, and `npm run synth` in CI does both.
          CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }),
          CDK_VALIDATION: 'false',
          CDK_OUTDIR: outdir,
        },
        encoding: 'utf8',
      });
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'));
      expect(manifest.artifacts.SystemBehaviorEngine.environment).toBe(
        'aws://unknown-account/unknown-region',
      );
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
