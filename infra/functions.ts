/**
 * How each Lambda function of the route table is built and sized, and what it may do in the
 * table. Keyed by function name, so a function added to `FUNCTIONS` does not compile until it
 * has a size and an access list here.
 */
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { FunctionName } from '../lib/http/routes';
import { PARTITION_PREFIXES } from '../lib/storage/table';

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
export const LAMBDA_CREDENTIALS_ALIAS = {
  '--alias:@aws-sdk/credential-provider-node': './lib/aws/lambda-credentials.ts',
} as const;

export function functionBundling(awsSdk: AwsSdkPlacement = 'bundled'): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    // ESM entry points of packages first: the SDK's are tree-shakable, their CommonJS is not.
    mainFields: ['module', 'main'],
    banner: CREATE_REQUIRE_BANNER,
    minify: true,
    sourceMap: true,
    // Stack traces get file and line; the sources themselves stay out of the asset.
    sourcesContent: false,
    bundleAwsSDK: awsSdk === 'bundled',
    externalModules: awsSdk === 'bundled' ? [] : ['@aws-sdk/*'],
    logLevel: LogLevel.WARNING,
    ...(awsSdk === 'bundled' ? { esbuildArgs: { ...LAMBDA_CREDENTIALS_ALIAS } } : {}),
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
 * longer. Connect waits up to 5 s for the external API, then parses, validates, compresses and
 * stores up to 6 MiB of JSON. Both timeouts stay under API Gateway's 30 s integration limit.
 */
export const FUNCTION_SIZING: Readonly<Record<FunctionName, FunctionSizing>> = Object.freeze({
  engine: { memoryMb: 1769, timeout: Duration.seconds(15) },
  connect: { memoryMb: 1024, timeout: Duration.seconds(20) },
});

/** A set of DynamoDB actions allowed on the items whose partition key starts with one of `partitions`. */
export interface TableAccess {
  readonly actions: readonly string[];
  readonly partitions: readonly string[];
}

/**
 * What each function may do in the table, exactly the calls its code makes (see
 * `lib/keys/dynamo-store.ts` and `lib/systems/dynamo-store.ts`), each limited by
 * `dynamodb:LeadingKeys` to the partitions it reads or writes. No Scan, no table management.
 */
export const TABLE_ACCESS: Readonly<Record<FunctionName, readonly TableAccess[]>> = Object.freeze({
  engine: [
    // An API key is looked up on every request and its lastUsedAt written at most once a minute.
    { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], partitions: [PARTITION_PREFIXES.apiKey] },
    // `{ mode, systemId }` reads a system: its head, then its chunks.
    {
      actions: ['dynamodb:GetItem', 'dynamodb:Query'],
      partitions: [PARTITION_PREFIXES.owner, PARTITION_PREFIXES.system],
    },
  ],
  connect: [
    // Self-service keys: the key item, the owner's index entry; list, create and revoke.
    {
      actions: [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      partitions: [PARTITION_PREFIXES.apiKey, PARTITION_PREFIXES.owner],
    },
    // Systems: register (head and chunks), list, read and delete.
    {
      actions: [
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
      ],
      partitions: [PARTITION_PREFIXES.owner, PARTITION_PREFIXES.system],
    },
  ],
});
