/**
 * Grouping by namespace in Chromium (issue #36, item 2): a structure whose ids are
 * `namespace.service` and a Kiali-like one whose nodes carry Kiali's `namespace` get the "Group by
 * namespace" control; on, each group is one node (its dependencies merged, their steady
 * throughputs summed), expanded from the keyboard, by a click or by its button (members back,
 * boxed behind), collapsed again by its button; off, the structure as it was.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { EngineResult } from '../../lib/engine/types';
import { findChromium, freshExplorerPages, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/** A gateway and three namespaces by prefix: shop (3), pay (2), auth (2); every node fans out. */
const NS_SERVICE = {
  mode: 'analyze',
  nodes: [
    { id: 'gateway', arrival: 100, fanout: true },
    ...['shop.api', 'shop.cart', 'shop.db', 'pay.api', 'pay.ledger', 'auth.login', 'auth.tokens'].map(
      (id) => ({
        id,
        fanout: true,
        capacity: 500,
      }),
    ),
  ],
  dependencies: [
    ['gateway', 'shop.api'],
    ['gateway', 'auth.login'],
    ['shop.api', 'shop.cart'],
    ['shop.api', 'pay.api'],
    ['shop.cart', 'shop.db'],
    ['shop.cart', 'pay.api'],
    ['pay.api', 'pay.ledger'],
    ['auth.login', 'auth.tokens'],
    ['shop.api', 'auth.tokens'],
  ].map(([from, to]) => ({ from, to })),
};

/** Kiali's node data kept as connect keeps it: ids without a prefix, each node its `namespace`. */
const KIALI_NAMESPACES = {
  mode: 'analyze',
  nodes: [
    { id: 'istio-ingressgateway', namespace: 'istio-system', arrival: 50, fanout: true },
    { id: 'productpage-v1', namespace: 'bookinfo', fanout: true },
    { id: 'details-v1', namespace: 'bookinfo', fanout: true },
    { id: 'reviews-v1', namespace: 'bookinfo', fanout: true },
    { id: 'ratings-v1', namespace: 'bookinfo', fanout: true },
    { id: 'istio-egressgateway', namespace: 'istio-system', fanout: true },
  ],
  dependencies: [
    { from: 'istio-ingressgateway', to: 'productpage-v1' },
    { from: 'productpage-v1', to: 'details-v1' },
    { from: 'productpage-v1', to: 'reviews-v1' },
    { from: 'reviews-v1', to: 'ratings-v1' },
    { from: 'reviews-v1', to: 'istio-egressgateway', weight: 0.5 },
    { from: 'ratings-v1', to: 'istio-egressgateway' },
  ],
};

/** What the page shows of `shortNumber`: four significant digits, grouped from 1,000 on. */
const short = (value: number) =>
  Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en') : String(Number(value.toPrecision(4)));

/** The sum of the steady throughputs of `answer`'s dependencies from group `from` to group `to` (by `group`). */
function summed(answer: EngineResult, group: (id: string) => string, from: string, to: string): number {
  return answer.dependencies
    .filter((d) => group(d.from) === from && group(d.to) === to)
    .reduce((sum, d) => sum + (d.throughput ?? 0), 0);
}

const drawnNodes = (page: Page) => page.locator('#graph .node').count();
const groupNodes = (page: Page) => page.locator('#graph .node.collapsed-group').count();
const edgeLabel = (page: Page, from: string, to: string) =>
  page.locator(`#graph .edge-label[data-from="${from}"][data-to="${to}"]`);

describe.runIf(chromiumPath !== undefined)('grouping by namespace in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);

  it('collapses `namespace.service` groups into nodes with summed throughput, expands them by keyboard, click and button', async () => {
    const { page, uncaught } = await pages.open();
    const answer = ((await runAsWritten(page, NS_SERVICE)) as { engine: EngineResult }).engine;
    expect(await drawnNodes(page)).toBe(8);
    const control = page.getByRole('checkbox', { name: 'Group by namespace' });
    expect(await control.isVisible()).toBe(true);
    expect(await control.isChecked()).toBe(false);

    // On from the keyboard: three groups collapsed, the gateway (no prefix) alone.
    await control.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => groupNodes(page)).toBe(3);
    expect(await drawnNodes(page)).toBe(4);
    expect(await page.locator('#graph .node[data-id="group:shop"]').getAttribute('aria-label')).toMatch(
      /^shop \(3 nodes\), a group of 3 nodes, collapsed \(Enter expands it\): load /,
    );
    // Merged dependencies, each labelled with the sum of its members' steady throughput.
    const prefix = (id: string) => (id.includes('.') ? `group:${id.split('.')[0]}` : id);
    const pairs = [
      ['gateway', 'group:shop'],
      ['gateway', 'group:auth'],
      ['group:shop', 'group:pay'],
      ['group:shop', 'group:auth'],
    ] as const;
    expect(await page.locator('#graph .edge').count()).toBe(pairs.length);
    for (const [from, to] of pairs) {
      const sum = summed(answer, prefix, from, to);
      expect(sum).toBeGreaterThan(0);
      expect(await edgeLabel(page, from, to).textContent()).toBe(short(sum));
    }
    expect(summed(answer, prefix, 'group:shop', 'group:pay')).toBeCloseTo(200);
    await page.locator('#graph-figure').screenshot({ path: `${SCREENSHOTS}/groups-collapsed.png` });

    // Enter on a collapsed group's node expands it: its members back, boxed.
    await page.focus('#graph .node[data-id="group:shop"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => groupNodes(page)).toBe(2);
    expect(await drawnNodes(page)).toBe(6);
    expect(await page.locator('#graph .group-box[data-group="shop"]').count()).toBe(1);
    expect(await page.locator('#group-list button[data-group="shop"]').getAttribute('aria-expanded')).toBe(
      'true',
    );
    // A click expands too.
    await page.click('#graph .node[data-id="group:pay"] circle.body');
    await expect.poll(() => groupNodes(page)).toBe(1);
    expect(await drawnNodes(page)).toBe(7);
    await page.locator('#graph-figure').screenshot({ path: `${SCREENSHOTS}/groups-expanded.png` });

    // Its button collapses it again, from the keyboard.
    await page.focus('#group-list button[data-group="shop"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => groupNodes(page)).toBe(2);
    expect(await page.locator('#group-list button[data-group="shop"]').getAttribute('aria-expanded')).toBe(
      'false',
    );
    expect(await page.locator('#graph .group-box[data-group="shop"]').count()).toBe(0);

    // Off: the structure as it was.
    await control.uncheck();
    await expect.poll(() => drawnNodes(page)).toBe(8);
    expect(await page.locator('#graph .group-box').count()).toBe(0);
    expect(uncaught).toEqual([]);
  }, 120_000);

  it("groups a Kiali-like graph by its nodes' namespace", async () => {
    const { page, uncaught } = await pages.open();
    const answer = ((await runAsWritten(page, KIALI_NAMESPACES)) as { engine: EngineResult }).engine;
    expect(await drawnNodes(page)).toBe(6);
    await page.getByRole('checkbox', { name: 'Group by namespace' }).check();
    await expect.poll(() => groupNodes(page)).toBe(2);
    expect(await drawnNodes(page)).toBe(2);
    const namespace = new Map(KIALI_NAMESPACES.nodes.map((node) => [node.id, `group:${node.namespace}`]));
    const group = (id: string) => namespace.get(id)!;
    for (const [from, to] of [
      ['group:istio-system', 'group:bookinfo'],
      ['group:bookinfo', 'group:istio-system'],
    ] as const)
      expect(await edgeLabel(page, from, to).textContent()).toBe(short(summed(answer, group, from, to)));
    // Two dependencies into the egress gateway, merged: 0.5 × 50 + 50.
    expect(summed(answer, group, 'group:bookinfo', 'group:istio-system')).toBeCloseTo(75);
    expect(await page.locator('#group-list button').allTextContents()).toEqual([
      'istio-system (2)',
      'bookinfo (4)',
    ]);
    await page.click('#group-list button[data-group="bookinfo"]');
    await expect.poll(() => drawnNodes(page)).toBe(5);
    expect(await page.locator('#graph .group-box[data-group="bookinfo"]').count()).toBe(1);
    expect(uncaught).toEqual([]);
  }, 120_000);

  it('draws a grouping in the WebGL view once expanded groups hold over 800 nodes', async () => {
    const { page, uncaught } = await pages.open();
    const ids = [
      ...Array.from({ length: 900 }, (_, i) => `a.${i}`),
      ...Array.from({ length: 100 }, (_, i) => `b.${i}`),
    ];
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: ids.map((id) => (id === 'a.0' ? { id, arrival: 1 } : { id })),
      dependencies: [
        ...Array.from({ length: 899 }, (_, i) => ({ from: `a.${i}`, to: `a.${i + 1}` })),
        ...Array.from({ length: 100 }, (_, i) => ({ from: `a.${9 * i}`, to: `b.${i}` })),
      ],
    });
    await page.waitForSelector('body[data-graph="webgl"]');
    const discs = async () => ((await page.evaluate('globalThis.explorerNodeDiscs()')) as unknown[]).length;
    await page.getByRole('checkbox', { name: 'Group by namespace' }).check();
    await expect.poll(() => groupNodes(page)).toBe(2);
    await page.click('#group-list button[data-group="a"]');
    await page.waitForSelector('body[data-graph="webgl"]');
    await expect.poll(discs).toBe(901);
    await page.click('#group-list button[data-group="b"]');
    await expect.poll(discs).toBe(1000);
    expect(uncaught).toEqual([]);
  }, 120_000);

  it('offers no grouping when the ids make fewer than two groups of two', async () => {
    const { page } = await pages.open();
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [{ id: 'a.x', arrival: 1 }, { id: 'a.y' }, { id: 'b.z' }],
      dependencies: [
        { from: 'a.x', to: 'a.y' },
        { from: 'a.y', to: 'b.z' },
      ],
    });
    expect(await page.locator('#group-row').isHidden()).toBe(true);
  }, 60_000);
});
