import { readFileSync } from 'node:fs';
import { findChromium, launchChromium } from './explorer/browser';
import { startTestServer } from './integration/server';

function busy() {
  const l = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  return l[0]! + l[1]! + l[2]! + l[5]! + l[6]! + l[7]!;
}
const server = await startTestServer({ LOG_LEVEL: 'WARN' });
const browser = await launchChromium(findChromium()!);
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
await page.goto(`${server.url}/`);
await page.click('#load-worked');
await page.waitForSelector('body[data-state="done"]');
for (const full of [false, true]) {
  const b = busy();
  const t = performance.now();
  for (let i = 0; i < 5; i++) await page.screenshot({ path: `/tmp/shot/x${i}.png`, fullPage: full });
  console.log(
    'fullPage',
    full,
    'per shot CPU s',
    ((busy() - b) / 100 / 5).toFixed(2),
    'wall',
    ((performance.now() - t) / 5000).toFixed(2),
  );
}
let b = busy();
for (let i = 0; i < 5; i++) {
  const c = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const p = await c.newPage();
  await p.goto(`${server.url}/`);
  await p.waitForLoadState('load');
  await c.close();
}
console.log('fresh page CPU s', ((busy() - b) / 100 / 5).toFixed(2));
b = busy();
for (let i = 0; i < 5; i++) {
  await page.goto(`${server.url}/`);
  await page.waitForLoadState('load');
}
console.log('re-goto CPU s', ((busy() - b) / 100 / 5).toFixed(2));
await browser.close();
await server.close();
