/**
 * How each Lambda function of the route table is built and sized, and what it may do in the
 * table. Keyed by function name, so a function added to `FUNCTIONS` does not compile until it
 * has a size and an access list here.
 */
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BuildOptions } from 'esbuild';
import { FUNCTIONS, type FunctionName } from '../lib/http/routes';
import { PARTITION_PREFIXES, TABLE_KEYS } from '../lib/storage/table';

/** The newest Node.js Lambda offers in this aws-cdk-lib, on Graviton (cheaper per GB-second). */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;
export const FUNCTION_ARCHITECTURE = Architecture.ARM_64;

/**
 * Whether the AWS SDK goes into the bundle or is taken from the Lambda runtime. Bundled: the
 * version tested here is the version that runs, and minified tree-shaken ESM loads faster than
 * the runtime's full CommonJS copy (`npm run bench:bundle` prints both).
 */
export type AwsSdkPlacement = 'bundled' | 'external';

/**
 * Some CommonJS dependencies call `require` for Node built-ins, which an ESM bundle does not
 * have; this gives the bundle one. The alias keeps it from clashing with bundled code.
 */
const CREATE_REQUIRE_BANNER =
  "import { createRequire as __sbeCreateRequire } from 'node:module'; const require = __sbeCreateRequire(import.meta.url);";

/**
 * Lambda's credentials are environment variables, so a bundled SDK gets the environment-only
 * provider instead of the whole default chain (see lib/aws/lambda-credentials.ts). esbuild
 * resolves an alias from its working directory, the project root.
 */
const LAMBDA_CREDENTIALS_ALIAS = {
  '@aws-sdk/credential-provider-node': './lib/aws/lambda-credentials.ts',
} as const;

/**
 * Without tracing, the bundle gets a stand-in for the Powertools tracer (lib/aws/tracer-off.ts)
 * instead of the tracer and the X-Ray SDK under it: a stage that does not trace pays nothing
 * for it, in bundle size or cold start. With tracing, the real one is bundled.
 */
const TRACER_OFF_ALIAS = {
  '@aws-lambda-powertools/tracer': './lib/aws/tracer-off.ts',
} as const;

/** esbuild's target for the runtime's Node (`nodejs24.x` → `node24`), as `NodejsFunction` derives it. */
const ESBUILD_TARGET = `node${/^nodejs(\d+)/.exec(FUNCTION_RUNTIME.name)![1]}`;

/**
 * Files of the project copied beside a function's bundle, read from disk at run time instead of
 * bundled: the engine function serves the OpenAPI document (functions/engine/openapi-document.ts)
 * at a few requests, and as JavaScript it was about 80 KB parsed at every cold start.
 */
export const FUNCTION_FILES: Readonly<Record<FunctionName, readonly string[]>> = Object.freeze({
  engine: ['openapi.json'],
  connect: [],
});

/**
 * The esbuild options of every function's bundle (infra/constructs/function-code.ts builds it
 * with them at synth, into the function's asset folder): ES modules, minified, with source maps
 * beside them that point at the sources without carrying them. Code split: the entry
 * `index.mjs` holds what every request needs, and what a function loads with `import()` at its
 * first request that needs it (connect's graph readers, for one) is a chunk of its own beside
 * it, so a cold start neither reads nor parses it (docs/deploy.md, "Bundles and cold start").
 */
export function functionBundling(awsSdk: AwsSdkPlacement = 'bundled', tracing = false): BuildOptions {
  const alias = {
    ...(awsSdk === 'bundled' ? LAMBDA_CREDENTIALS_ALIAS : {}),
    ...(tracing ? {} : TRACER_OFF_ALIAS),
  };
  return {
    bundle: true,
    platform: 'node',
    target: ESBUILD_TARGET,
    format: 'esm',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    // ESM entry points of packages first: the SDK's are tree-shakable, their CommonJS is not.
    mainFields: ['module', 'main'],
    banner: { js: CREATE_REQUIRE_BANNER },
    minify: true,
    sourcemap: true,
    // Stack traces get file and line; the sources themselves stay out of the asset.
    sourcesContent: false,
    external: awsSdk === 'bundled' ? [] : ['@aws-sdk/*'],
    logLevel: 'warning',
    ...(Object.keys(alias).length === 0 ? {} : { alias }),
  };
}

export interface FunctionSizing {
  /** MB; Lambda gives CPU in proportion, one full vCPU at 1,769 MB. */
  readonly memoryMb: number;
  readonly timeout: Duration;
}

/**
 * Sized from the measurements in docs/api.md ("Why these numbers"): the largest answer the
 * engine may build (1,000,000 elements of a timeline) peaks near 410 MB and takes about 3 s on
 * this project's 2-core machine. The engine is CPU-bound and single-threaded, so 1,769 MB (one
 * full vCPU) makes it as fast as Lambda allows, at the same cost per request as less memory for
 * longer. Connect waits up to 10 s for the external API (`CONNECT_DEADLINE_MS`), then parses,
 * validates, compresses and stores up to 64 MiB of JSON as read. Both timeouts stay under API
 * Gateway's 30 s integration limit.
 */
export const FUNCTION_SIZING: Readonly<Record<FunctionName, FunctionSizing>> = Object.freeze({
  engine: { memoryMb: FUNCTIONS.engine.memoryMb, timeout: Duration.seconds(FUNCTIONS.engine.timeoutSeconds) },
  connect: {
    memoryMb: FUNCTIONS.connect.memoryMb,
    timeout: Duration.seconds(FUNCTIONS.connect.timeoutSeconds),
  },
});

/**
 * DynamoDB actions allowed on the items whose partition key starts with `partition`, optionally
 * only touching the listed top-level `attributes` (key attributes included) and returning none.
 */
export interface TableAccess {
  readonly actions: readonly string[];
  readonly partition: string;
  /** When set: `dynamodb:Attributes` limited to these, and `dynamodb:ReturnValues` to NONE. */
  readonly attributes?: readonly string[];
}

const { apiKey, owner, system } = PARTITION_PREFIXES;
const KEY_ATTRIBUTES = [TABLE_KEYS.partitionKey.name, TABLE_KEYS.sortKey.name] as const;

/**
 * What each function may do in the table: exactly the calls its code makes (see
 * `lib/keys/dynamo-store.ts` and `lib/systems/dynamo-store.ts`), one (actions, partition) pair
 * at a time, each limited by `dynamodb:LeadingKeys` to its partition prefix. No Scan, no table
 * management. `test/infra/table-calls.test.ts` records the calls the stores really make against
 * dynalite and checks they are these, no more and no fewer.
 */
export const TABLE_ACCESS: Readonly<Record<FunctionName, readonly TableAccess[]>> = Object.freeze({
  engine: [
    // Every request looks its API key up…
    { actions: ['dynamodb:GetItem'], partition: apiKey },
    // …and stamps lastUsedAt at most once a minute: that attribute only, so a leaked engine role
    // cannot un-revoke a key or give it to another owner.
    { actions: ['dynamodb:UpdateItem'], partition: apiKey, attributes: [...KEY_ATTRIBUTES, 'lastUsedAt'] },
    // `{ mode, systemId }`: the system's head in its owner's partition, then its chunks.
    { actions: ['dynamodb:GetItem'], partition: owner },
    { actions: ['dynamodb:Query'], partition: system },
  ],
  connect: [
    // Self-service keys: create (the key item), list (a batch read of the owner's keys) and
    // revoke (the key read for its owner's quota, then status and revokedAt, answered with the
    // record as it was).
    {
      actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      partition: apiKey,
    },
    // The owner's partition: key index entries (create, undo a failed create, list), system
    // heads (register, list, read, delete) and the quota counter (updated on every change).
    {
      actions: [
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      partition: owner,
    },
    // A system's chunks: written one by one, read by Query, deleted in batches.
    { actions: ['dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:Query'], partition: system },
  ],
});
