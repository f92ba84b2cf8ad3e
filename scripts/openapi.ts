/**
 * Writes the OpenAPI document to openapi.json at the repository root.
 *   npm run openapi               regenerate it
 *   npm run openapi -- --check    exit 1 when the committed file differs from the code (for CI)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { scriptArgs } from '../lib/script-args';

const { check } = scriptArgs({
  command: 'npm run openapi',
  usage: `Writes the OpenAPI document, built from the code, to openapi.json.

  --check       write nothing; exit 1 when the committed openapi.json differs from the code
  -h, --help    this text`,
  options: { check: { type: 'boolean', default: false } },
});
// Imported once the options are read: the document's schemas load zod and the whole API, which
// `--help` and a mistyped flag do not need.
const { serializeOpenApiDocument } = await import('../lib/api/openapi');
const target = new URL('../openapi.json', import.meta.url);
const fresh = serializeOpenApiDocument();

if (check === true) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== fresh) {
    console.error('openapi.json is out of date: run `npm run openapi` and commit the result');
    process.exitCode = 1;
  } else {
    console.log('openapi.json is up to date');
  }
} else {
  await writeFile(target, fresh);
  console.log(`wrote ${target.pathname}`);
}
