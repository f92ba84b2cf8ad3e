/**
 * `npm run sweep`: finds what failed requests left behind in the table, older than an hour:
 * orphaned chunks (stored bytes no system reads) and quota counters holding a change that never
 * ended. Dry by default: it lists them; `--delete` removes the chunks and recounts those owners.
 */
import { parseArgs } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readQuotas } from '../lib/config/quotas';
import { isMainModule } from '../lib/main-module';
import { endOnOutputError, type TextOutput, UsageError, usageErrorFrom, usageErrorLine } from './common';
import { withTableClients } from './keys';

const USAGE = `Usage: npm run sweep -- [--delete] [--json]

Lists what failed requests left in the table, older than an hour:
  - orphaned chunks: parts of a structure no system reads (a registration that failed after
    writing them, a delete that failed after removing the system, a refresh's old version);
  - owners whose quota counter still holds a change that never ended (counted, never stored).

Nothing is changed unless --delete is given: then the chunks are deleted (each group only after
its system's head is read again) and those owners' counters are recounted from what they hold.

Options:
  --delete  Delete the orphaned chunks and recount the owners listed.
  --json    Machine-readable output.
  --debug   Show stack traces on errors.

Target: as for npm run keys: the running npm start's DynamoDB and table (found from the file it
  writes), table "sbe-local"; DYNAMO_PORT=<port> points at http://127.0.0.1:<port> instead;
  TABLE_NAME without DYNAMODB_ENDPOINT uses AWS; DYNAMODB_ENDPOINT overrides.
`;

export interface SweepCliContext {
  doc: DynamoDBDocumentClient;
  tableName: string;
  stdout: TextOutput;
  stderr: TextOutput;
  /** Clock in ms; tests move it. */
  now?: () => number;
}

/** The whole CLI minus process wiring. Returns the exit code; never throws. */
export async function runSweepCli(argv: readonly string[], context: SweepCliContext): Promise<number> {
  const debug = argv.includes('--debug');
  try {
    const { values } = parseSweepArgs(argv);
    if (values.help) {
      context.stdout.write(USAGE);
      return 0;
    }
    // The stores and the SDK under them load once the command line is read: --help and a
    // mistake on it answer at once.
    const [{ createOwnerStores }, { ownersWithStaleHolds }, { deleteOrphanedChunks, findOrphanedChunks }] =
      await Promise.all([
        import('../lib/owners/stores'),
        import('../lib/storage/quotas'),
        import('../lib/systems/sweep'),
      ]);
    const now = context.now?.() ?? Date.now();
    const { doc, tableName } = context;
    const orphans = await findOrphanedChunks(doc, tableName, { now });
    const owners = await ownersWithStaleHolds(doc, tableName, now);
    let deletedChunks = 0;
    let recounted = 0;
    if (values.delete) {
      for (const orphan of orphans) deletedChunks += await deleteOrphanedChunks(doc, tableName, orphan);
      const { quotas } = createOwnerStores({ doc, tableName, quotas: readQuotas({}), now: () => now });
      for (const { owner } of owners) {
        await quotas.reconcile(owner);
        recounted += 1;
      }
    }
    if (values.json) {
      context.stdout.write(
        `${JSON.stringify({ orphans: orphans.map(({ keys, ...group }) => ({ ...group, chunks: keys.length })), owners, deletedChunks, recounted }, null, 2)}\n`,
      );
      return 0;
    }
    const chunkCount = orphans.reduce((sum, orphan) => sum + orphan.keys.length, 0);
    const lines = [
      `Orphaned chunks older than an hour: ${chunkCount} in ${orphans.length} group${orphans.length === 1 ? '' : 's'}`,
      ...orphans.map(
        (orphan) =>
          `  system ${orphan.id} v${orphan.version}  ${orphan.keys.length} chunk${orphan.keys.length === 1 ? '' : 's'}  owner ${orphan.owner}  written ${orphan.writtenAt}  (${orphan.reason})`,
      ),
      `Quota counters with a change older than an hour: ${owners.length}`,
      ...owners.map((entry) => `  owner ${entry.owner}  ${entry.staleHolds} since ${entry.since}`),
      values.delete
        ? `Deleted ${deletedChunks} chunks; recounted ${recounted} owner${recounted === 1 ? '' : 's'}.`
        : orphans.length + owners.length === 0
          ? 'Nothing to do.'
          : 'Nothing changed (dry run): run with --delete to delete these chunks and recount these owners.',
    ];
    context.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr.write(usageErrorLine(error, 'npm run sweep -- --help'));
      return 2;
    }
    context.stderr.write(
      debug && error instanceof Error
        ? `${error.stack}\n`
        : `error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

function parseSweepArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        delete: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        debug: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (error) {
    throw usageErrorFrom(error);
  }
}

function main(): Promise<number> {
  const argv = process.argv.slice(2);
  // The command line first: --help and a mistake on it need no server or table.
  try {
    if (parseSweepArgs(argv).values.help) {
      process.stdout.write(USAGE);
      return Promise.resolve(0);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(usageErrorLine(error, 'npm run sweep -- --help'));
    return Promise.resolve(2);
  }
  return withTableClients(({ doc, target }) => {
    process.stderr.write(`sweep: ${target.description}\n`);
    return runSweepCli(argv, {
      doc,
      tableName: target.tableName,
      stdout: process.stdout,
      stderr: process.stderr,
    });
  });
}

if (isMainModule(import.meta.url)) {
  endOnOutputError();
  process.exitCode = await main();
}
