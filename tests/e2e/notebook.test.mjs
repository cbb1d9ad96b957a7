// The notebook end to end: a freshly collected run file, a bad file and a
// samples file, opened through the file picker and by a real drop; a big
// samples file whose rows come in parts; every number checked against
// `tickbook analyze --json`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, tickbook, analyzeJson, serve, openBrowser,
  waitForFiles, screenshot, readTable, num, sameNumber, assertClean,
} from './harness.mjs';
import { rm } from 'node:fs/promises';

const GARBAGE = path.join(FIXTURES, 'bad/garbage.json');
const SAMPLES = path.join(FIXTURES, 'samples-3x5.json');

let tmp, fresh, server, expected;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  fresh = path.join(tmp, 'fresh.json');
  await tickbook(['collect', 'clocks', '--quick', '--out', fresh], { timeout: 300_000 });
  const reports = await analyzeJson([fresh, GARBAGE, SAMPLES]);
  expected = Object.fromEntries(reports.map((r) => [path.basename(r.file), r]));
  assert.ok(expected['fresh.json']?.ok, `the fresh file must analyse: ${JSON.stringify(expected['fresh.json']?.error)}`);
  assert.ok(expected['fresh.json'].clocks, 'the fresh file must have a clocks section');
  server = await serve(path.join(tmp, 'results'));
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});


async function checkFileList(page) {
  const rows = await page.$$eval('[data-testid=file-row]', (trs) => trs.map((tr) => ({
    file: tr.dataset.file,
    status: tr.dataset.status,
    fields: Object.fromEntries([...tr.querySelectorAll('[data-field]')].map((c) => [c.dataset.field, c.textContent.trim()])),
  })));
  assert.deepEqual(rows.map((r) => [r.file, r.status]), [['fresh.json', 'ok'], ['garbage.json', 'error'], ['samples-3x5.json', 'ok']]);
  const info = expected['fresh.json'].info;
  const run = rows[0].fields;
  assert.equal(run.host, info.host);
  if (info.cpu) assert.equal(run.cpu, info.cpu);
  if (info.kernel) assert.equal(run.system, info.kernel);
  assert.equal(run.date, info.started_at);
  assert.equal(run.suites, info.suites.join(', '));
  assert.match(run.status, /^ok/);
  assert.match(rows[1].fields.status, /^error/);
  assert.match(rows[1].fields.status, /not valid JSON/);
  assert.equal(rows[2].fields.suites, undefined, 'a samples file: its kind says it all');
}

async function checkClocksCell(page) {
  const rep = expected['fresh.json'].clocks;
  const cell = page.locator('[data-testid=clocks-cell][data-file="fresh.json"]');
  assert.equal(await cell.count(), 1, 'one Clocks cell for fresh.json');
  assert.match(await cell.locator('.explain').innerText(), /batches/);

  // The table: one row per clock, in the report's order, numbers equal to the CLI's.
  const names = await cell.locator('[data-testid=clock-row]').evaluateAll((trs) => trs.map((t) => t.dataset.clock));
  assert.deepEqual(names, rep.clocks.map((c) => c.name));
  if (process.platform === 'linux') {
    for (const n of ['CLOCK_MONOTONIC', 'CLOCK_MONOTONIC_RAW', 'CLOCK_MONOTONIC_COARSE', 'CLOCK_REALTIME']) {
      assert.ok(names.includes(n), `${n} is in the table`);
    }
  }
  const table = await readTable(page, '[data-testid=clocks-cell][data-file="fresh.json"] [data-testid=clock-row]', 'clock');
  const fields = {
    nominal_resolution_ns: (c) => c.nominal_resolution_ns,
    observed_tick_ns: (c) => c.observed_tick_ns,
    modal_step_ns: (c) => c.modal_step_ns,
    read_cost_median_ns: (c) => c.read_cost?.median ?? null,
    read_cost_p99_ns: (c) => c.read_cost_p99_ns,
    violations: (c) => c.violations,
  };
  let compared = 0;
  for (const c of rep.clocks) {
    const row = table[c.name];
    assert.equal(row.available, String(c.available), `${c.name} availability`);
    if (!c.available) {
      const text = await cell.locator(`[data-testid=clock-row][data-clock="${c.name}"]`).innerText();
      if (c.unavailable_reason) assert.ok(text.includes(c.unavailable_reason), `${c.name} shows why it is unavailable`);
      continue;
    }
    for (const [stat, get] of Object.entries(fields)) {
      assert.ok(sameNumber(num(row[stat]), get(c) ?? null), `${c.name} ${stat}: page ${row[stat]}, CLI ${get(c)}`);
      compared += 1;
    }
  }
  assert.ok(compared >= 6, 'at least one available clock was compared');

  // The read-cost chart: an SVG with one line per clock that has an ECDF, and a legend.
  const withEcdf = rep.clocks.filter((c) => c.available && c.read_cost_ecdf.length);
  const chart = cell.locator('[data-testid=read-cost-chart]');
  const lines = await chart.locator('svg [aria-label=line] path').evaluateAll((ps) => ps.map((p) => (p.getAttribute('d') ?? '').length));
  assert.equal(lines.length, withEcdf.length, 'one ECDF line per clock');
  assert.ok(lines.every((len) => len > 20), 'every line has a path');
  const legend = await chart.innerText();
  for (const c of withEcdf) assert.ok(legend.includes(c.name), `legend names ${c.name}`);
  const label = await chart.locator('svg[role=img]').first().getAttribute('aria-label');
  assert.match(label, /logarithmic/);
  assert.ok(label.includes(withEcdf[0].name));
  // Log axis: tick labels span more than one decade.
  const ticks = await chart.locator('svg [aria-label="x-axis tick label"] text').evaluateAll((ts) => ts.map((t) => t.textContent));
  assert.ok(ticks.filter((t) => t.trim()).length >= 2, `x axis has labels: ${ticks}`);

  const histograms = await cell.locator('[data-testid=step-histogram] svg[role=img]').count();
  assert.equal(histograms, rep.clocks.filter((c) => c.available && c.step_histogram.length).length, 'one step histogram per scanned clock');

  // Frequency sources: every source, Hz as in the report, errors shown.
  const freq = await readTable(page, '[data-testid=clocks-cell][data-file="fresh.json"] [data-testid=frequency-row]', 'source');
  assert.deepEqual(Object.keys(freq), rep.frequency.sources.map((s) => s.name));
  for (const s of rep.frequency.sources) {
    assert.ok(sameNumber(num(freq[s.name].hz), s.hz ?? null), `${s.name} Hz`);
    assert.ok(sameNumber(num(freq[s.name].ppm_from_median), s.ppm_from_median ?? null), `${s.name} ppm`);
    if (s.error) {
      const text = await cell.locator(`[data-testid=frequency-row][data-source="${s.name}"]`).innerText();
      assert.ok(text.includes(s.error), `${s.name} shows its error`);
    }
  }
  if (rep.frequency.spread_ppm != null) {
    assert.ok(sameNumber(num(await cell.locator('[data-testid=spread-ppm]').getAttribute('data-value')), rep.frequency.spread_ppm));
    assert.ok(await cell.locator('[data-testid=ppm-chart] svg [aria-label=bar] rect').count() >= 2, 'ppm chart has bars');
  }
  const fallbacks = await cell.locator('[data-testid=fallbacks]').innerText();
  for (const f of rep.fallbacks) assert.ok(fallbacks.includes(f), `fallback listed: ${f}`);
}

async function checkErrorCard(page) {
  const card = page.locator('[data-testid=error-card][data-file="garbage.json"]');
  assert.equal(await card.count(), 1, 'one error card for garbage.json');
  const text = await card.innerText();
  assert.ok(text.includes('garbage.json'), 'the card names the file');
  assert.equal(await card.locator('[data-testid=error-message]').innerText(), expected['garbage.json'].error.message);
}

async function checkSamplesCell(page) {
  const rep = expected['samples-3x5.json'].samples;
  const sel = '[data-testid=samples-cell][data-file="samples-3x5.json"]';
  assert.equal(await page.locator(sel).count(), 1, 'one Samples cell');
  const summary = await readTable(page, `${sel} [data-testid=series-row]`, 'series');
  assert.deepEqual(Object.keys(summary), rep.series.map((s) => s.name));
  for (const s of rep.series) {
    const row = summary[s.name];
    const want = { n: s.summary.n, executions: s.executions, min: s.summary.min, q1: s.summary.q1, median: s.summary.median,
      mean: s.summary.mean, q3: s.summary.q3, max: s.summary.max, sd: s.summary.sd, cv: s.summary.cv };
    for (const [stat, value] of Object.entries(want)) {
      assert.ok(sameNumber(num(row[stat]), value), `${s.name} ${stat}: page ${row[stat]}, CLI ${value}`);
    }
  }
  // The formatted text too (12.50 ms for a 12.5 ms median).
  const median = await page.locator(`${sel} [data-testid=series-row][data-series=parse_1MiB] [data-stat=median]`).innerText();
  assert.equal(median.replace(/\s/g, ' '), '12.50 ms');

  const outliers = await page.$$eval(`${sel} [data-testid=outlier-row]`, (trs) => trs.map((t) => [t.dataset.series, Number(t.dataset.execution), Number(t.dataset.index)]));
  assert.deepEqual(outliers, rep.series.flatMap((s) => s.outliers.map((o) => [s.name, o.execution, o.index])));
  assert.ok(outliers.length >= 1, 'the fixture has an outlier (16.90 at executions[2][4])');

  const execs = await page.$$eval(`${sel} [data-testid=execution-row]`, (trs) => trs.map((t) => Number(t.querySelector('[data-stat=mean]').dataset.value)));
  const wantMeans = rep.series.flatMap((s) => s.per_execution.map((e) => e.mean));
  assert.equal(execs.length, wantMeans.length);
  execs.forEach((m, i) => assert.ok(sameNumber(m, wantMeans[i]), `execution mean ${i}`));

  // Box plots drawn from the report: one per series, with box, whiskers and outliers.
  const boxes = page.locator(`${sel} [data-testid=box-plot]`);
  assert.equal(await boxes.count(), rep.series.length);
  const first = boxes.first();
  assert.equal(await first.locator('svg [aria-label=bar] rect').count(), 1, 'the box');
  assert.ok(await first.locator('svg [aria-label=rule] line').count() >= 1, 'the whiskers');
  assert.equal(await first.locator('svg [aria-label=dot] > :is(circle, path)').count(), 1 + rep.series[0].outliers.length + rep.series[0].per_execution.length,
    'mean, outliers and per-execution means');
  assert.match(await first.locator('svg[role=img]').getAttribute('aria-label'), /median 12\.50/);
}

test('files opened with the picker: file list, Clocks, error card, Samples', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => document.getElementById('version').textContent.trim() !== '…');
    assert.match(await page.locator('[data-testid=version]').innerText(), /^\d+\.\d+\.\d+/);
    await page.setInputFiles('[data-testid=file-input]', [fresh, GARBAGE, SAMPLES]);
    await waitForFiles(page, 3);
    await checkFileList(page);
    await checkClocksCell(page);
    await checkErrorCard(page);
    await checkSamplesCell(page);
    await screenshot(page, 'notebook-light');

    // Changing the quantile definition re-analyses in the worker; numbers follow the CLI's.
    await page.selectOption('[data-testid=quantile-type]', '6');
    await page.waitForFunction(() => document.querySelector('[data-testid=samples-summary] caption')?.textContent.includes('type 6'));
    await waitForFiles(page, 3);
    const [t6] = await analyzeJson(['--quantile-type', '6', SAMPLES]);
    const q1 = await page.locator('[data-testid=series-row][data-series=parse_1MiB] [data-stat=q1]').getAttribute('data-value');
    assert.ok(sameNumber(Number(q1), t6.samples.series[0].summary.q1), `type 6 Q1: page ${q1}, CLI ${t6.samples.series[0].summary.q1}`);
    assert.notEqual(t6.samples.series[0].summary.q1, expected['samples-3x5.json'].samples.series[0].summary.q1, 'type 6 differs from type 7 here');

    // Removing a file removes its row and cell, the others stay.
    await page.click('[data-testid=file-row][data-file="garbage.json"] [data-testid=remove-file]');
    assert.equal(await page.locator('[data-testid=error-card]').count(), 0);
    assert.equal(await page.locator('[data-testid=file-row]').count(), 2);
    assertClean(problems);
  } finally {
    await close();
  }
});

test('files dropped on the page (DataTransfer drop event)', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url, { colorScheme: 'dark' });
  try {
    await page.goto(server.url);
    const files = await Promise.all([fresh, GARBAGE, SAMPLES].map(async (f) => ({ name: path.basename(f), text: await readFile(f, 'utf8') })));
    const overlayShown = await page.evaluate((items) => {
      const dt = new DataTransfer();
      for (const { name, text } of items) dt.items.add(new File([text], name, { type: 'application/json' }));
      const target = document.querySelector('main');
      target.dispatchEvent(new DragEvent('dragenter', { bubbles: true, cancelable: true, dataTransfer: dt }));
      target.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
      const shown = !document.getElementById('drop-overlay').hidden;
      const drop = new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt });
      target.dispatchEvent(drop);
      return { shown, prevented: drop.defaultPrevented, hiddenAfter: document.getElementById('drop-overlay').hidden };
    }, files);
    assert.deepEqual(overlayShown, { shown: true, prevented: true, hiddenAfter: true });
    await waitForFiles(page, 3);
    await checkFileList(page);
    await checkClocksCell(page);
    await checkErrorCard(page);
    await checkSamplesCell(page);
    await screenshot(page, 'notebook-dark');
    await page.setViewportSize({ width: 900, height: 900 });
    await page.waitForTimeout(300);
    await screenshot(page, 'notebook-narrow');
    assertClean(problems);
  } finally {
    await close();
  }
});

/** A samples file of `series` series × 5 executions × 40 measurements (deterministic). */
function bigSamples(series) {
  let x = 7;
  const r = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  return JSON.stringify({
    format: 'tickbook', format_version: '1.0', kind: 'samples', source: 'notebook.test.mjs',
    series: Array.from({ length: series }, (_, s) => {
      const base = 50 + 1000 * r();
      return {
        name: `bench_${String(s).padStart(3, '0')}`, unit: s % 3 === 2 ? 'us' : 'ns',
        executions: Array.from({ length: 5 }, () => {
          const shift = 0.03 * base * r();
          return Array.from({ length: 40 }, () => Math.round((base + shift + 0.02 * base * r() + (r() < 0.02 ? base : 0)) * 1e4) / 1e4);
        }),
      };
    }),
  });
}

test('a big samples file: its rows come in parts, then the whole cell equals analyze --json', { timeout: 180_000 }, async () => {
  // 150 series: the worker posts them in three parts (20, 80, 50: worker.js
  // FIRST_BATCH, BATCH), then the whole report.
  const file = path.join(tmp, 'big-samples.json');
  await writeFile(file, bigSamples(150));
  const [want] = await analyzeJson([file]);
  assert.ok(want.ok);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    // Record, as the page changes, whether the cell was shown before its
    // whole report, with how many series rows.
    await page.addInitScript(() => {
      window.__growing = [];
      new MutationObserver(() => {
        const cell = document.querySelector('[data-testid=samples-cell][data-growing=true]');
        const g = cell?.querySelector('[data-testid=samples-growing]');
        if (g && window.__growing.at(-1)?.done !== g.dataset.done) {
          window.__growing.push({ done: g.dataset.done, total: g.dataset.total, rows: cell.querySelectorAll('[data-testid=series-row]').length });
        }
      }).observe(document, { childList: true, subtree: true, attributes: true });
    });
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [file]);
    await waitForFiles(page, 1, 120_000);
    await page.waitForFunction(() => document.querySelector('.slot')?.dataset.options);
    const sel = '[data-testid=samples-cell][data-file="big-samples.json"]';
    const cell = page.locator(sel);
    assert.equal(await cell.count(), 1, 'one Samples cell');
    // Built once and grown: three parts before the whole report.
    assert.equal(await cell.getAttribute('data-parts'), '3', 'the rows came in three parts');
    assert.equal(await cell.getAttribute('data-growing'), null, 'the cell is whole');
    const seen = await page.evaluate(() => window.__growing);
    assert.ok(seen.length >= 1, 'the cell was shown before the whole report');
    assert.deepEqual(seen[0], { done: '20', total: '150', rows: 20 }, 'the first part: 20 series');
    assert.equal(await page.locator(`${sel} [data-testid=samples-growing]`).count(), 0, 'no progress line once whole');

    // Every row, behind "Show all" too, equals the CLI's.
    // A clicked button stays, disabled, while its rows are built a part per
    // task: click only the ones not yet clicked, or a slow machine waits on
    // a button that is about to go.
    for (let more = cell.locator('[data-testid=show-more]:not([disabled])'); await more.count();) await more.first().click();
    await page.waitForFunction((s) => ![...document.querySelectorAll(`${s} tbody`)].some((b) => b.dataset.total && b.dataset.shown !== b.dataset.total), sel);
    const summary = await readTable(page, `${sel} [data-testid=series-row]`, 'series');
    assert.deepEqual(Object.keys(summary), want.samples.series.map((x) => x.name));
    for (const x of want.samples.series) {
      const row = summary[x.name];
      const stats = { n: x.summary.n, executions: x.executions, min: x.summary.min, q1: x.summary.q1, median: x.summary.median,
        mean: x.summary.mean, q3: x.summary.q3, max: x.summary.max, sd: x.summary.sd, cv: x.summary.cv };
      for (const [stat, value] of Object.entries(stats)) assert.ok(sameNumber(num(row[stat]), value), `${x.name} ${stat}: page ${row[stat]}, CLI ${value}`);
    }
    const outliers = await page.$$eval(`${sel} [data-testid=outlier-row]`, (trs) => trs.map((t) => [t.dataset.series, Number(t.dataset.execution), Number(t.dataset.index)]));
    assert.deepEqual(outliers, want.samples.series.flatMap((x) => x.outliers.map((o) => [x.name, o.execution, o.index])));
    assert.ok(outliers.length > 0);
    const execs = await page.$$eval(`${sel} [data-testid=execution-row] [data-stat=mean]`, (tds) => tds.map((t) => Number(t.dataset.value)));
    const means = want.samples.series.flatMap((x) => x.per_execution.map((e) => e.mean));
    assert.equal(execs.length, means.length);
    execs.forEach((m, i) => assert.ok(sameNumber(m, means[i]), `execution mean ${i}`));
    // The clustering, which needs every series, came with the whole report.
    assert.ok(want.samples.clustering, 'the CLI clusters these series');
    assert.equal(await page.locator(`${sel} [data-testid=samples-clustering]`).count(), 1);
    assertClean(problems);
  } finally {
    await close();
  }
});
