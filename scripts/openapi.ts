/**
 * Writes the OpenAPI document to openapi.json at the repository root.
 *   npm run openapi               regenerate it
 *   npm run openapi -- --check    exit 1 when the committed file differs from the code (for CI)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { serializeOpenApiDocument } from '../lib/api/openapi';

const target = new URL('../openapi.json', import.meta.url);
const fresh = serializeOpenApiDocument();

if (process.argv.includes('--check')) {
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
