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
  /**
   * The servers this one replaced, latest first, that still ran when it started: when it stops,
   * the first of them still running gets the file back (one level alone lost the first of three).
   */
  replaced?: LocalServerPointer[];
}

/** `<temp>/sbe-local/server.json`; the temp directory follows `TMPDIR` as Node's `os.tmpdir()` does. */
function localServerPointerFile(): string {
  return join(tmpdir(), 'sbe-local', 'server.json');
}

/**
 * Written whole (a rename), so a reader never sees half of it. The last server started wins; the
 * servers it replaced that still run are kept in it (`replaced`), to be pointed at again when it
 * stops (`removeLocalServerPointer`): a second server's stop left the tools with no server though
 * the first still ran.
 */
export function writeLocalServerPointer(pointer: LocalServerPointer, file = localServerPointerFile()): void {
  const current = readPointer(file);
  const chain = current === undefined ? [] : [withoutChain(current), ...(current.replaced ?? [])];
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const replaced = chain.filter((earlier) => earlier.pid !== pointer.pid && isRunning(earlier.pid));
  writePointer(replaced.length === 0 ? withoutChain(pointer) : { ...withoutChain(pointer), replaced }, file);
}

/**
 * This process's server stops: when the file is its own, the latest server it replaced that still
 * runs gets it back (else it is removed); when a server started since holds it, this one is only
 * dropped from the servers that one replaced.
 */
export function removeLocalServerPointer(pid = process.pid, file = localServerPointerFile()): void {
  const current = readPointer(file);
  if (current === undefined) return;
  const others = (current.replaced ?? []).filter((earlier) => earlier.pid !== pid && isRunning(earlier.pid));
  if (current.pid !== pid) {
    if (others.length !== (current.replaced ?? []).length)
      writePointer({ ...withoutChain(current), replaced: others }, file);
    return;
  }
  const [next, ...rest] = others;
  if (next === undefined) rmSync(file, { force: true });
  else writePointer(rest.length === 0 ? next : { ...next, replaced: rest }, file);
}

function withoutChain(pointer: LocalServerPointer): LocalServerPointer {
  const { replaced: _chain, ...own } = pointer;
  return own;
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
  if (!isPointer(parsed)) return undefined;
  // The servers it replaced: only the well-formed ones count.
  const replaced = Array.isArray(parsed.replaced) ? parsed.replaced.filter(isPointer).map(withoutChain) : [];
  return replaced.length === 0 ? withoutChain(parsed) : { ...withoutChain(parsed), replaced };
}

function isPointer(value: unknown): value is LocalServerPointer {
  const pointer = value as Partial<LocalServerPointer> | null;
  return (
    typeof pointer?.url === 'string' &&
    typeof pointer.dynamoEndpoint === 'string' &&
    typeof pointer.tableName === 'string' &&
    typeof pointer.issuerFile === 'string' &&
    Number.isSafeInteger(pointer.pid)
  );
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
