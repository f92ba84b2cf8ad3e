/**
 * The bundles as `cdk deploy` builds them (bundledFunctionProps: esbuild, code split, no Docker),
 * held to what docs/deploy.md says of them: the sizes in its tables of what a cold start loads
 * and of what is loaded later (within 3%, so a small change to the code does not need new
 * numbers, a large one does), tracing's cost only where it is on, and what keeps a cold start
 * short (the OpenAPI document beside the bundle, not in it; `node:http` without an ES import).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { type CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFiles, bytesOf } from '../../bench/bundle-files';
import { bundledFunctionProps } from '../../infra/constructs/function-code';
import { FUNCTION_FILES } from '../../infra/functions';
import { PROJECT_ROOT } from '../../infra/project';
import { FUNCTIONS, type FunctionName } from '../../lib/http/routes';

interface Built {
  /** What a cold start loads: the entry and the chunks it imports statically. */
  bytes: number;
  /** The chunks loaded with `import()`, and theirs, at the first request that needs them. */
  lazyBytes: number;
  /** The code of every chunk, loaded at cold start or later. */
  code: string;
  /** The sources of every chunk, loaded at cold start or later. */
  sources: string[];
  /** The sources of what a cold start loads. */
  coldStartSources: string[];
  /** The asset's folder, as uploaded. */
  folder: string;
}

const TOLERANCE = 0.03;
const VARIANTS = [
  ['engine', false],
  ['connect', false],
  ['engine', true],
  ['connect', true],
] as const satisfies ReadonlyArray<readonly [FunctionName, boolean]>;
const labelOf = (name: FunctionName, tracing: boolean) => (tracing ? `${name} (tracing on)` : name);

let outdir: string;
const built = new Map<string, Built>();

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'sbe-bundle-sizes-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'BundleSizes');
  const functions = VARIANTS.map(([name, tracing]) => {
    const entry = join(PROJECT_ROOT, FUNCTIONS[name].entry);
    const fn = new LambdaFunction(
      stack,
      `${name}${tracing ? 'Traced' : ''}`,
      bundledFunctionProps(entry, 'bundled', tracing, FUNCTION_FILES[name]),
    );
    return [labelOf(name, tracing), fn] as const;
  });
  app.synth();
  for (const [label, fn] of functions) {
    const assetPath = (fn.node.defaultChild as CfnFunction).getMetadata('aws:asset:path') as string;
    const folder = join(outdir, assetPath);
    const { coldStart, lazy } = bundleFiles(folder);
    const later = [...new Set([...lazy.values()].flat())];
    const sourcesOf = (files: readonly string[]) =>
      files.flatMap(
        (file) =>
          (JSON.parse(readFileSync(join(folder, `${file}.map`), 'utf8')) as { sources: string[] }).sources,
      );
    built.set(label, {
      bytes: bytesOf(folder, coldStart),
      lazyBytes: bytesOf(folder, later),
      code: [...coldStart, ...later].map((file) => readFileSync(join(folder, file), 'utf8')).join('\n'),
      sources: sourcesOf([...coldStart, ...later]),
      coldStartSources: sourcesOf(coldStart),
      folder,
    });
  }
}, 180_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/**
 * The rows of docs/deploy.md's tables that give a deployed bundle's sizes: label → bytes, in the
 * column `column` ('cold start loads', or 'loaded later').
 */
function documentedSizes(column: string): Map<string, number> {
  const text = readFileSync(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
  const sizes = new Map<string, number>();
  let header: string[] | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (header === undefined) {
      header = cells;
      continue;
    }
    const [fn, sdk, size] = ['function', 'AWS SDK', column].map((name) => cells[header!.indexOf(name)]);
    const kb = /^([\d.]+) KB$/.exec(size ?? '')?.[1];
    if (fn !== undefined && sdk === 'bundled (deployed)' && kb !== undefined)
      sizes.set(fn, Number(kb) * 1024);
  }
  return sizes;
}

describe('the deployed bundles', () => {
  it.each(
    VARIANTS.flatMap(([name, tracing]) =>
      (['cold start loads', 'loaded later'] as const).map(
        (column) => [labelOf(name, tracing), column] as const,
      ),
    ),
  )('%s: what docs/deploy.md gives in "%s", within 3%', (label, column) => {
    const documented = documentedSizes(column).get(label);
    const actual = column === 'cold start loads' ? built.get(label)!.bytes : built.get(label)!.lazyBytes;
    const fresh = `${(actual / 1024).toFixed(1)} KB`;
    expect(documented, `docs/deploy.md has no row for ${label} (built: ${fresh})`).toBeDefined();
    const off = Math.abs(actual - documented!) / documented!;
    expect(
      off,
      `docs/deploy.md gives ${label} ${(documented! / 1024).toFixed(1)} KB ${column}, built: ${fresh}; run npm run bench:bundle`,
    ).toBeLessThanOrEqual(TOLERANCE);
  });

  // Without tracing, the stand-in replaces the tracer: neither it nor the X-Ray SDK is bundled.
  it.each(['engine', 'connect'] as const)('%s carries the X-Ray SDK only when tracing is on', (name) => {
    const off = built.get(labelOf(name, false))!.sources;
    const on = built.get(labelOf(name, true))!.sources;
    expect(off.some((source) => source.endsWith('lib/aws/tracer-off.ts'))).toBe(true);
    expect(off.some((source) => source.includes('aws-xray-sdk-core'))).toBe(false);
    expect(off.some((source) => source.includes('@aws-lambda-powertools/tracer'))).toBe(false);
    expect(on.some((source) => source.includes('aws-xray-sdk-core'))).toBe(true);
    expect(on.some((source) => source.endsWith('lib/aws/tracer-off.ts'))).toBe(false);
  });

  // A cold start of connect loads the HTTP stack, the logger, the token verifier and the stores;
  // what reads graphs (the format readers, the engine, the request schemas, the outbound fetch
  // with its DNS guard and ipaddr.js) is loaded with import() at the first request that needs it.
  it.each([false, true])('connect (tracing %s) loads the graph readers at their first request', (tracing) => {
    const connect = built.get(labelOf('connect', tracing))!;
    const lazyOnly = [
      '/lib/formats/',
      '/lib/engine/',
      'node_modules/zod/',
      'node_modules/ipaddr.js/',
      '/lib/outbound/fetch-json.ts',
      '/lib/outbound/guarded-lookup.ts',
      '/lib/api/connect-request.ts',
      '/lib/api/key-request.ts',
    ];
    for (const part of lazyOnly) {
      expect(
        connect.coldStartSources.filter((source) => source.includes(part)),
        part,
      ).toEqual([]);
      expect(
        connect.sources.some((source) => source.includes(part)),
        part,
      ).toBe(true);
    }
    for (const part of ['aws-jwt-verify', '@aws-lambda-powertools/logger', '/lib/systems/dynamo-store.ts']) {
      expect(
        connect.coldStartSources.some((source) => source.includes(part)),
        part,
      ).toBe(true);
    }
  });

  // The engine's system store serves only `{ mode, systemId }` runs: loaded at the first one.
  it.each([false, true])('engine (tracing %s) loads the system store at its first request', (tracing) => {
    const engine = built.get(labelOf('engine', tracing))!;
    const store = '/lib/systems/dynamo-store.ts';
    expect(engine.coldStartSources.filter((source) => source.endsWith(store))).toEqual([]);
    expect(engine.sources.some((source) => source.endsWith(store))).toBe(true);
    expect(engine.coldStartSources.some((source) => source.includes('/lib/engine/compile.ts'))).toBe(true);
  });

  // The document is served at a few requests; as bundled JavaScript it was 80 KB parsed at every
  // cold start. It travels beside the bundle, byte for byte the generated file.
  it.each([false, true])(
    'engine (tracing %s) reads the OpenAPI document from beside the bundle',
    (tracing) => {
      const engine = built.get(labelOf('engine', tracing))!;
      expect(engine.sources.some((source) => source.endsWith('openapi.json'))).toBe(false);
      expect(readFileSync(join(engine.folder, 'openapi.json'), 'utf8')).toBe(
        readFileSync(join(PROJECT_ROOT, 'openapi.json'), 'utf8'),
      );
    },
  );

  // An ES import of node:http reads every export, and its WebSocket getters load undici: about
  // 25 ms of CPU at each cold start for classes no function uses. (The SDK's `import()` of it,
  // only for a plain-http endpoint such as a local DynamoDB, is not at load; with tracing on,
  // the X-Ray SDK imports it itself, part of tracing's price.)
  it.each(['engine', 'connect'] as const)('%s loads node:http without a static ES import', (name) => {
    const { code } = built.get(labelOf(name, false))!;
    expect(code.match(/from\s*["'](?:node:)?http["']/g) ?? []).toEqual([]);
  });
});
