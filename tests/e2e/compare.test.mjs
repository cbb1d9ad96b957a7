// The Comparison cell end to end: two freshly collected ops runs and a
// hand-made samples pair with a known difference, loaded together; every
// verdict, ratio and count on the page equals `tickbook analyze --compare
// --json`, for the default threshold and after turning it; pooling equals
// `--compare --pool`; Cancel stops a long recompute and keeps the page. Files
// that share only suites the analysis does not compare (two traces) make no
// Comparison cell, and are left out of one beside them. The real one-process
// pairs of tests/fixtures/compare (Google Benchmark -O0 against -O2, pyperf
// A against B) show the CLI's verdicts, p-values and geometric mean, times
// scaled with their intervals, and warm-ups left out — and, with the
// warm-up toggle on, compared as `--warm-ups` compares them. One hyperfine
// file's series show `analyze --compare-series` and hyperfine's own summary.
// Sixty files show 25 compared files a page, each page as the CLI has it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, ROOT, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot, sameNumber, num,
} from './harness.mjs';

let tmp, server, files;

/** A samples file: `slow` is `shift` slower than the baseline, `same` is not. */
function samplesFile(host, shift, seed) {
  let x = seed;
  const noise = () => {
    x = (x * 1103515245 + 12345) % 2147483648; // deterministic, no Math.random
    return x / 2147483648 - 0.5;
  };
  const ex = (base) => Array.from({ length: 6 }, () => Array.from({ length: 12 }, () => base * (1 + 0.01 * noise())));
  return JSON.stringify({
    format: 'tickbook', format_version: '1.0', kind: 'samples', source: 'compare e2e',
    host: { hostname: host },
    series: [
      { name: 'slow', unit: 'ms', executions: ex(10 * (1 + shift)) },
      { name: 'same', unit: 'us', executions: ex(250) },
    ],
  });
}

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  files = ['ops-a.json', 'ops-b.json', 'samples-a.json', 'samples-b.json'].map((f) => path.join(tmp, f));
  await tickbook(['collect', 'ops', '--quick', '--out', files[0]], { timeout: 300_000 });
  await tickbook(['collect', 'ops', '--quick', '--out', files[1]], { timeout: 300_000 });
  await writeFile(files[2], samplesFile('bench-host', 0, 7));
  await writeFile(files[3], samplesFile('bench-host', 0.25, 11));
  server = await serve(path.join(tmp, 'results'));
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const cli = async (extra = []) => JSON.parse(await tickbook(['analyze', '--compare', '--json', ...extra, ...files], { timeout: 300_000 }));

/** Everything the Comparison cell shows, by suite and item. */
async function readCell(page) {
  return page.$$eval('[data-testid=compare-suite]', (blocks) => blocks.map((b) => ({
    suite: b.dataset.suite,
    different: Number(b.querySelector('[data-testid=compare-different-count]').dataset.value),
    complete: b.querySelector('tbody').dataset.complete === 'true',
    rows: [...b.querySelectorAll('[data-testid=compare-row]')].map((r) => ({
      key: r.dataset.key,
      values: [...r.querySelectorAll('[data-testid=compare-value]')].map((c) => c.dataset.value ?? null),
      ratios: [...r.querySelectorAll('[data-testid=compare-ratio]')].map((c) => c.dataset.value ?? null),
      verdicts: [...r.querySelectorAll('[data-testid=verdict]')].map((c) => ({ v: c.dataset.value, faster: c.dataset.faster ?? null })),
    })),
  })));
}

function assertCellEquals(cell, expected) {
  assert.deepEqual(cell.map((s) => s.suite), expected.suites.map((s) => s.suite), 'suites compared');
  for (const [k, want] of expected.suites.entries()) {
    const got = cell[k];
    assert.equal(got.different, want.different, `${want.suite}: items different`);
    assert.deepEqual(got.rows.map((r) => r.key), want.items.map((i) => i.key), `${want.suite}: items in order`);
    for (const [i, item] of want.items.entries()) {
      const row = got.rows[i];
      item.values.forEach((v, j) => assert.ok(sameNumber(num(row.values[j]), v?.estimate ?? null), `${item.key} value ${j}`));
      item.against_baseline.forEach((p, j) => {
        assert.equal(row.verdicts[j].v, p.verdict, `${want.suite} ${item.key}: verdict`);
        assert.equal(num(row.verdicts[j].faster), p.faster ?? null, `${item.key}: faster`);
        assert.ok(sameNumber(num(row.ratios[j]), p.ratio?.estimate ?? null), `${item.key}: ratio`);
      });
    }
  }
}

async function waitForComparison(page, threshold) {
  await page.waitForFunction((t) => {
    const c = document.querySelector('[data-testid=compare-cell]');
    if (!c || c.dataset.pending || Number(c.dataset.threshold) !== t) return false;
    return c.dataset.built === 'true' && [...c.querySelectorAll('[data-testid=compare-suite] tbody')].every((b) => b.dataset.complete === 'true');
  }, threshold, { timeout: 120_000 });
  // A suite shows its first rows (fewer the more files); the test reads all.
  for (const button of await page.$$('[data-testid=compare-cell] [data-testid=show-more]')) await button.click();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=compare-suite] tbody')]
    .every((b) => b.dataset.shown === b.dataset.total), null, { timeout: 60_000 });
}

test('two runs and a samples pair: the Comparison cell equals analyze --compare', async () => {
  const expected = await cli();
  // The hand-made pair must come out as built: `slow` 25 % slower, `same` not.
  const samples = expected.suites.find((s) => s.suite === 'samples');
  const verdicts = Object.fromEntries(samples.items.map((i) => [i.key, i.against_baseline[0].verdict]));
  assert.deepEqual(verdicts, { slow: 'different', same: 'same' });
  assert.equal(samples.items[0].against_baseline[0].faster, 2, 'file A of the pair (index 2) is faster');
  assert.ok(expected.suites.some((s) => s.suite === 'ops'), 'the ops runs are compared');

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => !document.querySelector('[data-testid=file-input]').disabled || document.body.dataset.state === 'idle');
    await page.setInputFiles('[data-testid=file-input]', files);
    await waitForFiles(page, 4, 120_000);
    await waitForComparison(page, 0.03);
    assertCellEquals(await readCell(page), expected);
    // The file list names host, date and suites of every file.
    const hosts = await page.$$eval('[data-testid=file-row] [data-field=host]', (tds) => tds.map((t) => t.textContent.trim()));
    assert.equal(hosts[2], 'bench-host');
    await screenshot(page, 'compare-light');

    // Turning the threshold above 25 % makes `slow` the same, on both sides.
    await page.fill('[data-testid=threshold]', '60');
    await page.press('[data-testid=threshold]', 'Enter');
    await page.locator('[data-testid=threshold]').blur();
    await waitForComparison(page, 0.6);
    const turned = await cli(['--threshold', '0.6']);
    assert.equal(turned.suites.find((s) => s.suite === 'samples').different, 0);
    assertCellEquals(await readCell(page), turned);

    // Pooling: the pair's series from the same host, as `--pool` pools them.
    const pooled = await cli(['--threshold', '0.6', '--pool']);
    await page.locator('[data-testid=pool-toggle]').focus();
    await page.keyboard.press('Space'); // keyboard-reachable
    await page.waitForSelector('[data-testid=compare-cell][data-pooling=true] [data-testid=compare-pooled]', { timeout: 120_000 });
    const rows = await page.$$eval('[data-testid=pooled-row]', (trs) => trs.map((t) => ({
      key: t.dataset.key, executions: Number(t.dataset.executions), mean: Number(t.dataset.mean),
    })));
    assert.deepEqual(rows.map((r) => r.key), pooled.pooled.map((p) => p.key));
    assert.ok(rows.length >= 2, 'both series of the pair are pooled');
    for (const [i, p] of pooled.pooled.entries()) {
      assert.equal(rows[i].executions, p.stats.executions);
      assert.ok(sameNumber(rows[i].mean, p.stats.random_effects.mean), `${p.key}: pooled mean`);
    }
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});

test('real pairs from one process: verdicts, p, words and the geometric mean as analyze --compare has them', async () => {
  const pairs = path.join(FIXTURES, 'compare');
  const gb = ['O0.json', 'O2.json'].map((f) => path.join(pairs, 'googlebench', f));
  const py = ['a.json', 'b.json'].map((f) => path.join(pairs, 'pyperf', f));
  const { page, problems, close } = await openBrowser(server.url);
  try {
    for (const [pair, n] of [[gb, 'gb'], [py, 'pyperf']]) {
      const expected = JSON.parse(await tickbook(['analyze', '--compare', '--json', ...pair], { timeout: 300_000 }));
      await page.goto(server.url);
      await page.setInputFiles('[data-testid=file-input]', pair);
      await waitForFiles(page, 2, 120_000);
      await waitForComparison(page, 0.03);
      assertCellEquals(await readCell(page), expected);
      const suite = expected.suites[0];
      const shown = await page.$$eval('[data-testid=compare-row]', (rows) => rows.map((r) => ({
        key: r.dataset.key,
        value: r.querySelector('[data-testid=compare-value]').textContent,
        p: r.querySelector('[data-testid=compare-p]').dataset.value ?? null,
        verdict: r.querySelector('[data-testid=verdict]').textContent,
      })));
      for (const [i, item] of suite.items.entries()) {
        const pc = item.against_baseline[0];
        assert.ok(sameNumber(num(shown[i].p), pc.test?.p_value ?? null), `${item.key}: p`);
        // A scaled time with its interval, never 0.0000 s [0.0000, 0.0000].
        assert.match(shown[i].value, /^[0-9.]+\u202f(ns|µs|ms|s) \[[0-9.]+, [0-9.]+\]$/, `${item.key}: ${shown[i].value}`);
        if (pc.verdict === 'different') {
          assert.match(shown[i].verdict, pc.lower === pc.file ? /B( [0-9.]+×)? faster/ : /B( [0-9.]+×)? slower/, `${item.key}: ${shown[i].verdict}`);
        }
      }
      const geo = await page.$$eval('[data-testid=compare-geomean]', (ps) => ps.map((p) => Number(p.dataset.value)));
      assert.equal(geo.length, 1);
      assert.ok(sameNumber(geo[0], suite.geomean[0].ratio.estimate), `${n}: geometric mean`);
      if (n === 'gb') {
        assert.equal(suite.different, suite.items.length, 'every -O0 vs -O2 item differs');
        assert.ok(suite.geomean[0].ratio.hi < 1, '-O2 is faster overall');
      } else {
        assert.ok(!shown.some((r) => r.key.includes('[warm-up]')), 'warm-ups are left out');
        assert.equal(Number(await page.$eval('[data-testid=compare-warm-ups]', (e) => e.dataset.value)), suite.warm_ups_left_out);
      }
      await screenshot(page, `compare-${n}`);
    }
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

test('the warm-up toggle: the rows with and without warm-ups equal analyze --compare with and without --warm-ups', async () => {
  const py = ['a.json', 'b.json'].map((f) => path.join(FIXTURES, 'compare', 'pyperf', f));
  const without = JSON.parse(await tickbook(['analyze', '--compare', '--json', ...py], { timeout: 300_000 }));
  const withWarm = JSON.parse(await tickbook(['analyze', '--compare', '--json', '--warm-ups', ...py], { timeout: 300_000 }));
  assert.ok(withWarm.suites[0].items.length > without.suites[0].items.length, 'the CLI compares more series with --warm-ups');
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', py);
    await waitForFiles(page, 2, 120_000);
    await waitForComparison(page, 0.03);
    assertCellEquals(await readCell(page), without);
    await page.locator('[data-testid=warmups-toggle]').focus();
    await page.keyboard.press('Space'); // keyboard-reachable
    await page.waitForSelector('[data-testid=compare-cell][data-warm-ups=true][data-built=true]', { timeout: 120_000 });
    await waitForComparison(page, 0.03);
    const cell = await readCell(page);
    assertCellEquals(cell, withWarm);
    assert.ok(cell[0].rows.some((r) => r.key.includes('[warm-up]')), 'warm-up rows are shown');
    assert.equal(await page.locator('[data-testid=compare-warm-ups]').count(), 0, 'none left out');
    await screenshot(page, 'compare-warm-ups');
    // And off again: back to the rows without.
    await page.locator('[data-testid=warmups-toggle]').click();
    await page.waitForSelector('[data-testid=compare-cell][data-warm-ups=false][data-built=true]', { timeout: 120_000 });
    await waitForComparison(page, 0.03);
    assertCellEquals(await readCell(page), without);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

/** The series comparison the page shows: each group's rows and hyperfine's summary. */
async function readSeries(page) {
  return page.$$eval('[data-testid=series-group]', (groups) => groups.map((g) => ({
    unit: g.dataset.unit,
    different: Number(g.dataset.different),
    rows: [...g.querySelectorAll('[data-testid=series-compare-row]')].map((r) => ({ ...r.dataset })),
    speeds: [...g.querySelectorAll('[data-testid=series-speed]')].map((c) => c.textContent),
    summary: g.querySelector('[data-testid=series-summary]').textContent,
  })));
}

function assertSeriesEquals(shown, expected) {
  assert.deepEqual(shown.map((g) => g.unit), expected.groups.map((g) => g.unit), 'groups');
  for (const [k, g] of expected.groups.entries()) {
    const got = shown[k];
    assert.equal(got.different, g.different, `${g.unit}: different`);
    assert.deepEqual(got.rows.map((r) => r.series), g.series, `${g.unit}: series, the reference first`);
    assert.equal(got.rows[0].reference, 'true');
    g.series.forEach((name, i) => {
      const row = got.rows[i];
      assert.ok(sameNumber(num(row.value), g.values[i]?.estimate ?? null), `${name}: value`);
      if (i === 0) return;
      const p = g.against_reference[i - 1];
      const s = g.relative_speed[i - 1];
      assert.equal(row.verdict, p.verdict, `${name}: verdict`);
      assert.equal(num(row.lower), p.lower ?? null, `${name}: lower`);
      assert.ok(sameNumber(num(row.ratio), p.ratio?.estimate ?? null), `${name}: ratio`);
      assert.ok(sameNumber(num(row.p), p.test?.p_value ?? null), `${name}: p`);
      assert.ok(sameNumber(num(row.speed), s?.factor ?? null), `${name}: relative speed`);
      assert.ok(sameNumber(num(row.speedError), s?.factor_error ?? null), `${name}: its error`);
    });
  }
}

test('one file with several series: the Comparison cell equals analyze --compare-series, and hyperfine\'s own summary', async () => {
  const dir = path.join(FIXTURES, 'compare', 'hyperfine');
  const file = path.join(dir, 'series.json');
  const expected = JSON.parse(await tickbook(['analyze', '--compare-series', '--json', file], { timeout: 300_000 }));
  const named = JSON.parse(await tickbook(['analyze', '--compare-series', '--json', '--reference', 'sleep 0.01', file], { timeout: 300_000 }));
  const printed = (await readFile(path.join(dir, 'hyperfine-output.txt'), 'utf8')).split('\n');
  const summary = printed.slice(printed.findIndex((l) => l.trim() === 'Summary') + 1).map((l) => l.trim()).filter(Boolean);
  assert.equal(summary.length, 3, 'hyperfine printed three summary lines');
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [file]);
    await waitForFiles(page, 1, 120_000);
    await page.waitForSelector('[data-testid=compare-cell][data-series=true][data-built=true]', { timeout: 120_000 });
    const shown = await readSeries(page);
    assertSeriesEquals(shown, expected);
    // hyperfine's summary, line for line, and its figures in the table.
    assert.deepEqual(shown[0].summary.split('\n').map((l) => l.trim()), summary);
    assert.deepEqual(shown[0].speeds, summary.slice(1).map((l) => l.split(' times ')[0]));
    await screenshot(page, 'compare-series');
    // The new controls and table pass axe (no serious or critical violation).
    await page.evaluate(await readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
    const serious = await page.evaluate(async () => {
      const r = await globalThis.axe.run('#cell-compare', { resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(serious, [], 'axe on the series comparison');
    // A named reference, as --reference names it.
    await page.selectOption('[data-testid=series-reference]', 'sleep 0.01');
    await page.waitForSelector('[data-testid=compare-cell][data-reference="sleep 0.01"][data-built=true]', { timeout: 120_000 });
    assertSeriesEquals(await readSeries(page), named);

    // With other files loaded, the files are compared; the control picks
    // one file's series instead, and a button goes back.
    const py = ['a.json', 'b.json'].map((f) => path.join(FIXTURES, 'compare', 'pyperf', f));
    await page.setInputFiles('[data-testid=file-input]', py);
    await waitForFiles(page, 3, 120_000);
    // The files' comparison replaces the series (which is built too).
    const filesCell = '[data-testid=compare-cell]:not([data-series]) [data-testid=compare-files]';
    await page.waitForSelector(filesCell, { timeout: 120_000 });
    await waitForComparison(page, 0.03);
    assert.equal(await page.locator('[data-testid=compare-cell][data-series=true]').count(), 0, 'three files: the files are compared');
    const option = await page.$eval('[data-testid=series-file]', (s) => [...s.options].find((o) => o.textContent === 'series.json').value);
    await page.selectOption('[data-testid=series-file]', option);
    await page.waitForSelector('[data-testid=compare-cell][data-series=true][data-built=true]', { timeout: 120_000 });
    assertSeriesEquals(await readSeries(page), named);
    await page.click('[data-testid=series-back]');
    await page.waitForSelector(filesCell, { timeout: 120_000 });
    await waitForComparison(page, 0.03);
    assert.equal(await page.locator('[data-testid=compare-cell][data-series=true]').count(), 0, 'back to the files');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

test('files sharing only suites the analysis does not compare: no Comparison cell, and left out of one', async () => {
  const traces = ['trace-a.json', 'trace-b.json'].map((f) => path.join(tmp, f));
  for (const t of traces) await copyFile(path.join(FIXTURES, 'trace-small.json'), t);
  const pair = files.slice(2);
  const expected = JSON.parse(await tickbook(['analyze', '--compare', '--json', ...pair], { timeout: 300_000 }));
  assert.deepEqual(JSON.parse(await tickbook(['analyze', '--compare', '--json', ...traces])).suites, [], 'traces are not compared');
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', traces);
    await waitForFiles(page, 2, 120_000);
    await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 60_000 });
    assert.equal(await page.locator('[data-testid=compare-cell]').count(), 0, 'two traces: no Comparison cell');
    await page.setInputFiles('[data-testid=file-input]', pair);
    await waitForFiles(page, 4, 120_000);
    await waitForComparison(page, 0.03);
    const compared = await page.$$eval('[data-testid=compare-files] tbody tr td:first-of-type', (tds) => tds.map((t) => t.textContent));
    assert.deepEqual(compared, pair.map((f) => path.basename(f)), 'the files compared are the samples pair only');
    assertCellEquals(await readCell(page), expected);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

test('Cancel stops a long recompute and keeps what was shown', async () => {
  const { page, problems, close } = await openBrowser(server.url, { colorScheme: 'dark' });
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files.slice(0, 2));
    await waitForFiles(page, 2, 120_000);
    await waitForComparison(page, 0.03);
    const before = await page.$eval('[data-testid=resamples]', (el) => el.value);
    // A million resamples per interval takes far longer than a moment.
    await page.fill('[data-testid=resamples]', '1000000');
    await page.locator('[data-testid=resamples]').blur();
    const cancel = page.locator('[data-testid=cancel]');
    await cancel.waitFor({ state: 'visible', timeout: 10_000 });
    await screenshot(page, 'compare-cancel-dark');
    await cancel.click();
    await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 10_000 });
    assert.equal(await page.$eval('[data-testid=resamples]', (el) => el.value), before, 'the options go back to those shown');
    assert.equal(await page.locator('[data-testid=error-card]').count(), 0, 'no file lost its cells');
    // The new worker has the files again: a change recomputes them.
    await page.fill('[data-testid=resamples]', '500');
    await page.locator('[data-testid=resamples]').blur();
    await page.waitForFunction(() => [...document.querySelectorAll('.slot')].every((s) => JSON.parse(s.dataset.options || 'null')?.bootstrap?.resamples === 500), null, { timeout: 120_000 });
    await waitForComparison(page, 0.03);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

test('sixty files: 25 compared files a page, every page\'s values, ratios and verdicts as analyze --compare has them', { timeout: 300_000 }, async () => {
  const dir = path.join(tmp, 'sixty');
  await mkdir(dir, { recursive: true });
  const many = [];
  for (let i = 0; i < 60; i++) {
    const f = path.join(dir, `s${String(i).padStart(2, '0')}.json`);
    await writeFile(f, samplesFile('bench-host', i % 3 === 2 ? 0.25 : 0, 7 + 4 * i));
    many.push(f);
  }
  const expected = JSON.parse(await tickbook(['analyze', '--compare', '--json', ...many], { timeout: 300_000 }));
  const want = expected.suites.find((s) => s.suite === 'samples');
  assert.equal(want.files.length, 60);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', many);
    await waitForFiles(page, 60, 120_000);
    await waitForComparison(page, 0.03);
    const block = '[data-testid=compare-suite][data-suite=samples]';
    const seen = new Set();
    for (const [pageNo, first, last] of [[0, 1, 25], [1, 26, 50], [2, 51, 59]]) {
      const pager = await page.$eval(`${block} [data-testid=compare-file-page]`, (p) => ({ ...p.dataset, text: p.textContent }));
      assert.deepEqual([Number(pager.page), Number(pager.pages), Number(pager.first), Number(pager.last)], [pageNo, 3, first, last], pager.text);
      assert.match(pager.text, new RegExp(`${first}\u2013${last} of 59 compared with A`));
      const rows = await page.$$eval(`${block} [data-testid=compare-row]`, (trs) => trs.map((r) => ({
        key: r.dataset.key,
        values: [...r.querySelectorAll('[data-testid=compare-value]')].map((c) => [Number(c.dataset.file), c.dataset.value ?? null]),
        ratios: [...r.querySelectorAll('[data-testid=compare-ratio]')].map((c) => [Number(c.dataset.file), c.dataset.value ?? null]),
        verdicts: [...r.querySelectorAll('[data-testid=verdict]')].map((c) => [Number(c.dataset.file), c.dataset.value]),
      })));
      assert.deepEqual(rows.map((r) => r.key), want.items.map((i) => i.key));
      for (const [i, item] of want.items.entries()) {
        const row = rows[i];
        // The baseline, then this page's files, in order.
        assert.deepEqual(row.values.map(([f]) => f), [0, ...Array.from({ length: last - first + 1 }, (_, k) => want.files[first + k])]);
        for (const [f, v] of row.values) assert.ok(sameNumber(num(v), item.values[want.files.indexOf(f)]?.estimate ?? null), `${item.key} file ${f}`);
        for (const [k, [f, r]] of row.ratios.entries()) {
          const p = item.against_baseline[want.files.indexOf(f) - 1];
          assert.ok(sameNumber(num(r), p.ratio?.estimate ?? null), `${item.key} ratio of ${f}`);
          assert.equal(row.verdicts[k][1], p.verdict, `${item.key} verdict of ${f}`);
          seen.add(`${item.key} ${f}`);
        }
      }
      const geo = await page.$$eval(`${block} [data-testid=compare-geomean]`, (ps) => ps.map((p) => [Number(p.dataset.file), Number(p.dataset.value)]));
      assert.equal(geo.length, last - first + 1, 'a geometric mean for each file of the page');
      for (const [f, v] of geo) assert.ok(sameNumber(v, want.geomean.find((g) => g.file === f).ratio.estimate), `geomean of ${f}`);
      const [prev, next] = await page.$$eval(`${block} [data-testid=compare-file-page] button`, (bs) => bs.map((b) => b.disabled));
      assert.deepEqual([prev, next], [pageNo === 0, pageNo === 2]);
      if (pageNo < 2) {
        await page.click(`${block} [data-testid=compare-page-next]`);
        await page.waitForSelector(`${block} [data-testid=compare-file-page][data-page="${pageNo + 1}"]`);
        // The keyboard stays on Next, or on Previous once Next is the end.
        assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), pageNo + 1 < 2 ? 'compare-page-next' : 'compare-page-previous');
        for (const button of await page.$$(`${block} [data-testid=show-more]`)) await button.click();
      }
    }
    // Every compared file was on a page, the slower third among them.
    assert.equal(seen.size, want.items.length * 59);
    const slow = want.items.find((i) => i.key === 'slow').against_baseline.filter((p) => p.verdict === 'different').length;
    assert.equal(slow, 20, 'the 20 files a quarter slower differ in `slow`');
    // Back: the keyboard stays on the pager.
    await page.click(`${block} [data-testid=compare-page-previous]`);
    await page.waitForSelector(`${block} [data-testid=compare-file-page][data-page="1"]`);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'compare-page-previous');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});
