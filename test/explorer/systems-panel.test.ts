/**
 * Runs you can trust (issue #36, item 1), the rest of it, in Chromium: the systems panel (List,
 * Open, Capacities, Save, Test URL, Register) against a server that refuses the connection,
 * answers 4xx/5xx or never answers says so once in its status and lets the user retry; and the
 * tick count is checked where it is typed, a bad one never sent. The server is played by routes
 * (`page.route`); each page is new to its test (test/explorer/browser.ts), so a route or a fake
 * clock never reaches another test.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { findChromium, freshExplorerPages, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/** Long enough for any answer here, short enough that a panel stuck "Listing…" fails fast. */
const SETTLED_MS = 10_000;
/** What the page says when `fetch` gets no answer at all (Chromium's words in the middle). */
const REFUSED =
  /^Could not reach the server \(the browser says: .+\): it is not running, or the network is down\. Try again once it is back\.$/;
/** The API's error body for a server failing. */
const INTERNAL = { error: { code: 'INTERNAL_ERROR', message: 'The service failed; try again.' } };
const SYSTEM = {
  id: 'sys_1',
  name: 'shop',
  structure: { nodes: [{ id: 'A' }, { id: 'B' }], dependencies: [{ from: 'A', to: 'B' }] },
};
const LIST = { systems: [{ id: 'sys_1', name: 'shop', nodes: 2, dependencies: 1 }] };

function json(route: Route, body: unknown, status = 200): Promise<void> {
  return route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
}

describe.runIf(chromiumPath !== undefined)('the systems panel and the tick count, in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);

  /** A fresh page on the explorer, its systems panel open with a token, uncaught errors collected. */
  async function openPage(
    prepare: (page: Page) => Promise<unknown> = async () => {},
  ): Promise<{ page: Page; uncaught: string[] }> {
    const opened = await pages.open(prepare);
    await opened.page.click('#systems-panel summary');
    await opened.page.fill('#user-token', 'token');
    return opened;
  }

  /** Waits for `selector`'s text to match `expected`, then says it appears once on the page. */
  async function expectSaidOnce(page: Page, selector: string, expected: RegExp | string): Promise<void> {
    await expect
      .poll(
        async () => {
          const text = (await page.textContent(selector)) ?? '';
          return expected instanceof RegExp ? expected.test(text) : text === expected;
        },
        { timeout: SETTLED_MS },
      )
      .toBe(true);
    const text = (await page.textContent(selector))!;
    expect(await page.getByText(text, { exact: true }).count()).toBe(1);
    // Not also in the run's error panel: that one is the Run's.
    expect(await page.isHidden('#error')).toBe(true);
  }

  // Before, each of these threw "Failed to fetch" uncaught and the panel stayed "Listing…".
  it('says a refused connection, a 500 and a proxy page once, and List can be pressed again', async () => {
    let answer: (route: Route) => Promise<void> = (route) => route.abort('connectionrefused');
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) => answer(route)),
    );
    const list = page.getByRole('button', { name: 'List my systems' });

    await list.click();
    await expectSaidOnce(page, '#systems-status', REFUSED);
    expect(await list.isEnabled()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/systems-refused.png`, fullPage: true });

    answer = (route) => json(route, INTERNAL, 500);
    await list.click();
    await expectSaidOnce(page, '#systems-status', 'INTERNAL_ERROR: The service failed; try again.');
    expect(await list.isEnabled()).toBe(true);

    // A gateway's page, not the API's error body: the status code.
    answer = (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' });
    await list.click();
    await expectSaidOnce(page, '#systems-status', 'HTTP 502');

    answer = (route) => json(route, LIST);
    await list.click();
    await expect.poll(() => page.locator('#systems li').count(), { timeout: SETTLED_MS }).toBe(1);
    expect(await page.textContent('#systems-status')).toBe('');
    expect(uncaught).toEqual([]);
  });

  it('says why Open and Capacities could not read a system, and their buttons work again', async () => {
    let single: (route: Route) => Promise<void> = (route) => route.abort('connectionrefused');
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) =>
        route.request().url().includes('?') ? json(route, LIST) : single(route),
      ),
    );
    await page.click('#list-systems');
    const open = page.getByRole('button', { name: 'Open shop', exact: true });
    await open.click();
    await expectSaidOnce(page, '#systems-status', REFUSED);
    expect(await open.isEnabled()).toBe(true);

    const capacities = page.getByRole('button', { name: 'Capacities of shop' });
    single = (route) => json(route, { error: { code: 'NOT_FOUND', message: 'no system sys_1' } }, 404);
    await capacities.click();
    await expectSaidOnce(page, '#settings-status', 'NOT_FOUND: no system sys_1');
    expect(await capacities.isEnabled()).toBe(true);
    // Nothing of a system is shown to edit, and Save sends nothing.
    expect(await page.textContent('#settings-heading')).toBe('Capacities');
    await page.click('#save-settings');
    expect(await page.textContent('#settings-status')).toBe(
      'Nothing to save: these capacities could not be read. Open them again.',
    );

    // Read at last: Open loads it and runs it.
    single = (route) => json(route, SYSTEM);
    await page.evaluate("document.body.dataset.state = 'idle'");
    await open.click();
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    expect(await page.textContent('#systems-status')).toBe('');
    expect(uncaught).toEqual([]);
  });

  it('says a save that gets no answer in the editor, and Save can be pressed again', async () => {
    let patch: (route: Route) => Promise<void> = (route) => route.abort('connectionrefused');
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) => {
        if (route.request().method() === 'PATCH') return patch(route);
        return route.request().url().includes('?') ? json(route, LIST) : json(route, SYSTEM);
      }),
    );
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await page.waitForSelector('#settings-editor:not([hidden])');
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "shop"');
    await page.fill('#default-capacity', '5');
    const save = page.getByRole('button', { name: 'Save and run' });
    await save.click();
    await expectSaidOnce(page, '#settings-status', REFUSED);
    expect(await save.isEnabled()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/systems-save-refused.png`, fullPage: true });

    patch = (route) => json(route, INTERNAL, 500);
    await save.click();
    await expectSaidOnce(page, '#settings-status', 'INTERNAL_ERROR: The service failed; try again.');
    expect(await save.isEnabled()).toBe(true);
    expect(uncaught).toEqual([]);
  });

  it('says why Register and Test URL failed, and their buttons work again', async () => {
    let connect: (route: Route) => Promise<void> = (route) => route.abort('connectionrefused');
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/connect', (route) => connect(route)),
    );
    await page.fill('#system-name', 'shop');
    await page.fill('#system-url', 'https://api.example.com/structure');
    const register = page.getByRole('button', { name: 'Register' });
    const test = page.getByRole('button', { name: 'Test URL' });

    await register.click();
    await expectSaidOnce(page, '#systems-status', REFUSED);
    expect(await register.isEnabled()).toBe(true);
    await test.click();
    await expectSaidOnce(page, '#systems-status', REFUSED);
    expect(await test.isEnabled()).toBe(true);

    connect = (route) =>
      json(route, { error: { code: 'UPSTREAM_ERROR', message: 'the URL answered HTTP 503' } }, 502);
    await register.click();
    await expectSaidOnce(page, '#systems-status', 'UPSTREAM_ERROR: the URL answered HTTP 503');
    await test.click();
    await expect.poll(() => test.isEnabled(), { timeout: SETTLED_MS }).toBe(true);
    expect(await page.textContent('#systems-status')).toBe('UPSTREAM_ERROR: the URL answered HTTP 503');
    expect(uncaught).toEqual([]);
  });

  /** Two systems: shop (default capacity 3, revision 6) and depot (7, revision 0). */
  const SHOP = { ...SYSTEM, settings: { defaultCapacity: 3 } };
  const DEPOT = {
    id: 'sys_2',
    name: 'depot',
    structure: { nodes: [{ id: 'X' }], dependencies: [] },
    settings: { defaultCapacity: 7 },
  };
  const TWO = { systems: [...LIST.systems, { id: 'sys_2', name: 'depot', nodes: 1, dependencies: 0 }] };
  const withTag = (route: Route, body: unknown, etag: string, status = 200) =>
    route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body), headers: { etag } });
  /** The node ids of the structure in the editor. */
  const idsInEditor = async (page: Page) =>
    (JSON.parse(await page.inputValue('#body')) as { nodes: Array<{ id: string }> }).nodes.map(
      (node) => node.id,
    );
  /** The focused element's accessible name, as the tests read it. */
  const focusedName = (page: Page) =>
    page.evaluate("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id ?? ''");

  /**
   * A page whose list holds shop and depot: depot's record is answered at once, each request for
   * shop's is held in `held.shop` for the test to answer.
   */
  async function openHoldingShop() {
    const held: { shop?: Route } = {};
    const opened = await openPage((fresh) =>
      fresh.route('**/api/systems**', async (route) => {
        const url = route.request().url();
        if (url.includes('?')) return json(route, TWO);
        if (url.endsWith('/sys_2')) return withTag(route, DEPOT, '"settings-0"');
        held.shop = route;
      }),
    );
    return { ...opened, held };
  }

  /** The user's own run, while something is held: one node `Y`, typed in the editor and run. */
  async function runOneNodeY(page: Page): Promise<void> {
    await page.fill(
      '#body',
      JSON.stringify({ mode: 'analyze', nodes: [{ id: 'Y', load: 2 }], dependencies: [] }),
    );
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
  }

  /**
   * The user's run of `Y` while a request is held, then that request answered (`release`): the
   * run must survive it.
   */
  async function runYThenRelease(page: Page, release: () => Promise<void>): Promise<void> {
    await runOneNodeY(page);
    await release();
  }

  /** A save whose run yielded to a later click says so. */
  async function expectSaveNotRun(page: Page): Promise<void> {
    await expect
      .poll(() => page.textContent('#settings-status'), { timeout: SETTLED_MS })
      .toBe('Saved; not run, as another system was opened or another run started since.');
  }

  /** That run is still what the editor holds and the graph draws, nothing was thrown. */
  async function endWithYShown(page: Page, uncaught: unknown[]): Promise<void> {
    expect(await idsInEditor(page)).toEqual(['Y']);
    expect(await page.locator('#graph .node').count()).toBe(1);
    expect(uncaught).toEqual([]);
  }

  /** Lists the systems, opens shop's capacities and presses Save, until `held` says its PATCH came. */
  async function saveShopWhile(page: Page, held: () => boolean): Promise<void> {
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "shop"');
    await page.click('#save-settings');
    await expect.poll(held).toBe(true);
  }

  // Capacities of shop, then of depot, both answers held: shop's, coming first, fills nothing and
  // takes no focus; depot's is the one to edit. Before, whichever answer came last filled the
  // editor, and a stale one pulled the focus back to its own button.
  it('edits the system whose Capacities was pressed last, whichever answer comes first', async () => {
    const held: Record<string, Route> = {};
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', async (route) => {
        const url = route.request().url();
        if (url.includes('?')) return json(route, TWO);
        held[url.endsWith('/sys_2') ? 'depot' : 'shop'] = route;
      }),
    );
    await page.click('#list-systems');
    const shopButton = page.getByRole('button', { name: 'Capacities of shop' });
    const depotButton = page.getByRole('button', { name: 'Capacities of depot' });
    await shopButton.click();
    await expect.poll(() => held.shop !== undefined).toBe(true);
    await depotButton.click();
    await expect.poll(() => held.depot !== undefined).toBe(true);

    await withTag(held.shop!, SHOP, '"settings-6"');
    await expect.poll(() => shopButton.isEnabled(), { timeout: SETTLED_MS }).toBe(true);
    expect(await page.textContent('#settings-heading')).toBe('Capacities');
    expect(await page.inputValue('#default-capacity')).toBe('');
    expect(await focusedName(page)).not.toBe('Capacities of shop');

    await withTag(held.depot!, DEPOT, '"settings-0"');
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "depot"');
    expect(await page.inputValue('#default-capacity')).toBe('7');
    expect(await page.textContent('#settings-status')).toBe('');
    expect(uncaught).toEqual([]);
  });

  // The same with the stale answer a failure: it says nothing in the editor now showing depot.
  it('says nothing of a stale Capacities that failed', async () => {
    const { page, uncaught, held } = await openHoldingShop();
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await expect.poll(() => held.shop !== undefined).toBe(true);
    await page.getByRole('button', { name: 'Capacities of depot' }).click();
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "depot"');
    await json(held.shop!, INTERNAL, 500);
    await expect
      .poll(() => page.getByRole('button', { name: 'Capacities of shop' }).isEnabled(), {
        timeout: SETTLED_MS,
      })
      .toBe(true);
    expect(await page.textContent('#settings-heading')).toBe('Capacities of "depot"');
    expect(await page.inputValue('#default-capacity')).toBe('7');
    expect(await page.textContent('#settings-status')).toBe('');
    expect(uncaught).toEqual([]);
  });

  // Save shop, then open depot before the save answers: shop's answer, and its new ETag, stay out
  // of depot's editor, whose own save is guarded by depot's ETag. Before, depot's editor said
  // "Saved" and its next save sent shop's ETag (a false 412, or a lost update guarded by the wrong
  // revision).
  it('keeps a late save of one system out of the editor now showing another, its ETag too', async () => {
    let patchShop: Route | undefined;
    const ifMatch: string[] = [];
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', async (route) => {
        const request = route.request();
        const url = request.url();
        if (url.includes('?')) return json(route, TWO);
        if (request.method() === 'PATCH') {
          ifMatch.push(`${url.endsWith('/sys_2') ? 'depot' : 'shop'} ${request.headers()['if-match']}`);
          if (url.endsWith('/sys_1')) {
            patchShop = route;
            return;
          }
          return withTag(route, DEPOT, '"settings-1"');
        }
        if (url.endsWith('/sys_2')) return withTag(route, DEPOT, '"settings-0"');
        return withTag(route, SHOP, '"settings-6"');
      }),
    );
    await saveShopWhile(page, () => patchShop !== undefined);
    await page.getByRole('button', { name: 'Capacities of depot' }).click();
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "depot"');
    // Shop's save still in flight does not hold depot's Save button.
    expect(await page.isEnabled('#save-settings')).toBe(true);
    await page.evaluate("document.body.dataset.state = 'idle'");
    await withTag(patchShop!, SHOP, '"settings-7"');
    // Shop's save goes on: it runs shop, as Save and run asked, and says so outside the editor.
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    await expect
      .poll(() => page.textContent('#systems-status'))
      .toBe('Capacities of "shop": Saved; the answer below runs with them.');
    expect(await page.textContent('#settings-status')).toBe('');
    await page.click('#save-settings');
    await expect.poll(() => ifMatch.length).toBe(2);
    expect(ifMatch).toEqual(['shop "settings-6"', 'depot "settings-0"']);
    expect(uncaught).toEqual([]);
  });

  // Save shop's capacities, then Close before the save answers: the save goes on and runs shop, as
  // Save and run asked, saying so in the systems panel (before, Close dropped the run unsaid).
  // Save again, then Open depot before the save answers: the later click wins, and shop's save
  // says it did not run.
  it('finishes a save whose editor was closed, and lets a later Open or Run win', async () => {
    const { page, uncaught, hold, held } = await openWithHolds();
    hold.patch = true;
    await saveShopWhile(page, () => held.patch !== undefined);
    await page.click('#close-settings');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await withTag(held.patch!, SHOP, '"settings-7"');
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    expect(await idsInEditor(page)).toEqual(['A', 'B']);
    await expect
      .poll(() => page.textContent('#systems-status'))
      .toBe('Capacities of "shop": Saved; the answer below runs with them.');

    held.patch = undefined;
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await expect.poll(() => page.isVisible('#settings-editor')).toBe(true);
    await page.click('#save-settings');
    await expect.poll(() => held.patch !== undefined).toBe(true);
    await page.getByRole('button', { name: 'Open depot', exact: true }).click();
    await expect.poll(() => idsInEditor(page), { timeout: SETTLED_MS }).toEqual(['X']);
    await withTag(held.patch!, SHOP, '"settings-8"');
    await expectSaveNotRun(page);
    expect(await idsInEditor(page)).toEqual(['X']);

    // So does a later Run: the user runs depot, edited, while shop's save is in flight; the save
    // finishes and leaves depot's answer on show.
    held.patch = undefined;
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await expect.poll(() => page.isVisible('#settings-editor')).toBe(true);
    await page.click('#save-settings');
    await expect.poll(() => held.patch !== undefined).toBe(true);
    await runYThenRelease(page, () => withTag(held.patch!, SHOP, '"settings-9"'));
    await expectSaveNotRun(page);
    await endWithYShown(page, uncaught);
  });

  /**
   * A page whose list holds shop and depot, with switches to hold shop's PATCH, shop's reads and
   * depot's reads, each held request kept in `held` for the test to answer.
   */
  async function openWithHolds() {
    const hold = { patch: false, shopReads: false, depotReads: false };
    const held: { patch?: Route; shopRead?: Route; depotRead?: Route } = {};
    const opened = await openPage((fresh) =>
      fresh.route('**/api/systems**', async (route) => {
        const request = route.request();
        const url = request.url();
        if (url.includes('?')) return json(route, TWO);
        if (request.method() === 'PATCH') {
          if (hold.patch) held.patch = route;
          else await withTag(route, SHOP, '"settings-7"');
          return;
        }
        if (url.endsWith('/sys_2')) {
          if (hold.depotReads) held.depotRead = route;
          else await withTag(route, DEPOT, '"settings-0"');
          return;
        }
        if (hold.shopReads) held.shopRead = route;
        else await withTag(route, SHOP, '"settings-6"');
      }),
    );
    return { ...opened, hold, held };
  }

  /** Lists the systems and presses Open on depot, its answer held in `held.depotRead`. */
  async function openDepotHeld(
    page: Page,
    hold: { depotReads: boolean },
    held: { depotRead?: Route },
  ): Promise<void> {
    await page.click('#list-systems');
    hold.depotReads = true;
    await page.getByRole('button', { name: 'Open depot', exact: true }).click();
    await expect.poll(() => held.depotRead !== undefined).toBe(true);
  }

  // Save and run on shop; while the saved system is read again to run it, the user runs what the
  // editor holds: that later click wins, and the save runs nothing (before, the read's answer
  // replaced the editor and aborted the user's run).
  it("lets a Run pressed while the saved system is read win over the save's run", async () => {
    const { page, uncaught, hold, held } = await openWithHolds();
    hold.patch = true;
    await saveShopWhile(page, () => held.patch !== undefined);
    hold.shopReads = true;
    await withTag(held.patch!, SHOP, '"settings-7"');
    await expect.poll(() => held.shopRead !== undefined).toBe(true);
    await runYThenRelease(page, () => withTag(held.shopRead!, SHOP, '"settings-7"'));
    await expectSaveNotRun(page);
    await endWithYShown(page, uncaught);
  });

  // Open depot, its answer held; meanwhile the user runs what the editor holds. That later click
  // wins: depot's answer, when it comes, loads nothing (before, it replaced the editor and
  // aborted the user's run).
  it('lets a Run pressed while a system is opened win over the open', async () => {
    const { page, uncaught, hold, held } = await openWithHolds();
    await openDepotHeld(page, hold, held);
    await runYThenRelease(page, () => withTag(held.depotRead!, DEPOT, '"settings-0"'));
    await expect
      .poll(() => page.isEnabled('button[aria-label="Open depot"]'), { timeout: SETTLED_MS })
      .toBe(true);
    await endWithYShown(page, uncaught);
  });

  // Open depot, its answer held; then Save and run on shop, its save held. Depot's answer comes
  // first and runs depot: that run is the Open's, pressed before Save, so the save still runs
  // shop (before, any run counted, and the save said another run had started).
  it('runs the saved system after an Open pressed before Save is answered', async () => {
    const { page, uncaught, hold, held } = await openWithHolds();
    await openDepotHeld(page, hold, held);
    hold.depotReads = false;
    hold.patch = true;
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "shop"');
    await page.click('#save-settings');
    await expect.poll(() => held.patch !== undefined).toBe(true);
    await page.evaluate("document.body.dataset.state = 'idle'");
    await withTag(held.depotRead!, DEPOT, '"settings-0"');
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    expect(await idsInEditor(page)).toEqual(['X']);
    await withTag(held.patch!, SHOP, '"settings-7"');
    await expect
      .poll(() => page.textContent('#settings-status'), { timeout: SETTLED_MS })
      .toBe('Saved; the answer below runs with them.');
    expect(await idsInEditor(page)).toEqual(['A', 'B']);
    expect(uncaught).toEqual([]);
  });

  // Open shop, then Open depot before shop's answer comes: depot, clicked last, is the one loaded
  // and run; shop's answer loads nothing (before, it replaced depot in the editor and ran).
  it('opens the system whose Open was pressed last', async () => {
    const { page, uncaught, held } = await openHoldingShop();
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Open shop', exact: true }).click();
    await expect.poll(() => held.shop !== undefined).toBe(true);
    await page.getByRole('button', { name: 'Open depot', exact: true }).click();
    await expect.poll(() => idsInEditor(page), { timeout: SETTLED_MS }).toEqual(['X']);
    await withTag(held.shop!, SHOP, '"settings-6"');
    await expect
      .poll(() => page.getByRole('button', { name: 'Open shop', exact: true }).isEnabled(), {
        timeout: SETTLED_MS,
      })
      .toBe(true);
    expect(await idsInEditor(page)).toEqual(['X']);
    expect(uncaught).toEqual([]);
  });

  // Depot's capacities on show, then shop's asked for: while they are read, Save sends nothing and
  // says why, and Close closes for good (the answer does not open the editor again).
  it('saves nothing while capacities are read, and stays closed when closed meanwhile', async () => {
    const { page, uncaught, held } = await openHoldingShop();
    const patches: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') patches.push(request.url());
    });
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Capacities of depot' }).click();
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "depot"');
    await page.getByRole('button', { name: 'Capacities of shop' }).click();
    await expect.poll(() => held.shop !== undefined).toBe(true);
    await page.click('#save-settings');
    expect(await page.textContent('#settings-status')).toBe(
      'Not saved: these capacities are still being read.',
    );
    expect(patches).toEqual([]);
    await page.click('#close-settings');
    await withTag(held.shop!, SHOP, '"settings-6"');
    await expect
      .poll(() => page.getByRole('button', { name: 'Capacities of shop' }).isEnabled(), {
        timeout: SETTLED_MS,
      })
      .toBe(true);
    expect(await page.isHidden('#settings-editor')).toBe(true);
    expect(uncaught).toEqual([]);
  });

  // Open with a bad tick count under Run: the system goes into the editor but is not run, and the
  // panel says so (before, it said nothing, with the answer of the structure before on show).
  it('says a system opened with a bad tick count was not run', async () => {
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) =>
        route.request().url().includes('?') ? json(route, LIST) : json(route, SYSTEM),
      ),
    );
    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '1.5');
    await page.click('#list-systems');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.getByRole('button', { name: 'Open shop', exact: true }).click();
    await expect
      .poll(() => page.textContent('#systems-status'), { timeout: SETTLED_MS })
      .toBe('Opened "shop" in the editor; not run: a field under Run holds a bad number (said under it).');
    expect(JSON.parse(await page.inputValue('#body')).nodes).toEqual(SYSTEM.structure.nodes);
    expect(await page.getAttribute('body', 'data-state')).toBe('idle');
    expect(uncaught).toEqual([]);
  });

  // Shop opened and run (an open structure without capacities: its summary offers shop's
  // Capacities), then depot opened with a bad tick count (not run): the answer on show is still
  // shop's, and so is the Capacities it offers, even when the summary is drawn again.
  it('offers the capacities of the system the answer on show is of', async () => {
    const openShop = {
      id: 'sys_1',
      name: 'shop',
      structure: {
        nodes: [
          { id: 'A', arrival: 1 },
          { id: 'B', exit: 1 },
        ],
        dependencies: [{ from: 'A', to: 'B' }],
      },
    };
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) => {
        const url = route.request().url();
        if (url.includes('?')) return json(route, TWO);
        return url.endsWith('/sys_2') ? json(route, DEPOT) : json(route, openShop);
      }),
    );
    await page.click('#list-systems');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.getByRole('button', { name: 'Open shop', exact: true }).click();
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    const offered = page.locator('#summary [data-field="no-capacities"] button');
    expect(await offered.getAttribute('aria-label')).toBe('Capacities of shop');

    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '1.5');
    await page.getByRole('button', { name: 'Open depot', exact: true }).click();
    await expect
      .poll(() => page.textContent('#systems-status'), { timeout: SETTLED_MS })
      .toMatch(/^Opened "depot"/);
    await page.click('#graph .node[data-id="B"]');
    expect(await offered.getAttribute('aria-label')).toBe('Capacities of shop');
    expect(uncaught).toEqual([]);
  });

  // From the keyboard: Capacities, then Close: the focus goes back to the button that opened the
  // editor (before, it fell to the page's body with the editor hidden).
  it('gives the focus back to Capacities when the editor is closed', async () => {
    const { page, uncaught } = await openPage((fresh) =>
      fresh.route('**/api/systems**', (route) =>
        route.request().url().includes('?') ? json(route, TWO) : withTag(route, DEPOT, '"settings-0"'),
      ),
    );
    await page.click('#list-systems');
    await page.getByRole('button', { name: 'Capacities of depot' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#settings-heading')).toBe('Capacities of "depot"');
    await page.locator('#close-settings').focus();
    await page.keyboard.press('Enter');
    expect(await page.isHidden('#settings-editor')).toBe(true);
    expect(await focusedName(page)).toBe('Capacities of depot');
    expect(uncaught).toEqual([]);
  });

  // A request that never answers: after 30 s (on a fake clock) the panel stops waiting.
  it('gives up on a list that never answers after 30 s', async () => {
    const { page, uncaught } = await openPage(async (fresh) => {
      await fresh.clock.install();
      await fresh.route('**/api/systems**', () => {
        // Never answered.
      });
    });
    const list = page.getByRole('button', { name: 'List my systems' });
    await list.click();
    expect(await page.textContent('#systems-status')).toBe('Listing…');
    expect(await list.isDisabled()).toBe(true);
    await page.clock.fastForward(30_000);
    await expectSaidOnce(
      page,
      '#systems-status',
      'No answer from the server in 30 s, so the page stopped waiting. Try again.',
    );
    expect(await list.isEnabled()).toBe(true);
    expect(uncaught).toEqual([]);
  });

  // Before, the field was `type="number"` and its value sent as Number(): `1.5` and `0` went to the
  // engine, which refused them, and `abc` (empty to a number field) became 0.
  it('checks the tick count where it is typed and runs nothing with a bad one', async () => {
    const { page, uncaught } = await openPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.fill('#body', JSON.stringify({ mode: 'analyze', ...WORKED_EXAMPLE }));
    await page.selectOption('#run-as', 'ticks');
    await page.setChecked('#on-server', true);
    await page.fill('#api-key', pages.server().apiKey);
    await page.evaluate("document.body.dataset.state = 'idle'");
    const field = page.locator('#tick-count');
    for (const typed of ['abc', '1.5', '0', '-3', '1001', '1e9', '1,5']) {
      await field.fill(typed);
      expect(await field.getAttribute('aria-invalid'), typed).toBe('true');
      const described = (await field.getAttribute('aria-describedby')) ?? '';
      expect(await page.isVisible(`#${described.split(' ')[0]}`), typed).toBe(true);
      expect(await page.textContent(`#${described.split(' ')[0]}`), typed).toBe(
        'Ticks is a whole number from 1 to 1000.',
      );
      requests.length = 0;
      await page.click('#run');
      expect(await page.textContent('#status'), typed).toBe(
        'Not run: ticks is not a whole number from 1 to 1000. Fix it or empty it first.',
      );
      expect(await page.getAttribute('body', 'data-state'), typed).toBe('idle');
      expect(requests, typed).toEqual([]);
    }
    await page.screenshot({ path: `${SCREENSHOTS}/ticks-invalid.png`, fullPage: true });

    // A whole number in range is sent as one.
    await field.fill(' 3 ');
    expect(await field.getAttribute('aria-invalid')).toBeNull();
    expect(await page.isHidden('#tick-count-problem')).toBe(true);
    const sent = page.waitForRequest('**/api/engine', { timeout: SETTLED_MS });
    await page.click('#run');
    expect(JSON.parse((await sent).postData()!)).toMatchObject({ mode: 'ticks', ticks: 3 });
    await page.waitForSelector('body[data-state="done"]', { timeout: SETTLED_MS });
    expect(uncaught).toEqual([]);
  });
});
