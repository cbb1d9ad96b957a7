// Measure this browser end to end: the button clicked in headless Chromium
// in quick mode (once cancelled first), on a page served plainly and on one served cross-origin
// isolated (`tickbook serve --isolated`); the result file saved, loaded
// like any other, and the Browser cell's numbers checked against `tickbook
// analyze --json` of the saved file. The isolated page's performance.now
// must tick finer, and the wasm i64.add chain must cost a sane time.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  checkPrerequisites, tempDir, analyzeJson, serve, openBrowser, waitForFiles, screenshot,
  readTable, num, sameNumber, everySuiteCollection, tickbook, assertClean,
} from './harness.mjs';

let tmp;
const measured = {};
const savedFiles = {}; // the saved result files, by page kind

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
});

after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});


/** Click Measure this browser (quick), wait for the file, save it; the saved path and the page. */
async function measure(isolated) {
  const server = await serve(path.join(tmp, 'results'), { args: isolated ? ['--isolated'] : [] });
  const browser = await openBrowser(server.url);
  try {
    const { page, problems } = browser;
    await page.goto(server.url);
    await page.waitForFunction(() => document.getElementById('version').textContent.trim() !== '…');
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), isolated, 'the page is isolated as served');
    await page.getByTestId('measure-quick').check();
    // The main thread only receives messages while the worker measures.
    await page.evaluate(() => {
      window.longestTask = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.longestTask = Math.max(window.longestTask, e.duration);
      }).observe({ type: 'longtask' });
    });
    if (!isolated) {
      // Cancel ends the measurement worker: no file, the button back.
      await page.getByTestId('measure-browser').click();
      await page.waitForFunction(() => /Measuring \d+ of \d+/.test(document.querySelector('[data-testid=measure-text]')?.textContent ?? ''));
      await page.getByTestId('measure-cancel').click();
      assert.equal(await page.getByTestId('measure-text').innerText(), 'Measurement cancelled.');
      assert.equal(await page.getByTestId('measure-browser').isEnabled(), true);
      assert.equal(await page.locator('[data-testid=file-row]').count(), 0);
    }
    await page.getByTestId('measure-browser').click();
    // Progress is shown while it runs, with a Cancel.
    await page.waitForFunction(() => /Measuring \d+ of \d+/.test(document.querySelector('[data-testid=measure-text]')?.textContent ?? ''));
    assert.ok(await page.getByTestId('measure-cancel').isVisible());
    await waitForFiles(page, 1, 110_000);
    const longest = await page.evaluate(() => window.longestTask);
    assert.ok(longest < 200, `the main thread was blocked for ${longest} ms`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('measure-save').click()]);
    const saved = path.join(tmp, `${isolated ? 'isolated' : 'plain'}-${download.suggestedFilename()}`);
    await download.saveAs(saved);
    savedFiles[isolated ? 'isolated' : 'plain'] = saved;
    const [expected] = await analyzeJson([saved]);
    assert.ok(expected.ok, JSON.stringify(expected.error));
    const b = expected.browser;
    assert.equal(b.cross_origin_isolated, isolated);

    const cell = page.locator('[data-testid=browser-cell]');
    assert.equal(await cell.count(), 1, 'one Browser cell');
    assert.equal(await page.getByTestId('browser-isolated').getAttribute('data-value'), String(isolated));
    assert.equal(await page.getByTestId('browser-user-agent').innerText(), b.user_agent);

    const clocks = await readTable(page, '[data-testid=browser-clock-row]', 'clock');
    assert.deepEqual(Object.keys(clocks), b.clocks.map((c) => c.name));
    for (const c of b.clocks) {
      for (const stat of ['observed_tick_ns', 'modal_step_ns', 'mean_step_ns', 'jitter_ns', 'read_cost_median_ns', 'backward_steps']) {
        assert.ok(sameNumber(num(clocks[c.name][stat]), c[stat]), `${c.name} ${stat}: page ${clocks[c.name][stat]}, CLI ${c[stat]}`);
      }
    }
    const rows = await page.$$eval('[data-testid=browser-op-row]', (trs) => trs.map((tr) => ({
      key: `${tr.dataset.op} ${tr.dataset.form}`,
      stats: Object.fromEntries([...tr.querySelectorAll('[data-stat]')].map((td) => [td.dataset.stat, td.dataset.value])),
    })));
    assert.deepEqual(rows.map((r) => r.key), b.ops.map((o) => `${o.name} ${o.form}`));
    b.ops.forEach((o, i) => {
      const s = rows[i].stats;
      assert.ok(sameNumber(num(s.per_op_ns), o.per_op_ns?.estimate ?? null), `${rows[i].key} per op`);
      assert.ok(sameNumber(num(s.sequence_ns), o.sequence_ns), `${rows[i].key} sequence`);
      assert.ok(sameNumber(num(s.wall_per_op_ns), o.bernoulli?.wall_per_op_ns ?? null), `${rows[i].key} trials' wall time`);
      assert.ok(sameNumber(num(s.bernoulli_ns), o.bernoulli?.per_op_ns ?? null), `${rows[i].key} Bernoulli`);
      assert.ok(sameNumber(num(s.p_n), o.bernoulli?.p_n ?? null), `${rows[i].key} p(n)`);
      const aside = o.bernoulli ? o.bernoulli.set_aside_n + o.bernoulli.set_aside_2n : null;
      assert.ok(sameNumber(num(s.set_aside), aside), `${rows[i].key} set aside`);
    });
    // The trials are held to their own wall time, which the page's measurement records.
    assert.ok(b.ops.every((o) => o.bernoulli?.wall_per_op_ns != null), 'every operation has its trials\' wall time');
    const cov = page.getByTestId('browser-coverage');
    assert.ok(b.coverage?.wall_reference, 'coverage is of the trials\' wall time');
    assert.equal(Number(await cov.getAttribute('data-covered')), b.coverage.covered);
    assert.equal(Number(await cov.getAttribute('data-untimed')), b.coverage.covered_untimed);
    assert.ok((await cov.innerText()).includes(`${b.coverage.covered} of ${b.coverage.ops}`), 'coverage in words');
    await screenshot(page, `browser-${isolated ? 'isolated' : 'plain'}`);
    assertClean(problems);
    return b;
  } finally {
    await browser.close();
    await server.stop();
  }
}

test('Measure this browser on a plain page: the cell equals analyze --json of the saved file', { timeout: 150_000 }, async () => {
  measured.plain = await measure(false);
});

test('Measure this browser on a cross-origin isolated page', { timeout: 150_000 }, async () => {
  measured.isolated = await measure(true);
});

test('isolation makes performance.now finer, and i64.add costs a sane time', () => {
  assert.ok(measured.plain && measured.isolated, 'both measurements ran');
  const tick = (b) => b.clocks.find((c) => c.name === 'performance.now').mean_step_ns;
  assert.ok(tick(measured.isolated) < tick(measured.plain),
    `isolated tick ${tick(measured.isolated)} ns, plain ${tick(measured.plain)} ns`);
  for (const b of [measured.plain, measured.isolated]) {
    const add = b.ops.find((o) => o.name === 'i64.add' && o.form === 'latency');
    // One dependent 64-bit add: a core cycle on anything from 0.2 to 10 GHz.
    assert.ok(add?.per_op_ns && add.per_op_ns.estimate > 0.1 && add.per_op_ns.estimate < 5,
      `i64.add latency ${add?.per_op_ns?.estimate} ns`);
  }
});

test('WebAssembly against native: the page pairs the browser file with a native ops run as analyze --native does', { timeout: 900_000 }, async () => {
  assert.ok(savedFiles.isolated, 'the isolated measurement ran');
  const { run } = await everySuiteCollection();
  const out = await tickbook(['analyze', savedFiles.isolated, '--native', run, '--json']);
  const want = JSON.parse(out);
  assert.ok(want.pairs.length >= 10, `${want.pairs.length} pairs`);
  const server = await serve(path.join(tmp, 'results'));
  const browser = await openBrowser(server.url);
  try {
    const { page, problems } = browser;
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [savedFiles.isolated, run]);
    await waitForFiles(page, 2, 120_000);
    const cell = page.locator('[data-testid=native-cell]');
    await cell.waitFor({ timeout: 60_000 });
    assert.equal(await cell.count(), 1, 'one cell: one browser file, one native run');
    const summary = page.getByTestId('native-summary');
    assert.equal(await summary.getAttribute('data-pairs'), String(want.pairs.length));
    assert.equal(await summary.getAttribute('data-clock'), want.native_clock);
    const rows = await page.$$eval('[data-testid=native-pair]', (trs) => trs.map((tr) => ({
      wasm: tr.dataset.wasm, native: tr.dataset.native, form: tr.dataset.form,
      stats: Object.fromEntries([...tr.querySelectorAll('[data-stat]')].map((td) => [td.dataset.stat, td.dataset.value])),
    })));
    assert.deepEqual(rows.map((r) => `${r.wasm} ${r.native} ${r.form}`), want.pairs.map((p) => `${p.wasm} ${p.native} ${p.form}`));
    want.pairs.forEach((p, i) => {
      for (const stat of ['wasm_ns', 'native_ns', 'ratio']) {
        assert.ok(sameNumber(num(rows[i].stats[stat]), p[stat]), `${p.wasm} ${stat}: page ${rows[i].stats[stat]}, CLI ${p[stat]}`);
      }
      // The ratio is the two costs' quotient, as drawn.
      assert.ok(Math.abs(num(rows[i].stats.ratio) - num(rows[i].stats.wasm_ns) / num(rows[i].stats.native_ns)) <= 1e-9 * p.ratio, `${p.wasm}: ratio is wasm over native`);
    });
    const geo = want.pairs.length ? Math.exp(want.pairs.reduce((s, p) => s + Math.log(p.ratio), 0) / want.pairs.length) : null;
    assert.ok(sameNumber(num(await page.getByTestId('native-geomean').getAttribute('data-value')), want.geometric_mean_ratio));
    assert.ok(Math.abs(want.geometric_mean_ratio - geo) <= 1e-9 * geo, 'the geometric mean is of the pairs\' ratios');
    const fit = page.getByTestId('native-fit');
    assert.ok(sameNumber(num(await fit.getAttribute('data-r')), want.fit.r), 'Pearson r');
    assert.ok(sameNumber(num(await fit.getAttribute('data-slope')), want.fit.slope), 'slope');
    assert.equal(await page.getByTestId('native-slow').getAttribute('data-ops'), want.slow.join(' '));
    await screenshot(page, 'browser-native');
    assertClean(problems);
  } finally {
    await browser.close();
    await server.stop();
  }
});
