/**
 * The compare view in Chromium ("before and after at a glance"): the diverging change palette
 * with its grey zero, the numbers on every colour bar, the scenario's marks on the graph (a down
 * node hatched, a cut dependency dashed red, a changed capacity tagged), a node without a
 * capacity coloured by its pressure change, the fixed colour scale across a timeline, the
 * legend's contrast, and the wording of factors under a scenario. Each test says what it guards;
 * each failed on the page before this work.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../../lib/worked-example';
import { README_CHECKOUT } from '../helpers/engine-examples';
import { CONTRAST, countPixels, findChromium, openExplorerPage, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/** The change palette's middle (no change), ends (less, more): palette.ts. */
const NO_CHANGE = 'rgb(217, 217, 217)';
const LESS = 'rgb(33, 102, 172)';
const MORE = 'rgb(178, 24, 43)';

/** S pushes 100 into Q (capacity 5): Q's pressure grows 30, 45, 60, 75, then 70 at tick 5. */
const GROWING_QUEUE = {
  nodes: [{ id: 'S', load: 100, capacity: 20 }, { id: 'Q', capacity: 5 }, { id: 'T' }],
  dependencies: [
    { from: 'S', to: 'Q' },
    { from: 'Q', to: 'T' },
  ],
};

describe.runIf(chromiumPath !== undefined)('the compare view in Chromium', () => {
  let page: Page;
  openExplorerPage(chromiumPath, (opened) => ({ page } = opened));

  async function compare(): Promise<void> {
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]');
  }

  const node = (id: string) => page.locator(`#graph .node[data-id="${id}"]`);
  const fill = (id: string) => node(id).locator('circle.body').getAttribute('fill');
  const barNumbers = (row: string) =>
    page.locator(`#colour-bar .colour-numbers[data-row="${row}"] .colour-tick`).allTextContents();

  // Guards: the bar under the graph had no numbers (a bare gradient). Now every colouring's bar
  // has its ends and middle: pressure 0 to the state's largest, utilization 0 to 1 or more.
  it('puts numbers on the pressure and the utilization colour bars', async () => {
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    expect(await page.getAttribute('#colour-bar', 'data-palette')).toBe('viridis');
    expect(await barNumbers('pressure')).toEqual(['0', '2.5', '5']);
    await runAsWritten(page, { mode: 'analyze', ...OPEN_WORKED_EXAMPLE });
    expect(await barNumbers('utilization')).toEqual(['0', '0.5', '≥ 1']);
    expect(await page.getAttribute('#colour-bar', 'aria-label')).toBe('Colour bar: utilization 0, 0.5, ≥ 1');
  });

  // Guards: "change" was drawn on viridis, whose teal middle read as a value; no change must be
  // the diverging palette's neutral grey, more red and less blue, symmetric about 0, and the bar
  // must say −2, 0, +2. B's capacity halved on the worked example: B's pressure 1 → 3, the rest
  // unchanged.
  it('shows a change on a diverging palette with a grey zero and a numbered legend', async () => {
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    await node('B').click();
    await page.fill('#scenario-capacity', '2');
    await page.click('#scenario-set-node');
    await compare();
    expect(await page.getAttribute('#colour-bar', 'data-palette')).toBe('change');
    expect(await barNumbers('change in pressure')).toEqual(['−2', '0', '+2']);
    expect(await fill('B')).toBe(MORE);
    expect(await fill('A')).toBe(NO_CHANGE);
    const [r, g, b] = NO_CHANGE.match(/\d+/g)!.map(Number);
    expect(r === g && g === b).toBe(true);
    expect(await page.textContent('#colour-key')).toContain('through none (grey)');
    await page.click('#scenario-clear');
  });

  // Guards: nothing on the graph marked what the scenario did, and a node without a capacity that
  // becomes the primary blockage was coloured "no change" (its utilization, absent on both sides,
  // counted as 0 → 0). On the open example: A (no capacity) down, B's capacity 15 → 30, A → D
  // cut. A is hatched and coloured by its pressure change (0 → 10: the red end), B tagged ↑30
  // and coloured by its utilization change (1.33 → 0.67: the blue end), A → D drawn dashed red.
  it('hatches a down node, dashes a cut dependency red, tags a changed capacity, colours a no-capacity blockage', async () => {
    await runAsWritten(page, { mode: 'analyze', ...OPEN_WORKED_EXAMPLE });
    await node('A').click();
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    await node('B').click();
    await page.fill('#scenario-capacity', '30');
    await page.click('#scenario-set-node');
    await page.locator('#graph .edge[data-from="A"][data-to="D"]').dispatchEvent('click');
    await compare();
    expect(await page.textContent('[data-field="primary-blockage"] dd')).toBe('A');

    // The down node: hatched over its colour.
    expect(await node('A').getAttribute('data-down')).toBe('true');
    expect(await node('A').locator('circle.hatch').getAttribute('fill')).toBe('url(#hatch-down)');
    expect(await page.locator('#graph pattern#hatch-down').count()).toBe(1);
    expect(await node('F').locator('circle.hatch').count()).toBe(0);

    // The cut dependency: drawn where it was, dashed and red.
    const cut = page.locator('#graph .edge.cut[data-from="A"][data-to="D"]');
    expect(await cut.count()).toBe(1);
    const style: { stroke: string; dashes: string } = await page.evaluate(
      `(() => { const computed = getComputedStyle(document.querySelector('#graph .edge.cut')); return { stroke: computed.stroke, dashes: computed.strokeDasharray }; })()`,
    );
    expect(style.stroke).toBe('rgb(185, 28, 28)');
    expect(style.dashes).not.toBe('none');
    expect(await cut.locator('desc').textContent()).toBe('A → D: cut in the scenario');

    // The changed capacity: a tag with the new one, the change on hover.
    expect(await node('B').locator('.capacity-badge text').textContent()).toBe('↑30');
    expect(await node('B').locator('.capacity-badge desc').textContent()).toBe(
      'capacity 15 → 30 in the scenario',
    );

    // The colours: A by its pressure change, not "no change"; B by utilization; F unchanged.
    expect(await fill('A')).toBe(MORE);
    expect(await fill('A')).not.toBe(await fill('F'));
    expect(await fill('B')).toBe(LESS);
    expect(await fill('F')).toBe(NO_CHANGE);
    expect(await barNumbers('change in utilization')).toEqual(['−0.6667', '0', '+0.6667']);
    expect(await barNumbers('change in pressure (no capacity)')).toEqual(['−10', '0', '+10']);

    // The key names the marks drawn, and the SVG view's own.
    const key = await page.textContent('#scenario-key');
    expect(key).toContain('hatched: down');
    expect(key).toContain('dashed red: a dependency cut');
    expect(key).toContain('a capacity changed');
    expect(await page.textContent('#view-key')).toContain('Rings');
    await page.locator('#graph-figure').screenshot({ path: `${SCREENSHOTS}/compare-marks.png` });
  });

  // Guards: the key's text must read against its background (WCAG AA, 4.5:1): the colour bar's
  // numbers and row names, and the scenario's marks, as drawn after the comparison above.
  it('keeps the legend text at 4.5:1 or more against its background', async () => {
    const ratios: number[] = await page.evaluate(
      `[...document.querySelectorAll('#colour-bar .colour-tick, #colour-bar .colour-row-label, #scenario-key, #colour-key')].map(${CONTRAST})`,
    );
    expect(ratios.length).toBeGreaterThan(6);
    for (const ratio of ratios) expect(ratio).toBeGreaterThanOrEqual(4.5);
    await page.click('#scenario-clear');
  });

  // Guards: each tick was coloured to its own largest pressure, so Q (the largest from tick 2
  // on) was yellow at every tick and scrubbing never showed it grow. With the fixed scale (the
  // default) Q is 45 of 75 at tick 2 and the top only at tick 4, and the bar says 75 at both;
  // unticked, each tick to its own largest again.
  it('keeps one colour scale across the ticks of a timeline', async () => {
    await runAsWritten(page, { mode: 'ticks', ticks: 5, ...GROWING_QUEUE });
    expect(await page.isVisible('#fixed-scale-row')).toBe(true);
    expect(await page.isChecked('#fixed-scale')).toBe(true);
    await page.locator('#tick').fill('1');
    expect(await page.textContent('#tick-label')).toBe('tick 2');
    const atTick2 = await fill('Q');
    expect(await barNumbers('pressure')).toEqual(['0', '37.5', '75']);
    await page.locator('#tick').fill('3');
    expect(await page.textContent('#tick-label')).toBe('tick 4');
    expect(await fill('Q')).toBe('rgb(253, 231, 37)');
    expect(atTick2).not.toBe(await fill('Q'));
    expect(await barNumbers('pressure')).toEqual(['0', '37.5', '75']);
    expect(await page.textContent('#colour-key')).toContain('the largest over every tick');
    // Per tick: Q is the largest at tick 2 as well.
    await page.uncheck('#fixed-scale');
    await page.locator('#tick').fill('1');
    expect(await fill('Q')).toBe('rgb(253, 231, 37)');
    expect(await barNumbers('pressure')).toEqual(['0', '22.5', '45']);
    await page.check('#fixed-scale');
  });

  // Guards: under a scenario that scales traffic the summary said "×1 of today's arrivals" for
  // the scenario's own (in a ×2 scenario, half of what it meant), and the comparison's down
  // headroom "cannot serve today's traffic". The slider at ×2 on the open example, then A down
  // too. (A scenario that leaves traffic as it is keeps "today's": scenario-panel.test.ts.)
  it("says the scenario's traffic where the factor is of the scenario's", async () => {
    await runAsWritten(page, { mode: 'analyze', ...OPEN_WORKED_EXAMPLE });
    expect(await page.textContent('[data-field="headroom"] dd')).toBe(
      "over capacity: B saturates at ×0.75 of today's arrivals",
    );
    await page.locator('#scenario-scale').fill('2');
    await compare();
    expect(await page.textContent('[data-field="headroom"] dd')).toBe(
      "over capacity: B saturates at ×0.375 of the scenario's traffic",
    );
    await node('A').click();
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    await compare();
    expect(await page.locator('#scenario-changes li[data-field="blockage"]').textContent()).toBe(
      "Primary blockage: B (headroom ×0.75 at B) → A (cannot serve the scenario's traffic: it is lost at A)",
    );
    expect(await page.textContent('[data-field="headroom"] dd')).toBe(
      "none: cannot serve the scenario's traffic: it is lost at A",
    );
    await page.click('#scenario-clear');
    // A ×2 written in the body itself, with `compare` (README's checkout): its factors are the
    // scenario's too (the list said "today's", read from the panel's draft, which is empty), and
    // the status says the scenario is the body's.
    await runAsWritten(page, { mode: 'analyze', ...README_CHECKOUT, scenario: { scale: 2 }, compare: true });
    await expect
      .poll(() => page.locator('#scenario-changes li[data-field="latency-headroom"]').textContent())
      .toBe(
        "Latency headroom: ×1.45 of today's traffic (checkout) → over its SLO from ×0.727 of the scenario's traffic (checkout)",
      );
    expect(await page.textContent('#scenario-status')).toBe(
      'Compared at tick 0: the scenario in the request body with the structure as it is.',
    );
  });

  // Guards: the WebGL view's key listed rings, dashes and outlines it never draws, and the view
  // marked nothing of a scenario. A chain of 2,500 services, s1200 taken down and s600's
  // capacity set: the key lists only what this view draws, the hatch (black stripes) and the tag
  // (dark blue) are on the canvas.
  it('marks the scenario in the WebGL view, and its key lists only what it draws', async () => {
    const count = 2500;
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: Array.from({ length: count }, (_, i) => ({
        id: `s${i}`,
        ...(i === 0 ? { arrival: 10 } : {}),
        ...(i === count - 1 ? { exit: 1 } : {}),
      })),
      dependencies: Array.from({ length: count - 1 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })),
    });
    await page.waitForSelector('body[data-graph="webgl"]', { timeout: 60_000 });
    expect(await page.textContent('#view-key')).not.toContain('Rings');
    expect(await page.textContent('#view-key')).toContain('Orange point: the primary blockage');
    expect(await page.textContent('#badge-key')).not.toContain('outline');
    expect(await hatchPixels(page.locator('#large-graph'))).toBe(0);
    await page.selectOption('#scenario-node', 's1200');
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    await page.selectOption('#scenario-node', 's600');
    await page.uncheck('#scenario-down');
    await page.fill('#scenario-capacity', '50');
    await page.click('#scenario-set-node');
    await compare();
    await page.waitForSelector('body[data-graph="webgl"]', { timeout: 60_000 });
    const key = await page.textContent('#scenario-key');
    expect(key).toContain('hatched: down');
    expect(key).toContain('a capacity changed');
    expect(key).not.toContain('dashed red');
    await expect
      .poll(() => hatchPixels(page.locator('#large-graph')), { timeout: 30_000 })
      .toBeGreaterThan(3);
    await expect.poll(() => tagPixels(page.locator('#large-graph')), { timeout: 30_000 }).toBeGreaterThan(20);
    await page.locator('#large-graph').screenshot({ path: `${SCREENSHOTS}/compare-webgl.png` });
    await page.click('#scenario-clear');
  });
});

/** Pixels of the WebGL view's hatch (black: no label or point is drawn black). */
const hatchPixels = (target: Locator) => countPixels(target, '(red, green, blue) => red + green + blue < 12');
/** Pixels of a capacity tag's dark blue (#1e3a5f). */
const tagPixels = (target: Locator) =>
  countPixels(
    target,
    '(red, green, blue) => Math.abs(red - 0x1e) < 8 && Math.abs(green - 0x3a) < 8 && Math.abs(blue - 0x5f) < 8',
  );
