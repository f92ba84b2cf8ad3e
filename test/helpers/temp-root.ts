/**
 * One temporary folder per `npm test` run, removed when the run ends: every folder the tests
 * (and what they start: aws-cdk-lib's synthesis, local servers, Chromium) make under the system's
 * temporary folder lands in it. Without it a run left some 300 MB behind (thirteen `cdk.out*`
 * folders of staged assets, an issuer folder per local server), every run.
 *
 * A vitest global setup: it runs in vitest's own process before the workers start, and they
 * inherit its environment, so `os.tmpdir()` (which reads `TMPDIR`) names the run's folder in
 * every worker and child process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set while a run's folder is in place: vitest runs a global setup once per project, in one process. */
const RUN_FOLDER = 'SBE_TEST_RUN_FOLDER';

export default function setup(): () => void {
  // The first project's setup makes the folder; the others find it. (Nested folders would also
  // grow Chromium's socket path past the 107 bytes a Unix socket's name may have.)
  if (process.env[RUN_FOLDER] !== undefined) return () => {};
  const root = mkdtempSync(join(tmpdir(), 'sbe-run-'));
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
