/**
 * The explorer's screenshots in docs/explorer.md, taken again: starts the local server on
 * 127.0.0.1 (free ports, as the browser tests do), drives Debian's Chromium headless at 1440×900
 * and writes each graph with its key as a JPEG (quality 80) into docs/images/. The structures are
 * the browser tests' own (test/explorer/large-structures.ts) and the page's examples, so the
 * pictures are the same on every run but for software WebGL's antialiasing.
 *   npm run screenshots                 every picture
 *   npm run screenshots -- --only jaeger  the pictures whose name contains "jaeger"
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { scriptArgs } from '../lib/script-args';
import { startLocalServer } from '../local/server';
import { findChromium, launchChromium } from '../test/explorer/browser';
import {
  cyclicGraph,
  jaegerServices,
  type StructureBody,
  tieredDag,
} from '../test/explorer/large-structures';

const { only } = scriptArgs({
  command: 'npm run screenshots',
  usage: `Takes the explorer's screenshots for docs/explorer.md again, into docs/images/ (JPEG).
It starts its own local server on free ports and needs Debian's chromium (or CHROMIUM_PATH).

  --only <text>  only the pictures whose file name contains <text>
  -h, --help     this text`,
  options: { only: { type: 'string' } },
});

const IMAGES = 'docs/images';
const VIEWPORT = { width: 1440, height: 900 };
const QUALITY = 80;
/** For a drawing of 20,000 points, whose noise JPEG keeps at a cost: under 250 KiB. */
const DENSE_QUALITY = 50;
/** A picture in the docs should not weigh more than this. */
const MAX_BYTES = 250 * 1024;

/**
 * `body` with `capacity` on every node, as a registered system's default capacity gives it: a
 * service graph read from traces has none, and without one every node is grey.
 */
function withCapacity(body: StructureBody, capacity: number): StructureBody {
  return { ...body, nodes: body.nodes.map((node) => ({ ...node, capacity })) };
}

/** `body` with every node completing `exit` of what it gets (a share against its calls' weights of 1). */
function withExits(body: StructureBody, exit: number): StructureBody {
  return { ...body, nodes: body.nodes.map((node) => ({ ...node, exit })) };
}

const NAMESPACES: Record<string, readonly string[]> = {
  'istio-system': ['istio-ingressgateway'],
  frontend: ['web', 'mobile-bff', 'admin'],
  shop: ['catalog', 'cart', 'checkout', 'search', 'reviews', 'recommend'],
  payments: ['payments-api', 'fraud', 'ledger', 'bank-adapter'],
  identity: ['login', 'tokens', 'profile'],
  data: ['orders-db', 'catalog-db', 'cache', 'events'],
};

/**
 * A Kiali-like mesh: 21 services in six namespaces, each node carrying its `namespace` as
 * connect keeps Kiali's node data, ids `namespace/service` as connect names them, traffic in at
 * the ingress gateway, every service fanning out, a capacity on some.
 */
function kialiLikeMesh(): object {
  const id = (service: string) =>
    `${Object.entries(NAMESPACES).find(([, services]) => services.includes(service))![0]}/${service}`;
  const capacities: Record<string, number> = {
    catalog: 250,
    cart: 200,
    checkout: 70,
    search: 25,
    recommend: 100,
    'payments-api': 60,
    fraud: 100,
    login: 100,
    tokens: 150,
    'orders-db': 120,
    'catalog-db': 400,
    cache: 1000,
  };
  const nodes = Object.entries(NAMESPACES).flatMap(([namespace, services]) =>
    services.map((service) => ({
      id: `${namespace}/${service}`,
      namespace,
      fanout: true,
      ...(service === 'istio-ingressgateway' ? { arrival: 100 } : {}),
      ...(capacities[service] === undefined ? {} : { capacity: capacities[service] }),
    })),
  );
  const calls: Array<[string, string, number?]> = [
    ['istio-ingressgateway', 'web'],
    ['istio-ingressgateway', 'mobile-bff', 0.6],
    ['istio-ingressgateway', 'admin', 0.05],
    ['web', 'catalog'],
    ['web', 'cart', 0.5],
    ['web', 'login', 0.3],
    ['web', 'search', 0.2],
    ['mobile-bff', 'catalog'],
    ['mobile-bff', 'checkout', 0.4],
    ['mobile-bff', 'tokens'],
    ['admin', 'profile'],
    ['catalog', 'catalog-db'],
    ['catalog', 'reviews', 0.5],
    ['catalog', 'cache'],
    ['search', 'catalog-db'],
    ['reviews', 'recommend'],
    ['cart', 'checkout', 0.5],
    ['cart', 'cache'],
    ['checkout', 'payments-api'],
    ['checkout', 'orders-db'],
    ['checkout', 'events'],
    ['payments-api', 'fraud'],
    ['payments-api', 'bank-adapter'],
    ['payments-api', 'ledger'],
    ['ledger', 'orders-db'],
    ['login', 'tokens'],
    ['login', 'profile'],
    ['profile', 'cache'],
  ];
  const dependencies = calls.map(([from, to, weight]) => ({
    from: id(from),
    to: id(to),
    ...(weight === undefined ? {} : { weight }),
  }));
  return { mode: 'analyze', nodes, dependencies };
}

/** Runs `body` as written (set directly: typing megabytes into a textarea is slow) and waits for its drawing. */
async function run(page: Page, body: object, view: 'svg' | 'webgl'): Promise<void> {
  await page.evaluate(`document.getElementById('body').value = ${JSON.stringify(JSON.stringify(body))}`);
  await page.selectOption('#run-as', 'written');
  await page.evaluate("document.body.dataset.state = 'idle'");
  await page.click('#run');
  await page.waitForSelector(`body[data-state="done"][data-graph="${view}"]`, { timeout: 300_000 });
}

/** Fits the camera and waits for it to settle (labels, node sizes, the lines of the WebGL view). */
async function fitView(page: Page): Promise<void> {
  await page.click('#zoom-fit');
  await settle(page);
}

/** The pointer off the graph (no tooltip) and the camera at rest. */
async function settle(page: Page): Promise<void> {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(600);
}

/**
 * The Kiali-like mesh compared with a what-if: payments-api's capacity halved (60 → 30), the
 * dependency web → search cut and recommend down.
 */
async function compareMesh(page: Page): Promise<void> {
  await run(page, kialiLikeMesh(), 'svg');
  const node = (id: string) => page.locator(`#graph .node[data-id="${id}"]`);
  await node('payments/payments-api').click();
  await page.fill('#scenario-capacity', '30');
  await page.click('#scenario-set-node');
  await node('shop/recommend').click();
  await page.check('#scenario-down');
  await page.click('#scenario-set-node');
  await page.locator('#graph .edge[data-from="frontend/web"][data-to="shop/search"]').dispatchEvent('click');
  await page.evaluate("document.body.dataset.state = 'idle'");
  await page.click('#scenario-run');
  await page.waitForSelector('body[data-state="done"]');
  await fitView(page);
}

interface Shot {
  /** The file under docs/images/, without `.jpg`. */
  name: string;
  /** JPEG quality, when not `QUALITY`. */
  quality?: number;
  /** Brings the page to what the picture shows. */
  prepare(page: Page): Promise<void>;
}

const SHOTS: readonly Shot[] = [
  {
    name: 'jaeger-871',
    async prepare(page) {
      await run(page, withCapacity(jaegerServices(), 20_000), 'webgl');
      await fitView(page);
    },
  },
  {
    name: 'jaeger-871-zoomed',
    async prepare(page) {
      await run(page, withCapacity(jaegerServices(), 20_000), 'webgl');
      await fitView(page);
      // Zoomed in about the primary blockage, until the services are named and the dependencies
      // have their arrowheads.
      const { engine } = JSON.parse((await page.textContent('#raw'))!) as {
        engine: { primaryBlockage: string; nodes: Array<{ id: string }> };
      };
      const at = engine.nodes.findIndex((node) => node.id === engine.primaryBlockage);
      await page.locator('#large-graph').scrollIntoViewIfNeeded();
      const discs = (await page.evaluate('globalThis.explorerNodeDiscs()')) as Array<
        [number, number, number]
      >;
      await page.mouse.move(discs[at]![0], discs[at]![1]);
      for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -400);
      await settle(page);
    },
  },
  {
    name: 'tiered-dag-20k',
    quality: DENSE_QUALITY,
    async prepare(page) {
      await run(page, withCapacity(tieredDag(20_000, 12), 4), 'webgl');
      await fitView(page);
    },
  },
  { name: 'compare-mesh', prepare: compareMesh },
  {
    name: 'force-cyclic-300',
    async prepare(page) {
      await run(page, withExits(withCapacity(cyclicGraph(300), 0.25), 0.3), 'svg');
      await page.waitForSelector('body[data-layout="force"]', { timeout: 120_000 });
      await fitView(page);
    },
  },
  {
    name: 'grouping-collapsed',
    async prepare(page) {
      await run(page, kialiLikeMesh(), 'svg');
      await page.check('#group-by');
      await fitView(page);
    },
  },
  {
    name: 'grouping-expanded',
    async prepare(page) {
      await run(page, kialiLikeMesh(), 'svg');
      await page.check('#group-by');
      for (const group of ['shop', 'payments'])
        await page.locator('#group-list button', { hasText: group }).click();
      await fitView(page);
    },
  },
];

const chromium = findChromium();
if (chromium === undefined) {
  console.error('No chromium on PATH: apt-get install -y chromium (or set CHROMIUM_PATH).');
  process.exit(1);
}
// Requests are logged at INFO: keep the output to the pictures written.
process.env.LOG_LEVEL ??= 'WARN';
const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  quiet: true,
  issuerFile: path.join(mkdtempSync(path.join(tmpdir(), 'sbe-screenshots-')), 'issuer.json'),
});
let browser: Browser | undefined;
let tooLarge = 0;
try {
  browser = await launchChromium(chromium);
  for (const shot of SHOTS) {
    if (only !== undefined && !shot.name.includes(only)) continue;
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const uncaught: string[] = [];
    page.on('pageerror', (error) => uncaught.push(error.message));
    await page.goto(`${server.url}/`);
    await shot.prepare(page);
    const file = path.join(IMAGES, `${shot.name}.jpg`);
    await page
      .locator('#graph-figure')
      .screenshot({ path: file, type: 'jpeg', quality: shot.quality ?? QUALITY });
    const bytes = statSync(file).size;
    if (bytes > MAX_BYTES) tooLarge++;
    console.log(`${file}  ${(bytes / 1024).toFixed(0)} KiB${bytes > MAX_BYTES ? '  (over 250 KiB)' : ''}`);
    if (uncaught.length > 0) throw new Error(`${shot.name}: the page threw ${uncaught.join('; ')}`);
    await context.close();
  }
} finally {
  await browser?.close();
  await server.close();
}
if (tooLarge > 0) process.exitCode = 1;
