/**
 * Where a running `npm start` is: a small file at a fixed place in the system's temp directory
 * (its URL, DynamoDB endpoint and table, token issuer file and process id), written when the
 * server is up and removed when it stops. `npm run token`, `keys` and `sweep` read it when no
 * setting names a server, so they work with whatever PORT, DYNAMO_PORT and DATA_DIR the server
 * got. It holds no secret: the issuer file it names is the server's own (owner-only), and the
 * API key is never written anywhere.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalServerPointer {
  url: string;
  dynamoEndpoint: string;
  tableName: string;
  issuerFile: string;
  pid: number;
}

/** `<temp>/sbe-local/server.json`; the temp directory follows `TMPDIR` as Node's `os.tmpdir()` does. */
function localServerPointerFile(): string {
  return join(tmpdir(), 'sbe-local', 'server.json');
}

/**
 * Written whole (a rename), so a reader never sees half of it. The last server started wins;
 * the pointer it replaced, when that server still runs, is returned, to be put back when this one
 * stops (`removeLocalServerPointer`): a second server's stop left the tools with no server though
 * the first still ran.
 */
export function writeLocalServerPointer(
  pointer: LocalServerPointer,
  file = localServerPointerFile(),
): LocalServerPointer | undefined {
  const replaced = readPointer(file);
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writePointer(pointer, file);
  return replaced !== undefined && replaced.pid !== pointer.pid && isRunning(replaced.pid)
    ? replaced
    : undefined;
}

/**
 * Removes the pointer if it is still this process's (a server started since keeps its own), and
 * puts back the one it replaced (`previous`) when that server still runs.
 */
export function removeLocalServerPointer(
  pid = process.pid,
  file = localServerPointerFile(),
  previous?: LocalServerPointer,
): void {
  const current = readPointer(file);
  if (current?.pid !== pid) return;
  if (previous !== undefined && isRunning(previous.pid)) writePointer(previous, file);
  else rmSync(file, { force: true });
}

function writePointer(pointer: LocalServerPointer, file: string): void {
  const partial = `${file}.${pointer.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(pointer, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/** The pointer of a server that is running; else an error saying what to run. */
export function readLocalServerPointer(file = localServerPointerFile()): LocalServerPointer {
  const pointer = readPointer(file);
  if (pointer === undefined) {
    throw new Error(
      `no local server is running (nothing at ${file}): start one with "npm start", or say where ` +
        'yours is (DYNAMODB_ENDPOINT for keys and sweep, PORT and DATA_DIR for token)',
    );
  }
  if (!isRunning(pointer.pid)) {
    throw new Error(
      `the local server that wrote ${file} (process ${pointer.pid}) is no longer running: start one with "npm start"`,
    );
  }
  return pointer;
}

function readPointer(file: string): LocalServerPointer | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const pointer = parsed as Partial<LocalServerPointer> | null;
  const wellFormed =
    typeof pointer?.url === 'string' &&
    typeof pointer.dynamoEndpoint === 'string' &&
    typeof pointer.tableName === 'string' &&
    typeof pointer.issuerFile === 'string' &&
    Number.isSafeInteger(pointer.pid);
  return wellFormed ? (pointer as LocalServerPointer) : undefined;
}

/**
 * Signal 0 checks that a process exists without touching it; EPERM means it does, as another user's.
 * @internal test/helpers/temp-root.ts tells a running test run's folder from an abandoned one by it.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
