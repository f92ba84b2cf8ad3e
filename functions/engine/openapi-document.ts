import { readFileSync } from 'node:fs';

/**
 * Where the generated OpenAPI document is found. Deployed, the stack copies it beside the
 * bundle (`FUNCTION_FILES`, infra/functions.ts); from the source tree (the local server, the
 * tests) it is the project's own openapi.json. Reading it from disk instead of bundling it keeps
 * about 80 KB of object literal out of every cold start of the engine function, for a document
 * only a few requests ask for.
 */
const BESIDE_BUNDLE = new URL('./openapi.json', import.meta.url);
const IN_SOURCE_TREE = new URL('../../openapi.json', import.meta.url);

let served: string | undefined;

/** The document as served: minified JSON, read and kept at the first request for it. */
export function servedOpenApiDocument(): string {
  served ??= JSON.stringify(JSON.parse(readFirst()));
  return served;
}

function readFirst(): string {
  try {
    return readFileSync(BESIDE_BUNDLE, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return readFileSync(IN_SOURCE_TREE, 'utf8');
}
