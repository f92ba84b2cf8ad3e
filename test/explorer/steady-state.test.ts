/**
 * The steady state of an open structure's `analyze` on the explorer page, in Chromium: nodes it
 * saturates (over capacity, losing traffic, unbounded) marked in the graph, the events
 * and the details; dependencies as wide as their steady throughput; lost traffic, the headroom
 * of a system that cannot serve today's traffic, and the bottlenecks in the summary; the same
 * badges and shades in the WebGL view.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { post, type TestServer } from '../integration/server';
import { countPixels, findChromium, openExplorerPage, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/**
 * A front end taking 10 requests a step, calling auth once, api twice (capacity 15: over, at
 * utilization 4/3) and the cache once; all three call the database. The cache is down, so the
 * 10 calls a step it gets are lost.
 */
const CACHE_DOWN = {
  mode: 'analyze',
  nodes: [
    { id: 'web', arrival: 10, fanout: true },
    { id: 'auth', capacity: 40 },
    { id: 'api', capacity: 15 },
    { id: 'cache' },
    { id: 'db', exit: 1, capacity: 100 },
  ],
  dependencies: [
    { from: 'web', to: 'auth' },
    { from: 'web', to: 'api', weight: 2 },
    { from: 'web', to: 'cache' },
    { from: 'auth', to: 'db' },
    { from: 'api', to: 'db' },
    { from: 'cache', to: 'db' },
  ],
  scenario: { nodes: { cache: { down: true } } },
};

/** 5 a step arrive at L, which feeds M; M fans out back to L and to E: value grows without limit. */
const UNBOUNDED_LOOP = {
  mode: 'analyze',
  nodes: [
    { id: 'S', arrival: 5 },
    { id: 'L', capacity: 3 },
    { id: 'M', fanout: true },
    { id: 'E', exit: 1 },
  ],
  dependencies: [
    { from: 'S', to: 'L' },
    { from: 'L', to: 'M' },
    { from: 'M', to: 'L' },
    { from: 'M', to: 'E' },
  ],
};

describe.runIf(chromiumPath !== undefined)('the steady state on the explorer page in Chromium', () => {
  let server: TestServer;
  let page: Page;
  openExplorerPage(chromiumPath, (opened) => ({ server, page } = opened));

  const node = (id: string) => page.locator(`#graph .node[data-id="${id}"]`);
  const edgeWidth = async (from: string, to: string) =>
    Number(await page.getAttribute(`#graph .edge[data-from="${from}"][data-to="${to}"]`, 'stroke-width'));
  const details = async () =>
    Object.fromEntries(
      await page
        .locator('#details dl > div')
        .evaluateAll((rows) => rows.map((row) => [row.firstChild?.textContent, row.lastChild?.textContent])),
    );

  it('marks the saturated and the down node in the graph, the events and the details', async () => {
    const answer = await runAsWritten(page, CACHE_DOWN);
    expect(answer).toEqual((await post(server.url, server.apiKey, CACHE_DOWN)).json);

    // api is over capacity, the cache is down: each outlined and badged; auth keeps up.
    expect(await node('api').getAttribute('data-saturation')).toBe('over');
    expect(await node('cache').getAttribute('data-saturation')).toBe('lost');
    expect(await node('auth').getAttribute('data-saturation')).toBeNull();
    expect(await node('api').locator('.badge text').textContent()).toBe('!');
    expect(await node('cache').locator('.badge text').textContent()).toBe('✕');
    expect(await node('api').locator('circle.body').getAttribute('class')).toContain('saturated');
    expect(await node('auth').locator('circle.body').getAttribute('class')).not.toContain('saturated');
    expect(await node('cache').getAttribute('aria-label')).toContain(
      'losing 10 per step (down, or its way out cut)',
    );
    expect(await node('api').locator('desc').textContent()).toContain('saturated: utilization 1.333');
    // The label says the utilization the colours show, not only load and pressure (0 here).
    expect(await node('auth').getAttribute('aria-label')).toMatch(/, utilization 0\.\d+/);

    // The events read in words, exact numbers on hover.
    expect(await page.locator('#events li[data-type="saturated"]').allTextContents()).toEqual([
      'saturated api (utilization 1.333 of capacity)',
      'saturated cache (losing 10 per step (down, or its way out cut))',
    ]);
    expect(await page.getAttribute('#events li[data-type="saturated"] span', 'title')).toBe(String(4 / 3));

    // The details of each: utilization, what is lost, and the steady state in words.
    await page.click('#graph .node[data-id="cache"]');
    expect(await details()).toMatchObject({
      'Lost per step': '10',
      'Steady state': 'losing 10 per step (down, or its way out cut)',
    });
    await page.click('#graph .node[data-id="api"]');
    expect(await details()).toMatchObject({
      Utilization: '1.333',
      'Steady state': 'saturated: utilization 1.333',
    });
    expect(await details()).not.toHaveProperty('Lost per step');
    await page.click('#graph .node[data-id="auth"]');
    expect(await details()).toMatchObject({ Utilization: '0.25', 'Steady state': 'keeps up' });
    await page.screenshot({ path: `${SCREENSHOTS}/steady-cache-down.png`, fullPage: true });
  });

  it('sizes dependencies by steady throughput, the key saying so', async () => {
    await runAsWritten(page, CACHE_DOWN);
    expect(await page.textContent('#width-key')).toContain('steady throughput');
    // web → api carries the most (20 a step): the widest, 8. web → cache carries 10: on a
    // square-root scale, 1 + 7·√½. cache → db carries nothing (the cache is down): 1.
    expect(await edgeWidth('web', 'api')).toBe(8);
    expect(await edgeWidth('web', 'cache')).toBeCloseTo(1 + 7 * Math.SQRT1_2, 5);
    expect(await edgeWidth('cache', 'db')).toBe(1);
    expect(await page.textContent('#graph .edge[data-from="web"][data-to="api"] desc')).toContain(
      'throughput 20 per step',
    );
    // A closed structure keeps widths by flow: A → B carries 10 of the largest 10.
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    expect(await page.textContent('#width-key')).toBe('Width: flow.');
    expect(await edgeWidth('A', 'B')).toBe(8);
    expect(await page.locator('#graph .badge').count()).toBe(0);
  });

  it('says what is lost, why there is no headroom, and lists the bottlenecks', async () => {
    await runAsWritten(page, CACHE_DOWN);
    const summary = (field: string) => page.textContent(`#summary [data-field="${field}"] dd`);
    expect(await summary('headroom')).toBe("none: cannot serve today's traffic: it is lost at cache");
    expect(await summary('lost')).toBe('10 per step, at nodes that are down or cut off');
    // In the order they saturate as arrivals grow; api already has (below ×1).
    expect(await summary('bottlenecks')).toBe('api ×0.75, db ×3.33, auth ×4');
    // The origin's arrival, which counts with its load: a contribution beside a load of 0 read
    // as unexplained without it.
    expect(await summary('origin')).toMatch(/^web: load 0, arrival 10, contribution /);
    await page.click('#summary [data-field="bottlenecks"] button:text-is("db")');
    expect(await details()).toMatchObject({ Node: 'db', Utilization: '0.3' });
  });

  // A scenario that cuts a node's last way out strands what reaches it: lost, as a down node's,
  // and badged the same. The same structure sent without the dependency is a sink: nothing lost.
  it('says traffic is lost at a node whose way out a scenario cut', async () => {
    const front = {
      nodes: [
        { id: 'web', arrival: 4, fanout: true },
        { id: 'db', capacity: 10 },
        { id: 'disk', exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'db' },
        { from: 'db', to: 'disk' },
      ],
    };
    await runAsWritten(page, {
      mode: 'analyze',
      ...front,
      scenario: { dependencies: [{ from: 'db', to: 'disk', cut: true }] },
    });
    const summary = (field: string) => page.textContent(`#summary [data-field="${field}"] dd`);
    expect(await summary('headroom')).toBe("none: cannot serve today's traffic: it is lost at db");
    expect(await summary('lost')).toBe('4 per step, at nodes that are down or cut off');
    const db = page.locator('#graph .node[data-id="db"]');
    expect(await db.getAttribute('data-saturation')).toBe('lost');
    expect(await db.locator('.badge text').textContent()).toBe('✕');
    await page.click('#graph .node[data-id="db"]');
    expect(await details()).toMatchObject({
      'Lost per step': '4',
      'Steady state': 'losing 4 per step (down, or its way out cut)',
    });
    await runAsWritten(page, { mode: 'analyze', ...front, dependencies: [front.dependencies[0]!] });
    expect(await page.locator('#summary [data-field="lost"]').count()).toBe(0);
    // A node down that nothing reaches loses nothing, and does not "keep up" either.
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [
        { id: 'A', arrival: 10, exit: 1 },
        { id: 'X', capacity: 3 },
        { id: 'Y', exit: 1 },
      ],
      dependencies: [{ from: 'X', to: 'Y' }],
      scenario: { nodes: { X: { down: true } } },
    });
    await page.click('#graph .node[data-id="X"]');
    expect(await details()).toMatchObject({
      'Lost per step': '0',
      'Steady state': 'nothing reaches it (down, or its way out cut)',
    });
  });

  it('draws the dependencies out of an unbounded loop dotted, its nodes badged', async () => {
    await runAsWritten(page, UNBOUNDED_LOOP);
    const unbounded = await page
      .locator('#graph .edge.unbounded')
      .evaluateAll((edges) => edges.map((edge) => `${edge.dataset.from}→${edge.dataset.to}`));
    expect(unbounded.sort()).toEqual(['L→M', 'M→E', 'M→L']);
    expect(await edgeWidth('S', 'L')).toBe(8);
    for (const id of ['L', 'M', 'E']) {
      expect(await node(id).getAttribute('data-saturation')).toBe('unbounded');
      expect(await node(id).locator('.badge text').textContent()).toBe('∞');
    }
    expect(await page.textContent('#events li[data-type="unbounded"]')).toBe(
      'unbounded (grows without limit): E, L, M',
    );
    expect(await page.textContent('#graph .edge[data-from="M"][data-to="E"] desc')).toContain(
      'throughput unbounded',
    );
    expect(await page.textContent('#summary [data-field="bottlenecks"] dd')).toBe('none');
    await page.screenshot({ path: `${SCREENSHOTS}/steady-unbounded.png`, fullPage: true });
  });

  // Above 2,000 nodes: a chain of 2,500 services, three of them over capacity. The WebGL view
  // badges them (so few are drawn at any zoom) and shades dependencies by throughput.
  it('badges the saturated nodes in the WebGL view', async () => {
    const count = 2500;
    const tight = new Set([400, 1200, 2000]);
    const body = {
      mode: 'analyze',
      nodes: Array.from({ length: count }, (_, i) => ({
        id: `s${i}`,
        ...(i === 0 ? { arrival: 10 } : {}),
        ...(tight.has(i) ? { capacity: 5 } : {}),
        ...(i === count - 1 ? { exit: 1 } : {}),
      })),
      dependencies: Array.from({ length: count - 1 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })),
    };
    await runAsWritten(page, body);
    await page.waitForSelector('body[data-graph="webgl"]', { timeout: 60_000 });
    expect(await page.textContent('#width-key')).toContain('Shade of a dependency');
    await expect
      .poll(() => badgePixels(page.locator('#large-graph')), { timeout: 30_000 })
      .toBeGreaterThan(20);
    await page.locator('#large-graph').screenshot({ path: `${SCREENSHOTS}/webgl-badges.png` });
  });
});

/** How many pixels of a screenshot of `target` have the badges' red (#b91c1c). */
const badgePixels = (target: Locator) =>
  countPixels(target, '(red, green, blue) => Math.abs(red - 0xb9) < 20 && green < 60 && blue < 60');
