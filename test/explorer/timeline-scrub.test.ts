/**
 * Scrubbing a timeline in Chromium (issue #36, item 2): a step of the tick slider paints the new
 * tick into the SVG drawing already on show rather than building it again, so it must show that
 * tick's numbers (each node's load and pressure, the primary blockage's ring, the trace, the
 * chart's cursor) and draw exactly what a drawing made anew for that tick draws.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findChromium, freshExplorerPages, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

interface Snapshot {
  tick: number;
  primaryBlockage: string | null;
  trace: string[];
  nodes: Array<{ id: string; load: number; pressure: number }>;
}

/** What the page shows of `shortNumber`: four significant digits, grouped from 1,000 on. */
const short = (value: number) =>
  Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en') : String(Number(value.toPrecision(4)));

/** Everything a state writes into the SVG drawing, node by node and dependency by dependency. */
const DRAWN = `(() => ({
  nodes: [...document.querySelectorAll('#graph .node')].map((n) => [
    n.dataset.id,
    n.getAttribute('aria-label'),
    n.querySelector('circle.body').getAttribute('fill'),
    n.querySelector('circle.body').getAttribute('class'),
    [...n.querySelectorAll('circle.ring')].map((r) => r.getAttribute('class') + ' ' + r.getAttribute('r')).join(', '),
    n.querySelector(':scope > desc').textContent,
    n.dataset.saturation ?? '',
  ].join(' | ')),
  edges: [...document.querySelectorAll('#graph .edge')].map((e) => [
    e.dataset.from,
    e.dataset.to,
    e.getAttribute('class'),
    e.getAttribute('stroke-width'),
    e.getAttribute('d'),
    e.querySelector('desc').textContent,
  ].join(' | ')),
}))()`;

/** Until the frame after a step is drawn and the texts written after it. */
const frameDrawn = (page: Page) =>
  page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => setTimeout(resolve))))',
  );

describe.runIf(chromiumPath !== undefined)('scrubbing a timeline in Chromium', () => {
  const pages = freshExplorerPages(chromiumPath);

  // Guards: a step rebuilt the whole drawing (~100 ms on the 300-service example); it now paints
  // the tick into the elements on show, which must not leave any of the previous tick behind.
  it("shows each tick's numbers on the 300-service example, as a drawing made anew does", async () => {
    const { page, uncaught } = await pages.open();
    await page.selectOption('#example', { label: 'Service graph, 300 services' });
    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '6');
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"][data-graph="svg"]');
    const { snapshots } = JSON.parse((await page.textContent('#raw'))!) as { snapshots: Snapshot[] };
    expect(snapshots.length).toBe(6);
    const nodeCount = await page.locator('#graph .node').count();
    const edgeCount = await page.locator('#graph .edge').count();

    for (const index of [3, 1, 5, 2, 0, 4]) {
      await page.locator('#tick').fill(String(index));
      await frameDrawn(page);
      const snapshot = snapshots[index]!;
      expect(await page.textContent('#tick-label')).toBe(`tick ${snapshot.tick}`);
      // Painted into the same elements: none added, none left over.
      expect(await page.locator('#graph .node').count()).toBe(nodeCount);
      expect(await page.locator('#graph .edge').count()).toBe(edgeCount);
      const labels = await page.$$eval('#graph .node', (nodes) =>
        nodes.map((n) => [n.getAttribute('data-id')!, n.getAttribute('aria-label')!] as const),
      );
      const byId = new Map(snapshot.nodes.map((node) => [node.id, node]));
      for (const [id, label] of labels) {
        const node = byId.get(id)!;
        expect(label).toContain(`load ${short(node.load)}, pressure ${short(node.pressure)}`);
      }
      const ringed = await page.$$eval('#graph .node:has(> circle.ring.blockage)', (nodes) =>
        nodes.map((n) => n.getAttribute('data-id')),
      );
      expect(ringed).toEqual(snapshot.primaryBlockage === null ? [] : [snapshot.primaryBlockage]);
      const traced = await page.$$eval('#graph .edge.trace', (edges) =>
        edges.map((e) => `${e.getAttribute('data-from')} → ${e.getAttribute('data-to')}`),
      );
      const trace = snapshot.trace.slice(1).map((to, i) => `${snapshot.trace[i]} → ${to}`);
      expect(traced.sort()).toEqual([...new Set(trace)].sort());
      // The chart's cursor at the tick, as far along as the tick is.
      const cursor = Number(await page.getAttribute('#chart line.cursor', 'x1'));
      const cursorAt = async (at: number) => {
        await page.locator('#tick').fill(String(at));
        return Number(await page.getAttribute('#chart line.cursor', 'x1'));
      };
      const first = await cursorAt(0);
      const last = await cursorAt(5);
      expect(cursor).toBeCloseTo(first + ((last - first) * index) / 5, 5);
      await page.locator('#tick').fill(String(index));
    }

    // Painted at tick 4 (reached by steps) against drawn anew at tick 4: selecting a node draws
    // the graph anew with its ring; stepping away and back paints the same tick into it.
    await page.locator('#tick').fill('4');
    const node = snapshots[4]!.primaryBlockage ?? snapshots[4]!.nodes[0]!.id;
    await page.locator(`#graph .node[data-id="${node}"]`).click();
    await frameDrawn(page);
    const anew = await page.evaluate(DRAWN);
    await page.locator('#tick').fill('1');
    await page.locator('#tick').fill('4');
    await frameDrawn(page);
    expect(await page.evaluate(DRAWN)).toEqual(anew);
    await page.locator('#graph-figure').screenshot({ path: `${SCREENSHOTS}/timeline-scrub-300.png` });
    expect(uncaught).toEqual([]);
  }, 120_000);

  // A dependency's hover text is written a frame after a step (the step itself stays fast): the
  // tooltip of the dependency under the pointer still shows the new tick's numbers at once, and
  // stays up through the step (before, the step hid it, and hovering again right after read the
  // previous tick's text).
  it("keeps the hovered dependency's tooltip through a step, with the new tick's numbers", async () => {
    const { page, uncaught } = await pages.open();
    const body = {
      mode: 'ticks',
      ticks: 5,
      nodes: [
        { id: 'A', load: 25, capacity: 10 },
        { id: 'B', load: 0, capacity: 3 },
        { id: 'C', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'C' },
      ],
    };
    await page.fill('#body', JSON.stringify(body));
    await page.selectOption('#run-as', 'written');
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"][data-graph="svg"]');
    const tip = page.locator('#graph-tooltip');
    const edgeText = () => page.textContent('#graph .edge[data-from="A"][data-to="B"] > desc');
    // The middle of A → B on screen, where the pointer rests.
    const { x, y } = (await page.evaluate(`(() => {
      const edge = document.querySelector('#graph .edge[data-from="A"][data-to="B"]');
      const point = edge.getPointAtLength(edge.getTotalLength() / 2);
      const m = edge.getScreenCTM();
      return { x: point.x * m.a + point.y * m.c + m.e, y: point.x * m.b + point.y * m.d + m.f };
    })()`)) as { x: number; y: number };
    await page.locator('#tick').fill('0');
    await frameDrawn(page);
    await page.mouse.move(x, y);
    await expect.poll(() => tip.isVisible()).toBe(true);
    const before = (await tip.textContent())!;
    expect(before).toBe(await edgeText());

    // One step with the keyboard; the pointer has not moved. Read at once, in the same task as
    // the step, before the frame that writes the dependencies' texts.
    await page.focus('#tick');
    const shown = (await page.evaluate(`(() => {
      const tick = document.getElementById('tick');
      tick.value = '1';
      tick.dispatchEvent(new Event('input', { bubbles: true }));
      const tip = document.getElementById('graph-tooltip');
      return { visible: !tip.hidden, text: tip.textContent };
    })()`)) as { visible: boolean; text: string };
    await frameDrawn(page);
    const after = (await edgeText())!;
    expect(after).not.toBe(before);
    expect(shown).toEqual({ visible: true, text: after });

    // Escape hides it (a node has the focus, where the keys go), and a step does not bring it back.
    await page.focus('#graph .node[data-id="A"]');
    await page.keyboard.press('Escape');
    await expect.poll(() => tip.isVisible()).toBe(false);
    await page.evaluate(`(() => {
      const tick = document.getElementById('tick');
      tick.value = '2';
      tick.dispatchEvent(new Event('input', { bubbles: true }));
    })()`);
    await frameDrawn(page);
    expect(await tip.isVisible()).toBe(false);
    expect(uncaught).toEqual([]);
  });
});
