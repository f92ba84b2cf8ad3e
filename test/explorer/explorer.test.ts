import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, generated } from '../../explorer/src/examples';
import { post, startTestServer, type TestServer } from '../integration/server';
import { findChromium, launchChromium } from './browser';

const chromiumPath = findChromium();
// A machine without Chromium skips these tests with a note; CI installs it and must run them.
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');
if (chromiumPath === undefined)
  console.warn('Explorer browser tests skipped: no chromium on PATH (apt-get install chromium)');

const SCREENSHOTS = 'test-results/explorer';

describe.runIf(chromiumPath !== undefined)('the explorer page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium(chromiumPath!);
    page = await browser.newPage({ acceptDownloads: true });
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${server.url}/`);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function runAndWait(): Promise<void> {
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]');
  }

  // The model's worked example, one click from the page: B is the primary blockage, all of its
  // value comes from A (share 1) along A → B.
  it('shows the worked example: blockage B, origin A with share 1, trace A → B', async () => {
    await page.click('#load-worked');
    await page.waitForSelector('body[data-state="done"]');
    expect(await page.textContent('[data-field="primary-blockage"] dd')).toBe('B');
    expect(await page.textContent('[data-field="origin"] dd')).toBe('A: load 10, contribution 5, share 1');
    expect(await page.locator('[data-field="trace"] li').allTextContents()).toEqual(['A', 'B']);
    expect(await page.locator('#graph .node').count()).toBe(3);
    await page.screenshot({ path: `${SCREENSHOTS}/worked-example.png`, fullPage: true });
  });

  // An open structure's analyze: coloured by utilization, headroom in words, exits and fan-out
  // marked. B takes 20 calls a step against a capacity of 15, so the system is over capacity.
  it('shows an open service graph: utilization colours, headroom, exit and fan-out marks', async () => {
    const index = EXAMPLES.findIndex((example) => example.name === 'Open service graph');
    await page.selectOption('#example', String(index));
    await page.selectOption('#run-as', 'analyze');
    await runAndWait();
    expect(await page.textContent('[data-field="headroom"] dd')).toBe(
      "over capacity: B saturates at ×0.75 of today's arrivals",
    );
    expect(await page.textContent('#colour-key')).toContain('utilization');
    expect(await page.getAttribute('#graph .node[data-id="frontend"]', 'data-mark')).toBe('fanout');
    expect(await page.getAttribute('#graph .node[data-id="db"]', 'data-mark')).toBe('exit');
    expect(await page.getAttribute('#graph .node[data-id="A"]', 'data-mark')).toBeNull();
    // B is over capacity: the top of the scale (viridis yellow); A has no capacity: grey.
    expect(await page.getAttribute('#graph .node[data-id="B"] circle.body', 'fill')).toBe(
      'rgb(253, 231, 37)',
    );
    expect(await page.getAttribute('#graph .node[data-id="A"] circle.body', 'fill')).toBe('#b8b8b8');
    await page.screenshot({ path: `${SCREENSHOTS}/open-service-graph.png`, fullPage: true });

    // A timeline of it describes states: back to pressure colours, no headroom.
    await page.selectOption('#run-as', 'ticks');
    await runAndWait();
    expect(await page.textContent('#colour-key')).toContain('pressure');
    expect(await page.locator('[data-field="headroom"]').count()).toBe(0);
  });

  // "Identical to the API": the worker's answer is the API's answer, byte for byte.
  it('answers each small shipped example with the bytes POST /api/engine answers', async () => {
    for (const [index, example] of EXAMPLES.entries()) {
      if (example.name.startsWith('Generated')) continue;
      await page.selectOption('#example', String(index));
      await page.selectOption('#run-as', 'written');
      await runAndWait();
      const body = await page.inputValue('#body');
      const api = await post(server.url, server.apiKey, body);
      expect(api.status).toBe(200);
      expect(await page.textContent('#raw'), example.name).toBe(api.text);
    }
  });

  // The generated 10,000-node example too: its answer (3 MB) is compared through Export JSON.
  it("answers the generated 10,000-node example with the API's bytes", async () => {
    const index = EXAMPLES.findIndex((example) => example.name.startsWith('Generated'));
    await page.selectOption('#example', String(index));
    await page.selectOption('#run-as', 'written');
    await runAndWait();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    const saved = await readFile((await download.path())!, 'utf8');
    const api = await post(server.url, server.apiKey, await page.inputValue('#body'));
    expect(api.status).toBe(200);
    expect(saved.length).toBeGreaterThan(1_000_000);
    expect(saved === api.text).toBe(true);
  });

  // A link carries a small structure in its fragment; opening it runs that structure.
  it('shares a structure in the URL fragment and runs it when the link is opened', async () => {
    await page.selectOption('#example', '3');
    await page.click('#share');
    const link = page.url();
    expect(link).toMatch(/#body=[A-Za-z0-9_-]+$/);
    const other = await browser.newPage();
    other.on('request', (request) => requested.push(request.url()));
    await other.goto(link);
    await other.waitForSelector('body[data-state="done"]');
    expect(await other.textContent('[data-field="primary-blockage"] dd')).toBe('gateway');
    await other.close();
  });

  // A payload error names the element, in the API's own words.
  it('shows a payload error with the element it names', async () => {
    const body = JSON.stringify({
      mode: 'analyze',
      nodes: [{ id: 'web', load: 1 }],
      dependencies: [{ from: 'web', to: 'db' }],
    });
    await page.fill('#body', body);
    await page.selectOption('#run-as', 'written');
    await runAndWait();
    const api = await post(server.url, server.apiKey, body);
    expect(await page.textContent('#raw')).toBe(api.text);
    expect(await page.textContent('#error strong')).toBe('PAYLOAD_ERROR');
    expect(await page.textContent('#error')).toContain('dependencies[0].to');
    await page.screenshot({ path: `${SCREENSHOTS}/payload-error.png`, fullPage: true });
  });

  // The seam a panel module gets (explorer/src/page.ts): re-run the editor's body with extra
  // request fields, read each answer, recolour the graph by a value per node.
  it('re-runs with extra request fields and recolours the graph through the page seam', async () => {
    await page.selectOption('#example', '0');
    await page.selectOption('#run-as', 'written');
    await runAndWait();
    await page.evaluate(`(() => {
      window.seenModes = [];
      explorerPage.onAnswer((answer) => {
        window.seenModes.push(answer.mode);
        explorerPage.setColouring({ key: 'Colour: B only.', fraction: (node) => (node.id === 'B' ? 1 : 0) });
      });
    })()`);
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.evaluate("explorerPage.rerun({ mode: 'ticks', ticks: 4 })");
    await page.waitForSelector('body[data-state="done"]');
    expect(await page.evaluate('window.seenModes')).toEqual(['ticks']);
    expect(await page.locator('#chart polyline').count()).toBe(3);
    expect(await page.textContent('#colour-key')).toBe('Colour: B only.');
    expect(await page.getAttribute('#graph .node[data-id="B"] circle.body', 'fill')).toBe(
      'rgb(253, 231, 37)',
    );
    expect(await page.getAttribute('#graph .node[data-id="A"] circle.body', 'fill')).toBe('rgb(68, 1, 84)');
    // The editor's text is left as it was; a plain run drops the colouring.
    expect(JSON.parse(await page.inputValue('#body')).mode).toBe('analyze');
    await page.evaluate('explorerPage.setColouring(undefined)');
    expect(await page.textContent('#colour-key')).toContain('pressure');
    await page.goto(`${server.url}/`);
  });

  // The worked example settles after three ticks: scrubbing to tick 3 shows the event.
  it('scrubs a timeline to tick 3 and shows settled', async () => {
    await page.selectOption('#example', '0');
    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '5');
    await runAndWait();
    await page.locator('#tick').fill('2');
    expect(await page.textContent('#tick-label')).toBe('tick 3');
    expect(await page.locator('#events li[data-type="settled"]').count()).toBe(1);
    expect(await page.textContent('[data-field="primary-blockage"] dd')).toBe('C');
    await page.screenshot({ path: `${SCREENSHOTS}/timeline-tick-3.png`, fullPage: true });
  });

  // The chart plots the timeline (sinks, in flight, blockage pressure); every tick's events are
  // listed, and an event's tick jumps there with its node selected.
  it('charts the timeline and jumps to an event from the list of every tick', async () => {
    expect(await page.locator('#chart polyline').count()).toBe(3);
    await page.click('#all-events-panel summary');
    await page
      .locator('#all-events li', { hasText: 'drained' })
      .last()
      .getByRole('button', { name: 'B' })
      .click();
    expect(await page.textContent('#tick-label')).toBe('tick 3');
    expect(await page.textContent('#details')).toContain('Node');
    expect(await page.locator('#chart polyline').count()).toBe(4);
    expect(await page.textContent('#chart-legend')).toContain('load of B: 0');
  });

  // Export gives the answer's exact bytes as JSON, and the graph as a PNG image.
  it('exports the answer as JSON and the graph as PNG', async () => {
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    expect(json.suggestedFilename()).toBe('result.json');
    const saved = await readFile((await json.path())!, 'utf8');
    expect(saved).toBe(await page.textContent('#raw'));
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
    expect(png.suggestedFilename()).toBe('structure.png');
    const bytes = await readFile((await png.path())!);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.length).toBeGreaterThan(1000);
  });

  // With a user token: Test URL reads the external API in the browser and checks it as connect
  // would; Register stores it; the list opens it and runs it here.
  it('tests, registers, lists and opens a system with a user token', async () => {
    await page.click('#systems-panel summary');
    await page.fill('#user-token', server.userToken);
    await page.dispatchEvent('#user-token', 'change');
    await page.fill('#system-name', 'sample');
    await page.fill('#system-url', `${server.url}/examples/worked-example.json`);
    await page.click('#test-url');
    // With a token, Test URL is the server's dry run: how it reads, and nothing stored.
    await expect.poll(() => page.textContent('#systems-status')).toMatch(/Nothing was stored|_/);
    expect(await page.textContent('#systems-status')).toBe(
      'Read as native: 3 nodes, 3 dependencies, no entry points. Primary blockage: B; ' +
        'no headroom (no arrivals or no capacities). Nothing was stored.',
    );
    await page.click('#register');
    await page.waitForSelector('#systems li');
    expect(await page.textContent('#systems')).toContain('sample (native, 3 nodes, 3 dependencies)');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.selectOption('#run-as', 'written');
    await page.click('#systems li button');
    await page.waitForSelector('body[data-state="done"]');
    expect(await page.textContent('[data-field="primary-blockage"] dd')).toBe('B');
  });

  // A URL whose answer is not a structure: the element at fault, in connect's words.
  it('names the element at fault when a tested URL holds no valid structure', async () => {
    await page.fill('#system-url', `${server.url}/api/openapi.json`);
    await page.click('#test-url');
    await expect.poll(() => page.textContent('#systems-status')).toMatch(/UPSTREAM_INVALID/);
    expect(await page.textContent('#systems-status')).toContain('UPSTREAM_INVALID');

    // Without a token, the browser fetches the URL itself and the worker checks it.
    await page.fill('#user-token', '');
    await page.dispatchEvent('#user-token', 'change');
    await page.fill('#system-url', `${server.url}/examples/worked-example.json`);
    await page.click('#test-url');
    await expect.poll(() => page.textContent('#systems-status')).toMatch(/accepts|refuse|could not/);
    expect(await page.textContent('#systems-status')).toBe(
      'It holds a structure the engine accepts: 3 nodes, 3 dependencies.',
    );
  });

  // Above 2,000 nodes the WebGL view takes over: the 20,000-node / 80,000-dependency structure
  // renders (its pixels are not blank) with the blockage and origin marked.
  it('draws a 20,000-node structure with WebGL', async () => {
    await page.fill('#body', JSON.stringify(generated(20_000, 4)));
    await page.selectOption('#run-as', 'analyze');
    await runAndWait();
    await page.waitForSelector('body[data-graph="webgl"]', { timeout: 60_000 });
    // The view is in place, but the canvas is drawn again in a later animation frame (its first
    // resize clears it): wait for the pixels themselves, not for a guessed time.
    await expect
      .poll(() => colouredPixels(page.locator('#large-graph')), { timeout: 30_000 })
      .toBeGreaterThan(2000);
    expect(await page.textContent('[data-field="primary-blockage"] dd')).not.toBe('none');
    await page.screenshot({ path: `${SCREENSHOTS}/webgl-20k.png` });
  });

  it('made no request to any host but its own', () => {
    expect(requested.length).toBeGreaterThan(0);
    for (const url of requested)
      expect(url.startsWith(`${server.url}/`) || url.startsWith('blob:')).toBe(true);
  });
});

/** How many pixels of a screenshot of `target` are not (near) white, counted in its page. */
async function colouredPixels(target: Locator): Promise<number> {
  const shot = await target.screenshot();
  return target
    .page()
    .evaluate(
      `(${COUNT_COLOURED_PIXELS})(${JSON.stringify(`data:image/png;base64,${shot.toString('base64')}`)})`,
    );
}

/**
 * Runs in the page (as text: this file has no DOM types): how many pixels of a PNG data URL are
 * not (near) white.
 */
const COUNT_COLOURED_PIXELS = `(dataUrl) => new Promise((resolve) => {
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let coloured = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] < 600) coloured++;
    resolve(coloured);
  };
  image.src = dataUrl;
})`;
