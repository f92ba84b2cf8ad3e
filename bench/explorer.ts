/**
 * The explorer page in Debian's Chromium (headless, software WebGL): what a newcomer's browser
 * downloads for the small-graph path, how long the worked example takes from navigation to the
 * drawn answer, and how the WebGL view of a 20,000-node / 80,000-dependency structure (and a
 * 100,000-node one) renders and moves. A benchmark, not a test: it prints a table and PASS/MISS
 * lines for issue #10's budget. Run with `npm run bench:explorer`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildExplorer } from '../explorer/build';
import { generated } from '../explorer/src/examples';
import { scriptArgs } from '../lib/script-args';
import { startLocalServer } from '../local/server';
import { findChromium, launchChromium } from '../test/explorer/browser';
import { formatMs, renderTable } from './table';

scriptArgs({
  command: 'npm run bench:explorer',
  usage: `The explorer page in Debian's Chromium: the small-graph download, the worked example's first
render, and the WebGL view of 20,000 and 100,000 nodes, with PASS/MISS lines for the budget.
It starts its own local server on free ports. Takes no options but:

  -h, --help    this text`,
  options: {},
});

const BUDGET = { smallPathKiB: 300, firstRenderMs: 1000, frameMs: 1000 / 30 } as const;
const RUNS = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

const chromium = findChromium();
if (chromium === undefined) {
  console.error('No chromium on PATH: apt-get install -y chromium (or set CHROMIUM_PATH).');
  process.exit(1);
}

const files = await buildExplorer();
const gzipped = (name: string) => gzipSync(files.get(name)!.body).length;
const scripts = [...files.keys()].filter((name) => name.endsWith('.js'));
const smallPath = [
  '/index.html',
  '/explorer.css',
  ...scripts.filter((name) => !name.startsWith('/large-graph')),
];
const smallPathBytes = smallPath.reduce((sum, name) => sum + gzipped(name), 0);
const webglBytes = scripts
  .filter((name) => name.startsWith('/large-graph'))
  .reduce((s, n) => s + gzipped(n), 0);

const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  quiet: true,
  issuerFile: path.join(mkdtempSync(path.join(tmpdir(), 'sbe-bench-explorer-')), 'issuer.json'),
});
const browser = await launchChromium(chromium);
const rows: string[][] = [];
const checks: string[] = [];
const check = (what: string, pass: boolean, measured: string) =>
  checks.push(`${pass ? 'PASS' : 'MISS'}  ${what}, measured ${measured}`);

try {
  // First render: a fresh page each run, from navigation to the worked example's answer drawn.
  const firstRender: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage();
    const started = performance.now();
    await page.goto(`${server.url}/`);
    await page.click('#load-worked');
    await page.waitForSelector('body[data-state="done"]');
    firstRender.push(performance.now() - started);
    await page.close();
  }
  rows.push(['worked example, navigation to drawn answer', formatMs(median(firstRender)), '–', '–']);
  check(
    `first render ≤ ${BUDGET.firstRenderMs} ms`,
    median(firstRender) <= BUDGET.firstRenderMs,
    formatMs(median(firstRender)),
  );

  for (const nodeCount of [20_000, 100_000]) {
    const label = `${nodeCount.toLocaleString('en')} nodes, WebGL`;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('crash', () => problems.push('the page crashed'));
    try {
      await page.goto(`${server.url}/`);
      // Set the body directly: typing megabytes into a textarea measures the textarea.
      await page.evaluate(
        `document.getElementById('body').value = ${JSON.stringify(JSON.stringify(generated(nodeCount, 4)))}`,
      );
      await page.selectOption('#run-as', 'analyze');
      const started = performance.now();
      await page.click('#run');
      await page.waitForSelector('body[data-graph="webgl"]', { state: 'attached', timeout: 300_000 });
      const drawnMs = performance.now() - started;
      // Software WebGL takes seconds per frame at these sizes: a few frames tell the story.
      const frames = (await page.evaluate(
        `globalThis.explorerFrameTimes(${nodeCount > 20_000 ? 6 : 20})`,
      )) as number[];
      rows.push([label, formatMs(drawnMs), formatMs(median(frames)), formatMs(percentile(frames, 0.95))]);
      if (nodeCount === 20_000) {
        check(
          `20k pan/zoom ≥ 30 fps (median frame ≤ ${BUDGET.frameMs.toFixed(1)} ms)`,
          median(frames) <= BUDGET.frameMs,
          formatMs(median(frames)),
        );
      }
    } catch (error) {
      const why = [...problems, (error as Error).message.split('\n')[0]].join('; ');
      rows.push([label, `not drawn: ${why}`, '–', '–']);
      check(`${label} renders`, false, why);
    } finally {
      await page.close().catch(() => undefined);
    }
  }
} finally {
  await browser.close();
  await server.close();
}

console.log(`Explorer benchmark — Chromium at ${chromium}, headless, software WebGL (SwiftShader)\n`);
console.log(
  renderTable(
    [
      { header: 'measurement', align: 'left' },
      { header: 'to drawn', align: 'right' },
      { header: 'frame, median', align: 'right' },
      { header: 'frame, p95', align: 'right' },
    ],
    rows,
  ),
);
console.log(
  `\nPage JavaScript and CSS for the small-graph path: ${(smallPathBytes / 1024).toFixed(1)} KiB gzipped ` +
    `(${smallPath.join(', ')}); the WebGL view adds ${(webglBytes / 1024).toFixed(1)} KiB, loaded only above 2,000 nodes.`,
);
check(
  `small-graph path ≤ ${BUDGET.smallPathKiB} KiB gzipped`,
  smallPathBytes / 1024 <= BUDGET.smallPathKiB,
  `${(smallPathBytes / 1024).toFixed(1)} KiB`,
);
console.log(`\n${checks.join('\n')}`);
