/**
 * Service graphs on the explorer page, in Chromium (issue #36, item 3): in an open `analyze`,
 * each dependency labelled with its steady throughput (calls per step), the source's own numbers
 * (Kiali's rates, observed latency) on hover and in the details; a steady state without any
 * capacity saying what to set, with a registered system's Capacities button inline; a mark every
 * node carries (fan-out on every service of a call graph) left off; arrowheads at the target's
 * edge rather than under it; and capacity outlines that stay thin while nodes are small on screen.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../explorer/src/examples';
import type { EngineResult } from '../../lib/engine/types';
import { post, type TestServer } from '../integration/server';
import { findChromium, openExplorerPage, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

const OPEN_SERVICE_GRAPH = EXAMPLES.find((example) => example.name === 'Open service graph')!.body();

/**
 * A Kiali graph as connect maps it: every service fan-out, weights the calls per request, the
 * entry's arrival its requests, each edge keeping Kiali's `protocol` and `rates` as given (and an
 * observed latency), each node its `traffic`; no capacity anywhere. Reviews calls itself.
 */
const KIALI_LIKE = {
  mode: 'analyze',
  nodes: [
    {
      id: 'istio-system/ingressgateway',
      arrival: 100,
      fanout: true,
      traffic: [{ protocol: 'http', rates: { httpOut: '100.00' } }],
    },
    {
      id: 'bookinfo/productpage',
      fanout: true,
      traffic: [{ protocol: 'http', rates: { httpIn: '100.00', httpOut: '120.00' } }],
    },
    { id: 'bookinfo/details', fanout: true },
    { id: 'bookinfo/reviews', fanout: true },
    { id: 'bookinfo/ratings', fanout: true },
  ],
  dependencies: [
    {
      from: 'istio-system/ingressgateway',
      to: 'bookinfo/productpage',
      protocol: 'http',
      rates: { http: '100.00', httpPercentReq: '100.0' },
    },
    {
      from: 'bookinfo/productpage',
      to: 'bookinfo/details',
      weight: 0.8,
      protocol: 'http',
      rates: { http: '80.00', http5xx: '20.00', httpPercentErr: '25.0' },
      observedLatency: { value: 12, statistic: 'p95', unit: 'millisecond' },
    },
    { from: 'bookinfo/productpage', to: 'bookinfo/reviews', weight: 0.4 },
    { from: 'bookinfo/reviews', to: 'bookinfo/reviews', weight: 0.5 },
    { from: 'bookinfo/reviews', to: 'bookinfo/ratings', weight: 0.75 },
  ],
};

/** One gateway calling 60 services, each with a capacity: one dense column of outlined nodes. */
const DENSE_COLUMN = {
  mode: 'analyze',
  nodes: [
    { id: 'gateway', load: 60 },
    ...Array.from({ length: 60 }, (_, i) => ({ id: `s${i}`, capacity: 10 })),
  ],
  dependencies: Array.from({ length: 60 }, (_, i) => ({ from: 'gateway', to: `s${i}` })),
};

/** What the page shows of `shortNumber`: four significant digits, grouped from 1,000 on. */
const short = (value: number) =>
  Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en') : String(Number(value.toPrecision(4)));

describe.runIf(chromiumPath !== undefined)('service graphs on the explorer page in Chromium', () => {
  let server: TestServer;
  let page: Page;
  openExplorerPage(chromiumPath, (opened) => ({ server, page } = opened));

  const edgeLabel = (from: string, to: string) =>
    page.locator(`#graph .edge-label[data-from="${from}"][data-to="${to}"]`);
  const details = async () =>
    Object.fromEntries(
      await page
        .locator('#details dl > div')
        .evaluateAll((rows) => rows.map((row) => [row.firstChild?.textContent, row.lastChild?.textContent])),
    );

  // The defect: an open analyze drew widths alone; what each dependency carries was in the hover
  // text only, and Kiali's rates (kept on the dependency) nowhere.
  it('labels each dependency with its steady throughput in an open analyze, the source numbers on hover', async () => {
    const answer = (await runAsWritten(page, OPEN_SERVICE_GRAPH)) as { engine: EngineResult };
    expect(answer).toEqual((await post(server.url, server.apiKey, OPEN_SERVICE_GRAPH)).json);
    // frontend calls B twice per request: 20 a step; A once: 10.
    expect(await edgeLabel('frontend', 'B').textContent()).toBe('20');
    expect(await edgeLabel('frontend', 'A').textContent()).toBe('10');
    for (const dependency of answer.engine.dependencies) {
      const label = edgeLabel(dependency.from, dependency.to);
      expect(await label.textContent()).toBe(short(dependency.throughput!));
      // Placed: the view has room for every one of them.
      expect(await label.getAttribute('display')).toBeNull();
      expect(await label.isVisible()).toBe(true);
    }
    expect(await page.textContent('#width-key')).toContain('Width and number: steady throughput');
    await page.screenshot({ path: `${SCREENSHOTS}/service-graph-labels.png`, fullPage: true });

    // Kiali's numbers as Kiali wrote them, beside the engine's; labels rounded for reading.
    await runAsWritten(page, KIALI_LIKE);
    expect(await edgeLabel('bookinfo/productpage', 'bookinfo/details').textContent()).toBe('80');
    expect(await edgeLabel('bookinfo/reviews', 'bookinfo/ratings').textContent()).toBe('60');
    expect(
      await page.textContent(
        '#graph .edge[data-from="bookinfo/productpage"][data-to="bookinfo/details"] desc',
      ),
    ).toContain(
      'from the source: observed p95 12 ms; http rates: http 80.00, http5xx 20.00, httpPercentErr 25.0',
    );
    expect(await page.textContent('#graph .node[data-id="bookinfo/productpage"] > desc')).toContain(
      'from the source: http rates: httpIn 100.00, httpOut 120.00',
    );
    await page.click('#graph .node[data-id="bookinfo/productpage"] circle.body');
    expect(await details()).toMatchObject({
      'From the source': 'http rates: httpIn 100.00, httpOut 120.00',
    });

    // A closed structure keeps widths by flow, unlabelled.
    await page.click('#load-worked');
    await page.waitForSelector('body[data-state="done"]');
    expect(await page.locator('#graph .edge-label').count()).toBe(0);
  });

  // The defect: a registered Kiali or Jaeger system showed every node grey and "headroom none",
  // and nothing said to set capacities.
  it('says to set capacities when no node has one, the Capacities button opening the editor', async () => {
    // Pasted: no system to set them on, so it says where they go.
    await runAsWritten(page, KIALI_LIKE);
    const note = page.locator('#summary [data-field="no-capacities"]');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(
      /^Set capacities to see utilization and headroom: give nodes a capacity/,
    );
    expect(await page.textContent('[data-field="headroom"] dd')).toBe('none: no node has a capacity');

    // A registered Kiali graph, opened: its Capacities button inline.
    const document = JSON.parse(
      await readFile('test/formats/fixtures/cytoscape/kiali-graph-versioned-app.json', 'utf8'),
    );
    const registered = await post(
      server.url,
      server.userToken,
      { name: 'bookinfo', document },
      { path: '/api/systems' },
    );
    expect(registered.status, registered.text).toBe(201);
    await page.click('#systems-panel summary');
    await page.fill('#user-token', server.userToken);
    await page.dispatchEvent('#user-token', 'change');
    await page.click('#list-systems');
    await page.waitForSelector('#systems li');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page
      .locator('#systems li', { hasText: 'bookinfo' })
      .getByRole('button', { name: /^Open / })
      .click();
    await page.waitForSelector('body[data-state="done"]');
    expect(await note.textContent()).toBe('Set capacities to see utilization and headroom Capacities');
    // Closed meanwhile: the button opens the systems panel and the editor on this system.
    await page.evaluate("document.getElementById('systems-panel').open = false");
    await note.getByRole('button', { name: 'Capacities of bookinfo' }).click();
    await page.waitForSelector('#settings-editor:not([hidden])');
    expect(await page.textContent('#settings-heading')).toBe('Capacities of "bookinfo"');
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('default-capacity');
    await page.screenshot({ path: `${SCREENSHOTS}/service-graph-no-capacities.png`, fullPage: true });

    // With a capacity somewhere, the note goes.
    await runAsWritten(page, OPEN_SERVICE_GRAPH);
    expect(await note.count()).toBe(0);
    await page.click('#close-settings');
  });

  // The defect: every node of a Kiali graph carried the fan-out mark.
  it('leaves off a mark that every node carries, the key saying so', async () => {
    await runAsWritten(page, KIALI_LIKE);
    expect(await page.locator('#graph .mark').count()).toBe(0);
    expect(await page.locator('#graph .node[data-mark]').count()).toBe(0);
    expect(await page.textContent('#mark-key')).toBe('Every node fans out: not marked.');
    // Where some node lacks it, it is drawn.
    await runAsWritten(page, OPEN_SERVICE_GRAPH);
    expect(await page.getAttribute('#graph .node[data-id="frontend"]', 'data-mark')).toBe('fanout');
    expect(await page.getAttribute('#graph .node[data-id="db"]', 'data-mark')).toBe('exit');
    expect(await page.textContent('#mark-key')).toBe('');
  });

  // An open analyze holds no load anywhere: sizes by load drew every service at the least size.
  // Sized by steady throughput instead, the key saying so; a structure with loads keeps load.
  it('sizes the nodes of an open analyze by throughput, the key saying so', async () => {
    await runAsWritten(page, KIALI_LIKE);
    const radius = async (id: string) =>
      Number(await page.getAttribute(`#graph .node[data-id="${id}"] circle.body`, 'r'));
    // productpage takes the ingress's 100 a second; ratings only what reviews passes on.
    expect(await radius('bookinfo/productpage')).toBeGreaterThan(await radius('bookinfo/ratings'));
    expect(await page.textContent('#view-key')).toMatch(/^Size: throughput\./);
    await runAsWritten(page, EXAMPLES[0]!.body());
    expect(await page.textContent('#view-key')).toMatch(/^Size: load\./);
  });

  // At Fit on a graph drawn with WebGL no name fits, so the summary's first names are drawn at
  // every zoom: the node that saturates first and the entry that misses its SLO first (only the
  // primary blockage and the origin were). 2,000 services in a ring of calls behind one entry.
  it('names the node saturating first and the entry missing its SLO first in the WebGL view', async () => {
    const count = 2000;
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: Array.from({ length: count }, (_, i) => ({
        id: `s${i}`,
        ...(i === 0 ? { arrival: 10, slo: 1, serviceTime: 0.01, servers: 1 } : {}),
        ...(i === 1500 ? { capacity: 15 } : {}),
        ...(i === count - 1 ? { exit: 1 } : {}),
      })),
      dependencies: Array.from({ length: count - 1 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })),
    });
    await page.waitForSelector('body[data-graph="webgl"]', { timeout: 60_000 });
    const named = await page.getAttribute('.large-graph-stage', 'data-named');
    expect(named?.split('\n')).toEqual(['s1500 (saturates first)', 's0 (misses its SLO first)']);
  });

  // The defect: each dependency ended at its target's centre, its arrowhead under the node.
  it("puts each arrowhead outside its target node, tip at the node's edge", async () => {
    for (const body of [KIALI_LIKE, OPEN_SERVICE_GRAPH] as Array<{ dependencies: unknown[] }>) {
      await runAsWritten(page, body);
      const nodes = new Map(
        await page
          .locator('#graph .node')
          .evaluateAll((all) =>
            all.map(
              (node) =>
                [
                  node.getAttribute('data-id')!,
                  [node.getAttribute('transform')!, node.querySelector('circle.body')!.getAttribute('r')!],
                ] as const,
            ),
          ),
      );
      const edges = await page
        .locator('#graph .edge')
        .evaluateAll((all) =>
          all.map((edge) => [
            edge.getAttribute('data-from')!,
            edge.getAttribute('data-to')!,
            edge.getAttribute('d')!,
          ]),
        );
      expect(edges.length).toBe(body.dependencies.length);
      for (const [from, to, d] of edges) {
        const [transform, r] = nodes.get(to!)!;
        const [cx, cy] = /translate\(([-\d.e]+) ([-\d.e]+)\)/.exec(transform)!.slice(1).map(Number);
        // The path's last point: where the arrowhead's base sits.
        const [ex, ey] = d!
          .split(/[ ,MC]+/)
          .filter(Boolean)
          .map(Number)
          .slice(-2);
        const distance = Math.hypot(ex! - cx!, ey! - cy!);
        const radius = Number(r);
        // The head (9 long) starts where the path ends: wholly outside the node, its tip within
        // a ring's width of the node's edge.
        expect(distance, `${from} → ${to}`).toBeGreaterThanOrEqual(radius + 9);
        expect(distance, `${from} → ${to}`).toBeLessThanOrEqual(radius + 9 + 12);
      }
    }
    await page.screenshot({ path: `${SCREENSHOTS}/service-graph-arrows.png`, fullPage: true });
  });

  // The defect: a capacity's 3 px outline on nodes a few pixels wide turned dense columns black.
  it('keeps capacity outlines thin while nodes are small on screen, wider zoomed in', async () => {
    await runAsWritten(page, DENSE_COLUMN);
    await page.click('#zoom-fit');
    const outline = () =>
      page
        .locator('#graph .node[data-id="s30"] circle.body')
        .evaluate((circle) =>
          Number.parseFloat(circle.ownerDocument.defaultView!.getComputedStyle(circle).strokeWidth),
        );
    expect(await page.getAttribute('#graph .node[data-id="s30"] circle.body', 'class')).toContain(
      'throttled',
    );
    await expect.poll(outline).toBeLessThanOrEqual(1.25);
    await page.locator('#graph-figure').screenshot({ path: `${SCREENSHOTS}/service-graph-dense-column.png` });
    for (let i = 0; i < 8; i++) await page.click('#zoom-in');
    await expect.poll(outline).toBeGreaterThan(1.4);
  });
});
