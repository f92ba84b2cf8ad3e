import { parseArgs } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsSdkEnv, type Env, envInt, optionalEnv } from '../lib/config/env';
// The store's rules, not its DynamoDB adapter: the SDK is loaded only by a command that needs the
// table (`withTableClients`, `runKeysCli`), so `--help` and a mistake answer at once.
import {
  ApiKeyInputError,
  type ApiKeyRecord,
  type ApiKeyStore,
  issueApiKey,
  toPublicApiKeyRecord,
} from '../lib/keys/store';
import { type LocalServerPointer, readLocalServerPointer } from '../lib/local-server-pointer';
import { isMainModule } from '../lib/main-module';
import { LOCAL_DYNAMO_PORT, LOCAL_TABLE_NAME } from '../lib/storage/local-table';
import { endOnOutputError, type TextOutput, UsageError, usageErrorFrom, usageErrorLine } from './common';

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create --owner <id> --name <label>   Create a key. The key is printed once and never again.
  list [--owner <id>]                  List keys: id, prefix, owner, name, status, dates. Never the keys.
  revoke <id-or-prefix>                Revoke the one key whose id or prefix starts with this
                                       (a prefix starting with "-" goes after --: revoke -- -x3…).
  help                                 Show this text.

Options:
  --json    Machine-readable output.
  --debug   Show stack traces on errors.

Target: the running npm start's DynamoDB and table (found from the file it writes), table "${LOCAL_TABLE_NAME}";
  DYNAMO_PORT=<port> points at http://127.0.0.1:<port> instead.
  TABLE_NAME=<table> (without DYNAMODB_ENDPOINT) uses AWS: default credentials, region from AWS_REGION.
  DYNAMODB_ENDPOINT=<url> overrides the endpoint.
`;

/** Revoking by a selector this short would be a guess, not a choice. */
const MIN_SELECTOR_CHARS = 4;

export interface KeysCliContext {
  doc: DynamoDBDocumentClient;
  tableName: string;
  stdout: TextOutput;
  stderr: TextOutput;
  /** Where the commands go, for error messages, e.g. "local DynamoDB at http://127.0.0.1:8000". */
  target?: string;
  /** Clock for createdAt / revokedAt; tests pin it. */
  now?: () => Date;
}

/** A request that cannot be carried out as asked (no match, ambiguous match). */
class CommandError extends Error {
  override readonly name = 'CommandError';
}

/**
 * The whole CLI, minus process wiring: parse `argv` (the arguments after the script name), run the
 * command against the table, write to the given outputs. Returns the exit code; never throws.
 */
export async function runKeysCli(argv: readonly string[], context: KeysCliContext): Promise<number> {
  const debug = argv.includes('--debug');
  try {
    const { command, args } = parseCommandLine(argv);
    if (command === 'help') {
      context.stdout.write(USAGE);
      return 0;
    }
    const { DynamoApiKeyStore } = await import('../lib/keys/dynamo-store');
    const store = new DynamoApiKeyStore({ doc: context.doc, tableName: context.tableName });
    const now = context.now ?? (() => new Date());
    if (command === 'create') await createCommand(store, args, context, now());
    else if (command === 'list') await listCommand(store, args, context);
    else await revokeCommand(store, args, context, now());
    return 0;
  } catch (error) {
    context.stderr.write(
      error instanceof UsageError
        ? usageErrorLine(error, 'npm run keys -- help')
        : `error: ${describeError(error, context)}\n`,
    );
    if (debug && error instanceof Error && error.stack) context.stderr.write(`${error.stack}\n`);
    // A command-line mistake is 2, as for every script; a refused or failed command, 1.
    return error instanceof UsageError ? 2 : 1;
  }
}

type Command = 'create' | 'list' | 'revoke' | 'help';

interface ParsedArgs {
  owner: string | undefined;
  name: string | undefined;
  json: boolean;
  selector: string | undefined;
}

function parseCommandLine(argv: readonly string[]): { command: Command; args: ParsedArgs } {
  let parsed: ReturnType<typeof parseWithNode>;
  try {
    parsed = parseWithNode(argv);
  } catch (error) {
    throw usageErrorFrom(error);
  }
  const { values, positionals } = parsed;
  const [word, ...rest] = positionals;
  if (values.help || word === undefined || word === 'help') return { command: 'help', args: emptyArgs() };
  if (word !== 'create' && word !== 'list' && word !== 'revoke') {
    throw new UsageError(`unknown command "${word}"`);
  }
  const args: ParsedArgs = {
    owner: values.owner,
    name: values.name,
    json: values.json ?? false,
    selector: rest[0],
  };
  checkArgumentsFit(word, args, rest.length);
  return { command: word, args };
}

function parseWithNode(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      owner: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      debug: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function emptyArgs(): ParsedArgs {
  return { owner: undefined, name: undefined, json: false, selector: undefined };
}

function checkArgumentsFit(
  command: Exclude<Command, 'help'>,
  args: ParsedArgs,
  positionalCount: number,
): void {
  if (command === 'create') {
    if (positionalCount > 0) throw new UsageError('create takes no positional arguments');
    if (args.owner === undefined) throw new UsageError('create needs --owner <id>');
    if (args.name === undefined) throw new UsageError('create needs --name <label>');
  } else if (command === 'list') {
    if (positionalCount > 0) throw new UsageError('list takes no positional arguments');
    if (args.name !== undefined) throw new UsageError('list does not take --name');
  } else {
    if (positionalCount !== 1) throw new UsageError('revoke needs exactly one <id-or-prefix>');
    if (args.owner !== undefined || args.name !== undefined) {
      throw new UsageError('revoke takes only <id-or-prefix>');
    }
  }
}

async function createCommand(store: ApiKeyStore, args: ParsedArgs, context: KeysCliContext, now: Date) {
  const { key, record } = await issueApiKey(store, { owner: args.owner ?? '', name: args.name ?? '' }, now);
  if (args.json) {
    writeJson(context.stdout, { key, ...publicJson(record) });
    return;
  }
  context.stdout.write(
    [
      'Created an API key. This is the only time the key is shown: store it now.',
      '',
      `  key:     ${key}`,
      `  id:      ${record.id}`,
      `  prefix:  ${record.prefix}`,
      `  owner:   ${record.owner}`,
      `  name:    ${record.name}`,
      '',
    ].join('\n'),
  );
}

async function listCommand(store: ApiKeyStore, args: ParsedArgs, context: KeysCliContext) {
  const records = await store.list(args.owner === undefined ? {} : { owner: args.owner });
  if (args.json) {
    writeJson(context.stdout, records.map(publicJson));
    return;
  }
  if (records.length === 0) {
    context.stdout.write(
      args.owner === undefined ? 'No API keys.\n' : `No API keys for owner ${args.owner}.\n`,
    );
    return;
  }
  const header = ['ID', 'PREFIX', 'OWNER', 'NAME', 'STATUS', 'CREATED', 'LAST USED'];
  const rows = records.map((record) => [
    record.id,
    record.prefix,
    record.owner,
    record.name,
    record.status,
    record.createdAt,
    record.lastUsedAt ?? '-',
  ]);
  context.stdout.write(formatTable([header, ...rows]));
}

async function revokeCommand(store: ApiKeyStore, args: ParsedArgs, context: KeysCliContext, now: Date) {
  const selector = normaliseSelector(args.selector ?? '');
  const matches = matchSelector(await store.list(), selector);
  const [only] = matches;
  if (only === undefined)
    throw new CommandError(`no API key has an id or prefix starting with "${selector}"`);
  if (matches.length > 1) {
    const listed = matches
      .slice(0, 5)
      .map((record) => `${record.id} (${record.prefix})`)
      .join(', ');
    const more = matches.length > 5 ? `, and ${matches.length - 5} more` : '';
    throw new CommandError(
      `"${selector}" matches ${matches.length} keys: ${listed}${more}. Give more characters of the id or prefix`,
    );
  }
  if (only.status === 'revoked') {
    report(context, args, only, `API key ${only.id} (${only.prefix}) was already revoked.`);
    return;
  }
  const revoked = await store.revoke(only.digest, now);
  if (revoked === undefined)
    throw new CommandError(`API key ${only.id} disappeared before it could be revoked`);
  report(
    context,
    args,
    revoked,
    `Revoked API key ${revoked.id} (${revoked.prefix}, owner ${revoked.owner}, name "${revoked.name}").`,
  );
}

/** Accept what a person would copy from `list` or from the key: `sbe_AbCdEfGh`, `AbCdEfGh`, `sbe_AbCd…`, an id. */
function normaliseSelector(raw: string): string {
  const selector = raw.trim().replace(/(…|\.\.\.)$/, '');
  const significant = selector.startsWith('sbe_') ? selector.slice(4) : selector;
  if (significant.length < MIN_SELECTOR_CHARS) {
    throw new UsageError(`give at least ${MIN_SELECTOR_CHARS} characters of the key's id or prefix`);
  }
  return selector;
}

function matchSelector(records: readonly ApiKeyRecord[], selector: string): ApiKeyRecord[] {
  const asId = selector.toLowerCase();
  const asPrefix = selector.startsWith('sbe_') ? selector : `sbe_${selector}`;
  return records.filter((record) => record.id.startsWith(asId) || record.prefix.startsWith(asPrefix));
}

function report(context: KeysCliContext, args: ParsedArgs, record: ApiKeyRecord, text: string): void {
  if (args.json) writeJson(context.stdout, publicJson(record));
  else context.stdout.write(`${text}\n`);
}

/** Public fields only, with explicit nulls so every object has the same shape. */
function publicJson(record: ApiKeyRecord) {
  const { lastUsedAt, revokedAt, ...always } = toPublicApiKeyRecord(record);
  return { ...always, lastUsedAt: lastUsedAt ?? null, revokedAt: revokedAt ?? null };
}

function writeJson(output: TextOutput, value: unknown): void {
  output.write(`${JSON.stringify(value, null, 2)}\n`);
}

function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** One line a person can act on. SDK errors keep their name (it says what went wrong), never a stack. */
function describeError(error: unknown, context: KeysCliContext): string {
  const at = context.target === undefined ? '' : ` (${context.target})`;
  if (error instanceof CommandError || error instanceof ApiKeyInputError) return error.message;
  if (!(error instanceof Error)) return oneLine(String(error));
  const code = (error as { code?: unknown }).code;
  if (error.name === 'ResourceNotFoundException') {
    return `table "${context.tableName}" does not exist${at}. Locally, start the server ("npm start"): it creates the table.`;
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {
    return `cannot reach DynamoDB${at}: ${code}. Locally, is the server running ("npm start")?`;
  }
  if (error.name === 'CredentialsProviderError')
    return `no AWS credentials found${at}: ${oneLine(error.message)}`;
  if (/region is missing/i.test(error.message)) return `AWS region is not set${at}: set AWS_REGION`;
  return `${error.name}: ${oneLine(error.message)}${at}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

export interface KeysTarget {
  /** Unset means real AWS. */
  endpoint: string | undefined;
  tableName: string;
  description: string;
}

/**
 * Where the CLI points, from the environment: the local server's dynalite by default; real AWS when
 * TABLE_NAME is set without DYNAMODB_ENDPOINT; DYNAMODB_ENDPOINT always wins.
 */
export function resolveKeysTarget(
  env: Env,
  findServer: () => LocalServerPointer = readLocalServerPointer,
): KeysTarget {
  const tableName = optionalEnv(env, 'TABLE_NAME');
  const explicitEndpoint = optionalEnv(env, 'DYNAMODB_ENDPOINT');
  if (explicitEndpoint === undefined && tableName !== undefined) {
    const region = awsSdkEnv(env, 'AWS_REGION') ?? 'region from the AWS config';
    return { endpoint: undefined, tableName, description: `AWS DynamoDB, ${region}, table "${tableName}"` };
  }
  // A setting says where: it wins over the running server's pointer.
  if (explicitEndpoint !== undefined || optionalEnv(env, 'DYNAMO_PORT') !== undefined) {
    const port = envInt(env, 'DYNAMO_PORT', LOCAL_DYNAMO_PORT, { min: 1, max: 65_535 });
    const endpoint = explicitEndpoint ?? `http://127.0.0.1:${port}`;
    const table = tableName ?? LOCAL_TABLE_NAME;
    return { endpoint, tableName: table, description: `DynamoDB at ${endpoint}, table "${table}"` };
  }
  // Nothing said: the DynamoDB of the running npm start, wherever it put it.
  const server = findServer();
  return {
    endpoint: server.dynamoEndpoint,
    tableName: server.tableName,
    description: `the local server at ${server.url}: DynamoDB at ${server.dynamoEndpoint}, table "${server.tableName}"`,
  };
}

/**
 * Runs `run` against the table the environment names (see resolveKeysTarget), with DynamoDB
 * clients built for it and closed afterwards: the entry point of the CLIs that work on the table.
 * A bad environment is one line on stderr and exit code 1.
 */
export async function withTableClients(
  run: (clients: { doc: DynamoDBDocumentClient; target: KeysTarget }) => Promise<number>,
): Promise<number> {
  let target: KeysTarget;
  try {
    target = resolveKeysTarget(process.env);
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const { createDynamoClients } = await import('../lib/aws/dynamo');
  const { client, doc } = createDynamoClients(
    target.endpoint === undefined ? {} : { endpoint: target.endpoint },
  );
  try {
    return await run({ doc, target });
  } finally {
    client.destroy();
  }
}

/**
 * The command line is read before anything is looked up: `--help` and a mistake on it are
 * answered without a server or a table.
 */
function answeredWithoutTable(argv: readonly string[]): number | undefined {
  try {
    if (parseCommandLine(argv).command !== 'help') return undefined;
    process.stdout.write(USAGE);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(usageErrorLine(error, 'npm run keys -- help'));
    return 2;
  }
}

function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const answered = answeredWithoutTable(argv);
  if (answered !== undefined) return Promise.resolve(answered);
  return withTableClients(({ doc, target }) =>
    runKeysCli(argv, {
      doc,
      tableName: target.tableName,
      target: target.description,
      stdout: process.stdout,
      stderr: process.stderr,
    }),
  );
}

if (isMainModule(import.meta.url)) {
  endOnOutputError();
  process.exitCode = await main();
}
