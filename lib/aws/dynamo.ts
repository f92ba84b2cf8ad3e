import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { awsSdkEnv, type Env, optionalEnv } from '../config/env';

export interface DynamoClients {
  /** Low-level client: table management (`ensureTable`) and raw attribute values. */
  client: DynamoDBClient;
  /** Document client over `client`: plain JS values in and out. Use this for items. */
  doc: DynamoDBDocumentClient;
}

export interface DynamoClientOptions {
  /** A local DynamoDB (dynalite, DynamoDB Local). Defaults to env `DYNAMODB_ENDPOINT`; unset means real AWS. */
  endpoint?: string;
  /** Defaults to the SDK's own resolution (env `AWS_REGION`, profile); `us-east-1` for a local endpoint. */
  region?: string;
  /** Where `DYNAMODB_ENDPOINT`, `AWS_REGION` and the access key pair are read from. Default `process.env`. */
  env?: Env;
  /** How faults are retried; default `DYNAMO_RETRY`, or `LOCAL_DYNAMO_RETRY` with an endpoint. */
  retry?: Partial<DynamoRetry>;
}

/**
 * How each DynamoDB call meets a fault: the SDK's standard retry mode (throttling errors,
 * 5xx, timeouts and dropped connections are retried, with its full-jitter exponential backoff
 * and its retry quota), at most `maxAttempts` attempts of at most `attemptTimeoutMs` each.
 * docs/deploy.md ("DynamoDB faults") shows how these fit each function's timeout.
 */
export interface DynamoRetry {
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** One attempt, connecting included, fails as a `TimeoutError` (and is retried) after this. */
  attemptTimeoutMs: number;
  /** Connecting to the endpoint gives up after this (part of the attempt's time). */
  connectTimeoutMs: number;
  /**
   * Replaces the SDK's backoff (full jitter, bases 25 ms and 1 s under throttling, doubling):
   * the delay before retry `n` (1, 2, …). Tests pass `() => 1` so that they never sleep for
   * seconds; production leaves it unset.
   */
  retryDelayMs?: (retry: number) => number;
}

/** Against DynamoDB itself: what the deployed functions use. */
const DYNAMO_RETRY: Readonly<DynamoRetry> = Object.freeze({
  maxAttempts: 3,
  attemptTimeoutMs: 1_000,
  connectTimeoutMs: 500,
});

/**
 * Against a local endpoint (dynalite, DynamoDB Local): the same attempts, but a local database
 * on a busy laptop or CI machine may take seconds to write a 300 KB chunk, which is slowness,
 * not a fault.
 */
const LOCAL_DYNAMO_RETRY: Readonly<DynamoRetry> = Object.freeze({
  maxAttempts: 3,
  attemptTimeoutMs: 10_000,
  connectTimeoutMs: 2_000,
});

/** Local endpoints do not check credentials, so any static pair will do. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
const LOCAL_REGION = 'us-east-1';

/**
 * Build the DynamoDB clients once per process and pass them to whatever needs them.
 *
 * With an endpoint (option or `DYNAMODB_ENDPOINT`) and no access key pair in the environment, static
 * dummy credentials are used, so local runs need no AWS setup at all. An access key pair in the
 * environment is kept because DynamoDB Local keeps a separate database per access key.
 */
export function createDynamoClients(options: DynamoClientOptions = {}): DynamoClients {
  const env = options.env ?? process.env;
  const endpoint = options.endpoint ?? optionalEnv(env, 'DYNAMODB_ENDPOINT');
  const faults = retryConfig({
    ...(endpoint === undefined ? DYNAMO_RETRY : LOCAL_DYNAMO_RETRY),
    ...options.retry,
  });
  const client = new DynamoDBClient({
    ...faults,
    ...(endpoint === undefined ? awsConfig(options) : localConfig(endpoint, options, env)),
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, doc };
}

function awsConfig(options: DynamoClientOptions) {
  return options.region === undefined ? {} : { region: options.region };
}

function localConfig(endpoint: string, options: DynamoClientOptions, env: Env): DynamoDBClientConfig {
  const region = options.region ?? awsSdkEnv(env, 'AWS_REGION') ?? LOCAL_REGION;
  return {
    endpoint,
    region,
    ...(hasEnvironmentCredentials(env) ? {} : { credentials: LOCAL_CREDENTIALS }),
  };
}

function retryConfig(retry: DynamoRetry): DynamoDBClientConfig {
  const { maxAttempts, attemptTimeoutMs, connectTimeoutMs, retryDelayMs } = retry;
  return {
    // Explicit, so neither AWS_MAX_ATTEMPTS nor AWS_RETRY_MODE can stretch a call past the budget.
    maxAttempts,
    retryMode: 'standard',
    ...(retryDelayMs === undefined
      ? {}
      : { retryStrategy: new ConfiguredRetryStrategy(maxAttempts, retryDelayMs) }),
    requestHandler: {
      connectionTimeout: connectTimeoutMs,
      requestTimeout: attemptTimeoutMs,
      // Without it the SDK only warns when an attempt outlives requestTimeout, and waits on.
      throwOnRequestTimeout: true,
    },
  };
}

function hasEnvironmentCredentials(env: Env): boolean {
  return (
    awsSdkEnv(env, 'AWS_ACCESS_KEY_ID') !== undefined && awsSdkEnv(env, 'AWS_SECRET_ACCESS_KEY') !== undefined
  );
}
