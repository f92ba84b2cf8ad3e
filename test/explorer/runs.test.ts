/**
 * Runs you can trust (issue #36, item 1), in Chromium at 1440×900: the server refusing the
 * connection, never answering (Cancel, and the 30 s timeout), answering late after a newer run,
 * answering 4xx/5xx; the engine worker failing; a scenario error; and numbers checked where they
 * are typed (the scenario's capacity, the capacities editor). Each page is new to its test
 * (test/explorer/browser.ts), so a route (`page.route`) or a fake clock (`page.clock`) of one
 * test never reaches another.
 */
import type { Page, Request, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, errorBody } from '../../lib/api/errors';
import { parseJsonRequestBody } from '../../lib/api/request-body';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../../lib/worked-example';
import { post, type TestServer } from '../integration/server';
import { findChromium, freshExplorerPages, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/** What the page shows for a node without a result (grey: no value on the colour scale). */
const NO_RESULT_FILL = '#b8b8b8';
/** Long enough for any answer here, short enough that a page stuck "Running…" fails fast. */
const SETTLED_MS = 10_000;
/** A timeline of the worked example: an answer with a chart, events and a summary. */
const TIMELINE = { mode: 'ticks', ticks: 5, ...WORKED_EXAMPLE };

describe.runIf(chromiumPath !== undefined)('runs you can trust, in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);
  const openPage = pages.open;
  let server: TestServer;
  beforeAll(() => {
    server = pages.server();
  });

  /** Puts `body` in the editor, to run as written, in the browser or on the server. */
  async function prepareRun(page: Page, body: object, where: 'browser' | 'server'): Promise<void> {
    await page.fill('#body', JSON.stringify(body));
    await page.selectOption('#run-as', 'written');
    await page.setChecked('#on-server', where === 'server');
    if (where === 'server') await page.fill('#api-key', server.apiKey);
    await page.evaluate("document.body.dataset.state = 'idle'");
  }

  /** Runs `body` and waits for the page to settle on `state`. */
  async function run(page: Page, body: object, where: 'browser' | 'server', state = 'done'): Promise<void> {
    await prepareRun(page, body, where);
    await page.click('#run');
    await page.waitForSelector(`body[data-state="${state}"]`, { timeout: SETTLED_MS });
  }

  /**
   * Nothing of the previous answer is left (chart, summary, events, colours), and the structure
   * is drawn as written, uncoloured, its nodes there to click.
   */
  async function expectStructureWithoutResult(page: Page, nodes: string[]): Promise<void> {
    expect(await page.isHidden('#chart-figure')).toBe(true);
    expect(await page.locator('#chart polyline').count()).toBe(0);
    expect(await page.textContent('#summary')).toBe('');
    expect(await page.locator('#events li').count()).toBe(0);
    expect(await page.isHidden('#timeline')).toBe(true);
    expect(await page.isVisible('#graph-figure')).toBe(true);
    expect(
      await page.locator('#graph .node').evaluateAll((all) => all.map((n) => n.getAttribute('data-id'))),
    ).toEqual(nodes);
    for (const id of nodes)
      expect(await page.getAttribute(`#graph .node[data-id="${id}"] circle.body`, 'fill')).toBe(
        NO_RESULT_FILL,
      );
    expect(await page.textContent('#colour-key')).toMatch(/no result/i);
  }

  // "Failed to fetch": the server is gone (connection refused). Before, the page threw it
  // uncaught and stayed "Running on the server…" for ever, the previous graph and chart on show.
  it('shows a refused connection once, clears the old result and keeps the structure clickable', async () => {
    const { page, uncaught } = await openPage();
    await run(page, TIMELINE, 'browser');
    expect(await page.isVisible('#chart-figure')).toBe(true);
    await page.route('**/api/engine', (route) => route.abort('connectionrefused'));
    await run(page, TIMELINE, 'server', 'error');
    expect(uncaught).toEqual([]);
    expect(await page.textContent('#status')).toBe('No connection to the server.');
    expect(await page.textContent('#error strong')).toBe('Could not reach the server');
    await expectStructureWithoutResult(page, ['A', 'B', 'C']);
    expect(await page.isHidden('#cancel')).toBe(true);
    // The node to fix can be picked: a click selects it (ringed) and picks it for the scenario.
    await page.click('#graph .node[data-id="B"]');
    expect(await page.inputValue('#scenario-node')).toBe('B');
    expect(await page.locator('#graph .node[data-id="B"] circle.ring.selected').count()).toBe(1);
    await page.screenshot({ path: `${SCREENSHOTS}/runs-refused.png`, fullPage: true });
  });

  // A body past the API's 6 MiB: its 413 advises compressing, which the page cannot do, while
  // the browser runs any size. The page says so (the answer is the API's own words, made by its
  // own code for a limit of 10 bytes; the server's real 413 needs a 6 MiB paste).
  it('adds to a body-size 413 that the browser runs what the server will not take', async () => {
    const { page } = await openPage();
    let refusal: ApiError | undefined;
    try {
      parseJsonRequestBody('{"mode":"analyze","nodes":[]}', { maxBytes: 10, maxDecodedBytes: 10 });
    } catch (thrown) {
      refusal = thrown as ApiError;
    }
    await page.route('**/api/engine', (route) =>
      route.fulfill({
        status: 413,
        contentType: 'application/json',
        body: JSON.stringify(errorBody(refusal!)),
      }),
    );
    await run(page, TIMELINE, 'server', 'error');
    expect(await page.textContent('#error')).toContain(
      `${refusal!.message} From this page: untick "Run on the server" to run it in the browser, where the body has no byte limit.`,
    );
    await page.unroute('**/api/engine');
    // Deployed, a body past 6 MiB never reaches the function: API Gateway answers it, in its
    // own words (docs/deploy.md), and the page says the same of it.
    await page.route('**/api/engine', (route) =>
      route.fulfill({
        status: 413,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'Request Entity Too Large' }),
      }),
    );
    await run(page, TIMELINE, 'server', 'error');
    expect(await page.textContent('#error')).toContain(
      'Request Entity Too Large. From this page: untick "Run on the server" to run it in the browser, where the body has no byte limit.',
    );
    await page.unroute('**/api/engine');
  });

  // A request that never answers: Cancel, visible while it is in flight, stops it; the answer on
  // show before stays, and the status says the run was cancelled.
  it('cancels a server run that never answers', async () => {
    const { page, uncaught } = await openPage();
    await run(page, { mode: 'analyze', ...WORKED_EXAMPLE }, 'browser');
    expect(await page.isHidden('#cancel')).toBe(true);
    await page.route('**/api/engine', () => {
      // Never answered.
    });
    const failed = page.waitForEvent('requestfailed', { timeout: SETTLED_MS });
    failed.catch(() => {
      // Awaited below; a test that fails first leaves it unawaited.
    });
    await prepareRun(page, TIMELINE, 'server');
    await page.click('#run');
    expect(await page.textContent('#status')).toBe('Running on the server…');
    await page.getByRole('button', { name: 'Cancel' }).click({ timeout: SETTLED_MS });
    await page.waitForSelector('body[data-state="cancelled"]', { timeout: SETTLED_MS });
    // The request itself is aborted, not only forgotten.
    expect((await failed).url()).toBe(`${server.url}/api/engine`);
    expect(await page.textContent('#status')).toBe('Cancelled: the answer on show is the run before.');
    expect(await page.isHidden('#cancel')).toBe(true);
    expect(await page.isHidden('#error')).toBe(true);
    expect(await page.textContent('[data-field="primary-blockage"] dd')).toBe('B');
    expect(uncaught).toEqual([]);
  });

  // A long run in the browser: Cancel ends its worker (a run cannot be interrupted otherwise),
  // and the next run gets a new one instead of waiting behind the cancelled run. The first worker
  // is one whose run never ends (a synchronous loop, as a long engine run is): a real long run
  // needed a 20,000-node structure, whose drawing cost the test most of its 6–22 s, and a run
  // that happened to finish before Cancel was pressed failed the test. The second worker is the
  // real engine: it answers only if it is a new worker, not the busy one.
  it('cancels a run in the browser by ending its worker', async () => {
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route(
        '**/engine-worker.js',
        (route) =>
          route.fulfill({ contentType: 'text/javascript', body: 'self.onmessage = () => { for (;;); };' }),
        { times: 1 },
      ),
    );
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));
    await prepareRun(page, TIMELINE, 'browser');
    await page.click('#run');
    // The worker spins a core until it is ended: with the other browser files on the same two
    // cores, the page can take longer than usual to draw Cancel and to hear it.
    await page.getByRole('button', { name: 'Cancel' }).click({ timeout: 3 * SETTLED_MS });
    await page.waitForSelector('body[data-state="cancelled"]', { timeout: 3 * SETTLED_MS });
    expect(await page.textContent('#status')).toBe('Cancelled: the answer on show is the run before.');
    await run(page, { mode: 'analyze', ...WORKED_EXAMPLE }, 'browser');
    expect(await page.textContent('[data-field="primary-blockage"] dd')).toBe('B');
    // Playwright may hear of the new worker a moment after the run it served has answered.
    await expect.poll(() => workers.length, { timeout: SETTLED_MS }).toBe(2);
    expect(workers).toEqual([`${server.url}/engine-worker.js`, `${server.url}/engine-worker.js`]);
    expect(uncaught).toEqual([]);
  });

  // The same request with no Cancel: after 30 s (on a fake clock) the page stops waiting and says so.
  it('gives up on a server run after 30 s', async () => {
    const { page, uncaught } = await openPage(async (fresh) => {
      await fresh.clock.install();
      await fresh.route('**/api/engine', () => {
        // Never answered.
      });
    });
    await prepareRun(page, TIMELINE, 'server');
    // Once the request is out, the page's timer is set.
    const requested = page.waitForRequest('**/api/engine');
    await page.click('#run');
    await requested;
    await page.clock.fastForward(29_000);
    expect(await page.getAttribute('body', 'data-state')).toBe('running');
    await page.clock.fastForward(1_000);
    await page.waitForSelector('body[data-state="error"]', { timeout: SETTLED_MS });
    expect(await page.textContent('#status')).toBe('No answer from the server in 30 s.');
    expect(await page.textContent('#error strong')).toBe('No answer from the server');
    await expectStructureWithoutResult(page, ['A', 'B', 'C']);
    expect(uncaught).toEqual([]);
  });

  // Run on the server (slow: held back), then at once in the browser: the newer, fast answer is
  // the one on show, and the old request is aborted; when it would have answered, nothing changes
  // (before, the old answer replaced the new one, its status claiming it ran "in the browser").
  it('drops a slow earlier answer that a newer run overtook', async () => {
    const { page, uncaught } = await openPage();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/engine', async (route) => {
      await held;
      await route.continue().catch(() => {
        // Aborted by the page meanwhile: nothing to continue.
      });
    });
    await prepareRun(page, { mode: 'analyze', ...WORKED_EXAMPLE }, 'server');
    const first = page.waitForRequest('**/api/engine');
    await page.click('#run');
    const slow = await first;
    const slowEnded = new Promise<'failed' | 'finished'>((resolve) => {
      const ended = (outcome: 'failed' | 'finished') => (request: Request) => {
        if (request === slow) resolve(outcome);
      };
      page.on('requestfailed', ended('failed'));
      page.on('requestfinished', ended('finished'));
    });

    const newer = { mode: 'analyze', ...OPEN_WORKED_EXAMPLE };
    await run(page, newer, 'browser');
    release();
    const ended = await slowEnded;
    // Time for a late answer to be drawn, were it drawn.
    await page.waitForTimeout(500);
    const api = await post(server.url, server.apiKey, newer);
    expect(await page.textContent('#raw')).toBe(api.text);
    expect(await page.textContent('#status')).toMatch(/^analyze: 1 state \(in the browser/);
    expect(await page.getAttribute('body', 'data-state')).toBe('done');
    // The old request was aborted when the newer run started, not merely ignored.
    expect(ended).toBe('failed');
    expect(uncaught).toEqual([]);
  });

  // 4xx and 5xx from the server: the API's error body (code and message) shown once, the old
  // result cleared, the structure drawn; a body that is not the API's (a proxy's page) as text.
  it('shows an error answer from the server in one place and keeps the structure drawn', async () => {
    const { page, uncaught } = await openPage();
    await run(page, TIMELINE, 'browser');
    const message = 'The service is busy: try again after Retry-After.';
    await page.route('**/api/engine', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message } }),
      }),
    );
    await run(page, TIMELINE, 'server', 'error');
    expect(await page.textContent('#error strong')).toBe('SERVICE_UNAVAILABLE');
    expect(await page.locator('#error p').allTextContents()).toEqual([message]);
    expect(await page.textContent('#status')).toMatch(/^HTTP 503 \(on the server, \d+ ms\)$/);
    await expectStructureWithoutResult(page, ['A', 'B', 'C']);

    await page.unroute('**/api/engine');
    await page.route('**/api/engine', (route) =>
      route.fulfill({
        status: 502,
        contentType: 'text/html',
        body: '<html><head><style>body{font-family:Arial}</style><script>var a = 1;</script></head><body><h1>Bad gateway</h1><p>The proxy &amp; the server couldn&#39;t talk.</p></body></html>',
      }),
    );
    await run(page, TIMELINE, 'server', 'error');
    expect(await page.textContent('#error strong')).toBe('HTTP 502');
    // A proxy's page by its words: no markup, style or script, its entities decoded.
    expect(await page.locator('#error p').allTextContents()).toEqual([
      "Bad gateway The proxy & the server couldn't talk.",
    ]);
    // A page whose only words are its title, and a huge page (the parser is quadratic on some
    // shapes: 1 MB of <div> held the tab 51 s): its start is read, its title shown.
    await page.unroute('**/api/engine');
    await page.route('**/api/engine', (route) =>
      route.fulfill({
        status: 502,
        contentType: 'text/html',
        body: `<html><head><title>502 Bad Gateway</title></head><body>${'<div>'.repeat(200_000)}</body></html>`,
      }),
    );
    await run(page, TIMELINE, 'server', 'error');
    expect(await page.locator('#error p').allTextContents()).toEqual(['502 Bad Gateway']);
    // Plain text as it is, angle brackets and all, even at its start.
    await page.unroute('**/api/engine');
    await page.route('**/api/engine', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'text/plain',
        body: '<backend> unavailable: upstream <10.0.0.4:443> refused: a < b',
      }),
    );
    await run(page, TIMELINE, 'server', 'error');
    expect(await page.locator('#error p').allTextContents()).toEqual([
      '<backend> unavailable: upstream <10.0.0.4:443> refused: a < b',
    ]);

    // A real 4xx: a key the server does not know.
    await page.unroute('**/api/engine');
    await prepareRun(page, TIMELINE, 'server');
    await page.fill('#api-key', 'not-a-key');
    await page.click('#run');
    await page.waitForSelector('body[data-state="error"]', { timeout: SETTLED_MS });
    const api = await post(server.url, 'not-a-key', TIMELINE);
    expect(api.status).toBeGreaterThanOrEqual(400);
    expect(await page.textContent('#error strong')).toBe(api.json.error.code);
    expect(await page.locator('#error p').allTextContents()).toEqual([api.json.error.message]);
    await expectStructureWithoutResult(page, ['A', 'B', 'C']);
    expect(uncaught).toEqual([]);
  });

  // The engine worker itself failing (here a worker that throws on every message): the run ends
  // with the worker's error shown, not "Running in the browser…" for ever.
  it('shows the engine worker failing', async () => {
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/engine-worker.js', (route) =>
        route.fulfill({
          contentType: 'text/javascript',
          body: "self.onmessage = () => { throw new Error('the engine broke'); };",
        }),
      ),
    );
    await run(page, TIMELINE, 'browser', 'error');
    expect(await page.textContent('#status')).toBe('The engine worker failed.');
    expect(await page.textContent('#error strong')).toBe('The engine worker failed');
    expect(await page.textContent('#error p')).toContain('the engine broke');
    expect(await page.isHidden('#cancel')).toBe(true);
    expect(uncaught).toEqual([]);
  });

  // A scenario the engine refuses: servers whose capacity (servers / serviceTime) is past the
  // largest double. The error once, the scenario's status no longer "Comparing…", and the structure drawn so the
  // node can be clicked and the scenario fixed.
  it('shows a scenario error once and lets the node be fixed from the graph', async () => {
    const { page, uncaught } = await openPage();
    const served = {
      mode: 'analyze',
      nodes: [
        { id: 'web', arrival: 10, fanout: true },
        { id: 'db', exit: 1, serviceTime: 1e-305, servers: 1 },
      ],
      dependencies: [{ from: 'web', to: 'db' }],
    };
    await run(page, served, 'browser');
    // 10,000 servers of 1e-305 s: a capacity past the largest double, which the engine refuses.
    await page.click('#graph .node[data-id="db"]');
    await page.fill('#scenario-servers', '10000');
    await page.click('#scenario-set-node');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await page.waitForSelector('body[data-state="error"]', { timeout: SETTLED_MS });
    const api = await post(server.url, server.apiKey, {
      ...served,
      scenario: { nodes: { db: { servers: 10000 } } },
      compare: true,
    });
    expect(api.json.error.code).toBe('PAYLOAD_ERROR');
    expect(await page.textContent('#error strong')).toBe('PAYLOAD_ERROR');
    expect(await page.locator('#error p').allTextContents()).toEqual([api.json.error.message]);
    expect(await page.textContent('#scenario-status')).toBe(
      'Not compared: the run failed (the error is under Run).',
    );
    await expectStructureWithoutResult(page, ['web', 'db']);
    await page.screenshot({ path: `${SCREENSHOTS}/runs-scenario-error.png`, fullPage: true });

    // Fixed from the graph: db clicked, its servers change replaced by taking it down.
    await page.click('#graph .node[data-id="db"]');
    expect(await page.inputValue('#scenario-node')).toBe('db');
    await page.fill('#scenario-servers', '');
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    expect(await page.locator('#scenario-draft li').allTextContents()).toEqual(['db: down ×']);
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    expect(await page.textContent('#scenario-status')).toBe(
      'Compared at tick 0 with the structure as it is.',
    );
    expect(await page.isHidden('#error')).toBe(true);
    expect(uncaught).toEqual([]);
  });

  // `abc`, `1,5`, `NaN`, `Infinity`, 0 and -1 are no capacity: refused where typed (marked, a
  // message under the field), never put in the scenario, and Compare says why it does nothing.
  // Before, `abc` became NaN, then null in JSON: "remove the capacity".
  it("checks the scenario's capacity where it is typed", async () => {
    const { page, uncaught } = await openPage();
    await run(page, { mode: 'analyze', ...WORKED_EXAMPLE }, 'browser');
    await page.click('#graph .node[data-id="B"]');
    await page.evaluate("document.body.dataset.state = 'idle'");
    const field = page.locator('#scenario-capacity');
    for (const typed of ['abc', '1,5', 'NaN', 'Infinity', '0', '-1']) {
      await field.fill(typed);
      expect(await field.getAttribute('aria-invalid'), typed).toBe('true');
      const described = (await field.getAttribute('aria-describedby')) ?? '';
      const message = await page.textContent(`#${described.split(' ')[0]}`);
      // A decimal comma, the likeliest slip, gets the number as it is written here.
      const comma = typed === '1,5' ? ' Decimals take a point: 1.5.' : '';
      expect(message, typed).toBe(`A capacity is a number above 0 (or none, to remove it).${comma}`);
      await page.click('#scenario-set-node');
      expect(await page.locator('#scenario-draft li').allTextContents(), typed).toEqual([
        'no change yet: move the slider, click a node or a dependency',
      ]);
      await page.click('#scenario-run');
      expect(await page.textContent('#scenario-status'), typed).toBe(
        'Not compared: the capacity is not a number above 0. Fix it or empty it first.',
      );
      expect(await page.getAttribute('body', 'data-state')).toBe('idle');
    }
    await page.screenshot({ path: `${SCREENSHOTS}/runs-capacity-invalid.png`, fullPage: true });
    // What Number() reads as a finite number above 0 is a capacity; `none` removes it.
    for (const [typed, shown] of [
      [' 2.5 ', 'B: capacity 2.5 ×'],
      ['1e1', 'B: capacity 10 ×'],
      ['none', 'B: no capacity ×'],
    ]) {
      await field.fill(typed!);
      expect(await field.getAttribute('aria-invalid'), typed).toBeNull();
      expect(await page.isHidden('#scenario-capacity-problem')).toBe(true);
      await page.click('#scenario-set-node');
      expect(await page.locator('#scenario-draft li').allTextContents()).toEqual([shown]);
    }
    expect(uncaught).toEqual([]);
  });

  // The capacities editor: a capacity above 0, an arrival from 0; anything else is marked where
  // it is typed and nothing is saved. The server is played by routes (a system of A, B, C).
  it("checks the capacities editor's numbers where they are typed and saves none that is bad", async () => {
    const patches: string[] = [];
    const record = {
      id: 'sys_1',
      name: 'shop',
      structure: { nodes: [{ id: 'A' }, { id: 'B' }, { id: 'C' }], dependencies: [{ from: 'A', to: 'B' }] },
    };
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) => {
        const request = route.request();
        if (request.method() === 'PATCH') {
          patches.push(request.postData() ?? '');
          return route.fulfill({
            status: 200,
            contentType: 'application/json',
            body: '{}',
            headers: { etag: '"2"' },
          });
        }
        if (request.url().includes('?'))
          return route.fulfill({
            contentType: 'application/json',
            body: JSON.stringify({ systems: [{ id: 'sys_1', name: 'shop', nodes: 3, dependencies: 1 }] }),
          });
        return route.fulfill({
          contentType: 'application/json',
          body: JSON.stringify(record),
          headers: { etag: '"1"' },
        });
      }),
    );
    await page.click('#systems-panel summary');
    await page.fill('#user-token', 'token');
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await page.waitForSelector('#settings-editor:not([hidden])');
    const row = page.locator('#settings-nodes tr').first();
    await row.locator('input[data-field="node"]').fill('B');
    const capacity = row.locator('input[data-field="capacity"]');
    const arrival = row.locator('input[data-field="arrival"]');
    const problem = async (input: typeof capacity) =>
      page.textContent(`#${((await input.getAttribute('aria-describedby')) ?? '').split(' ')[0]}`);

    for (const typed of ['lots', '1,5', 'NaN', 'Infinity', '0']) {
      await page.fill('#default-capacity', typed);
      expect(await page.getAttribute('#default-capacity', 'aria-invalid'), typed).toBe('true');
      const comma = typed === '1,5' ? ' Decimals take a point: 1.5.' : '';
      expect(await problem(page.locator('#default-capacity'))).toBe(
        `A capacity is a number above 0.${comma}`,
      );
    }
    await capacity.fill('-2');
    expect(await capacity.getAttribute('aria-invalid')).toBe('true');
    expect(await problem(capacity)).toBe('A number above 0.');
    await arrival.fill('-1');
    expect(await arrival.getAttribute('aria-invalid')).toBe('true');
    expect(await problem(arrival)).toBe('A number from 0 up.');
    await page.click('#save-settings');
    expect(await page.textContent('#settings-status')).toBe(
      'Nothing was saved: 3 fields hold no number they accept (marked).',
    );
    expect(patches).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/runs-settings-invalid.png`, fullPage: true });

    // Fixed, each as Number() reads it: saved as numbers.
    await page.fill('#default-capacity', ' 1e2 ');
    await capacity.fill('2.5');
    await arrival.fill('0');
    for (const input of [page.locator('#default-capacity'), capacity, arrival])
      expect(await input.getAttribute('aria-invalid')).toBeNull();
    await page.click('#save-settings');
    await expect.poll(() => patches.length).toBe(1);
    expect(JSON.parse(patches[0]!)).toEqual({
      settings: { defaultCapacity: 100, nodes: { B: { capacity: 2.5, arrival: 0 } } },
    });
    expect(uncaught).toEqual([]);
  });

  // B taken down and compared on the server, the answer held; then Compare again with a bad tick
  // count, which sends nothing. The first compare goes on, and its answer is read as the scenario
  // it sent (B down: hatched in the key; the scenario's own numbers). Before, the unsent second
  // compare cleared what the first had sent, so its answer came with an empty scenario key.
  it('reads the first answer as the scenario it sent', async () => {
    let held: Route | undefined;
    const { page, uncaught } = await pages.open((fresh) =>
      fresh.route('**/api/engine', (route) => {
        held = route;
      }),
    );
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    await page.check('#on-server');
    await page.fill('#api-key', server.apiKey);
    await page.click('#graph .node[data-id="B"]');
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await expect.poll(() => held !== undefined).toBe(true);

    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '1.5');
    await page.click('#scenario-run');
    expect(await page.textContent('#scenario-status')).toBe(
      'Not compared: a field under Run holds a bad number (said under it). Fix it, then compare.',
    );

    const api = await post(server.url, server.apiKey, JSON.parse(held!.request().postData()!));
    await held!.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(api.json) });
    await page.waitForSelector('body[data-state="done"]');
    await expect.poll(() => page.textContent('#scenario-key')).toContain('hatched: down');
    expect(await page.textContent('#scenario-status')).toBe(
      'Compared at tick 0 with the structure as it is.',
    );
    expect(uncaught).toEqual([]);
  });
});
