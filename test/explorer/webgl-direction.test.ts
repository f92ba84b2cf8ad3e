/**
 * Direction in the WebGL view, in Chromium (issue #36): its dependencies are one-pixel lines, so
 * once the camera is zoomed in far enough to tell them apart each gets an arrowhead at the node
 * it calls. Counted in pixels of the arrowheads' slate (#475569), which no point, line, mark or
 * name of this structure has.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { countPixels, findChromium, freshExplorerPages, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

const PAIRS = 2000;

/** 2,000 callers a0…, each calling its own b0… (which completes what it gets): two layers of 2,000. */
const PAIRED = {
  mode: 'analyze',
  nodes: [
    ...Array.from({ length: PAIRS }, (_, i) => ({ id: `a${i}`, arrival: 1 })),
    ...Array.from({ length: PAIRS }, (_, i) => ({ id: `b${i}`, exit: 1 })),
  ],
  dependencies: Array.from({ length: PAIRS }, (_, i) => ({ from: `a${i}`, to: `b${i}` })),
};

type Disc = [number, number, number];

/** Pixels of the arrowheads' slate, with some of its antialiased edge. */
const arrowPixels = (page: Page) =>
  countPixels(
    page.locator('#large-graph'),
    '(red, green, blue) => blue - red > 22 && blue - green > 12 && red < 120',
  );

/** Fits the view, then zooms in twice about the middle of `discs` (the wheel zooms about the pointer). */
async function zoomInAbout(page: Page, discs: Disc[]): Promise<void> {
  await page.click('#zoom-fit');
  const x = discs.reduce((sum, [cx]) => sum + cx, 0) / discs.length;
  const y = discs.reduce((sum, [, cy]) => sum + cy, 0) / discs.length;
  await page.mouse.move(x, y);
  for (let i = 0; i < 2; i++) await page.mouse.wheel(0, -400);
  await page.mouse.move(0, 0);
}

describe.runIf(chromiumPath !== undefined)('direction in the WebGL view in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);

  // Guards: the WebGL view drew dependencies as plain lines, so between 800 and 2,000 nodes,
  // where the SVG view used to draw arrows, which way a call went could not be seen. Zoomed out
  // (points a few pixels apart) there are none; zoomed in on the callees, arrowheads; zoomed in
  // on the callers, whose lines only leave them, none.
  it('draws arrowheads at the called end once zoomed in', async () => {
    const { page, uncaught } = await pages.open();
    await page.evaluate(`document.getElementById('body').value = ${JSON.stringify(JSON.stringify(PAIRED))}`);
    await page.selectOption('#run-as', 'written');
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"][data-graph="webgl"]', { timeout: 120_000 });
    await page.click('#zoom-fit');
    await page.waitForTimeout(400);
    expect(await page.textContent('#view-key')).toContain('an arrowhead at the end each dependency calls');
    expect(await arrowPixels(page)).toBe(0);
    const discs = (await page.evaluate('globalThis.explorerNodeDiscs()')) as Disc[];
    const callers = discs.slice(0, PAIRS);
    const callees = discs.slice(PAIRS);

    await zoomInAbout(page, callees);
    await expect.poll(() => arrowPixels(page), { timeout: 10_000 }).toBeGreaterThan(500);
    await page.locator('#large-graph').screenshot({ path: `${SCREENSHOTS}/webgl-arrowheads.png` });

    await zoomInAbout(page, callers);
    // The camera rests (the overlay is drawn again) before the count.
    await page.waitForTimeout(400);
    expect(await arrowPixels(page)).toBe(0);
    expect(uncaught).toEqual([]);
  }, 180_000);
});
