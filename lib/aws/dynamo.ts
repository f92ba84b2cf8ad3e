import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
}

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
  const client =
    endpoint === undefined ? new DynamoDBClient(awsConfig(options)) : localClient(endpoint, options, env);
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, doc };
}

function awsConfig(options: DynamoClientOptions) {
  return options.region === undefined ? {} : { region: options.region };
}

function localClient(endpoint: string, options: DynamoClientOptions, env: Env): DynamoDBClient {
  const region = options.region ?? awsSdkEnv(env, 'AWS_REGION') ?? LOCAL_REGION;
  return new DynamoDBClient({
    endpoint,
    region,
    ...(hasEnvironmentCredentials(env) ? {} : { credentials: LOCAL_CREDENTIALS }),
  });
}

function hasEnvironmentCredentials(env: Env): boolean {
  return (
    awsSdkEnv(env, 'AWS_ACCESS_KEY_ID') !== undefined && awsSdkEnv(env, 'AWS_SECRET_ACCESS_KEY') !== undefined
  );
}
