// `?url=` loading, as `tickbook serve` opens the page: relative and absolute
// URLs, several at once, and a missing one reported without stopping the rest.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot,
} from './harness.mjs';

let tmp, server;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await tickbook(['collect', 'clocks', '--quick', '--out', path.join(results, 'host-2026.json')], { timeout: 300_000 });
  await copyFile(path.join(FIXTURES, 'samples-3x5.json'), path.join(results, 'samples-3x5.json'));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('?url= loads every listed file (relative and absolute)', { timeout: 120_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    const absolute = new URL('/results/samples-3x5.json', server.url).href;
    const query = new URLSearchParams([['url', '/results/host-2026.json'], ['url', absolute]]);
    await page.goto(`${server.url}?${query}`);
    await waitForFiles(page, 2);
    const rows = await page.$$eval('[data-testid=file-row]', (trs) => trs.map((t) => [t.dataset.file, t.dataset.status]));
    assert.deepEqual(rows, [['/results/host-2026.json', 'ok'], [absolute, 'ok']]);
    assert.equal(await page.locator('[data-testid=clocks-cell] [data-testid=clock-row]').count() > 0, true, 'the Clocks cell has rows');
    assert.equal(await page.locator('[data-testid=samples-cell] [data-testid=series-row]').count(), 2);
    assert.equal(await page.locator('[data-testid=intro]').isHidden(), true);
    await screenshot(page, 'url-loading');

    // The controls are reachable from the keyboard, in order.
    const focused = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      focused.push(await page.evaluate(() => document.activeElement?.dataset.testid ?? document.activeElement?.tagName));
    }
    const order = ['file-input', 'quantile-type', 'confidence', 'resamples', 'seed', 'export-report', 'clear'].map((id) => focused.indexOf(id));
    assert.ok(order.every((i, k) => i >= 0 && (k === 0 || order[k - 1] < i)), `tab order: ${focused}`);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});

test('a ?url= that cannot be fetched gets an error card; the others load', { timeout: 120_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/missing.json&url=/results/samples-3x5.json`);
    await waitForFiles(page, 2);
    const card = page.locator('[data-testid=error-card][data-file="/results/missing.json"]');
    assert.equal(await card.count(), 1);
    assert.match(await card.locator('[data-testid=error-message]').innerText(), /HTTP 404/);
    assert.equal(await page.locator('[data-testid=samples-cell]').count(), 1);
    // The browser logs the 404 itself; nothing else may be logged.
    assert.deepEqual(problems.consoleErrors.filter((e) => !/404/.test(e)), []);
    assert.equal(problems.consoleErrors.length, 1);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});
