/**
 * The explorer's scenario panel (explorer/src/scenario-panel.ts) in Chromium: build a scenario
 * by clicking the graph and moving the slider, compare, and read the changes and the colours —
 * with the request the panel sends answered as the API answers it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../explorer/src/examples';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../../lib/worked-example';
import { RETRY_LOOP, RETRY_STORM } from '../helpers/engine-examples';
import { post, type TestServer } from '../integration/server';
import { findChromium, openExplorerPage, runAsWritten } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/** A web tier (9 a second, SLO 5 s) calling an API of two servers of 0.2 s once a request. */
const SHOP = {
  nodes: [
    { id: 'web', arrival: 9, fanout: true, serviceTime: 0.01, slo: 5 },
    { id: 'api', serviceTime: 0.2, servers: 2, exit: 1 },
  ],
  dependencies: [{ from: 'web', to: 'api' }],
};

describe.runIf(chromiumPath !== undefined)('the scenario panel in Chromium', () => {
  let server: TestServer;
  let page: Page;
  openExplorerPage(chromiumPath, (opened) => ({ server, page } = opened));

  async function compare(): Promise<unknown> {
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]');
    return JSON.parse((await page.textContent('#raw'))!);
  }

  const lines = (field: string) =>
    page.locator(`#scenario-changes li[data-field="${field}"]`).allTextContents();

  // A node id of 300 characters: the What-if panel's node list, the summary and the trace were as
  // wide as it, and the page with them; they keep to their panels, and the page to the window.
  it('keeps a very long id from widening the page', async () => {
    const long = `service-${'x'.repeat(292)}`;
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [
        { id: long, load: 4 },
        { id: 'db', load: 0, capacity: 2 },
      ],
      dependencies: [{ from: long, to: 'db' }],
    });
    expect(
      await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
    ).toBe(true);
    await page.selectOption('#scenario-node', long);
    expect(await page.inputValue('#scenario-node')).toBe(long);
  });

  // What if B's capacity halves? Click B, set 2, compare: B's pressure 1 → 3, the blockage stays
  // B; B is the node whose pressure grew most, so it is the top of the scale.
  it("halves B's capacity by clicking it, and shows the changes", async () => {
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    await page.click('#graph .node[data-id="B"]');
    expect(await page.inputValue('#scenario-node')).toBe('B');
    await page.fill('#scenario-capacity', '2');
    await page.click('#scenario-set-node');
    expect(await page.locator('#scenario-draft li').allTextContents()).toEqual(['B: capacity 2 ×']);
    const answer = await compare();
    const scenario = { nodes: { B: { capacity: 2 } } };
    const api = await post(server.url, server.apiKey, {
      mode: 'analyze',
      ...WORKED_EXAMPLE,
      scenario,
      compare: true,
    });
    expect(answer).toEqual(api.json);
    expect(await lines('blockage')).toEqual(['Primary blockage: B → B']);
    expect(await lines('pressure')).toEqual(['B: pressure 1 → 3 (+2)']);
    expect(await page.textContent('#colour-key')).toContain('change in pressure');
    // The red end of the change palette (palette.ts).
    expect(await page.getAttribute('#graph .node[data-id="B"] circle.body', 'fill')).toBe('rgb(178, 24, 43)');
    await page.screenshot({ path: 'test-results/explorer/scenario-halve-b.png', fullPage: true });
    // The editor keeps the structure as written.
    expect(JSON.parse(await page.inputValue('#body'))).not.toHaveProperty('scenario');
  });

  // Compare with a bad tick count under Run: nothing is sent, and the scenario says where to look
  // (before, it said "the run failed (the error is under Run)", where there was no error).
  it('says a bad tick count under Run, not a failed run, when Compare cannot send', async () => {
    await runAsWritten(page, { mode: 'analyze', ...WORKED_EXAMPLE });
    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '1.5');
    try {
      await page.click('#graph .node[data-id="B"]');
      await page.fill('#scenario-capacity', '2');
      await page.click('#scenario-set-node');
      await page.evaluate("document.body.dataset.state = 'idle'");
      await page.click('#scenario-run');
      expect(await page.textContent('#scenario-status')).toBe(
        'Not compared: a field under Run holds a bad number (said under it). Fix it, then compare.',
      );
      expect(await page.textContent('#status')).toBe(
        'Not run: ticks is not a whole number from 1 to 1000. Fix it or empty it first.',
      );
      // Nothing ran: the page is as it was.
      expect(await page.getAttribute('body', 'data-state')).toBe('idle');
    } finally {
      // The page is shared with the tests after this one.
      await page.fill('#tick-count', '');
      await page.selectOption('#run-as', 'analyze');
      await page.click('#scenario-clear');
    }
  });

  // Cut A → C by clicking it, and take B down: all of A's 10 goes to B, which keeps it.
  it('cuts a dependency by clicking it and takes a node down', async () => {
    await page.locator('#graph .edge[data-from="A"][data-to="C"]').dispatchEvent('click');
    await page.fill('#scenario-capacity', '');
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    expect(await page.locator('#scenario-draft li').allTextContents()).toEqual(['B: down ×', 'cut A → C ×']);
    const answer = (await compare()) as {
      engine: { dependencies: unknown[]; nodes: { pressure: number }[] };
    };
    expect(answer.engine.dependencies).toEqual([
      { from: 'A', to: 'B', flow: 10 },
      { from: 'B', to: 'C', flow: 0 },
    ]);
    expect(answer.engine.nodes[1]!.pressure).toBe(10);
    expect(await lines('pressure')).toEqual(['B: pressure 1 → 10 (+9)']);
    // C has nothing coming any more: it clears.
    expect(await lines('node')).toEqual(['C: blocked sink → free sink']);
    await page.click('#scenario-clear');
    expect(await page.locator('#scenario-draft li').count()).toBe(1);
  });

  // What if the front end's arrivals double? The slider at ×2 on the open example: the headroom
  // on the blockage halves, B's utilization 1.33 → 2.67, the graph coloured by utilization change.
  it('scales all traffic with the slider on an open structure', async () => {
    await runAsWritten(page, { mode: 'analyze', ...OPEN_WORKED_EXAMPLE });
    await page.locator('#scenario-scale').fill('2');
    expect(await page.textContent('#scenario-scale-label')).toBe('×2');
    await compare();
    expect(await lines('blockage')).toEqual([
      'Primary blockage: B (headroom ×0.75 at B) → B (headroom ×0.375 at B)',
    ]);
    expect(await lines('utilization')).toEqual(['B: utilization 1.333 → 2.667 (+1.333)']);
    // Every throughput doubles, the largest change first (ties by id).
    expect(await lines('throughput')).toEqual([
      'D: throughput 30 → 60 (+30)',
      'B: throughput 20 → 40 (+20)',
      'A: throughput 10 → 20 (+10)',
      'F: throughput 10 → 20 (+10)',
    ]);
    expect(await page.textContent('#colour-key')).toContain('change in utilization');
    // A plain run afterwards drops the comparison's colours and list.
    await runAsWritten(page, { mode: 'analyze', ...OPEN_WORKED_EXAMPLE });
    expect(await page.textContent('#colour-key')).toContain('utilization of capacity');
    expect(await page.locator('#scenario-changes li').count()).toBe(0);
    await page.click('#scenario-clear');
  });

  // What if A goes down on the open example? The 10 calls a step it gets are lost: the headroom
  // says the system cannot serve today's traffic, A is newly saturated, the database's
  // throughput falls (a decrease, with its minus sign).
  it('takes a node down on an open structure: lost traffic, newly saturated, a throughput decrease', async () => {
    await runAsWritten(page, { mode: 'analyze', ...OPEN_WORKED_EXAMPLE });
    await page.click('#graph .node[data-id="A"]');
    await page.check('#scenario-down');
    await page.click('#scenario-set-node');
    const answer = await compare();
    const api = await post(server.url, server.apiKey, {
      mode: 'analyze',
      ...OPEN_WORKED_EXAMPLE,
      scenario: { nodes: { A: { down: true } } },
      compare: true,
    });
    expect(answer).toEqual(api.json);
    expect(await lines('blockage')).toEqual([
      "Primary blockage: B (headroom ×0.75 at B) → A (cannot serve today's traffic: it is lost at A)",
    ]);
    expect(await lines('lost')).toEqual(['Lost: 0 → 10 per step']);
    expect(await lines('saturated-newly')).toEqual(['Newly saturated: A']);
    expect(await lines('saturated-cleared')).toEqual([]);
    expect(await lines('throughput')).toEqual(['D: throughput 30 → 20 (−10)']);
    expect(await lines('utilization')).toEqual([]);
    await page.screenshot({ path: 'test-results/explorer/scenario-node-down.png', fullPage: true });
    await page.click('#scenario-clear');
  });

  // What if B's capacity doubles? It keeps up: no longer saturated, its utilization falls.
  it('raises a capacity on an open structure: a node cleared, a utilization decrease', async () => {
    await page.click('#graph .node[data-id="B"]');
    await page.fill('#scenario-capacity', '30');
    await page.click('#scenario-set-node');
    await compare();
    expect(await lines('blockage')).toEqual([
      'Primary blockage: B (headroom ×0.75 at B) → none (headroom ×1.5 at B)',
    ]);
    expect(await lines('saturated-cleared')).toEqual(['No longer saturated: B']);
    expect(await lines('utilization')).toEqual(['B: utilization 1.333 → 0.6667 (−0.6667)']);
    // Nothing is lost on either side: no line for it.
    expect(await lines('lost')).toEqual([]);
    await page.click('#scenario-clear');
  });

  // What if traffic grows by a tenth, then doubles, on a shop with a 5 s SLO? The M/M/2 API (10 a
  // second at most) takes 9 today and answers in 1.053 s; at ×1.1 it still answers (9.9 a second),
  // but slower than the SLO: the list says by how much each time grew and that the front end is
  // over its SLO; at ×2 the API no longer answers, and the list names the front end whose
  // requests are stuck behind it.
  it('lists response time and latency changes, the SLO headroom and the entries stuck', async () => {
    await runAsWritten(page, { mode: 'analyze', ...SHOP });
    await page.locator('#scenario-scale').fill('1.1');
    const answer = (await compare()) as {
      changes: {
        responseTime: Array<{ id: string; before: number; after: number }>;
        latencyHeadroom: { before: { scale: number }; after: { scale: number } };
      };
    };
    const api = answer.changes.responseTime.find((row) => row.id === 'api')!;
    expect(api.before).toBeCloseTo(1.053, 3);
    // In the step's unit, as the summary says times: seconds to 3 digits, under 1 s in ms.
    const duration = (value: number) =>
      value < 1 ? `${Number((value * 1000).toPrecision(3))} ms` : `${Number(value.toPrecision(3))} s`;
    expect(await lines('responseTime')).toContain(
      `api: response time ${duration(api.before)} → ${duration(api.after)} (+${duration(api.after - api.before)})`,
    );
    expect((await lines('latency'))[0]).toMatch(/^web: latency \d/);
    // Each side's headroom of its own traffic: web meets its 5 s up to about ×1.09 of today's, so
    // ×1.1 is past it (the API answers in over 5 s there): over its SLO, at about 0.99 of it.
    const { before, after } = answer.changes.latencyHeadroom;
    expect(before.scale).toBeGreaterThan(1.05);
    expect(before.scale).toBeLessThan(1.1);
    expect(after.scale).toBeCloseTo(before.scale / 1.1, 9);
    const times = (scale: number) => `×${Number(scale.toPrecision(3))}`;
    expect(await lines('latency-headroom')).toEqual([
      `Latency headroom: ${times(before.scale)} of today's traffic (web) → over its SLO from ${times(after.scale)} of the scenario's traffic (web)`,
    ]);
    expect(await lines('stuck-newly')).toEqual([]);

    // At ×2 the API is over capacity: web's requests are stuck, and its SLO holds again only
    // below half the scenario's traffic (today's headroom, halved).
    await page.locator('#scenario-scale').fill('2');
    const doubled = (await compare()) as typeof answer;
    expect(await lines('saturated-newly')).toEqual(['Newly saturated: api']);
    expect(await lines('stuck-newly')).toEqual([
      'Requests stuck (they reach a node that never answers): web',
    ]);
    expect(await lines('latency')).toEqual([]);
    expect(doubled.changes.latencyHeadroom.after.scale).toBeCloseTo(before.scale / 2, 8);
    expect(await lines('latency-headroom')).toEqual([
      `Latency headroom: ${times(before.scale)} of today's traffic (web) → over its SLO from ${times(doubled.changes.latencyHeadroom.after.scale)} of the scenario's traffic (web)`,
    ]);
    await page.locator('#scenario-scale').fill('1');
    await page.click('#scenario-clear');
  });

  // A node with servers has the capacity servers / serviceTime (the engine refuses another), so
  // the panel offers its servers in place of a capacity, checked as typed, and sends them.
  it('sets the servers of a node that has them, in place of its capacity', async () => {
    await runAsWritten(page, { mode: 'analyze', ...SHOP });
    await page.click('#graph .node[data-id="api"]');
    expect(await page.isVisible('#scenario-servers')).toBe(true);
    expect(await page.isVisible('#scenario-capacity')).toBe(false);
    await page.fill('#scenario-servers', '2.5');
    expect(await page.textContent('#scenario-servers-problem')).toBe(
      'Servers are a whole number from 1 to 10,000.',
    );
    await page.fill('#scenario-servers', '4');
    await page.click('#scenario-set-node');
    expect(await page.locator('#scenario-draft li').allTextContents()).toEqual(['api: 4 servers ×']);
    const answer = await compare();
    const api = await post(server.url, server.apiKey, {
      mode: 'analyze',
      ...SHOP,
      scenario: { nodes: { api: { servers: 4 } } },
      compare: true,
    });
    expect(answer).toEqual(api.json);
    expect((await lines('responseTime'))[0]).toMatch(/^api: response time /);
    // web has no servers: it takes a capacity, picked from the list as from the graph.
    await page.selectOption('#scenario-node', 'web');
    expect(await page.isVisible('#scenario-capacity')).toBe(true);
    expect(await page.isVisible('#scenario-servers')).toBe(false);
    await page.click('#scenario-clear');
  });

  // A timeline compared: each snapshot on show is coloured against the baseline's at its tick,
  // and an example structure from the list works as a pasted one does.
  it('compares a timeline of an example', async () => {
    const index = EXAMPLES.findIndex((example) => example.name === 'Open service graph');
    await page.selectOption('#example', String(index));
    await page.selectOption('#run-as', 'ticks');
    await page.fill('#tick-count', '3');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"]');
    await page.locator('#scenario-scale').fill('0.5');
    const answer = (await compare()) as { mode: string; baseline: unknown[]; changes: { tick: number } };
    expect(answer.mode).toBe('ticks');
    expect(answer.baseline).toHaveLength(3);
    expect(answer.changes.tick).toBe(3);
    expect(await page.textContent('#scenario-status')).toBe(
      'Compared at tick 3 with the structure as it is.',
    );
  });

  // A retry storm: the scenario makes A call B twice, and B sends every request back, a loop of
  // gain 1. B and E were over capacity; the list said they were "no longer saturated" and
  // nothing else. Now the flooded nodes are named, and no overload reads as cleared.
  it('names the nodes a retry storm floods, not their overload as cleared', async () => {
    await runAsWritten(page, { mode: 'analyze', ...RETRY_LOOP, scenario: RETRY_STORM, compare: true });
    await expect
      .poll(() => lines('unbounded-newly'))
      .toEqual(['Newly unbounded (traffic grows without limit): A, B, C, E']);
    expect(await lines('saturated-cleared')).toEqual([]);
  });
});
