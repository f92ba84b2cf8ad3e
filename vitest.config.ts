import { globSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import recorded from './test/file-seconds.json' with { type: 'json' };

/**
 * Test files that change nothing a later file could see (no environment variables, module mocks
 * or servers of their own that set them) share their worker's modules: aws-cdk-lib, zod and the
 * engine are imported once per worker, not once per file (the infrastructure tests alone took 84 s
 * isolated and 56 s shared). Every other file runs isolated, as vitest's default.
 */
const SHARED_MODULES = [
  'test/api/**/*.test.ts',
  'test/app/**/*.test.ts',
  'test/architecture/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/engine/**/*.test.ts',
  'test/formats/**/*.test.ts',
  'test/functions/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/infra/**/*.test.ts',
  'test/keys/**/*.test.ts',
  'test/outbound/**/*.test.ts',
  'test/storage/**/*.test.ts',
  'test/systems/**/*.test.ts',
  'test/text/**/*.test.ts',
  'test/tokens/**/*.test.ts',
];
/**
 * Files in those folders that mock a module or stub the environment (`vi.mock`, `vi.stubEnv`, an
 * assignment to `process.env`): isolated, so nothing they change reaches another file. The HTTP,
 * key, storage, CLI and app files moved to shared modules on 2026-11-28: 43 → 31 s of CPU for
 * those 24 files.
 */
const CHANGES_MODULES_OR_ENV = [
  'test/functions/engine/engine-error.test.ts',
  'test/functions/engine/handler.test.ts',
  'test/keys/dynamo-store-batch.test.ts',
  'test/keys/verifier.test.ts',
  'test/storage/table-and-clients.test.ts',
];
/**
 * Files in those folders that start a local server: it sets environment variables, and the
 * handlers it loads serve one DynamoDB endpoint per process (local/server.ts), so no two such
 * files can share modules.
 */
const STARTS_A_SERVER = [
  'test/api/typed-client.test.ts',
  'test/api/openapi-validation.test.ts',
  'test/infra/rehearsal.test.ts',
];
/**
 * The explorer's tests share their worker's modules too, so its browser tests share one test
 * server and one Chromium per worker (test/explorer/browser.ts), each file with a user and an API
 * key of its own: a server and a browser started per file were some 4 s of CPU each time.
 */
const EXPLORER = ['test/explorer/**/*.test.ts'];

/** The files that share their worker's modules: exclude patterns cannot take some back. */
const SHARED_FILES = globSync(SHARED_MODULES, {
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  exclude: [...STARTS_A_SERVER, ...CHANGES_MODULES_OR_ENV],
}).map((file) => file.split('\\').join('/'));

/**
 * The order vitest's workers take the test files in: each project's files together (a worker
 * that shares its modules keeps them only while the next file is of its project), the slowest
 * first, by the seconds recorded in test/file-seconds.json. Vitest's own order sorts by its cache
 * of the last run on this machine; a fresh clone has none, so it took the files in the order of
 * their paths, and a slow file near the end (script-args, 27 s) ran alone while the other
 * workers had finished. A file the record does not know runs first, as vitest runs unknown files
 * first: it may be slow.
 *
 * `node --import tsx scripts/file-seconds.ts --report REPORT` writes the record again from a run's JSON
 * report (`vitest run --reporter=json --outputFile=REPORT`).
 */
const SECONDS: Readonly<Record<string, number>> = recorded;

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (file: TestSpecification) =>
      SECONDS[relative(root, file.moduleId).split('\\').join('/')] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return seconds(b) - seconds(a) || (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0);
    });
  }
}

export default defineConfig({
  test: {
    // The service's JSON log lines are shown only for a test that fails.
    setupFiles: ['test/helpers/quiet-logs.ts'],
    // Everything the run writes to the temporary folder goes to one folder, removed at its end.
    globalSetup: ['test/helpers/temp-root.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // What a browser test polls for (a drawing, a status line) lands when the page gets the CPU:
    // with two workers and Chromium on 2 cores that can take seconds, not vitest's default 1 s.
    expect: { poll: { timeout: 15_000 } },
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core machine, where most
    // test files wait on a child process, a browser or DynamoDB rather than on the CPU, so two
    // workers finish the suite in about 60% of the time (docs/benchmark.md, "npm test"), and a
    // third uses some of the seconds the other two spend waiting: 312 and 321 s against 320–338 s
    // over four runs with two, all six on 2026-11-29 in one warm checkout.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // Worker threads rather than child processes: a file run isolated starts in a fresh thread,
    // not a fresh Node process (the isolated files took 177 s of CPU against 209 s, the shared
    // ones 147 s against 160 s). The explorer's files keep processes: see below.
    pool: 'threads',
    // Each project's files together, the slowest first, from a recorded run: a fresh clone has no
    // cache of the last run for vitest to order them by (`SlowestFirst` above).
    sequence: { sequencer: SlowestFirst },
    projects: [
      { extends: true, test: { name: 'shared modules', include: SHARED_FILES, isolate: false } },
      // A process each, so the worker's Chromium, which outlives its files, is closed by Playwright
      // when vitest stops that process (a thread's end would leave the browser running).
      { extends: true, test: { name: 'explorer', include: EXPLORER, isolate: false, pool: 'forks' } },
      // One project for every isolated file: vitest takes its projects' files one project after
      // the other, and a second isolated project (the servers', 6 files) ran its last files with
      // one or two workers busy.
      {
        extends: true,
        test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: [...SHARED_FILES, ...EXPLORER] },
      },
    ],
  },
});
