import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { issueApiKey } from '../../lib/keys';
import { loadOrCreateLocalIssuer, signAccessToken } from '../../lib/tokens/local-issuer';
import { startTestServer, type TestServer } from '../integration/server';

/**
 * Debian's Chromium, found as `command -v chromium` finds it (or CHROMIUM_PATH). Playwright's
 * own browser download cannot work on these machines; `.ci/run` installs the package.
 */
export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return configured;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    return found === '' ? undefined : found;
  } catch {
    return undefined;
  }
}

/** Headless Chromium that reaches for nothing on the network by itself. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where the explorer tests put their screenshots. */
export const SCREENSHOTS = 'test-results/explorer';

/** A test server logging warnings and worse, and Chromium: one of each per vitest worker. */
interface BrowserSession {
  server: TestServer;
  browser: Browser;
}

let session: Promise<BrowserSession> | undefined;
let sessionUsers = 0;

/**
 * The worker's test server and Chromium, started by the first browser test file the worker runs
 * and kept for the next ones (the browser files share their worker's modules: vitest.config.ts).
 * Starting both took some 4 s of CPU per file, half the cost of a short browser file. Neither is
 * closed here: they end with the worker's process (Playwright closes the browsers it launched
 * when its process is told to stop).
 */
function sharedSession(executablePath: string): Promise<BrowserSession> {
  session ??= (async () => {
    const server = await startTestServer({ LOG_LEVEL: 'WARN' });
    return { server, browser: await launchChromium(executablePath) };
  })();
  return session;
}

/**
 * The shared server as one test file sees it: a user and an API key of the file's own, so no file
 * lists, opens or runs the systems another file registered, and closing it closes nothing.
 */
async function withOwnUser(server: TestServer): Promise<TestServer> {
  sessionUsers += 1;
  const owner = `browser-file-${sessionUsers}`;
  const { key } = await issueApiKey(server.store, { owner, name: 'browser test file' });
  const userToken = signAccessToken(loadOrCreateLocalIssuer(server.issuerFile), { sub: owner });
  return { ...server, apiKey: key, userToken, close: async () => undefined };
}

/**
 * For the tests of the `describe` that calls this: before them, the worker's shared test server
 * (with this file's own user and key) and Chromium at `executablePath`, and the screenshots
 * folder made. Pages a file opens are its to close (`openExplorerPage` and `freshExplorerPages`
 * do): the next file gets the same browser.
 */
export function browserSession(executablePath: string | undefined): () => BrowserSession {
  let opened: BrowserSession | undefined;
  beforeAll(async () => {
    if (executablePath === undefined) throw new Error('no Chromium to open the explorer page in');
    const shared = await sharedSession(executablePath);
    opened = { server: await withOwnUser(shared.server), browser: shared.browser };
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  return () => opened!;
}

/**
 * For the tests of the `describe` that calls this: before them, the explorer page open in its own
 * context on the worker's shared server and Chromium (`browserSession`), handed to `opened`;
 * after them, that context closed.
 */
export function openExplorerPage(
  executablePath: string | undefined,
  opened: (explorer: { server: TestServer; page: Page }) => void,
): void {
  const current = browserSession(executablePath);
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    const { server, browser } = current();
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    opened({ server, page });
  });

  afterAll(async () => {
    await context?.close();
  });
}

/** The page size a test gets unless it asks for another. */
const DEFAULT_PAGE: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };

/**
 * What a test may do to its page that outlives a navigation (a fake clock, init scripts, a
 * viewport, emulation, headers), or that reaches past the page (its context, to close it or to
 * open a CDP session): a page a test used that way is closed after it, never handed on.
 */
const OUTLIVES_NAVIGATION = new Set<PropertyKey>([
  'clock',
  'context',
  'addInitScript',
  'exposeFunction',
  'exposeBinding',
  'setViewportSize',
  'emulateMedia',
  'setExtraHTTPHeaders',
  'touchscreen',
]);

/** A page of the default size, kept by the worker between tests: see `freshExplorerPages`. */
interface KeptPage {
  context: BrowserContext;
  page: Page;
}
let keptPage: KeptPage | undefined;

/**
 * Makes a used page as a new one is, and keeps it for the next test: its routes and listeners
 * removed, its tab's storage cleared, the document left (its timers, workers and requests end
 * with it), cookies cleared, the mouse back at the corner with no button held. A page that
 * cannot be made so is closed instead.
 */
async function keepForNextTest(kept: KeptPage): Promise<void> {
  const { context, page } = kept;
  try {
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    page.removeAllListeners();
    await page.evaluate('sessionStorage.clear(); localStorage.clear()').catch(() => undefined);
    await page.goto('about:blank');
    await context.clearCookies();
    await page.mouse.move(0, 0);
    await page.mouse.up();
    keptPage = kept;
  } catch {
    await context.close().catch(() => undefined);
  }
}

/**
 * For the tests of the `describe` that calls this: the worker's shared server and Chromium
 * (`browserSession`). `open` gives each test a page that is new to it, with the errors it throws
 * uncaught collected; `prepare` runs before the page loads (routes, clocks).
 *
 * A page of the default size is the previous test's page made new (`keepForNextTest`) when that
 * test did nothing to it that outlives a navigation (`OUTLIVES_NAVIGATION`): a new context costs
 * Chromium a renderer process, some 0.7 s of CPU more than loading the page again, and the
 * browser files open about 50 such pages. Any other page is a context of its own, closed after
 * the test, so a fake clock or a viewport of one test never reaches another.
 */
export function freshExplorerPages(executablePath: string | undefined): {
  server: () => TestServer;
  open(
    prepare?: (page: Page) => Promise<unknown>,
    options?: BrowserContextOptions,
  ): Promise<{ page: Page; uncaught: string[] }>;
} {
  const current = browserSession(executablePath);
  const used: Array<{ kept: KeptPage; reusable: () => boolean }> = [];

  // A page left open keeps its timers, workers and drawing going while the next test runs.
  afterEach(async () => {
    for (const { kept, reusable } of used.splice(0)) {
      if (reusable() && !kept.page.isClosed() && keptPage === undefined) await keepForNextTest(kept);
      else await kept.context.close().catch(() => undefined);
    }
  });

  return {
    server: () => current().server,
    async open(prepare = async () => {}, options) {
      const { server, browser } = current();
      const uncaught: string[] = [];
      if (options !== undefined) {
        const context = await browser.newContext(options);
        const page = await context.newPage();
        used.push({ kept: { context, page }, reusable: () => false });
        page.on('pageerror', (error) => uncaught.push(error.message));
        await prepare(page);
        await page.goto(`${server.url}/`);
        return { page, uncaught };
      }
      let kept = keptPage;
      keptPage = undefined;
      if (kept === undefined || kept.page.isClosed()) {
        const context = await browser.newContext(DEFAULT_PAGE);
        kept = { context, page: await context.newPage() };
      }
      // The test gets the page through a proxy that notes what it does to it.
      let outlived = false;
      const watched = new Proxy(kept.page, {
        get(target, property) {
          if (OUTLIVES_NAVIGATION.has(property)) outlived = true;
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      used.push({ kept, reusable: () => !outlived });
      kept.page.on('pageerror', (error) => uncaught.push(error.message));
      await prepare(watched);
      await kept.page.goto(`${server.url}/`);
      return { page: watched, uncaught };
    },
  };
}

/** Runs `body` as written; returns the answer the page shows. */
export async function runAsWritten(page: Page, body: object): Promise<unknown> {
  await page.fill('#body', JSON.stringify(body));
  await page.selectOption('#run-as', 'written');
  await page.evaluate("document.body.dataset.state = 'idle'");
  await page.click('#run');
  await page.waitForSelector('body[data-state="done"]');
  return JSON.parse((await page.textContent('#raw'))!);
}

/**
 * How many pixels of a screenshot of `target` are `marked`, counted in its page. `marked` is the
 * text of a function of a pixel's red, green and blue (0–255) that says whether it counts.
 */
export async function countPixels(target: Locator, marked: string): Promise<number> {
  const shot = await target.screenshot();
  const dataUrl = `data:image/png;base64,${shot.toString('base64')}`;
  return target.page().evaluate(`(${COUNT_PIXELS})(${JSON.stringify(dataUrl)}, ${marked})`);
}

/**
 * Runs in the page (as text: the tests have no DOM types): how many pixels of a PNG data URL
 * `marked` accepts.
 */
const COUNT_PIXELS = `(dataUrl, marked) => new Promise((resolve) => {
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) if (marked(data[i], data[i + 1], data[i + 2])) count++;
    resolve(count);
  };
  image.src = dataUrl;
})`;

/**
 * Runs in the page (as text: the tests have no DOM types): the contrast ratio (WCAG 2) of an
 * element's text colour against the first opaque background behind it.
 */
export const CONTRAST = `(element) => {
  const channels = (css) => css.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => {
    const linear = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  let behind = element;
  let background = [255, 255, 255];
  while (behind) {
    const colour = channels(getComputedStyle(behind).backgroundColor);
    if (colour.length === 3 || colour[3] === 1) { background = colour.slice(0, 3); break; }
    behind = behind.parentElement;
  }
  const [a, b] = [luminance(channels(getComputedStyle(element).color)), luminance(background)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}`;
