/**
 * One temporary folder per `npm test` run, removed when the run ends: every folder the tests
 * (and what they start: aws-cdk-lib's synthesis, local servers, Chromium) make under the system's
 * temporary folder lands in it. Without it a run left some 300 MB behind (thirteen `cdk.out*`
 * folders of staged assets, an issuer folder per local server), every run.
 *
 * A vitest global setup: it runs in vitest's own process before the workers start, and they
 * inherit its environment, so `os.tmpdir()` (which reads `TMPDIR`) names the run's folder in
 * every worker and child process. A run that was killed leaves its folder; the next run removes it.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../../lib/local-server-pointer';

/** Set while a run's folder is in place: vitest runs a global setup once per project, in one process. */
const RUN_FOLDER = 'SBE_TEST_RUN_FOLDER';

/**
 * A run's folder is named `sbe-run-<process id>-<random>`: the id in the name, not in a file in
 * it, since a process a run left behind (a tsx compiler, a browser) can make the folder again
 * after the run removed it, empty or with a cache, as a file in it would not be.
 */
const PREFIX = 'sbe-run-';
const RUN_NAME = new RegExp(`^${PREFIX}(\\d+)-`);

/**
 * Removes the folders of runs that ended without removing theirs for good (a run killed, or one
 * whose leftover process made its folder again): those whose run's process is gone. A running
 * run's folder, and anything not named as a run's, is left. Returns the folders removed.
 */
export function removeAbandonedRunFolders(parent: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    const pid = Number(RUN_NAME.exec(name)?.[1] ?? Number.NaN);
    if (!(pid > 0) || isRunning(pid)) continue;
    const folder = join(parent, name);
    rmSync(folder, { recursive: true, force: true });
    removed.push(folder);
  }
  return removed;
}

export default function setup(): () => void {
  // The first project's setup makes the folder; the others find it. (Nested folders would also
  // grow Chromium's socket path past the 107 bytes a Unix socket's name may have.)
  if (process.env[RUN_FOLDER] !== undefined) return () => {};
  removeAbandonedRunFolders(tmpdir());
  const root = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const previous = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
  process.env[RUN_FOLDER] = root;
  process.env.TMPDIR = root;
  process.env.TMP = root;
  process.env.TEMP = root;
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    delete process.env[RUN_FOLDER];
    // A browser or server a failed test left running may still write there: retried, and forced.
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
