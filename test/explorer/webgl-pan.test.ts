/**
 * Panning and zooming the WebGL view, in Chromium (issue #36: 20,000 nodes panned at 60 fps):
 * while the camera moves, the view shows its last frame moved and scaled with the camera
 * (held-frame.ts) and draws nothing with WebGL until the camera rests; then it draws the scene
 * where the camera came to rest, as a frame drawn without a move draws it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findChromium, freshExplorerPages } from './browser';
import { tieredDag } from './large-structures';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

type Disc = [number, number, number];

/** The view's camera rests this long after the last move (large-graph.ts); a draw sooner is a frame of the move. */
const SETTLE_MS = 150;

/**
 * Runs in the page: from now on, records when the WebGL view draws (each `drawArrays` of its
 * context) and when a drag or the wheel moves the camera (events on the view's container; a
 * pointer moving with no button down only hovers).
 */
const RECORD = `(() => {
  const container = document.getElementById('large-graph');
  const gl = container.querySelector('canvas').getContext('webgl2');
  const drawArrays = gl.drawArrays.bind(gl);
  const record = { draws: [], moves: [] };
  gl.drawArrays = (...args) => { record.draws.push(performance.now()); return drawArrays(...args); };
  const moved = () => record.moves.push(performance.now());
  container.addEventListener('pointermove', (event) => { if (event.buttons !== 0) moved(); }, { capture: true });
  container.addEventListener('wheel', moved, { capture: true });
  globalThis.panRecord = record;
})()`;

/** The draws made less than `SETTLE_MS` after a move of the camera: frames drawn while it moved. */
async function drawsWhileMoving(page: Page): Promise<number> {
  const { draws, moves } = (await page.evaluate('globalThis.panRecord')) as {
    draws: number[];
    moves: number[];
  };
  return draws.filter((t) => moves.some((m) => m <= t && t < m + SETTLE_MS)).length;
}

const discs = async (page: Page) => (await page.evaluate('globalThis.explorerNodeDiscs()')) as Disc[];

/** Until the view has drawn again after the last move, and a little more. */
async function rested(page: Page): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(
          `(({ draws, moves }) => draws.some((t) => t >= Math.max(...moves) + ${SETTLE_MS}))(globalThis.panRecord)`,
        ),
      { timeout: 10_000 },
    )
    .toBe(true);
  await page.waitForTimeout(200);
}

describe.runIf(chromiumPath !== undefined)('panning and zooming the WebGL view in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);

  // Guards: every move of the camera drew the scene again (20,000 points took a software WebGL
  // ~15 ms a frame and as long again to read back), so a pan of 20,000 nodes missed 60 fps.
  // Now a drag and a wheel zoom draw nothing until the camera rests, the picture then moved
  // exactly with the pointer (and scaled about it), and drawn as a frame without a move draws it;
  // hover and click still reach the node under the pointer.
  it('shows the last frame while the camera moves and draws the scene once it rests', async () => {
    const { page, uncaught } = await pages.open();
    await page.evaluate(
      `document.getElementById('body').value = ${JSON.stringify(JSON.stringify(tieredDag(2000, 8)))}`,
    );
    await page.selectOption('#run-as', 'analyze');
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"][data-graph="webgl"]', { timeout: 120_000 });
    const box = (await page.locator('#large-graph').boundingBox())!;
    // Whole pixels: the page sees the pointer at whole pixels, and the zoom is about it.
    const from = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    // The view focused and the pointer over it first: a press on the view focuses it, which draws
    // its focus ring (a frame of its own, not of the move).
    await page.focus('#large-graph');
    await page.mouse.move(from.x, from.y);
    await page.waitForTimeout(400);
    await page.evaluate(RECORD);
    const before = await discs(page);

    // A drag of (120, 60) px in steps, each well inside the camera's rest time.
    await page.mouse.down();
    for (let step = 1; step <= 6; step++) {
      await page.mouse.move(from.x + 20 * step, from.y + 10 * step);
      await page.waitForTimeout(30);
    }
    await page.mouse.up();
    await rested(page);
    expect(await drawsWhileMoving(page)).toBe(0);
    const dragged = await discs(page);
    for (let v = 0; v < before.length; v += 97) {
      expect(dragged[v]![0]).toBeCloseTo(before[v]![0] + 120, 1);
      expect(dragged[v]![1]).toBeCloseTo(before[v]![1] + 60, 1);
    }

    // Two wheel steps zoom in by e^(0.0015 × 400) ≈ 1.82 about the pointer.
    await page.mouse.move(from.x, from.y);
    for (let step = 0; step < 2; step++) {
      await page.mouse.wheel(0, -200);
      await page.waitForTimeout(30);
    }
    await rested(page);
    expect(await drawsWhileMoving(page)).toBe(0);
    const zoomed = await discs(page);
    const factor = Math.exp(0.0015 * 400);
    for (let v = 0; v < before.length; v += 97) {
      expect(zoomed[v]![0]).toBeCloseTo(from.x + (dragged[v]![0] - from.x) * factor, 0);
      expect(zoomed[v]![1]).toBeCloseTo(from.y + (dragged[v]![1] - from.y) * factor, 0);
    }

    // The picture at rest is the scene drawn where the camera is: the same as drawing it again
    // without a move (a resize draws the view afresh; back to its size, with the same camera).
    const atRest = await page.locator('#large-graph').screenshot();
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: viewport.width - 40, height: viewport.height });
    await page.waitForTimeout(200);
    await page.setViewportSize(viewport);
    await page.waitForTimeout(400);
    const drawnAgain = await page.locator('#large-graph').screenshot();
    expect(atRest.equals(drawnAgain)).toBe(true);

    // Hover and click still find the node under the pointer (they listen on the container now).
    const inView = (await discs(page)).find(
      ([x, y]) =>
        x > box.x + 40 && x < box.x + box.width - 40 && y > box.y + 40 && y < box.y + box.height - 40,
    )!;
    await page.mouse.move(inView[0], inView[1]);
    await expect.poll(() => page.isVisible('#graph-tooltip')).toBe(true);
    const hovered = (await page.textContent('#graph-tooltip'))!.match(/\bt\d+\b/)![0];
    await page.mouse.click(inView[0], inView[1]);
    await expect.poll(() => page.textContent('#details')).toContain(hovered);
    expect(uncaught).toEqual([]);
  }, 180_000);
});
