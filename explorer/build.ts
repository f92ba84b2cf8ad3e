import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, type BuildResult, build, buildSync } from 'esbuild';

/** One file of the explorer as the server hands it out. */
export interface ExplorerFile {
  contentType: string;
  body: Buffer;
}

const folder = path.dirname(fileURLToPath(import.meta.url));

/** The page script, the engine worker and the force layout's worker: ES modules, minified, for current browsers; shared code and lazily loaded parts in chunks. */
const BUNDLE: BuildOptions = {
  entryPoints: {
    explorer: path.join(folder, 'src/main.ts'),
    'engine-worker': path.join(folder, 'src/engine-worker.ts'),
    // ForceAtlas2 (with graphology), started only for a structure drawn with the force layout.
    'force-worker': path.join(folder, 'src/force-worker.ts'),
  },
  bundle: true,
  // The WebGL renderer for large structures is its own chunk, loaded only when one is shown.
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  write: false,
  outdir: '/',
  legalComments: 'none',
  logLevel: 'silent',
};

const JAVASCRIPT = 'text/javascript; charset=utf-8';

function collect(result: BuildResult<{ write: false }>): Map<string, ExplorerFile> {
  const files = new Map<string, ExplorerFile>();
  for (const output of result.outputFiles) {
    files.set(`/${path.basename(output.path)}`, {
      contentType: JAVASCRIPT,
      body: Buffer.from(output.contents),
    });
  }
  const html = readFileSync(path.join(folder, 'index.html'));
  files.set('/index.html', { contentType: 'text/html; charset=utf-8', body: html });
  files.set('/explorer.css', {
    contentType: 'text/css; charset=utf-8',
    body: readFileSync(path.join(folder, 'explorer.css')),
  });
  return files;
}

/**
 * Builds the explorer page in memory: the page script and the engine worker bundled by esbuild
 * from `explorer/src`, plus the HTML and CSS as they are, keyed by URL path (`/` too). Takes
 * well under a second, so the local server builds it at start and nothing built is committed.
 */
export async function buildExplorer(): Promise<Map<string, ExplorerFile>> {
  const files = collect(await build({ ...BUNDLE, write: false }));
  files.set('/', files.get('/index.html')!);
  return files;
}

/**
 * The same files written into `outdir` (for the CDK stack's bucket; synthesis is synchronous).
 * Returns `outdir`.
 */
export function writeExplorer(outdir: string): string {
  mkdirSync(outdir, { recursive: true });
  for (const [name, file] of collect(buildSync({ ...BUNDLE, write: false }))) {
    writeFileSync(path.join(outdir, name.slice(1)), file.body);
  }
  return outdir;
}
