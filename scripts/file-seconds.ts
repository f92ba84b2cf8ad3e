/**
 * Writes test/file-seconds.json, the seconds each test file took, from a vitest JSON report: the
 * order vitest's workers take the files in (`SlowestFirst` in vitest.config.ts).
 *   vitest run --reporter=json --outputFile=/tmp/report.json
 *   node --import tsx scripts/file-seconds.ts --report /tmp/report.json
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../lib/script-args';

const { report } = scriptArgs({
  command: 'node --import tsx scripts/file-seconds.ts',
  usage: `Writes test/file-seconds.json, the seconds each test file took, from the JSON report of a
whole run (vitest run --reporter=json --outputFile=REPORT).

  --report REPORT   the report to read
  -h, --help        this text`,
  options: { report: { type: 'string' } },
});
if (report === undefined) {
  process.stderr.write('error: --report REPORT is needed (the JSON report of a whole vitest run).\n');
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const { testResults } = JSON.parse(await readFile(report, 'utf8')) as {
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
};
const seconds = Object.fromEntries(
  testResults
    .map(
      ({ name, startTime, endTime }) =>
        [relative(root, name).split('\\').join('/'), Math.round((endTime - startTime) / 100) / 10] as const,
    )
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
const target = new URL('../test/file-seconds.json', import.meta.url);
await writeFile(target, `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`wrote ${fileURLToPath(target)}: ${testResults.length} files`);
