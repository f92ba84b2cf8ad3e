import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** One file of the explorer as the server hands it out. */
export interface ExplorerFile {
  contentType: string;
  body: Buffer;
}

const folder = path.dirname(fileURLToPath(import.meta.url));

/**
 * Builds the explorer page in memory: the page script and the engine worker, bundled and
 * minified by esbuild from `explorer/src`, plus the HTML and CSS as they are. Keyed by the
 * URL path each is served at. Takes well under a second, so the local server builds it at
 * start and nothing built is ever committed or stale.
 */
export async function buildExplorer(): Promise<Map<string, ExplorerFile>> {
  const result = await build({
    entryPoints: {
      explorer: path.join(folder, 'src/main.ts'),
      'engine-worker': path.join(folder, 'src/engine-worker.ts'),
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    write: false,
    outdir: '/',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const files = new Map<string, ExplorerFile>();
  for (const output of result.outputFiles) {
    files.set(`/${path.basename(output.path)}`, {
      contentType: 'text/javascript; charset=utf-8',
      body: Buffer.from(output.contents),
    });
  }
  const html = readFileSync(path.join(folder, 'index.html'));
  files.set('/', { contentType: 'text/html; charset=utf-8', body: html });
  files.set('/index.html', { contentType: 'text/html; charset=utf-8', body: html });
  files.set('/explorer.css', {
    contentType: 'text/css; charset=utf-8',
    body: readFileSync(path.join(folder, 'explorer.css')),
  });
  return files;
}
