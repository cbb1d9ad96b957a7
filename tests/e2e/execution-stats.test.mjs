// The Samples cell's execution statistics read against independent answers
// on tests/fixtures/samples-3x5.json: T₁² is the variance within an
// execution (its label, the explanation and its value, which is the pooled
// within-execution variance of the file's numbers and analyze --json's
// t1_sq), T₂² the variance between executions; the impact factor's null
// (p-value, band, the paper's statistic's null mean) and the paper's
// statistic as analyze --json has them.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, serve, openBrowser, waitForFiles, analyzeJson, num, sameNumber,
} from './harness.mjs';

let tmp, server, results;
const FILE = 'samples-3x5.json';
const WORKED = 'impact-worked-example.json';

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, FILE), path.join(results, FILE));
  await copyFile(path.join(FIXTURES, WORKED), path.join(results, WORKED));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Σ over executions of Σ (x − mean)², over Σ (n − 1): the pooled within-execution variance. */
function pooledWithin(executions) {
  let ss = 0;
  let df = 0;
  for (const e of executions) {
    const m = e.reduce((a, b) => a + b, 0) / e.length;
    ss += e.reduce((a, x) => a + (x - m) ** 2, 0);
    df += e.length - 1;
  }
  return ss / df;
}

test('T₁² is labelled and explained as the variance within an execution, T₂² as between; the impact factor’s null as --json has it', { timeout: 120_000 }, async () => {
  const file = JSON.parse(await readFile(path.join(FIXTURES, FILE), 'utf8'));
  const [report] = await analyzeJson([path.join(results, FILE)]);
  const series = report.samples.series;
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${FILE}`);
    await waitForFiles(page, 1, 60_000);
    await page.waitForSelector('[data-testid=exec-block] [data-stat=t1-sq]', { timeout: 60_000 });

    // The explanation: what follows "T₁²" up to "T₂²" says within and not
    // between; what follows "T₂²" to its closing parenthesis says between.
    const explain = await page.locator('[data-testid=execution-stats] .explain').innerText();
    const at1 = explain.indexOf('T₁²');
    const at2 = explain.indexOf('T₂²', at1);
    assert.ok(at1 >= 0 && at2 > at1, `the explanation names T₁² then T₂²: ${explain}`);
    const t1Text = explain.slice(at1, at2);
    const t2Text = explain.slice(at2, explain.indexOf(')', at2) + 1);
    assert.match(t1Text, /within/, `T₁² explained as within: ${t1Text}`);
    assert.doesNotMatch(t1Text, /between/, `T₁² explained as within: ${t1Text}`);
    assert.match(t2Text, /between/, `T₂² explained as between: ${t2Text}`);
    assert.match(explain, /1 = no execution effect/);
    assert.match(explain, /Hocko & Kalibera/);

    const blocks = await page.$$eval('[data-testid=exec-block]', (bs) => bs.map((b) => {
      const rows = [...b.querySelectorAll('[data-testid=exec-stat-row]')].map((r) => {
        const c = r.querySelector('[data-stat]');
        return { label: r.querySelector('th').textContent, stat: c?.dataset.stat, d: { ...c?.dataset } };
      });
      return { series: b.dataset.series, rows: Object.fromEntries(rows.filter((r) => r.stat).map((r) => [r.stat, r])) };
    }));
    assert.equal(blocks.length, series.length);
    series.forEach((x, i) => {
      const b = blocks[i];
      const es = x.execution_stats;
      assert.equal(b.series, x.name);
      const within = pooledWithin(file.series[i].executions);
      // The truth first: --json's t1_sq is the variance within executions.
      assert.ok(Math.abs(es.random_effects.t1_sq / within - 1) < 1e-12, `${x.name}: t1_sq ${es.random_effects.t1_sq} vs within ${within}`);
      const t1 = b.rows['t1-sq'];
      assert.match(t1.label, /^T₁²/);
      assert.match(t1.label, /within/, `${x.name}: T₁² row: ${t1.label}`);
      assert.doesNotMatch(t1.label, /between/, `${x.name}: T₁² row: ${t1.label}`);
      assert.ok(sameNumber(num(t1.d.value), es.random_effects.t1_sq), `${x.name}: T₁² ${t1.d.value}`);
      const t2 = b.rows['t2-sq'];
      assert.match(t2.label, /^T₂²/);
      assert.match(t2.label, /between/, `${x.name}: T₂² row: ${t2.label}`);
      assert.doesNotMatch(t2.label, /within/, `${x.name}: T₂² row: ${t2.label}`);
      assert.ok(sameNumber(num(t2.d.value), es.random_effects.t2_sq), `${x.name}: T₂² ${t2.d.value}`);

      // The impact factor, its null and the paper's statistic.
      const f = b.rows['impact-factor'];
      assert.match(f.label, /1 = no execution effect/);
      for (const k of ['estimate', 'lo', 'hi']) {
        assert.ok(sameNumber(num(f.d[k === 'estimate' ? 'value' : k]), es.impact_factor[k]), `${x.name}: impact ${k}`);
      }
      const n = b.rows['impact-null'];
      assert.ok(sameNumber(num(n.d.value), es.impact_null.p_value), `${x.name}: p ${n.d.value}`);
      assert.ok(sameNumber(num(n.d.lo), es.impact_null.band[0]), `${x.name}: band lo`);
      assert.ok(sameNumber(num(n.d.hi), es.impact_null.band[1]), `${x.name}: band hi`);
      assert.ok(sameNumber(num(n.d.paper), es.impact_null.paper_mean), `${x.name}: paper's null mean`);
      const p = b.rows['impact-factor-paper'];
      assert.match(p.label, /Hocko & Kalibera/);
      for (const k of ['estimate', 'lo', 'hi']) {
        assert.ok(sameNumber(num(p.d[k === 'estimate' ? 'value' : k]), es.impact_factor_paper[k]), `${x.name}: paper's ${k}`);
      }
    });
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

// docs/methods.md's worked example: factor sqrt(24.75) = 4.97, p the least
// 200 shuffles give (1/201), and an upper end three executions of equal
// spread cannot bound — the largest double in --json, ∞ on the page.
test('the worked example: 4.97×, p = 1/201, and an end the data cannot bound shown as ∞', { timeout: 120_000 }, async () => {
  const [report] = await analyzeJson([path.join(results, WORKED)]);
  const es = report.samples.series[0].execution_stats;
  assert.ok(Math.abs(es.impact_factor.estimate - Math.sqrt(24.75)) < 1e-12, `${es.impact_factor.estimate}`);
  assert.equal(es.impact_null.p_value, 1 / 201);
  assert.ok(es.impact_factor.hi > 1e300, `unbounded upper end: ${es.impact_factor.hi}`);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${WORKED}`);
    await waitForFiles(page, 1, 60_000);
    const cell = page.locator('[data-testid=exec-block] [data-stat=impact-factor]');
    await cell.waitFor({ timeout: 60_000 });
    const text = (await cell.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /^4\.97×/, text);
    assert.match(text, /∞×/, `the unbounded end reads ∞: ${text}`);
    assert.doesNotMatch(text, /e\+?308|1\.8/, text);
    const nul = (await page.locator('[data-testid=exec-block] [data-stat=impact-null]').innerText()).replace(/\s+/g, ' ');
    assert.match(nul, /p = 0\.005/, nul);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});
