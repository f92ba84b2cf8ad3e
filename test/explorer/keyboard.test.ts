/**
 * The explorer for the keyboard and screen readers (issue #36, item 5), in Chromium at 1440×900:
 * the graph one tab stop (a listbox of its nodes, a roving tabindex), arrow keys to the nearest
 * node that way, Home and End, Enter selecting with the focus kept on the node, a skip link past
 * the graph, one tooltip for hover and focus, the WebGL view's focus ring, the node table, the
 * legend's contrast, the slider's spoken value and the systems' buttons' names. Each test says
 * what it guards; each failed on the page before this work.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, generated } from '../../explorer/src/examples';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { CONTRAST, countPixels, findChromium, openExplorerPage, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/** A diamond: A fans out to B1 and B2 (one layer, one above the other), both call C. */
const DIAMOND = {
  mode: 'analyze',
  nodes: [{ id: 'A', load: 10 }, { id: 'B1' }, { id: 'B2', capacity: 2 }, { id: 'C' }],
  dependencies: [
    { from: 'A', to: 'B1' },
    { from: 'A', to: 'B2' },
    { from: 'B1', to: 'C' },
    { from: 'B2', to: 'C' },
  ],
};

/** The focused element: its id, its node's `data-id`, or its tag. */
const FOCUSED = `(() => {
  const element = document.activeElement;
  return element?.getAttribute('data-id') ?? (element?.id || element?.tagName);
})()`;

describe.runIf(chromiumPath !== undefined)('the explorer for the keyboard and screen readers', () => {
  let page: Page;
  openExplorerPage(chromiumPath, (opened) => ({ page } = opened));

  const focused = () => page.evaluate(FOCUSED) as Promise<string>;
  const tabStops = () =>
    page
      .locator('#graph .node')
      .evaluateAll((all) => all.filter((n) => n.getAttribute('tabindex') === '0').length);

  // Guards: every node was a tab stop (300 Tab presses to get past the 300-service graph) and the
  // nodes were buttons inside role="img", which hides them from screen readers. Now the graph is
  // a listbox of options with one tab stop: Tab enters it once and leaves it with the next press.
  it('makes the graph one tab stop, a listbox of its nodes', async () => {
    const index = EXAMPLES.findIndex((example) => example.name === 'Service graph, 300 services');
    await page.selectOption('#example', String(index));
    await page.selectOption('#run-as', 'analyze');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"]');
    expect(await page.locator('#graph .node').count()).toBe(300);
    expect(await page.getAttribute('#graph', 'role')).toBe('listbox');
    expect(await page.getAttribute('#graph .node >> nth=0', 'role')).toBe('option');
    expect(await tabStops()).toBe(1);
    await page.focus('#skip-graph');
    await page.keyboard.press('Tab');
    const entered = await focused();
    expect(await page.locator(`#graph .node[data-id="${entered}"]`).count()).toBe(1);
    // With no selection the primary blockage holds the tab stop.
    expect(entered).toBe(await page.textContent('[data-field="primary-blockage"] dd'));
    await page.keyboard.press('Tab');
    expect(await page.locator(`#graph .node[data-id="${await focused()}"]`).count()).toBe(0);
  });

  // Guards: arrow keys panned the camera and Enter on a node redrew the graph under the focus,
  // dropping it to <body>. Now arrows move to the nearest node that way (right along the flow,
  // down within a layer), Home and End go to the first and last node, Enter and Space select,
  // and the focus stays on the node; only that node has tabindex 0, and it is aria-selected.
  it('moves among nodes with the arrow keys, Home and End, and keeps the focus on Enter', async () => {
    await runAsWritten(page, DIAMOND);
    const place = (id: string) =>
      page.locator(`#graph .node[data-id="${id}"]`).evaluate((n) => {
        const box = n.querySelector('circle.body')!.getBoundingClientRect();
        return [box.x + box.width / 2, box.y + box.height / 2];
      });
    const [b1, b2] = [await place('B1'), await place('B2')];
    // B1 and B2 share a layer, one above the other.
    expect(Math.abs(b1[0]! - b2[0]!)).toBeLessThan(1);
    const [upper, lower] = b1[1]! < b2[1]! ? ['B1', 'B2'] : ['B2', 'B1'];

    await page.focus('#graph .node[tabindex="0"]');
    await page.keyboard.press('Home');
    expect(await focused()).toBe('A');
    await page.keyboard.press('ArrowRight');
    expect(['B1', 'B2']).toContain(await focused());
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe(upper);
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe(lower);
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe('C');
    // Nothing further right: the focus stays.
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe('C');
    await page.keyboard.press('Home');
    await page.keyboard.press('End');
    expect(await focused()).toBe('C');
    await page.keyboard.press('ArrowLeft');
    const chosen = await focused();
    expect(['B1', 'B2']).toContain(chosen);

    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#details dl div:first-child dd')).toBe(chosen);
    expect(await focused()).toBe(chosen);
    expect(await page.getAttribute(`#graph .node[data-id="${chosen}"]`, 'aria-selected')).toBe('true');
    expect(await page.getAttribute(`#graph .node[data-id="${chosen}"]`, 'tabindex')).toBe('0');
    expect(await tabStops()).toBe(1);
    await page.keyboard.press('End');
    await page.keyboard.press(' ');
    await expect.poll(() => page.textContent('#details dl div:first-child dd')).toBe('C');
    expect(await focused()).toBe('C');
    // Shift with an arrow pans instead (the view moves, the focus stays).
    const before = await page.getAttribute('#graph', 'viewBox');
    await page.keyboard.press('Shift+ArrowLeft');
    await expect.poll(() => page.getAttribute('#graph', 'viewBox')).not.toBe(before);
    expect(await focused()).toBe('C');
  });

  // Guards: there was no way past the graph but through it. The skip link is hidden until it has
  // the focus, then shown, and takes the focus to the What-if panel.
  it('has a skip link, shown on focus, to the What-if panel', async () => {
    const hidden = (await page.locator('#skip-graph').boundingBox())!;
    expect(hidden.x + hidden.width).toBeLessThan(0);
    await page.focus('#skip-graph');
    const shown = (await page.locator('#skip-graph').boundingBox())!;
    expect(shown.x).toBeGreaterThanOrEqual(0);
    expect(shown.width).toBeGreaterThan(40);
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.parentElement.id')).toBe('scenario-panel');
  });

  // Guards: a node's numbers were only in an SVG <title>, the browser's own tooltip: nothing on
  // keyboard focus. One tooltip now shows them on hover and on focus, and Escape hides it.
  it('shows one tooltip for hover and for focus', async () => {
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    const tip = page.locator('#graph-tooltip');
    expect(await tip.isHidden()).toBe(true);
    expect(await page.locator('#graph .node title').count()).toBe(0);
    await page.hover('#graph .node[data-id="C"] circle.body');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toMatch(/^C \(sink\)\n/);
    await page.mouse.move(1, 1);
    await expect.poll(() => tip.isHidden()).toBe(true);
    await page.focus('#graph .node[tabindex="0"]');
    await page.keyboard.press('Home');
    expect(await tip.textContent()).toMatch(/^A \(source\)\nload 10, pressure/);
    await page.keyboard.press('Escape');
    expect(await tip.isHidden()).toBe(true);
    expect(await focused()).toBe('A');
  });

  // Guards: "origin" in the key was #1b9e77 on white, 3.4:1 (and "primary blockage" 3.8:1). Every
  // piece of text in the graph's key now reads at 4.5:1 or more, measured in the page.
  it('writes the graph key at 4.5:1 or more', async () => {
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    const ratios = (await page.evaluate(
      `[...document.querySelectorAll('.graph-key, .graph-key *')].filter((e) => e.offsetParent !== null && [...e.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim() !== '')).map((e) => [e.className || e.id || e.tagName, (${CONTRAST})(e)])`,
    )) as Array<[string, number]>;
    expect(ratios.map(([name]) => name)).toContain('key origin');
    for (const [name, ratio] of ratios) expect(ratio, name).toBeGreaterThanOrEqual(4.5);
  });

  // Guards: the tick slider said its index ("3") and nothing else. It says the tick now, and of
  // how many: aria-valuetext "tick 3 of 5".
  it('speaks the tick slider as the tick of how many', async () => {
    await runAsWritten(page, { mode: 'ticks', ticks: 5, ...WORKED_EXAMPLE });
    const slider = page.locator('#tick');
    await slider.focus();
    await page.keyboard.press('Home');
    const first = await page.textContent('#tick-label');
    expect(await slider.getAttribute('aria-valuetext')).toBe(`${first} of 5`);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await slider.getAttribute('aria-valuetext')).toBe(`${await page.textContent('#tick-label')} of 5`);
    expect(await slider.getAttribute('aria-valuetext')).not.toBe(`${first} of 5`);
  });

  // Guards: every system's Open button was named "Open", so a list of buttons read "Open, Open,
  // Open". Each is "Open <name>" now, as "Capacities of <name>" was.
  it("names each system's buttons after the system", async () => {
    const systems = [
      { id: 'sys_1', name: 'shop', nodes: 2, dependencies: 1 },
      { id: 'sys_2', name: 'billing', nodes: 3, dependencies: 2 },
    ];
    await page.route('**/api/systems?limit=100', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ systems }) }),
    );
    await page.click('#systems-panel summary');
    await page.fill('#user-token', 'token');
    await page.click('#list-systems');
    await page.waitForSelector('#systems li >> nth=1');
    const names = await page
      .locator('#systems button')
      .evaluateAll((all) => all.map((b) => b.getAttribute('aria-label') ?? b.textContent));
    expect(names).toEqual(['Open shop', 'Capacities of shop', 'Open billing', 'Capacities of billing']);
    await page.unroute('**/api/systems?limit=100');
    await page.click('#systems-panel summary');
  });

  // Guards: the WebGL view (above 2,000 nodes) was role="img", took no keys and had no tooltip:
  // its nodes were out of reach but by mouse. It is one tab stop now whose arrows move a focus
  // ring drawn over the canvas, the node's numbers in the same tooltip and in a live region, and
  // Enter selects it (its details shown) with the focus kept; hover shows the tooltip too.
  it('moves a focus ring over the WebGL view with the keys, with the same tooltip', async () => {
    await page.fill('#body', JSON.stringify({ mode: 'analyze', ...generated(2_500, 2) }));
    await page.selectOption('#run-as', 'written');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-graph="webgl"]', { timeout: 60_000 });
    const graph = page.locator('#large-graph');
    expect(await graph.getAttribute('role')).toBe('application');
    expect(await graph.getAttribute('tabindex')).toBe('0');
    /** The focus ring's amber (#f59e0b), nowhere else in the view. */
    const amber = '(r, g, b) => r > 225 && g > 140 && g < 175 && b < 40';
    expect(await countPixels(graph, amber)).toBe(0);
    await page.focus('#skip-graph');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('large-graph');
    const tip = page.locator('#graph-tooltip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    const blockage = await page.textContent('[data-field="primary-blockage"] dd');
    expect(await tip.textContent()).toMatch(new RegExp(`^${blockage} \\(`));
    await page.keyboard.press('Home');
    await expect.poll(() => tip.textContent()).toMatch(/^n0 \(source/);
    expect(await page.textContent('#large-graph-focus')).toMatch(/^n0 \(source.*; load /);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => tip.textContent()).not.toMatch(/^n0 /);
    const moved = (await tip.textContent())!.split(' ')[0]!;
    await expect.poll(() => countPixels(graph, amber)).toBeGreaterThan(20);
    await graph.screenshot({ path: `${SCREENSHOTS}/webgl-focus-ring.png` });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#details dl div:first-child dd')).toBe(moved);
    expect(await page.evaluate('document.activeElement.id')).toBe('large-graph');
    await page.keyboard.press('Tab');
    await expect.poll(() => countPixels(graph, amber)).toBe(0);
    expect(await tip.isHidden()).toBe(true);
  });

  // Guards: the graph had no alternative but the drawing (nothing to sort, nothing for a screen
  // reader to read row by row). The table lists every node, drawn only once opened; a heading
  // sorts by its column (aria-sort), and a node's name selects it, the focus kept on the name.
  it('lists the nodes as a sortable table whose rows select their node', async () => {
    const index = EXAMPLES.findIndex((example) => example.name === 'Service graph, 300 services');
    await page.selectOption('#example', String(index));
    await page.selectOption('#run-as', 'analyze');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"]');
    expect(await page.locator('#node-table tbody tr').count()).toBe(0);
    await page.click('#node-table-panel summary');
    // The details element's toggle event fires after the click returns: wait for the rows.
    await expect.poll(() => page.locator('#node-table tbody tr').count()).toBe(300);
    const headings = await page.locator('#node-table thead th').allTextContents();
    expect(headings).toEqual(['Node', 'Utilization', 'Pressure', 'Throughput', 'Load']);
    const column = (n: number) =>
      page
        .locator(`#node-table tbody tr > :nth-child(${n})`)
        .evaluateAll((cells) =>
          cells.map((c) => Number(c.getAttribute('title') ?? c.textContent!.replaceAll(',', ''))),
        );
    await page.click('#node-table button[data-sort="pressure"]');
    await expect.poll(() => page.getAttribute('#node-table th:nth-child(3)', 'aria-sort')).toBe('descending');
    const down = await column(3);
    expect(down).toEqual([...down].sort((a, b) => b - a));
    expect(down[0]).toBeGreaterThan(down.at(-1)!);
    await page.click('#node-table button[data-sort="pressure"]');
    await expect.poll(() => page.getAttribute('#node-table th:nth-child(3)', 'aria-sort')).toBe('ascending');
    expect(await column(3)).toEqual([...down].sort((a, b) => a - b));
    await page.click('#node-table button[data-sort="load"]');
    expect(await page.getAttribute('#node-table th:nth-child(3)', 'aria-sort')).toBeNull();
    await expect.poll(() => page.getAttribute('#node-table th:nth-child(5)', 'aria-sort')).toBe('descending');
    const loads = await column(5);
    expect(loads).toEqual([...loads].sort((a, b) => b - a));

    const third = page.locator('#node-table tbody tr:nth-child(3) button');
    const id = (await third.getAttribute('data-id'))!;
    await third.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getAttribute(`#graph .node[data-id="${id}"]`, 'aria-selected')).toBe('true');
    expect(await page.textContent('#details dl div:first-child dd')).toBe(id);
    expect(await page.evaluate('document.activeElement.dataset.id')).toBe(id);
    expect(await third.getAttribute('aria-current')).toBe('true');
    await page.click('#node-table-panel summary');
  });
});
