/**
 * The force layout in Chromium (issue #36, item 2): a structure that is mostly cycles is drawn
 * with ForceAtlas2's positions (from its worker) once they come, a DAG keeps its layers, the
 * "Layout" control switches either way from the keyboard, and at Fit a mostly cyclic graph of
 * 2,000 nodes drawn with the force layout has fewer than 1% of its nodes overlapping another.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { generated } from '../../explorer/src/examples';
import { findChromium, freshExplorerPages, SCREENSHOTS } from './browser';
import { cyclicGraph, overlapShare, type StructureBody, tieredDag } from './large-structures';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

type Disc = [number, number, number];

/** Runs `body` as written and waits for its drawing in `view`. */
async function run(page: Page, body: StructureBody, view: 'svg' | 'webgl'): Promise<void> {
  // Set directly: typing megabytes into a textarea measures the textarea.
  await page.evaluate(`document.getElementById('body').value = ${JSON.stringify(JSON.stringify(body))}`);
  await page.selectOption('#run-as', 'written');
  await page.evaluate("document.body.dataset.state = 'idle'");
  await page.click('#run');
  await page.waitForSelector(`body[data-state="done"][data-graph="${view}"]`, { timeout: 120_000 });
}

const layout = (page: Page) => page.evaluate('document.body.dataset.layout') as Promise<string | undefined>;

/** The nodes' centres as drawn, rounded to pixels, in node order: to tell two drawings apart. */
const centres = async (page: Page) =>
  ((await page.evaluate('globalThis.explorerNodeDiscs()')) as Disc[]).map(
    ([x, y]) => `${Math.round(x)},${Math.round(y)}`,
  );

describe.runIf(chromiumPath !== undefined)('the force layout in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);

  it('draws a mostly cyclic structure with the force layout, a DAG in layers, the control switching', async () => {
    const { page, uncaught } = await pages.open();
    // 300 nodes, each calling two at random: nearly all on one cycle. Layers first, then force.
    await run(page, cyclicGraph(300), 'svg');
    await expect.poll(() => layout(page), { timeout: 60_000 }).toBe('force');
    expect(await page.textContent('#layout-key')).toMatch(
      /^Layout: force \(automatic: \d+% of the nodes on a cycle/,
    );
    const control = page.getByRole('combobox', { name: 'Layout' });
    expect(await control.inputValue()).toBe('auto');
    const force = await centres(page);
    // Dependencies are straight in the force layout.
    expect(await page.locator('#graph .edge.back').count()).toBe(0);
    await page.locator('#graph-figure').screenshot({ path: `${SCREENSHOTS}/force-300-svg.png` });

    // Chosen from the keyboard: the layers, then force again (from its cache, at once).
    await control.focus();
    await control.selectOption('layers');
    await expect.poll(() => layout(page)).toBe('layers');
    expect(await page.textContent('#layout-key')).toBe('Layout: layers.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('layout-choice');
    expect(await centres(page)).not.toEqual(force);
    await control.selectOption('force');
    await expect.poll(() => layout(page)).toBe('force');
    await control.selectOption('auto');

    // A DAG stays in layers; chosen, force draws it too.
    await run(page, tieredDag(300, 6), 'svg');
    expect(await layout(page)).toBe('layers');
    expect(await page.textContent('#layout-key')).toBe(
      'Layout: layers (automatic: 0% of the nodes on a cycle, 0% of the dependencies pointing back).',
    );
    await control.selectOption('force');
    await expect.poll(() => layout(page), { timeout: 60_000 }).toBe('force');
    expect(await page.textContent('#layout-key')).toBe('Layout: force.');
    await control.selectOption('auto');

    // A flow with a few long loops back: two thirds of its nodes on a cycle, but under 1% of
    // its dependencies pointing back in the layers, which show it well: layers.
    await run(page, { ...(generated(500, 2) as StructureBody), mode: 'analyze' }, 'svg');
    expect(await layout(page)).toBe('layers');
    expect(await page.textContent('#layout-key')).toBe(
      'Layout: layers (automatic: 67% of the nodes on a cycle, 1% of the dependencies pointing back).',
    );
    expect(uncaught).toEqual([]);
  }, 180_000);

  it('draws a mostly cyclic graph of 2,000 nodes with the force layout, fewer than 1% overlapping at Fit', async () => {
    const { page, uncaught } = await pages.open();
    await run(page, cyclicGraph(2000), 'webgl');
    await expect.poll(() => layout(page), { timeout: 120_000 }).toBe('force');
    await page.waitForSelector('body[data-graph="webgl"]');
    await page.click('#zoom-fit');
    await page.waitForTimeout(400);
    const discs = (await page.evaluate('globalThis.explorerNodeDiscs()')) as Disc[];
    expect(discs.length).toBe(2000);
    expect(overlapShare(discs)).toBeLessThan(0.01);
    const box = (await page.locator('#large-graph').boundingBox())!;
    const xs = discs.map(([x]) => x);
    const ys = discs.map(([, y]) => y);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(box.width * 0.6);
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(box.height * 0.6);
    await page.locator('#large-graph').screenshot({ path: `${SCREENSHOTS}/force-2000-webgl.png` });
    expect(uncaught).toEqual([]);
  }, 240_000);
});
