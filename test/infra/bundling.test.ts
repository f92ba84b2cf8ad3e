/**
 * The bundle a function really deploys, built by the same construct props as the stack's
 * (`bundledFunctionProps`: esbuild's JS API at synth, code split, no Docker): the other
 * infrastructure tests synthesize with bundling off, so this is where the bundling options are
 * held to what they are for. One small entry point keeps it to a couple of seconds; the full
 * functions are measured by `npm run bench:bundle`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { type CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFiles } from '../../bench/bundle-files';
import { bundledFunctionProps, FUNCTION_HANDLER } from '../../infra/constructs/function-code';
import { PROJECT_ROOT } from '../../infra/project';

interface SourceMap {
  sources: string[];
  sourcesContent?: unknown;
}

let outdir: string;
let folder: string;
let code: string;
let handler: unknown;
let map: SourceMap;
/** The sources of every file a cold start loads (the entry and its chunks). */
let coldStartSources: string[];

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'sbe-bundling-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const fn = new LambdaFunction(
    new Stack(app, 'Bundling'),
    'SdkOnly',
    bundledFunctionProps(join(PROJECT_ROOT, 'bench/fixtures/sdk-only.ts')),
  );
  app.synth();
  const cfn = fn.node.defaultChild as CfnFunction;
  handler = cfn.handler;
  folder = join(outdir, cfn.getMetadata('aws:asset:path') as string);
  code = readFileSync(join(folder, 'index.mjs'), 'utf8');
  const mapOf = (file: string) => JSON.parse(readFileSync(join(folder, `${file}.map`), 'utf8')) as SourceMap;
  map = mapOf('index.mjs');
  coldStartSources = bundleFiles(folder).coldStart.flatMap((file) => mapOf(file).sources);
}, 60_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the deployed bundle', () => {
  // ESM, so the SDK's tree-shakable ESM entry points are the ones bundled; the banner gives the
  // CommonJS parts of dependencies a `require` to call.
  it('is an ES module that starts with the createRequire banner', () => {
    expect(handler).toBe(FUNCTION_HANDLER);
    expect(code.startsWith("import { createRequire as __sbeCreateRequire } from 'node:module';")).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b/);
    expect(code).not.toMatch(/\bmodule\.exports\s*=/);
  });

  // Code split (esbuild's `splitting`): every JavaScript file of the folder is the entry or one
  // of its chunks, each an ES module with the banner (its own `require`) and its own map. The
  // SDK's own `import()`s become chunks that a cold start does not load.
  it('is the entry index.mjs and its chunks, each with its source map', () => {
    const scripts = readdirSync(folder).filter((file) => file.endsWith('.mjs'));
    expect(scripts).toContain('index.mjs');
    for (const file of scripts) {
      const chunk = readFileSync(join(folder, file), 'utf8');
      expect(chunk.startsWith('import { createRequire as __sbeCreateRequire }'), file).toBe(true);
      expect(chunk, file).toMatch(
        new RegExp(`//# sourceMappingURL=${file.replaceAll('.', '\\.')}\\.map\\s*$`),
      );
      expect(readdirSync(folder)).toContain(`${file}.map`);
    }
    const { coldStart, lazy } = bundleFiles(folder);
    expect(coldStart[0]).toBe('index.mjs');
    expect([...lazy.keys()].length).toBeGreaterThan(0);
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
    const sources = coldStartSources;
    expect(sources.some((source) => source.includes('@aws-sdk/client-dynamodb/dist-es/'))).toBe(true);
    expect(sources.some((source) => source.includes('@aws-sdk/client-dynamodb/dist-cjs/'))).toBe(false);
    expect(sources.some((source) => source.includes('credential-provider-node'))).toBe(false);
    expect(sources.some((source) => source.endsWith('lib/aws/lambda-credentials.ts'))).toBe(true);
  });
});
