/**
 * The explorer page in Debian's Chromium (headless, software WebGL): what a newcomer's browser
 * downloads for the small-graph path, how long the worked example takes from navigation to the
 * drawn answer, and how large structures render, move and fit: Jaeger's 871 services, a
 * 20,000-node DAG of 12 tiers, a random 20,000-node graph that is mostly cycles, and the
 * generated 20,000- and 100,000-node structures, and a step of the timeline on the 300-service
 * example. A benchmark, not a test: it prints a table and
 * PASS/MISS lines for issue #10's and issue #36's targets. Run with `npm run bench:explorer`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildExplorer } from '../explorer/build';
import { generated } from '../explorer/src/examples';
import { startLocalServer } from '../local/server';
import { findChromium, launchChromium } from '../test/explorer/browser';
import { cyclicGraph, jaegerServices, overlapShare, tieredDag } from '../test/explorer/large-structures';
import { formatMs, renderTable } from './table';

const BUDGET = {
  smallPathKiB: 300,
  firstRenderMs: 1000,
  frameMs: 1000 / 30,
  // Issue #36: Jaeger's 871 services drawn in 1 s and panned at a p95 of 33 ms; 20,000 nodes
  // laid out in 5 s and panned at 60 fps; under 1% of nodes overlapping another at Fit.
  jaegerDrawnMs: 1000,
  jaegerFrameP95Ms: 33,
  largeDrawnMs: 5000,
  largeFrameMs: 1000 / 60,
  overlapShare: 0.01,
  // Issue #36: a step of the timeline on the 300-service example redrawn in about 100 ms or less.
  timelineStepMs: 100,
} as const;
const RUNS = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Whether a median frame meets a frame budget, both to 0.1 ms as printed: the page times frames
 * with `performance.now()`, which Chromium coarsens to 0.1 ms in a page that is not cross-origin
 * isolated, so frames drawn on time at 60 Hz (16.67 ms apart) read 16.6 or 16.7 ms, and so does
 * their median.
 */
function withinFrame(ms: number, budget: number): boolean {
  return Math.round(ms * 10) <= Math.round(budget * 10);
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
  ...scripts.filter((name) => !name.startsWith('/large-graph') && name !== '/force-worker.js'),
];
const smallPathBytes = smallPath.reduce((sum, name) => sum + gzipped(name), 0);
const forceBytes = gzipped('/force-worker.js');
const webglBytes = scripts
  .filter((name) => name.startsWith('/large-graph'))
  .reduce((s, n) => s + gzipped(n), 0);

const issuerFolder = mkdtempSync(path.join(tmpdir(), 'sbe-bench-explorer-'));
const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  quiet: true,
  issuerFile: path.join(issuerFolder, 'issuer.json'),
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
  rows.push([
    'worked example, navigation to drawn answer',
    formatMs(median(firstRender)),
    '–',
    '–',
    '–',
    '–',
  ]);
  check(
    `first render ≤ ${BUDGET.firstRenderMs} ms`,
    median(firstRender) <= BUDGET.firstRenderMs,
    formatMs(median(firstRender)),
  );

  // A timeline step: the 300-service example run as 20 ticks, the slider moved one tick at a
  // time, each step timed from the slider's input until the frame after it is drawn.
  {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${server.url}/`);
    await page.selectOption('#example', { label: 'Service graph, 300 services' });
    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '20');
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"][data-graph="svg"]');
    const step = `async (steps) => {
      const slider = document.getElementById('tick');
      const times = [];
      for (let i = 0; i < steps; i++) {
        const started = performance.now();
        slider.value = String((Number(slider.value) + 1) % (Number(slider.max) + 1));
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
        times.push(performance.now() - started);
      }
      return times;
    }`;
    await page.evaluate(`(${step})(5)`);
    const steps = (await page.evaluate(`(${step})(40)`)) as number[];
    await page.close();
    rows.push([
      '300-service example, a timeline step',
      '–',
      '–',
      formatMs(median(steps)),
      formatMs(percentile(steps, 0.95)),
      '–',
    ]);
    check(
      `timeline step on 300 services ≤ ${BUDGET.timelineStepMs} ms (median)`,
      median(steps) <= BUDGET.timelineStepMs,
      formatMs(median(steps)),
    );
  }

  /**
   * From Run to the drawn view (the time `Open` takes for a registered system, which runs its
   * structure the same way), the layout and first frame alone, camera-move frame times, and the
   * share of nodes overlapping another at Fit.
   */
  async function measure(
    label: string,
    body: object,
    frameCount: number,
    layout: 'auto' | 'layers' | 'force' = 'auto',
  ) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('crash', () => problems.push('the page crashed'));
    try {
      await page.goto(`${server.url}/`);
      // Set the body directly: typing megabytes into a textarea measures the textarea.
      await page.evaluate(`document.getElementById('body').value = ${JSON.stringify(JSON.stringify(body))}`);
      await page.selectOption('#run-as', 'analyze');
      await page.evaluate(`document.getElementById('layout-choice').value = '${layout}'`);
      const started = performance.now();
      await page.click('#run');
      // With the force layout: until it is drawn, the layers having been drawn meanwhile.
      await page.waitForSelector(
        layout === 'force' ? 'body[data-graph="webgl"][data-layout="force"]' : 'body[data-graph="webgl"]',
        { state: 'attached', timeout: 300_000 },
      );
      const drawnMs = performance.now() - started;
      // For the force layout, the worker's time from its request to its answer.
      const layoutMs = Number(
        await page.evaluate(
          layout === 'force' ? 'document.body.dataset.forceMs' : 'document.body.dataset.graphMs',
        ),
      );
      // Software WebGL takes seconds per frame at 100k: a few frames tell the story.
      const frames = (await page.evaluate(`globalThis.explorerFrameTimes(${frameCount})`)) as number[];
      await page.click('#zoom-fit');
      await page.waitForTimeout(400);
      const discs = (await page.evaluate('globalThis.explorerNodeDiscs()')) as Array<
        [number, number, number]
      >;
      const overlap = overlapShare(discs);
      rows.push([
        label,
        formatMs(drawnMs),
        formatMs(layoutMs),
        formatMs(median(frames)),
        formatMs(percentile(frames, 0.95)),
        `${(overlap * 100).toFixed(1)}%`,
      ]);
      return { drawnMs, frames, overlap };
    } catch (error) {
      const why = [...problems, (error as Error).message.split('\n')[0]].join('; ');
      rows.push([label, `not drawn: ${why}`, '–', '–', '–', '–']);
      check(`${label} renders`, false, why);
      return undefined;
    } finally {
      await page.close().catch(() => undefined);
    }
  }
  const overlapCheck = (what: string, overlap: number) =>
    check(
      `${what}: under ${BUDGET.overlapShare * 100}% of nodes overlapping at Fit`,
      overlap < BUDGET.overlapShare,
      `${(overlap * 100).toFixed(1)}%`,
    );

  const jaeger = await measure("Jaeger's 871 services", jaegerServices(), 60);
  if (jaeger) {
    check(
      `871 services drawn ≤ ${BUDGET.jaegerDrawnMs} ms from Run`,
      jaeger.drawnMs <= BUDGET.jaegerDrawnMs,
      formatMs(jaeger.drawnMs),
    );
    check(
      `871 services pan p95 ≤ ${BUDGET.jaegerFrameP95Ms} ms`,
      percentile(jaeger.frames, 0.95) <= BUDGET.jaegerFrameP95Ms,
      formatMs(percentile(jaeger.frames, 0.95)),
    );
    overlapCheck('871 services', jaeger.overlap);
  }
  const tiered = await measure('20,000 nodes, 12-tier DAG', tieredDag(20_000, 12), 40);
  if (tiered) {
    check(
      `20k laid out and drawn ≤ ${BUDGET.largeDrawnMs} ms from Run`,
      tiered.drawnMs <= BUDGET.largeDrawnMs,
      formatMs(tiered.drawnMs),
    );
    check(
      `20k pan 60 fps (median frame ≤ ${BUDGET.largeFrameMs.toFixed(1)} ms)`,
      withinFrame(median(tiered.frames), BUDGET.largeFrameMs),
      formatMs(median(tiered.frames)),
    );
    overlapCheck('20k 12-tier DAG', tiered.overlap);
  }
  const cyclic = await measure('20,000 nodes, mostly cycles, layers', cyclicGraph(20_000), 40, 'layers');
  if (cyclic) overlapCheck('20k cyclic graph', cyclic.overlap);
  // Its default: the force layout, once its worker answers (the "layout" column is the worker's time).
  const forced = await measure('20,000 nodes, mostly cycles, force', cyclicGraph(20_000), 20, 'force');
  if (forced) overlapCheck('20k cyclic graph, force layout', forced.overlap);
  const generated20k = await measure('20,000 nodes, generated', generated(20_000, 4), 20);
  if (generated20k)
    check(
      `20k pan/zoom ≥ 30 fps (median frame ≤ ${BUDGET.frameMs.toFixed(1)} ms)`,
      withinFrame(median(generated20k.frames), BUDGET.frameMs),
      formatMs(median(generated20k.frames)),
    );
  await measure('100,000 nodes, generated', generated(100_000, 4), 6);
} finally {
  await browser.close();
  await server.close();
  rmSync(issuerFolder, { recursive: true, force: true });
}

console.log(`Explorer benchmark — Chromium at ${chromium}, headless, software WebGL (SwiftShader)\n`);
console.log(
  renderTable(
    [
      { header: 'measurement', align: 'left' },
      { header: 'to drawn', align: 'right' },
      { header: 'layout + 1st frame', align: 'right' },
      { header: 'frame, median', align: 'right' },
      { header: 'frame, p95', align: 'right' },
      { header: 'overlap at Fit', align: 'right' },
    ],
    rows,
  ),
);
console.log(
  `\nPage JavaScript and CSS for the small-graph path: ${(smallPathBytes / 1024).toFixed(1)} KiB gzipped ` +
    `(${smallPath.join(', ')}); the WebGL view adds ${(webglBytes / 1024).toFixed(1)} KiB, loaded only above 800 nodes; ` +
    `the force layout's worker ${(forceBytes / 1024).toFixed(1)} KiB, loaded only for a structure drawn with it.`,
);
check(
  `small-graph path ≤ ${BUDGET.smallPathKiB} KiB gzipped`,
  smallPathBytes / 1024 <= BUDGET.smallPathKiB,
  `${(smallPathBytes / 1024).toFixed(1)} KiB`,
);
console.log(`\n${checks.join('\n')}`);
