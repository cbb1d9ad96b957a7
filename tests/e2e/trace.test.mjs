// The Perturbation cell end to end: tests/fixtures/trace-small.json (a
// synthetic trace of a VM without hardware counters, level 3 perturbing one
// metric) and, when `tickbook collect trace --quick` runs here, a fresh
// collection. Every chart must render; every number in the tables equals
// `tickbook analyze --json`, also after the DTW options change in the page.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot, readTable, num, sameNumber,
} from './harness.mjs';

let tmp, server, results, fresh = false;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, 'trace-small.json'), path.join(results, 'trace-small.json'));
  try {
    await tickbook(['collect', 'trace', '--quick', '--out', path.join(results, 'trace-fresh.json')], { timeout: 300_000 });
    fresh = true;
  } catch (e) {
    console.log(`# no fresh trace collection (${String(e.message).split('\n')[0]}); the fixture alone is checked`);
  }
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const clean = (problems) => {
  assert.deepEqual(problems.consoleErrors, []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.foreignRequests, []);
};

async function cli(file, extra = []) {
  const [r] = JSON.parse(await tickbook(['analyze', '--json', ...extra, path.join(results, file)], { okCodes: [0, 1] }));
  assert.ok(r.ok, `${file} reads`);
  assert.ok(r.trace, `${file} has a trace report`);
  return r.trace;
}

async function open(file) {
  const b = await openBrowser(server.url);
  await b.page.goto(`${server.url}?url=/results/${file}`);
  await waitForFiles(b.page, 1, 90_000);
  await waitCharts(b.page);
  return b;
}

const CHARTS = ['trace-matrices', 'trace-inner-overhead', 'trace-outer-overhead', 'trace-signals', 'trace-path'];

async function waitCharts(page) {
  for (const id of CHARTS) await page.waitForSelector(`[data-testid=${id}] svg`, { timeout: 30_000 });
}

/** The page's numbers for the selected workload against the CLI's. */
async function checkNumbers(page, w) {
  const levels = await readTable(page, '[data-testid=trace-level-row]', 'level');
  assert.equal(Object.keys(levels).length, w.levels.length);
  for (const l of w.levels) {
    const row = levels[String(l.level)];
    assert.ok(sameNumber(num(row.overhead), l.overhead), `overhead of level ${l.level}: ${row.overhead} vs ${l.overhead}`);
    assert.ok(sameNumber(num(row['wall-ns-mean']), l.wall_ns_mean));
    assert.equal(num(row['flagged-inner']), l.flagged_inner, `flagged inner at level ${l.level}`);
    assert.equal(num(row['flagged-outer']), l.flagged_outer, `flagged outer at level ${l.level}`);
    assert.equal(num(row.runs), l.runs);
  }
  for (const kind of ['inner', 'outer']) {
    const rows = await page.$$eval(`[data-testid=trace-${kind}-row]`, (rs) => rs.map((r) => ({
      level: Number(r.dataset.level), index: Number(r.dataset.index),
      ...Object.fromEntries([...r.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, c.dataset.value])),
    })));
    const expected = w.levels.filter((l) => l.level > 0).flatMap((l) => l[kind].map((c, index) => ({ level: l.level, index, c })));
    assert.equal(rows.length, expected.length, `${kind} rows`);
    for (const { level, index, c } of expected) {
      const row = rows.find((r) => r.level === level && r.index === index);
      assert.ok(sameNumber(num(row.correlation), c.correlation), `${kind} ρ at level ${level} #${index}: ${row.correlation} vs ${c.correlation}`);
      assert.ok(sameNumber(num(row.change), c.change), `${kind} change at level ${level} #${index}`);
      assert.ok(sameNumber(num(row.spread), c.spread), `${kind} spread at level ${level} #${index}`);
      assert.equal(row.flagged, String(c.flagged), `${kind} verdict at level ${level} #${index}`);
    }
  }
  // The alignment shown is the CLI's: its DTW distance and path length.
  const lvl = Number(await page.$eval('[data-testid=trace-example-level]', (s) => s.value));
  const ex = w.examples.find((e) => e.level === lvl);
  const run = w.runs.find((r) => r.level === ex.level && r.repetition === ex.repetition);
  const dist = await page.$eval('[data-testid=trace-dtw-distance]', (e) => e.dataset.value);
  assert.ok(sameNumber(num(dist), run.dtw_distance), `DTW distance ${dist} vs ${run.dtw_distance}`);
  assert.equal(Number(await page.$eval('[data-testid=trace-path]', (f) => f.dataset.steps)), ex.index1.length);
  // One heat-map cell per defined matrix entry of every level: the diagonal
  // of a metric not constant in some run of the level, and defined pairs.
  const diag = (l) => w.metrics.filter((_, i) => w.runs.some((r) => r.level === l.level && r.matrix[i][i] != null)).length;
  const defined = w.levels.reduce((n, l) => n + diag(l) + 2 * l.inner.filter((c) => c.correlation != null).length, 0);
  assert.equal(Number(await page.$eval('[data-testid=trace-matrices]', (f) => f.dataset.cells)), defined);
  assert.equal(await page.locator('[data-testid=trace-matrices] .trace-matrix-cell rect').count(), defined);
  // The overhead chart shows every pair, or (with many pairs) those flagged at some level.
  const shown = JSON.parse(await page.$eval('[data-testid=trace-inner-overhead]', (f) => f.dataset.shown));
  const flaggedSomewhere = w.pairs.map((_, i) => w.levels.some((l) => l.inner[i].flagged));
  const expectShown = w.pairs.length > 10 && flaggedSomewhere.some(Boolean)
    ? flaggedSomewhere.flatMap((f, i) => (f ? [i] : []))
    : w.pairs.map((_, i) => i);
  assert.deepEqual(shown, expectShown);
  const points = w.levels.reduce((n, l) => n + (l.overhead == null ? 0 : l.inner.filter((c, i) => c.correlation != null && shown.includes(i)).length), 0);
  assert.equal(await page.locator('[data-testid=trace-inner-overhead] .trace-point circle').count(), points);
}

test('the fixture: unavailable metrics, every chart, numbers equal the CLI, DTW options re-analyse', { timeout: 300_000 }, async () => {
  const t = await cli('trace-small.json');
  const w = t.workloads[0];
  const { page, problems, close } = await open('trace-small.json');
  try {
    // Hardware counters were refused: each is listed with its reason, and the
    // analysis says it fell back to the software metrics.
    const listed = await page.$$eval('[data-testid=trace-unavailable-metric]', (li) => li.map((x) => [x.dataset.metric, x.textContent]));
    assert.deepEqual(listed.map(([m]) => m), t.unavailable.map((u) => u.name));
    for (const [i, [, text]] of listed.entries()) assert.ok(text.includes(t.unavailable[i].reason));
    assert.equal(w.class, 'software');
    const note = await page.$eval('[data-testid=trace-class-note]', (e) => e.textContent);
    assert.ok(note.includes(w.class_note), note);
    // The perturbed level is flagged (the fixture's level 3 replaces page_faults).
    assert.ok(w.levels[3].flagged_inner > 0 && w.levels[3].flagged_outer > 0, 'the fixture perturbs level 3');
    await checkNumbers(page, w);
    await screenshot(page, 'trace-fixture');

    // symmetric1 with a band: re-analysed in the worker, equal to the CLI with the same options.
    const t1 = await cli('trace-small.json', ['--step-pattern', 'symmetric1', '--band', '12']);
    await page.selectOption('[data-testid=trace-step-pattern]', 'symmetric1');
    await page.waitForFunction(() => document.querySelector('.slot')?.dataset.options?.includes('"symmetric1"'));
    await page.fill('[data-testid=trace-band]', '12');
    await page.press('[data-testid=trace-band]', 'Enter');
    await page.waitForFunction(() => document.querySelector('.slot')?.dataset.options?.includes('"band":12'));
    await waitCharts(page);
    assert.equal(t1.step_pattern, 'symmetric1');
    assert.equal(t1.band, 12);
    await checkNumbers(page, t1.workloads[0]);
    assert.notEqual(t1.workloads[0].runs[1].dtw_distance, w.runs[1].dtw_distance, 'the options change the alignment');
    // A bad band is refused in the page, not sent.
    await page.fill('[data-testid=trace-band]', '-3');
    await page.press('[data-testid=trace-band]', 'Enter');
    assert.equal(await page.$eval('[data-testid=trace-band]', (e) => e.getAttribute('aria-invalid')), 'true');
    clean(problems);
  } finally {
    await close();
  }
});

test('the DTW benchmark button prints a time from the worker', { timeout: 120_000 }, async () => {
  const { page, problems, close } = await open('trace-small.json');
  try {
    await page.click('[data-testid=trace-bench]');
    await page.waitForFunction(() => document.querySelector('[data-testid=trace-bench-result]')?.dataset.value, null, { timeout: 60_000 });
    const ms = Number(await page.$eval('[data-testid=trace-bench-result]', (e) => e.dataset.value));
    const text = await page.$eval('[data-testid=trace-bench-result]', (e) => e.textContent);
    console.log(`# ${text}`);
    assert.ok(ms > 0 && Number.isFinite(ms), text);
    clean(problems);
  } finally {
    await close();
  }
});

test('a fresh `tickbook collect trace --quick` renders and matches the CLI', { timeout: 300_000 }, async (t) => {
  if (!fresh) return t.skip('tickbook collect trace --quick did not run here');
  const tr = await cli('trace-fresh.json');
  const { page, problems, close } = await open('trace-fresh.json');
  try {
    const listed = await page.$$eval('[data-testid=trace-unavailable-metric]', (li) => li.map((x) => x.dataset.metric));
    assert.deepEqual(listed, tr.unavailable.map((u) => u.name));
    for (const w of tr.workloads) {
      if (tr.workloads.length > 1) {
        await page.selectOption('[data-testid=trace-workload]', w.name);
        await waitCharts(page);
      }
      await checkNumbers(page, w);
    }
    await screenshot(page, 'trace-fresh');
    clean(problems);
  } finally {
    await close();
  }
});
