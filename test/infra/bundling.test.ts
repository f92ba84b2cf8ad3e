/**
 * The bundle a function really deploys, built by the same construct props as the stack's
 * (`bundledFunctionProps`, esbuild, no Docker): the other infrastructure tests synthesize with
 * bundling off, so this is where the bundling options are held to what they are for. One small
 * entry point keeps it to a couple of seconds; the full functions are measured by
 * `npm run bench:bundle`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFunctionProps } from '../../infra/constructs/service-function';
import { PROJECT_ROOT } from '../../infra/project';

let outdir: string;
let code: string;
let map: { sources: string[]; sourcesContent?: unknown };

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'sbe-bundling-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const fn = new NodejsFunction(
    new Stack(app, 'Bundling'),
    'SdkOnly',
    bundledFunctionProps(join(PROJECT_ROOT, 'bench/fixtures/sdk-only.ts')),
  );
  app.synth();
  const assetPath = (fn.node.defaultChild as CfnFunction).getMetadata('aws:asset:path') as string;
  code = readFileSync(join(outdir, assetPath, 'index.mjs'), 'utf8');
  map = JSON.parse(readFileSync(join(outdir, assetPath, 'index.mjs.map'), 'utf8'));
}, 60_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the deployed bundle', () => {
  // ESM, so the SDK's tree-shakable ESM entry points are the ones bundled; the banner gives the
  // CommonJS parts of dependencies a `require` to call.
  it('is an ES module that starts with the createRequire banner', () => {
    expect(code.startsWith("import { createRequire as __sbeCreateRequire } from 'node:module';")).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b/);
    expect(code).not.toMatch(/\bmodule\.exports\s*=/);
  });

  it('is minified, with a source map that points at the sources without carrying them', () => {
    expect(code.split('\n').length).toBeLessThan(40);
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
    expect(map.sources.some((source) => source.endsWith('bench/fixtures/sdk-only.ts'))).toBe(true);
    expect(map.sourcesContent ?? []).toEqual([]);
  });

  // The SDK is bundled, its ESM builds chosen (mainFields module first), and the Node
  // credential chain replaced by the environment-only provider (LAMBDA_CREDENTIALS_ALIAS).
  it('bundles the SDK from its ES module builds, without the Node credential chain', () => {
    expect(map.sources.some((source) => source.includes('@aws-sdk/client-dynamodb/dist-es/'))).toBe(true);
    expect(map.sources.some((source) => source.includes('@aws-sdk/client-dynamodb/dist-cjs/'))).toBe(false);
    expect(map.sources.some((source) => source.includes('credential-provider-node'))).toBe(false);
    expect(map.sources.some((source) => source.endsWith('lib/aws/lambda-credentials.ts'))).toBe(true);
  });
});
