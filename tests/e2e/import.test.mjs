// Results of other harnesses (docs/importers.md) in the page: every import
// fixture (JSON, JSON lines, Go's text, perf's CSV) opened through the file picker, a Criterion.rs folder through the
// folder picker; each series' mean and SD, and the per-execution statistics
// (pyperf worker runs, JMH forks), equal `tickbook analyze --json` for the
// same files, which the Rust tests tie to the tools' own figures; the file
// list says where each file came from; a truncated file names its format.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  FIXTURES, ARTIFACTS, WEB_DIST, checkPrerequisites, tempDir, tickbook, analyzeJson, serve, openBrowser, waitForFiles, screenshot, sameNumber, num, IMPORT_FIXTURES,
} from './harness.mjs';

const IMPORT = path.join(FIXTURES, 'import');
const FILES = IMPORT_FIXTURES.files;
const FOLDER = IMPORT_FIXTURES.folder;
const FOLDER_NAME = 'target-criterion/'; // as the page names a picked folder

let tmp, server, expected;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const reports = await analyzeJson([...FILES, FOLDER]);
  expected = Object.fromEntries(reports.map((r, i) => [i < FILES.length ? path.basename(r.file) : FOLDER_NAME, r]));
  for (const [name, r] of Object.entries(expected)) assert.ok(r.ok, `${name} must analyse: ${JSON.stringify(r.error)}`);
  server = await serve(tmp);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** {series name: {stat: number}} of a file's Samples summary table. */
async function summaryOf(page, file) {
  return page.$$eval(`[data-testid=samples-cell][data-file="${file}"] [data-testid=series-row]`, (rows) => Object.fromEntries(rows.map((r) => [
    r.dataset.series,
    Object.fromEntries([...r.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, c.dataset.value])),
  ])));
}

/** {series name: {value, lo, hi}} of the random-effects means in a file's execution statistics. */
async function reMeansOf(page, file) {
  return page.$$eval(`[data-testid=samples-cell][data-file="${file}"] [data-testid=exec-block]`, (blocks) => Object.fromEntries(blocks.map((b) => {
    const c = b.querySelector('[data-stat=re-mean]');
    return [b.dataset.series, c ? { value: c.dataset.value, lo: c.dataset.lo, hi: c.dataset.hi } : null];
  })));
}

test('every import fixture loads in the page with the CLI\'s numbers and its origin', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', FILES);
    await page.setInputFiles('[data-testid=folder-input]', FOLDER);
    // A JMH file cut short: an error naming the format.
    const jmh = await readFile(path.join(IMPORT, 'jmh/result.json'));
    await page.setInputFiles('[data-testid=file-input]', { name: 'cut-jmh.json', mimeType: 'application/json', buffer: jmh.subarray(0, jmh.length >> 1) });
    await waitForFiles(page, FILES.length + 2, 120_000);
    // Past a dozen cells the rest wait as placeholders until scrolled to:
    // build them all, as printing does.
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    await page.waitForFunction(() => !document.querySelector('[data-testid=cell-placeholder]'));

    const rows = await page.$$eval('[data-testid=file-row]', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.file, {
      status: tr.dataset.status,
      source: tr.querySelector('[data-testid=file-source]')?.textContent ?? null,
      text: tr.textContent,
    }])));
    for (const [name, r] of Object.entries(expected)) {
      assert.equal(rows[name]?.status, 'ok', `${name} loads: ${rows[name]?.text}`);
      assert.equal(rows[name].source, `from ${r.info.source}`, `${name}: the file list says where it came from`);
    }
    assert.equal(rows['cut-jmh.json'].status, 'error');
    assert.match(rows['cut-jmh.json'].text, /JMH JSON \(recognised by its content\): truncated JSON/);

    for (const [name, r] of Object.entries(expected)) {
      const shown = await summaryOf(page, name);
      assert.deepEqual(Object.keys(shown).sort(), r.samples.series.map((s) => s.name).sort(), `${name}: one row per series`);
      for (const s of r.samples.series) {
        for (const stat of ['mean', 'sd', 'median', 'min', 'max']) {
          assert.ok(sameNumber(num(shown[s.name][stat]), s.summary[stat]), `${name} ${s.name} ${stat}: page ${shown[s.name][stat]} vs CLI ${s.summary[stat]}`);
        }
        assert.equal(num(shown[s.name].executions), s.executions, `${name} ${s.name}: executions`);
      }
    }

    // Per-execution statistics where the format records executions.
    for (const name of ['timeit.json', 'suite.json', 'result.json']) {
      const re = await reMeansOf(page, name);
      const withExecutions = expected[name].samples.series.filter((s) => s.execution_stats?.random_effects?.ci);
      assert.ok(withExecutions.length >= 1, `${name}: some series has executions`);
      for (const s of withExecutions) {
        const want = s.execution_stats.random_effects;
        const got = re[s.name];
        assert.ok(got, `${name} ${s.name}: random-effects mean shown`);
        assert.ok(sameNumber(num(got.value), want.mean), `${name} ${s.name}: random-effects mean`);
        assert.ok(sameNumber(num(got.lo), want.ci[0]) && sameNumber(num(got.hi), want.ci[1]), `${name} ${s.name}: its CI`);
        assert.ok(s.executions >= 3, `${name} ${s.name}: executions grouped (${s.executions})`);
      }
    }
    // The tool's own figures agree with the page (JMH's score, Criterion's estimates).
    const jmhDoc = JSON.parse(jmh.toString());
    const jmhShown = await summaryOf(page, 'result.json');
    const sort100 = jmhDoc.find((b) => b.params?.size === '100');
    assert.ok(Math.abs(num(jmhShown['org.example.SortBench.sortArray (size=100)'].mean) / sort100.primaryMetric.score - 1) < 1e-12);
    const est = JSON.parse(await readFile(path.join(FOLDER, 'tiny/fib 10/new/estimates.json'), 'utf8'));
    const critShown = await summaryOf(page, FOLDER_NAME);
    assert.ok(Math.abs(num(critShown['tiny/fib 10'].mean) / est.mean.point_estimate - 1) < 1e-12);
    assert.ok(Math.abs(num(critShown['tiny/fib 10'].sd) / est.std_dev.point_estimate - 1) < 1e-12);

    // …and the page shows them beside its own, as the file records them.
    const scoreShown = await page.$eval('[data-testid=samples-cell][data-file="result.json"] [data-testid=tool-figures-row] [data-stat=score]', (e) => e.dataset.value);
    assert.equal(Number(scoreShown), jmhDoc[0].primaryMetric.score, 'JMH score shown as written');
    assert.equal(await page.locator('[data-testid=samples-cell][data-file="suite.json"] [data-testid=tool-figures]').count(), 0, 'pyperf files record no statistics of their own');

    await screenshot(page, 'import');
    await page.locator('#files').screenshot({ path: path.join(ARTIFACTS, 'import-files.png') });
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
    assert.deepEqual(problems.foreignRequests, [], 'requests that did not go to the local server');
  } finally {
    await close();
  }
});

test('inputs once refused or stripped load with the CLI\'s numbers, their warnings and their metadata', { timeout: 180_000 }, async () => {
  const { files, folder } = IMPORT_FIXTURES.more;
  const folderName = `${path.basename(folder)}/`;
  const reports = await analyzeJson([...files, folder]);
  const want = Object.fromEntries(reports.map((r, i) => [i < files.length ? path.basename(r.file) : folderName, r]));
  for (const [name, r] of Object.entries(want)) assert.ok(r.ok, `${name} must analyse: ${JSON.stringify(r.error)}`);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files);
    await page.setInputFiles('[data-testid=folder-input]', folder);
    await waitForFiles(page, files.length + 1, 120_000);
    const rows = await page.$$eval('[data-testid=file-row]', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.file, {
      status: tr.dataset.status,
      warnings: [...tr.querySelectorAll('[data-field=warnings] li')].map((li) => li.textContent),
    }])));
    for (const [name, r] of Object.entries(want)) {
      assert.equal(rows[name]?.status, 'ok', `${name} loads`);
      assert.deepEqual(rows[name].warnings, r.warnings, `${name}: the file list shows the CLI's warnings`);
      const shown = await summaryOf(page, name);
      assert.deepEqual(Object.keys(shown).sort(), r.samples.series.map((s) => s.name).sort(), `${name}: one row per series`);
      for (const s of r.samples.series) {
        for (const stat of ['mean', 'median', 'min', 'max']) {
          assert.ok(sameNumber(num(shown[s.name][stat]), s.summary[stat]), `${name} ${s.name} ${stat}: page ${shown[s.name][stat]} vs CLI ${s.summary[stat]}`);
        }
      }
    }
    assert.ok(rows['exit-codes.json'].warnings.some((w) => / every run failed /.test(w)), 'a command whose every run failed is warned');
    assert.ok(rows['aggregates.json'].warnings.some((w) => /no raw samples/.test(w)), 'aggregates only: no raw samples, said');

    // Metadata as the file records it: BigO fit, counters, exit codes, throughput.
    const meta = (file, series, key) => page.$eval(
      // JSON strings are CSS strings: names with quotes (sh -c "exit 3") stay whole.
      `[data-testid=samples-cell][data-file=${JSON.stringify(file)}] [data-testid=series-metadata-row][data-series=${JSON.stringify(series)}] [data-key=${JSON.stringify(key)}]`,
      (e) => e.dataset.value,
    ).catch(() => null);
    const complexity = JSON.parse(await readFile(files[2], 'utf8')).benchmarks;
    const bigO = complexity.find((b) => b.aggregate_name === 'BigO');
    assert.equal(await meta('complexity.json', 'BM_Sort/256 real_time', 'complexity.BigO.big_o'), bigO.big_o);
    assert.match(await meta('complexity.json', 'BM_Sort/256 real_time', 'counters.items_per_second') ?? '', /^\[\d/);
    const hf = JSON.parse(await readFile(files[3], 'utf8')).results;
    for (const res of hf) {
      assert.equal(await meta('exit-codes.json', res.command, 'exit_codes'), `[${res.exit_codes.join(', ')}]`, `${res.command}: exit codes shown`);
    }
    const bench = JSON.parse(await readFile(path.join(folder, 'linear/sum 4096 bytes/new/benchmark.json'), 'utf8'));
    assert.equal(await meta(folderName, 'linear/sum 4096 bytes', 'throughput.Bytes'), String(bench.throughput.Bytes));
    assert.equal(await meta(folderName, 'flat/fib 15', 'sampling_mode'), 'Flat');

    const table = page.locator('[data-testid=samples-cell][data-file="complexity.json"] [data-testid=series-metadata]');
    // Off-screen cells are not painted: bring it into view, let it paint.
    await table.scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await table.screenshot({ path: path.join(ARTIFACTS, 'import-metadata.png') });
    await page.locator('#files').screenshot({ path: path.join(ARTIFACTS, 'import-more-files.png') });
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
});

test('tickbook report takes a Criterion folder and an imported file', { timeout: 120_000 }, async () => {
  const out = path.join(tmp, 'imported.html');
  const suite = path.join(IMPORT, 'pyperf/suite.json');
  await tickbook(['report', FOLDER, suite, '-o', out, '--web-root', WEB_DIST]);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(pathToFileURL(out).href);
    await waitForFiles(page, 2, 60_000);
    for (const [file, want] of [[FOLDER, expected[FOLDER_NAME]], [suite, expected['suite.json']]]) {
      const shown = await summaryOf(page, file);
      for (const s of want.samples.series) {
        assert.ok(sameNumber(num(shown[s.name]?.mean), s.summary.mean), `${file} ${s.name}: mean in the report`);
      }
    }
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
});
