/**
 * Latency on the explorer page, in Chromium: the graph coloured by response time at the user's
 * choice, response times and latencies in the hover text and the details, the latency headroom
 * in words in the summary, and the selected entry's latency against traffic (computed in the
 * worker), with today, the SLO, the point where it is reached and the knee.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../explorer/src/examples';
import { post, type TestServer } from '../integration/server';
import { findChromium, openExplorerPage, runAsWritten, SCREENSHOTS } from './browser';

const chromiumPath = findChromium();
if (chromiumPath === undefined && process.env.CI) throw new Error('CI needs Chromium: .ci/run installs it');

/**
 * The shipped example: checkout (40 a second, one 10 ms server; SLO 300 ms) calls payments
 * (4 × 50 ms) and inventory (2 × 20 ms); payments calls the bank (8 × 120 ms). Checkout's latency
 * is 220 ms; it misses its SLO at ×1.4193 of today's traffic, its knee (400 ms, twice the 200 ms
 * with no traffic) is at ×1.5342, and the bank saturates at ×5/3.
 */
const CHECKOUT = EXAMPLES.find((example) => example.name === 'Latency: checkout with an SLO')!.body();

/**
 * Beside checkout, a node without a service time (audit: grey when coloured by response time),
 * and a batch entry whose reports service is over its one server (5 a second of 0.5 s): batch
 * never finishes today; below ×0.38 of today's traffic (0.01 + 0.5 / (1 − 2.5s) = 10 s) it meets
 * its SLO, so the latency headroom is ×0.38 at batch.
 */
const STUCK = {
  mode: 'analyze',
  nodes: [
    { id: 'checkout', arrival: 40, fanout: true, serviceTime: 0.01, servers: 1, slo: 0.3 },
    { id: 'audit', exit: 1 },
    { id: 'batch', arrival: 5, fanout: true, serviceTime: 0.01, slo: 10 },
    { id: 'reports', exit: 1, serviceTime: 0.5, servers: 1 },
  ],
  dependencies: [
    { from: 'checkout', to: 'audit' },
    { from: 'batch', to: 'reports' },
  ],
};

/** Viridis at the top and the bottom of the scale, and the grey of a node without a measure. */
const YELLOW = 'rgb(253, 231, 37)';
const GREY = '#b8b8b8';

describe.runIf(chromiumPath !== undefined)('latency on the explorer page in Chromium', () => {
  let server: TestServer;
  let page: Page;
  openExplorerPage(chromiumPath, (opened) => ({ server, page } = opened));

  const fill = (id: string) => page.getAttribute(`#graph .node[data-id="${id}"] circle.body`, 'fill');
  const summary = (field: string) => page.textContent(`#summary [data-field="${field}"] dd`);
  const details = async () =>
    Object.fromEntries(
      await page
        .locator('#details dl > div')
        .evaluateAll((rows) => rows.map((row) => [row.firstChild?.textContent, row.lastChild?.textContent])),
    );
  const select = async (id: string) => page.click(`#graph .node[data-id="${id}"] circle.body`);
  /**
   * Where the latency chart draws: the plot's left edge, the saturation's and today's lines, and
   * the curve's points (x only).
   */
  const chartXs = async () => {
    const lineX = async (selector: string) => Number(await page.getAttribute(selector, 'x1'));
    const curve = (await page.getAttribute('#latency-chart .latency-curve', 'points'))!;
    return {
      left: Number(await page.getAttribute('#latency-chart [data-axis="y"]', 'x')) + 5,
      saturationX: await lineX('#latency-chart .latency-saturation'),
      todayX: await lineX('#latency-chart .latency-today'),
      curveX: curve.split(' ').map((point) => Number(point.split(',')[0])),
    };
  };

  it('offers colour by response time only with latency, and recolours by it', async () => {
    // No service time anywhere: no choice, utilization as before.
    await runAsWritten(page, EXAMPLES.find((example) => example.name === 'Open service graph')!.body());
    expect(await page.isHidden('#colour-by-row')).toBe(true);
    // Nor with a caller's own fields named like the latency ones, which come back as sent.
    const own = {
      mode: 'analyze',
      nodes: [{ id: 'a', arrival: 1, exit: 1, responseTime: 'fast', latencyLimit: 'none' }],
      dependencies: [],
    };
    const echoed = (await runAsWritten(page, own)) as { engine: { nodes: object[] } };
    expect(echoed.engine.nodes[0]).toMatchObject({ responseTime: 'fast' });
    expect(await page.isHidden('#colour-by-row')).toBe(true);
    expect(await page.textContent('body')).not.toContain('stuck at');

    const answer = await runAsWritten(page, CHECKOUT);
    expect(answer).toEqual((await post(server.url, server.apiKey, CHECKOUT)).json);
    expect(await page.isVisible('#colour-by-row')).toBe(true);
    expect(await page.inputValue('#colour-by')).toBe('utilization');
    expect(await page.textContent('#colour-key')).toContain('utilization of capacity');
    // The bank is the busiest (utilization 0.6), not the top of the scale.
    expect(await fill('bank')).not.toBe(YELLOW);

    await page.selectOption('#colour-by', 'responseTime');
    // Response times 16.7 ms to 125 ms (the bank's): linear from 0, the bank at the top.
    expect(await page.textContent('#colour-key')).toContain(
      'response time, from 0 (dark) to 125 ms (yellow)',
    );
    expect(await fill('bank')).toBe(YELLOW);
    expect(await fill('checkout')).not.toBe(YELLOW);

    // The choice stays for the next answer with latency: reports has a service time but no
    // response time (over its server), the top; audit has no service time, grey.
    await runAsWritten(page, STUCK);
    expect(await page.inputValue('#colour-by')).toBe('responseTime');
    expect(await fill('reports')).toBe(YELLOW);
    expect(await fill('audit')).toBe(GREY);
    await page.screenshot({ path: `${SCREENSHOTS}/latency-colour.png`, fullPage: true });
    await page.selectOption('#colour-by', 'utilization');
    expect(await page.textContent('#colour-key')).toContain('utilization of capacity');
  });

  it('shows response times and latencies with their units in the hover and the details', async () => {
    await runAsWritten(page, CHECKOUT);
    // Checkout: M/M/1 at 0.4, 10 ms / 0.6 = 16.7 ms; p99 ln(100) / (100 − 40) = 76.8 ms.
    const title = await page.textContent('#graph .node[data-id="checkout"] desc');
    expect(title).toContain('service time 10 ms, 1 server, response time 16.7 ms, waiting 6.67 ms');
    expect(title).toContain('p99 76.8 ms, latency 220 ms, SLO 300 ms');
    expect(await page.getAttribute('#graph .node[data-id="bank"]', 'aria-label')).toContain(
      'response time 125 ms',
    );
    // An entry is heard with what its requests meet, against its SLO (it was heard with its own
    // 16.7 ms alone), and a stuck one with where they stop.
    expect(await page.getAttribute('#graph .node[data-id="checkout"]', 'aria-label')).toContain(
      'response time 16.7 ms, end-to-end latency 220 ms against its SLO of 300 ms',
    );
    await select('checkout');
    expect(await details()).toMatchObject({
      'Service time': '10 ms',
      Servers: '1',
      'Response time': '16.7 ms',
      Waiting: '6.67 ms',
      'In flight': '0.6667',
      p99: '76.8 ms',
      Latency: '220 ms',
      SLO: '300 ms',
    });
    const p99 = await page.getAttribute('#details [data-field="p99"] dd', 'title');
    expect(Number(p99)).toBeCloseTo(Math.log(100) / 60, 12);
    // A stuck entry says where, the node a button.
    await runAsWritten(page, STUCK);
    expect(await page.getAttribute('#graph .node[data-id="batch"]', 'aria-label')).toContain(
      'its requests never finish: stuck at reports (saturated)',
    );
    await select('batch');
    expect((await details()).Latency).toBe('stuck at reports (saturated)');
    await page.click('#details [data-field="latency"] button');
    expect((await details()).Node).toBe('reports');
  });

  it('says the latency headroom in words, or why there is none', async () => {
    await runAsWritten(page, CHECKOUT);
    // After the headroom (the bank saturates at ×5/3).
    const fields = await page
      .locator('#summary dl > div')
      .evaluateAll((rows) => rows.map((r) => r.dataset.field));
    expect(fields.indexOf('latency-headroom')).toBe(fields.indexOf('headroom') + 1);
    expect(await summary('latency-headroom')).toBe(
      "×1.42 of today's traffic before checkout misses its 300 ms",
    );
    // Each wall with how slow it already is (the bank: 8 servers of 120 ms at 40 a second, an
    // M/M/8 at 60%, 125 ms), in the order they saturate.
    expect(await summary('bottlenecks')).toBe(
      'bank ×1.67 (125 ms), payments ×2 (54.3 ms), checkout ×2.5 (16.7 ms), inventory ×2.5 (23.8 ms)',
    );
    const exact = await page.getAttribute('#summary [data-field="latency-headroom"] dd', 'title');
    expect(exact).toMatch(/^scale 1\.419\d+ of today's traffic; checkout: slo 0\.3, latency today 0\.22\d*$/);
    await page.click('#summary [data-field="latency-headroom"] button');
    expect((await details()).Node).toBe('checkout');
    // From the keyboard: the redraw keeps the focus on the button pressed, not on the page.
    await page.focus('#summary [data-field="latency-headroom"] button');
    await page.keyboard.press('Enter');
    expect(
      await page.evaluate("document.activeElement?.closest('[data-field]')?.getAttribute('data-field')"),
    ).toBe('latency-headroom');

    await runAsWritten(page, STUCK);
    expect(await summary('latency-headroom')).toBe(
      "over its SLO: batch meets its 10 s only up to ×0.38 of today's traffic; it never finishes today: stuck at reports (saturated)",
    );

    // Latency fields but no SLO; then an SLO missed with no traffic at all (10 ms of service).
    const alone = (slo: object) => ({
      mode: 'analyze',
      nodes: [{ id: 'checkout', arrival: 40, fanout: true, serviceTime: 0.01, servers: 1, ...slo }],
      dependencies: [],
    });
    await runAsWritten(page, alone({}));
    expect(await summary('latency-headroom')).toBe('none: no entry has an SLO');
    await runAsWritten(page, alone({ slo: 0.005 }));
    expect(await summary('latency-headroom')).toBe(
      'none: checkout misses its 5 ms at any traffic: its service times alone take that long',
    );
    // Met exactly with no traffic (10 ms of 10 ms) and missed with any: ×0 too, and the words
    // hold (they said "even with no traffic", where it is met).
    await runAsWritten(page, alone({ slo: 0.01 }));
    expect(await summary('latency-headroom')).toBe(
      'none: checkout misses its 10 ms at any traffic: its service times alone take that long',
    );
    await select('checkout');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    expect(await page.getAttribute('#latency-chart', 'aria-label')).toContain(
      'at its SLO of 10 ms with no traffic, over it with any',
    );
    // Over capacity today and over its SLO even with no traffic (render takes 300 ms, the GPUs
    // 500 ms, against 200 ms): less traffic would not help, and the words say so first.
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [
        { id: 'render', arrival: 10, fanout: true, serviceTime: 0.3, servers: 1, slo: 0.2 },
        { id: 'gpu', exit: 1, serviceTime: 0.5, servers: 2 },
      ],
      dependencies: [{ from: 'render', to: 'gpu' }],
    });
    expect(await summary('latency-headroom')).toBe(
      'none: render misses its 200 ms at any traffic: its service times alone take that long; it never finishes today: stuck at render (saturated)',
    );
  });

  // An SLO just above today's latency: the engine's scale is just below 1 (0.9999), which reads
  // ×0.999, never ×1 (that would say it meets it today); an SLO of 0.9999 s reads 1 s, not 1000 ms.
  it('never rounds a factor below 1 up to ×1, nor a time that rounds to 1 s down to ms', async () => {
    const body = structuredClone(CHECKOUT) as { nodes: Array<Record<string, unknown>> };
    body.nodes.find((node) => node.id === 'checkout')!.slo = 0.22005;
    await runAsWritten(page, body);
    expect(await summary('latency-headroom')).toBe(
      "over its SLO: checkout meets its 220 ms only up to ×0.999 of today's traffic",
    );
    body.nodes.find((node) => node.id === 'checkout')!.slo = 0.9999;
    await runAsWritten(page, body);
    expect(await summary('latency-headroom')).toMatch(/ before checkout misses its 1 s$/);
  });

  // After a what-if the answer on show is the scenario's: ×1 on the chart is its traffic, and the
  // chart says so, as the summary does.
  it("reads ×1 as the scenario's traffic after a what-if", async () => {
    await runAsWritten(page, CHECKOUT);
    await page.locator('#scenario-scale').fill('1.2');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await page.waitForSelector('body[data-state="done"]');
    await page.evaluate("document.body.dataset.latencyChart = ''");
    await select('checkout');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    const label = (await page.getAttribute('#latency-chart', 'aria-label'))!;
    expect(label).toMatch(/^Latency of checkout as all traffic grows, ×0 to ×1\.39 of the scenario's; /);
    expect(label).toContain("at the scenario's traffic (×1)");
    expect(label).not.toContain('today');
    expect((await page.locator('#latency-legend span').allTextContents())[0]).toMatch(
      /^at the scenario's traffic \(×1\): /,
    );
    expect(await page.locator('#latency-chart text').allTextContents()).toContain(
      "traffic, × the scenario's",
    );
    // Twice today's traffic puts payments over capacity: the summary says checkout's requests
    // never finish at the scenario's traffic, not "today".
    await page.locator('#scenario-scale').fill('2');
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#scenario-run');
    await page.waitForSelector('body[data-state="done"]');
    const headroom = await summary('latency-headroom');
    expect(headroom).toMatch(
      /of the scenario's traffic; it never finishes at the scenario's traffic: stuck at /,
    );
    expect(headroom).not.toContain('today');
    await page.locator('#scenario-scale').fill('1');
    await page.click('#scenario-clear');
  });

  it("draws the selected entry's latency against traffic, with today, the SLO and the knee", async () => {
    await runAsWritten(page, CHECKOUT);
    expect(await page.isHidden('#latency-figure')).toBe(true);
    await select('checkout');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    expect(await page.isVisible('#latency-figure')).toBe(true);
    const label = await page.getAttribute('#latency-chart', 'aria-label');
    expect(label).toBe(
      "Latency of checkout as all traffic grows, ×0 to ×1.67 of today's; 200 ms with no traffic; " +
        '220 ms today (×1); knee (twice the no-traffic latency) at ×1.53; ' +
        'reaches its SLO of 300 ms at ×1.42; saturates at ×1.67.',
    );
    // The SLO's line is level, at the height of the SLO's point on the curve.
    const slo = page.locator('#latency-chart .latency-slo');
    expect(await slo.getAttribute('y1')).toBe(await slo.getAttribute('y2'));
    const sloPoint = page.locator('#latency-chart [data-mark="slo"] rect');
    const y = Number(await sloPoint.getAttribute('y')) + Number(await sloPoint.getAttribute('height')) / 2;
    expect(y).toBeCloseTo(Number(await slo.getAttribute('y1')), 5);
    // Today's line and point at ×1; the knee between today and the saturation.
    const today = page.locator('#latency-chart .latency-today');
    const todayX = Number(await today.getAttribute('x1'));
    expect(Number(await page.getAttribute('#latency-chart [data-mark="today"] circle', 'cx'))).toBe(todayX);
    expect(await page.locator('#latency-chart [data-mark="knee"]').count()).toBe(1);
    expect(await page.locator('#latency-chart .latency-saturation').count()).toBe(1);
    expect(await page.locator('#latency-legend span').allTextContents()).toEqual([
      'today (×1): 220 ms',
      'knee at ×1.53: 400 ms, twice the latency with no traffic (waiting as long as served)',
      'reaches its SLO of 300 ms at ×1.42',
    ]);
    // Axis numbers: times up the side, factors along the bottom.
    expect(await page.locator('#latency-chart [data-axis="y"]').allTextContents()).toEqual([
      '0',
      '500 ms',
      '1 s',
    ]);
    expect(await page.locator('#latency-chart [data-axis="x"]').allTextContents()).toEqual([
      '×0',
      '×1',
      '×1.67',
    ]);
    await page.locator('#latency-figure').screenshot({ path: `${SCREENSHOTS}/latency-chart.png` });
    await page.screenshot({ path: `${SCREENSHOTS}/latency-page.png`, fullPage: true });

    // Not an entry: no chart. On the server: a note instead of the chart.
    await select('payments');
    expect(await page.isHidden('#latency-figure')).toBe(true);
    await page.check('#on-server');
    await page.fill('#api-key', server.apiKey);
    await page.evaluate("document.body.dataset.state = 'idle'");
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"]');
    await select('checkout');
    expect(await page.isHidden('#latency-figure')).toBe(true);
    expect(await page.textContent('#latency-note')).toContain('computed in the browser');
    await page.uncheck('#on-server');
  });

  // A key-value store of 1 µs a request, 200,000 a second (ρ 0.2), SLO 5 µs: the axis ends at a
  // round time above its SLO (10 µs), not at 1 ms, where its curve and SLO lay on the x axis.
  it('scales the chart to microsecond latencies', async () => {
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [{ id: 'kv', arrival: 200_000, exit: 1, serviceTime: 1e-6, servers: 1, slo: 5e-6 }],
      dependencies: [],
    });
    await select('kv');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    const ys = await page
      .locator('#latency-chart [data-axis="y"]')
      .evaluateAll((labels) =>
        labels.map((label) => [label.textContent, Number(label.getAttribute('y'))] as const),
      );
    expect(ys.at(-1)![0]).toBe('10 µs');
    // The SLO's line sits half way up (5 of 10 µs), far from the x axis (the label "0").
    const zero = ys.find(([text]) => text === '0')![1];
    const sloY = Number(await page.getAttribute('#latency-chart .latency-slo', 'y1'));
    expect(zero - sloY).toBeGreaterThan(40);
  });

  // A batch job of 250,000 s a request (ρ 0.5), SLO 10^6 s: the axis ends at 2,000,000 s, whose
  // label was cut at the view's left edge; the axis moves right to keep every label whole.
  it('keeps long time labels inside the chart', async () => {
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [{ id: 'batch', arrival: 2e-6, exit: 1, serviceTime: 250_000, servers: 1, slo: 1e6 }],
      dependencies: [],
    });
    await select('batch');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    const chart = (await page.locator('#latency-chart').boundingBox())!;
    const labels = await page.locator('#latency-chart [data-axis="y"]').evaluateAll((texts) =>
      texts.map((text) => {
        const box = text.getBoundingClientRect();
        return { text: text.textContent, left: box.left };
      }),
    );
    expect(labels.map(({ text }) => text)).toContain('2,000,000 s');
    for (const { left } of labels) expect(left).toBeGreaterThanOrEqual(chart.x);
  });

  // The SLO line's label is never run through by the curve. Checkout of 10 ms (40 a second, ρ
  // 0.4) against an SLO of 9.8 ms: over it even with no traffic, the curve starts half a pixel
  // above the line and climbs, through where the label stood (above the line at the left). The
  // same service at 5 a second (ρ 0.05) against 10.6 ms, and at 1 a second against 10.1 ms: each
  // SLO reached near the axis (×1.13 of ×20, ×0.99 of ×100), the curve climbing through the line
  // under the label. Each label is checked against the drawn curve, sampled every half pixel.
  it("keeps the SLO's label clear of the curve", async () => {
    const cases = [
      { arrival: 40, slo: 0.0098 },
      { arrival: 5, slo: 0.0106 },
      { arrival: 1, slo: 0.0101 },
    ];
    for (const { arrival, slo } of cases) {
      await runAsWritten(page, {
        mode: 'analyze',
        nodes: [{ id: 'checkout', arrival, exit: 1, serviceTime: 0.01, servers: 1, slo }],
        dependencies: [],
      });
      await select('checkout');
      await page.waitForSelector('body[data-latency-chart="drawn"]');
      const box = await page.locator('#latency-chart [data-label="slo"]').evaluate((label) => {
        const { x, y, width, height } = (
          label as unknown as { getBBox(): { x: number; y: number; width: number; height: number } }
        ).getBBox();
        return { x, y, width, height };
      });
      const curve = (await page.getAttribute('#latency-chart .latency-curve', 'points'))!
        .split(' ')
        .map((point) => point.split(',').map(Number) as [number, number]);
      const inside: Array<[number, number]> = [];
      for (let i = 1; i < curve.length; i++) {
        const [ax, ay] = curve[i - 1]!;
        const [bx, by] = curve[i]!;
        const steps = Math.ceil(2 * Math.max(Math.abs(bx - ax), Math.abs(by - ay), 1));
        for (let k = 0; k <= steps; k++) {
          const px = ax + ((bx - ax) * k) / steps;
          const py = ay + ((by - ay) * k) / steps;
          if (px > box.x && px < box.x + box.width && py > box.y && py < box.y + box.height)
            inside.push([px, py]);
        }
      }
      expect(inside, `SLO ${slo} at ${arrival} a second`).toEqual([]);
    }
  });

  // A pool of 10,000 servers at 90%: it saturates at ×1.11, so ×1 and the end's label are close.
  // Their labels never overlap: ×1 gives way where the end's label needs the room.
  it('keeps ×1 clear of the end label when the saturation is just past it', async () => {
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [{ id: 'edge', arrival: 9000, exit: 1, serviceTime: 1, servers: 10_000, slo: 1.5 }],
      dependencies: [],
    });
    await select('edge');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    const boxes = await page.locator('#latency-chart [data-axis="x"]').evaluateAll((labels) =>
      labels.map((label) => {
        const box = (label as unknown as { getBBox(): { x: number; width: number } }).getBBox();
        return [label.textContent, box.x, box.x + box.width] as const;
      }),
    );
    expect(boxes.at(-1)![0]).toBe('×1.11');
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]![1]).toBeGreaterThanOrEqual(boxes[i - 1]![2]);
  });

  // web takes 10 a second, has a capacity of 8 and serves in 50 ms without a queue, db in 20 ms:
  // 70 ms at any traffic below ×0.8, where web saturates, and from there no end. The SLO of 1 s
  // is not reached on the way: it is missed from the saturation on (it read "reaches its SLO of
  // 1 s at ×0.8", the mark floating above a curve flat at 70 ms).
  it('says an SLO the flat curve never reaches is missed where it saturates', async () => {
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [
        { id: 'web', arrival: 10, fanout: true, serviceTime: 0.05, capacity: 8, slo: 1 },
        { id: 'db', exit: 1, serviceTime: 0.02 },
      ],
      dependencies: [{ from: 'web', to: 'db' }],
    });
    await select('web');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    expect(await page.getAttribute('#latency-chart', 'aria-label')).toContain(
      'misses its SLO of 1 s from ×0.8, where it saturates (70 ms just below); saturates at ×0.8.',
    );
    expect(await page.locator('#latency-legend span').allTextContents()).toContain(
      'misses its SLO of 1 s from ×0.8, where it saturates (70 ms just below)',
    );
  });

  // Batch is over capacity today (reports saturates at ×0.4): no latency in the answer, yet a
  // curve below ×0.4, 0.01 + 0.5 / (1 − 2.5s): 510 ms with no traffic, the knee (1.02 s) at
  // (1 − 0.5 / 1.01) / 2.5 = ×0.202, the SLO of 10 s at (1 − 0.5 / 9.99) / 2.5 = ×0.38. The
  // chart runs on to ×1, where today's point is hollow, at the top: no latency to place it at.
  it('draws an entry over capacity today up to its saturation, today hollow past it', async () => {
    await runAsWritten(page, STUCK);
    await select('batch');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    expect(await page.getAttribute('#latency-chart', 'aria-label')).toBe(
      "Latency of batch as all traffic grows, ×0 to ×1 of today's; 510 ms with no traffic; " +
        'over capacity today (×1): its requests never finish, stuck at reports; ' +
        'knee (twice the no-traffic latency) at ×0.202; reaches its SLO of 10 s at ×0.38; saturates at ×0.4.',
    );
    expect(await page.locator('#latency-legend span').allTextContents()).toEqual([
      'today (×1): over capacity, its requests never finish (stuck at reports); they do below ×0.4',
      'knee at ×0.202: 1.02 s, twice the latency with no traffic (waiting as long as served)',
      'reaches its SLO of 10 s at ×0.38',
    ]);
    // The saturation's line at ×0.4 of the width, today's at its right end; today's point on
    // today's line, hollow, at the top of the plot; the curve left of the saturation.
    const { left, saturationX, todayX, curveX } = await chartXs();
    expect((saturationX - left) / (todayX - left)).toBeCloseTo(0.4, 2);
    const today = page.locator('#latency-chart [data-mark="today"]');
    expect(await today.getAttribute('class')).toBe('latency-mark today over');
    expect(Number(await today.locator('circle').getAttribute('cx'))).toBe(todayX);
    expect(Number(await today.locator('circle').getAttribute('cy'))).toBe(
      Number(await page.getAttribute('#latency-chart .latency-today', 'y1')),
    );
    expect(Math.max(...curveX)).toBeLessThanOrEqual(saturationX);
    expect(await page.locator('#latency-chart [data-axis="x"]').allTextContents()).toEqual(['×0', '×1']);
    expect(await page.locator('#latency-chart .axis-break').count()).toBe(0);
    await page
      .locator('#latency-figure')
      .screenshot({ path: `${SCREENSHOTS}/latency-chart-over-capacity.png` });

    // Checkout, in the same answer, is not over capacity: its point is filled.
    await select('checkout');
    await page.waitForSelector('#latency-chart [data-mark="today"]:not(.over)');
  });

  // Ingest is 20 times over capacity today: indexer serves 1 / 0.2 s = 5 a second of its 100, so
  // it saturates at ×0.05, and its latency is 0.01 + 0.2 / (1 − 20s): 210 ms with no traffic, the
  // knee (420 ms) at (1 − 0.2 / 0.41) / 20 = ×0.0256, the SLO of 2 s at (1 − 0.2 / 1.99) / 20 =
  // ×0.045. Drawn to scale up to ×1 the curve would take 5% of the width: the axis is broken
  // after ×0.055 (a tenth past the saturation), the curve keeps most of the width, ×1 past the break.
  it('breaks the axis for an entry far over capacity, so its curve is not a sliver', async () => {
    await runAsWritten(page, {
      mode: 'analyze',
      nodes: [
        { id: 'ingest', arrival: 100, fanout: true, serviceTime: 0.01, slo: 2 },
        { id: 'indexer', exit: 1, serviceTime: 0.2, servers: 1 },
      ],
      dependencies: [{ from: 'ingest', to: 'indexer' }],
    });
    await select('ingest');
    await page.waitForSelector('body[data-latency-chart="drawn"]');
    expect(await page.getAttribute('#latency-chart', 'aria-label')).toBe(
      "Latency of ingest as all traffic grows, ×0 to ×1 of today's (the axis skips from ×0.055 to ×1); " +
        '210 ms with no traffic; over capacity today (×1): its requests never finish, stuck at indexer; ' +
        'knee (twice the no-traffic latency) at ×0.0256; reaches its SLO of 2 s at ×0.045; saturates at ×0.05.',
    );
    const { left, saturationX, todayX, curveX } = await chartXs();
    // The saturation at 0.05 / 0.055 of the curve's 78% of the width, today's line at the right end.
    expect((saturationX - left) / (todayX - left)).toBeCloseTo((0.78 * 0.05) / 0.055, 2);
    expect(Math.max(...curveX)).toBeLessThanOrEqual(saturationX);
    expect((Math.max(...curveX) - left) / (todayX - left)).toBeGreaterThan(0.65);
    // The break sits between the curve's range and ×1; the labels are ×0 and ×1, as unbroken.
    expect(await page.locator('#latency-chart .axis-break').count()).toBe(1);
    const breakX = (await page.getAttribute('#latency-chart .axis-break', 'd'))!
      .match(/-?\d+(\.\d+)?/g)!
      .map(Number)
      .filter((_, i) => i % 2 === 0);
    expect(Math.min(...breakX)).toBeGreaterThan(Math.max(...curveX));
    expect(Math.max(...breakX)).toBeLessThan(todayX);
    expect(await page.locator('#latency-chart [data-axis="x"]').allTextContents()).toEqual(['×0', '×1']);
    const today = page.locator('#latency-chart [data-mark="today"]');
    expect(await today.getAttribute('class')).toBe('latency-mark today over');
    expect(Number(await today.locator('circle').getAttribute('cx'))).toBe(todayX);
    // The marks on the curve, left of the break: the knee, then the SLO.
    const markX = async (kind: string) =>
      Number(
        await page
          .locator(`#latency-chart [data-mark="${kind}"] path, #latency-chart [data-mark="${kind}"] rect`)
          .first()
          .evaluate((shape) => {
            const box = (shape as unknown as { getBBox(): { x: number; width: number } }).getBBox();
            return box.x + box.width / 2;
          }),
      );
    const kneeX = await markX('knee');
    const sloX = await markX('slo');
    expect(kneeX).toBeGreaterThan(left);
    expect(kneeX).toBeLessThan(sloX);
    expect(sloX).toBeLessThan(saturationX);
    await page
      .locator('#latency-figure')
      .screenshot({ path: `${SCREENSHOTS}/latency-chart-far-over-capacity.png` });
  });
});
