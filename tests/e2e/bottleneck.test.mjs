// The Bottlenecks cell end to end: a fresh `tickbook collect bottleneck
// --quick` loads in the page, both charts render, and every number in the
// cell (regions, crossings, explained share, costs) equals
// `tickbook analyze --json` of the same file.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot, num, sameNumber,
} from './harness.mjs';

let tmp, server, results;
const FILE = 'bottleneck-fresh.json';

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await tickbook(['collect', 'bottleneck', '--quick', '--out', path.join(results, FILE)], { timeout: 300_000 });
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('a fresh quick bottleneck run renders and every number equals the CLI', { timeout: 300_000 }, async () => {
  const [r] = JSON.parse(await tickbook(['analyze', '--json', path.join(results, FILE)]));
  assert.ok(r.ok, 'the file reads');
  const b = r.bottleneck;
  assert.ok(b, 'the report has a bottleneck section');
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${FILE}`);
    await waitForFiles(page, 1, 90_000);
    await page.waitForSelector('[data-testid=bottleneck-cell]', { timeout: 30_000 });
    for (const id of ['bottleneck-bars', 'bottleneck-curves']) {
      await page.waitForSelector(`[data-testid=${id}] svg`, { timeout: 30_000 });
    }
    const bars = await page.$eval('[data-testid=bottleneck-bars]', (f) => Number(f.dataset.bars));
    assert.equal(bars, b.by_overhead.length, 'one bar per ranked region');
    const points = await page.$eval('[data-testid=bottleneck-curves]', (f) => Number(f.dataset.points));
    assert.equal(points, b.by_overhead.length);
    // The bars are drawn: one rect per part per region.
    const rects = await page.$$eval('[data-testid=bottleneck-bars] svg rect', (rs) => rs.length);
    assert.ok(rects >= 2 * bars, `${rects} rects for ${bars} bars`);

    // Every region row against the CLI.
    const rows = await page.$$eval('[data-testid=bottleneck-row]', (rs) => rs.map((row) => ({
      index: Number(row.dataset.index),
      timable: row.dataset.timable === 'true',
      ...Object.fromEntries([...row.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, { value: c.dataset.value, lo: c.dataset.lo, hi: c.dataset.hi }])),
    })));
    assert.equal(rows.length, b.cases.length);
    for (const row of rows) {
      const c = b.cases[row.index];
      assert.equal(row.timable, c.timable);
      assert.equal(num(row['working-set'].value), c.working_set_bytes);
      assert.equal(num(row.passes.value), c.passes);
      assert.ok(sameNumber(num(row.measured.value), c.measured_ns.estimate), `measured of case ${row.index}`);
      assert.ok(sameNumber(num(row.predicted.value), c.predicted_ns), `predicted of case ${row.index}`);
      if (c.timable && c.overhead) {
        assert.ok(sameNumber(num(row.overhead.value), c.overhead.estimate), `overhead of case ${row.index}`);
        assert.ok(sameNumber(num(row.overhead.lo), c.overhead.lo));
        assert.ok(sameNumber(num(row.overhead.hi), c.overhead.hi));
      }
    }
    // Untimable regions are shown as such (every kernel has a probe).
    const untimable = await page.$$eval('[data-testid=bottleneck-untimable]', (xs) => xs.length);
    assert.equal(untimable, b.cases.filter((c) => !c.timable).length);

    for (const [id, key] of [['regions', 'regions'], ['excluded', 'excluded'], ['explained-share', 'explained_share'],
      ['unexplained-share', 'unexplained_share'], ['memory-ops-covered', 'memory_ops_covered']]) {
      const v = await page.$eval(`[data-testid=bottleneck-${id}]`, (d) => d.dataset.value);
      assert.ok(sameNumber(num(v), b.explained[key]), `${id}: ${v} vs ${b.explained[key]}`);
    }

    const crossings = await page.$$eval('[data-testid=bottleneck-crossing]', (rs) => rs.map((row) => ({
      kernel: row.dataset.kernel, from: row.dataset.from, to: row.dataset.to,
      ...Object.fromEntries([...row.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, c.dataset.value])),
    })));
    const want = b.kernels.flatMap((k) => k.crossings.map((x) => ({ kernel: k.name, ...x })));
    assert.equal(crossings.length, want.length);
    crossings.forEach((x, i) => {
      assert.equal(x.kernel, want[i].kernel);
      assert.equal(x.from, want[i].from_level);
      assert.ok(sameNumber(num(x.jump), want[i].jump), `jump ${x.kernel} ${x.from}→${x.to}`);
      assert.ok(sameNumber(num(x['overhead-before']), want[i].overhead_before));
    });

    const costs = await page.$$eval('[data-testid=bottleneck-cost]', (rs) => rs.map((row) => row.querySelector('[data-stat=ns]')?.dataset.value ?? ''));
    assert.equal(costs.length, b.costs.length);
    costs.forEach((v, i) => assert.ok(sameNumber(num(v), b.costs[i].ns?.estimate ?? null), `cost ${b.costs[i].name}`));

    await screenshot(page, 'bottleneck-fresh');
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});
