// The Copy and Allocation cells and the Samples cell's execution statistics,
// end to end: one fresh `tickbook collect copy --quick` file and one small
// alloc run (TICKBOOK_ALLOC_CONFIG_LIMIT=12, 4 executions × 6 measurements),
// collected once and shared, plus tests/fixtures/samples-3x5.json. Every
// number is checked against `tickbook analyze --json`; the threshold option
// re-analyses in the worker.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import {
  ARTIFACTS, FIXTURES, checkPrerequisites, tempDir, tickbook, tickbookBin, serve, openBrowser, waitForFiles, screenshot, readTable, num, sameNumber, ROOT,
} from './harness.mjs';

const run = promisify(execFile);
let tmp, server, results;
const FILES = ['copy.json', 'alloc.json', 'samples-3x5.json'];

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, 'samples-3x5.json'), path.join(results, 'samples-3x5.json'));
  const alloc = run(tickbookBin(), ['collect', 'alloc', '--quick', '--executions', '4', '--measurements', '6', '--out', path.join(results, 'alloc.json')],
    { cwd: ROOT, timeout: 300_000, env: { ...process.env, TICKBOOK_ALLOC_CONFIG_LIMIT: '12' } });
  await alloc;
  await tickbook(['collect', 'copy', '--quick', '--out', path.join(results, 'copy.json')], { timeout: 400_000 });
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function cli() {
  const reports = JSON.parse(await tickbook(['analyze', '--json', ...FILES.map((f) => path.join(results, f))], { okCodes: [0, 1] }));
  return Object.fromEntries(reports.map((r) => [path.basename(r.file), r]));
}

async function openAll(colorScheme = 'light') {
  const b = await openBrowser(server.url, { colorScheme });
  const q = new URLSearchParams(FILES.map((f) => ['url', `/results/${f}`]));
  await b.page.goto(`${server.url}?${q}`);
  await waitForFiles(b.page, 3, 90_000);
  await b.page.waitForSelector('[data-testid=copy-heatmap] svg', { timeout: 30_000 });
  await b.page.waitForSelector('[data-testid=alloc-ecdf] svg', { timeout: 30_000 });
  return b;
}

/** One screenshot per cell (the sticky toolbar hidden so it does not cover them). */
async function cellShots(page, scheme) {
  await page.addStyleTag({ content: 'header.toolbar, body > header { position: static !important; }' });
  for (const [testid, name] of [['copy-cell', 'copy'], ['alloc-cell', 'alloc'], ['execution-stats', 'execution-stats']]) {
    await page.locator(`[data-testid=${testid}]`).first().screenshot({ path: path.join(ARTIFACTS, `${name}-${scheme}.png`) });
  }
}

const clean = (problems) => {
  assert.deepEqual(problems.consoleErrors, []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.foreignRequests, []);
};

test('copy heat map, flagged table, allocation rankings, ECDF and configurations match the CLI', { timeout: 600_000 }, async () => {
  const expected = await cli();
  const copy = expected['copy.json'].copy;
  const alloc = expected['alloc.json'].alloc;
  assert.ok(copy && alloc, 'the CLI reports copy and alloc');
  const { page, problems, close } = await openAll('light');
  try {
    // Heat map: one rect per (variant, alignment) of the selected implementation and length.
    const impl = copy.implementations[0];
    const len = copy.lengths[0];
    const mine = copy.cells.filter((c) => c.implementation === impl && c.nominal_length === len);
    const measured = mine.filter((c) => c.available && c.ns_per_byte != null);
    const fig = page.locator('[data-testid=copy-heatmap]');
    assert.equal(await fig.getAttribute('data-cells'), String(mine.length));
    assert.equal(mine.length, 8 * copy.alignments.length);
    assert.equal(await fig.locator('.copy-measured rect').count(), measured.length);
    assert.equal(await fig.locator('.copy-unavailable rect').count(), mine.length - measured.length);
    assert.equal(await fig.locator('.copy-flagged-mark rect').count(), mine.filter((c) => c.flagged).length);
    // Another implementation and length through the selectors.
    const impl2 = copy.implementations.at(-1);
    const len2 = copy.lengths.at(-1);
    await page.selectOption('[data-testid=copy-impl]', impl2);
    await page.selectOption('[data-testid=copy-length]', String(len2));
    await page.waitForFunction(([i, l]) => {
      const f = document.querySelector('[data-testid=copy-heatmap]');
      return f?.dataset.implementation === i && f.dataset.length === l && f.querySelector('svg');
    }, [impl2, String(len2)]);
    const mine2 = copy.cells.filter((c) => c.implementation === impl2 && c.nominal_length === len2);
    assert.equal(await page.locator('[data-testid=copy-heatmap] .copy-measured rect').count(),
      mine2.filter((c) => c.available && c.ns_per_byte != null).length);
    assert.equal(await page.locator('[data-testid=copy-heatmap] .copy-flagged-mark rect').count(), mine2.filter((c) => c.flagged).length);

    // Flagged table, worst first, same order and ratios as the CLI.
    const flaggedRows = await page.$$eval('[data-testid=copy-flagged-row]', (rows) => rows.map((r) => ({
      index: Number(r.dataset.index),
      ratio: r.querySelector('[data-stat=ratio]').dataset.value,
      lo: r.querySelector('[data-stat=ns-per-copy]')?.dataset.lo,
    })));
    assert.deepEqual(flaggedRows.map((r) => r.index), copy.flagged);
    for (const r of flaggedRows) {
      const c = copy.cells[r.index];
      assert.ok(sameNumber(num(r.ratio), c.ratio_to_baseline), `ratio of cell ${r.index}`);
      assert.ok(sameNumber(num(r.lo), c.ns_per_copy.lo), `CI of cell ${r.index}`);
    }

    // Allocation: rankings, time ratios, ECDF, configurations.
    for (const [testid, table] of [['alloc-mean-ranking', alloc.mean_ranking], ['alloc-impact-ranking', alloc.impact_ranking]]) {
      const got = await readTable(page, `[data-testid=${testid}] [data-testid=ranking-row]`, 'threshold');
      assert.equal(Object.keys(got).length, table.thresholds.length, testid);
      table.thresholds.forEach((t, ti) => table.strategies.forEach((s, si) =>
        assert.ok(sameNumber(num(got[String(t)][s]), table.first_percent[ti][si]), `${testid} ${t} ${s}`)));
    }
    const ratios = await readTable(page, '[data-testid=ratio-row]', 'strategy');
    for (const r of alloc.time_ratios) assert.ok(sameNumber(num(ratios[r.strategy]['geometric-mean']), r.geometric_mean), r.strategy);
    const points = alloc.impact_ecdf.reduce((n, e) => n + e.points.filter(([x]) => x > 0).length, 0);
    assert.equal(await page.locator('[data-testid=alloc-ecdf]').getAttribute('data-points'), String(points));
    assert.ok(points > 0, 'the ECDF has points');
    const configs = await page.$$eval('[data-testid=alloc-config-row]', (rows) => rows.map((r) =>
      Object.fromEntries([...r.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, { v: c.dataset.value, lo: c.dataset.lo, hi: c.dataset.hi }]))));
    assert.equal(configs.length, alloc.configs.length);
    alloc.configs.forEach((c, i) => {
      if (!c.available) return;
      const g = configs[i];
      assert.ok(sameNumber(num(g.executions.v), c.executions_ok), `executions ${i}`);
      assert.ok(sameNumber(num(g.mean.v), c.stats.mean_hierarchical.estimate), `mean ${i}`);
      assert.ok(sameNumber(num(g.mean.lo), c.stats.mean_hierarchical.lo), `mean lo ${i}`);
      assert.ok(sameNumber(num(g['impact-factor'].v), c.stats.impact_factor?.estimate), `impact ${i}`);
      assert.ok(sameNumber(num(g['impact-factor'].hi), c.stats.impact_factor?.hi), `impact hi ${i}`);
      assert.ok(sameNumber(num(g['impact-p'].v), c.stats.impact_null?.p_value), `impact p ${i}`);
      assert.ok(sameNumber(num(g['cv-within'].v), c.stats.cv_within?.estimate), `cv ${i}`);
      assert.ok(sameNumber(num(g['ratio-to-baseline'].v), c.ratio_to_baseline?.estimate), `ratio ${i}`);
      assert.ok(sameNumber(num(g['ratio-to-baseline'].lo), c.ratio_to_baseline?.lo), `ratio lo ${i}`);
    });
    assert.ok(alloc.configs.some((c) => c.ratio_to_baseline), 'some configuration has a ratio to default_4k');
    assert.equal(await page.locator('[data-testid=alloc-partial]').count(), alloc.partial ? 1 : 0);

    // Samples: execution statistics per series.
    const samples = expected['samples-3x5.json'].samples;
    const blocks = await page.$$eval('[data-testid=exec-block]', (bs) => bs.map((b) => ({
      series: b.dataset.series,
      stats: Object.fromEntries([...b.querySelectorAll('[data-stat]')].filter((c) => !c.closest('[data-testid=planning-row]'))
        .map((c) => [c.dataset.stat, { v: c.dataset.value, lo: c.dataset.lo, hi: c.dataset.hi }])),
      planning: [...b.querySelectorAll('[data-testid=planning-row]')].map((r) =>
        Object.fromEntries([...r.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, c.dataset.value]))),
      k: b.querySelector('[data-testid=modes]').dataset.k,
    })));
    assert.equal(blocks.length, samples.series.length);
    samples.series.forEach((x, i) => {
      const es = x.execution_stats;
      const b = blocks[i];
      assert.equal(b.series, x.name);
      assert.ok(sameNumber(num(b.stats['re-mean'].v), es.random_effects.mean));
      assert.ok(sameNumber(num(b.stats['re-mean'].lo), es.random_effects.ci[0]));
      assert.ok(sameNumber(num(b.stats['re-mean'].hi), es.random_effects.ci[1]));
      assert.ok(sameNumber(num(b.stats['mean-hierarchical'].lo), es.mean_hierarchical.lo));
      assert.ok(sameNumber(num(b.stats['impact-factor'].v), es.impact_factor.estimate));
      assert.ok(sameNumber(num(b.stats['impact-factor'].lo), es.impact_factor.lo));
      assert.ok(sameNumber(num(b.stats['cv-within'].hi), es.cv_within.hi));
      assert.ok(sameNumber(num(b.stats['cv-overall'].v), es.cv_overall.estimate));
      assert.ok(sameNumber(num(b.stats['t1-sq'].v), es.random_effects.t1_sq));
      assert.ok(sameNumber(num(b.stats['t2-sq'].v), es.random_effects.t2_sq));
      assert.equal(b.planning.length, es.planning.length);
      es.planning.forEach((p, j) => {
        assert.ok(sameNumber(num(b.planning[j].measurements), p.measurements_per_execution));
        assert.ok(sameNumber(num(b.planning[j]['executions-1pct']), p.executions_for_1pct));
      });
      assert.equal(b.k, String(es.modes?.k ?? ''));
    });

    await screenshot(page, 'copy-alloc-light');
    await cellShots(page, 'light');
    clean(problems);
  } finally {
    await close();
  }
});

test('the threshold option re-analyses in the worker: fewer copy cases flagged at a higher threshold', { timeout: 300_000 }, async () => {
  const expected = await cli();
  const before = expected['copy.json'].copy.flagged.length;
  const { page, problems, close } = await openAll('dark');
  try {
    assert.equal(await page.inputValue('[data-testid=threshold]'), '3');
    assert.equal(await page.locator('[data-testid=copy-flagged-row]').count(), before);
    await page.fill('[data-testid=threshold]', '50');
    await page.dispatchEvent('[data-testid=threshold]', 'change');
    await page.waitForFunction(() => [...document.querySelectorAll('.slot')].every((s) => JSON.parse(s.dataset.options ?? 'null')?.threshold === 0.5));
    const after = await page.locator('[data-testid=copy-flagged-row]').count();
    const ratios = await page.$$eval('[data-testid=copy-flagged-row] [data-stat=ratio]', (cs) => cs.map((c) => Number(c.dataset.value)));
    assert.ok(after <= before, `flagged ${after} at 50 % vs ${before} at 3 %`);
    // Flagged when (slow − fast) / fast > 0.5; at the boundary slow / fast can
    // round to exactly 1.5 (quantized copy times made one such case).
    for (const r of ratios) assert.ok(r >= 1.5, `a case flagged at 50 % is at least 1.5× slower (${r})`);
    // A bad value is refused, not applied.
    await page.fill('[data-testid=threshold]', '-1');
    await page.dispatchEvent('[data-testid=threshold]', 'change');
    assert.equal(await page.getAttribute('[data-testid=threshold]', 'aria-invalid'), 'true');
    await page.fill('[data-testid=threshold]', '3');
    await page.dispatchEvent('[data-testid=threshold]', 'change');
    await page.waitForFunction(() => [...document.querySelectorAll('.slot')].every((s) => JSON.parse(s.dataset.options ?? 'null')?.threshold === 0.03));
    assert.equal(await page.locator('[data-testid=copy-flagged-row]').count(), before);
    await screenshot(page, 'copy-alloc-dark');
    await cellShots(page, 'dark');
    clean(problems);
  } finally {
    await close();
  }
});
