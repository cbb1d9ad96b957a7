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

// One real file of every importer format, and a figure its tool itself
// printed for it (the fixture READMEs and console files record them): the
// page's number, rounded as the tool rounds it, is that figure. `scale`: the
// printed unit in the series' unit (pyperf prints us of a series in s).
const PRINTED = [
  // [page name, series, stat (or tool:FIGURE), printed, scale, where the tool printed it]
  ['timeit.json', 'timeit', 'mean', '2.59', 1e-6, 'pyperf/timeit.stats.txt: Mean +- std dev: 2.59 us +- 0.69 us'],
  ['timeit.json', 'timeit', 'sd', '0.69', 1e-6, 'pyperf/timeit.stats.txt'],
  ['timeit.json.gz', 'timeit', 'mean', '1.58', 1e-6, 'pyperf/gz/timeit.json.gz.stats.txt: Mean +- std dev: 1.58 us +- 0.22 us'],
  ['timeit.json.gz', 'timeit', 'median', '1.52', 1e-6, 'pyperf/gz/timeit.json.gz.stats.txt: Median +- MAD: 1.52 us'],
  ['sleep.json', 'sleep 0.01', 'mean', '16.5', 1e-3, 'hyperfine/README.md: Time (mean ± σ): 16.5 ms ± 1.1 ms'],
  ['memory.json', 'python3 -c "x = bytearray(4_000_000)"', 'mean', '282.8', 1e-3, 'hyperfine/memory-console.txt (hyperfine 1.20)'],
  ['memory.json', 'python3 -c "x = bytearray(4_000_000)"', 'sd', '29.1', 1e-3, 'hyperfine/memory-console.txt'],
  ['complexity.json', 'BM_Sort/256 real_time', 'mean', '739', 1, 'googlebench/complexity-console.txt: BM_Sort/256_mean 739 ns'],
  ['aggregates.json', 'BM_Sort/64 real_time', 'mean', '221', 1, 'googlebench/aggregates-console.txt: BM_Sort/64_mean 221 ns'],
  ['cargo-criterion.ndjson', 'tiny/fib 10', 'mean', '300.78790710870464', 1, 'its benchmark-complete message, mean.estimate'],
  ['target-criterion/', 'tiny/fib 10', 'tool:slope', '290.19', 1, 'criterion/README.md: time: [271.16 ns 290.19 ns 319.97 ns]'],
  ['target-criterion-flat/', 'flat/fib 15', 'mean', '2.1582', 1e3, 'criterion/flat-console.txt: time: [1.9445 µs 2.1582 µs 2.4094 µs]'],
  ['pytest.json', 'test_sum[10000]', 'mean', '222.5357', 1e-6, 'pytest-benchmark/pytest.table.txt'],
  ['pytest.json', 'test_sum[10000]', 'median', '221.0470', 1e-6, 'pytest-benchmark/pytest.table.txt'],
  ['go-bench.txt', 'BenchmarkFib/n=10', 'min', '272.2', 1, 'the rows Go printed (gobench/README.md)'],
  ['go-bench.txt', 'BenchmarkJoin [B/op]', 'median', '320', 1, 'gobench/README.md: 320 B/op'],
  ['go-bench.json', 'BenchmarkFib/n=10', 'min', '259.5', 1, 'its output events: BenchmarkFib/n=10-2 … 259.5 ns/op'],
  ['perf-stat.csv', 'task-clock', 'mean', '201.21', 1, 'perf/perf-stat.report.txt: 201.21 msec task-clock'],
  ['perf-stat.csv', 'context-switches', 'mean', '90', 1, 'perf/perf-stat.report.txt: 90 context-switches'],
  ['perf-stat.json', 'task-clock', 'mean', '201.21', 1, 'perf/perf-stat.report.txt'],
  ['perf-stat.json', 'page-faults', 'mean', '9380', 1, 'perf/perf-stat.report.txt: 9380 page-faults'],
  ['runs-csv/', 'task-clock', 'max', '152.18', 1, 'perf/runs.report.txt, run1: 152.18 msec task-clock'],
  ['runs-csv/', 'context-switches', 'max', '117', 1, 'perf/runs.report.txt, run3: 117 context-switches'],
  ['runs-json/', 'task-clock', 'min', '143.14', 1, 'perf/runs.report.txt, run3: 143.14 msec task-clock'],
  ['runs-json/', 'cpu-migrations', 'min', '2', 1, 'perf/runs.report.txt, run3: 2 cpu-migrations'],
];

/** `value` rounded to the decimals of `printed` (in units of `scale`) is `printed`. */
function asPrinted(value, printed, scale) {
  const decimals = printed.split('.')[1]?.length ?? 0;
  const half = 0.5 * 10 ** -decimals * scale;
  return Math.abs(value - Number(printed) * scale) <= half * (1 + 1e-9);
}

test('every importer format shows in the page a figure its tool printed for the file', { timeout: 240_000 }, async () => {
  const files = [
    'pyperf/timeit.json', 'pyperf/gz/timeit.json.gz', 'hyperfine/sleep.json', 'hyperfine/memory.json',
    'googlebench/complexity.json', 'googlebench/aggregates.json', 'criterion/cargo-criterion.ndjson',
    'pytest-benchmark/pytest.json', 'gobench/go-bench.txt', 'gobench/go-bench.json', 'perf/perf-stat.csv', 'perf/perf-stat.json',
  ].map((f) => path.join(IMPORT, f));
  const folders = ['criterion/target-criterion', 'criterion/target-criterion-flat', 'perf/runs-csv', 'perf/runs-json'].map((f) => path.join(IMPORT, f));
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files);
    for (const [i, folder] of folders.entries()) {
      await page.setInputFiles('[data-testid=folder-input]', folder);
      await waitForFiles(page, files.length + i + 1, 120_000);
    }
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    await page.waitForFunction(() => !document.querySelector('[data-testid=cell-placeholder]'));
    const status = await page.$$eval('[data-testid=file-row]', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.file, tr.dataset.status])));
    for (const name of new Set(PRINTED.map(([f]) => f))) assert.equal(status[name], 'ok', `${name} loads (${JSON.stringify(status)})`);

    const covered = new Set();
    for (const [file, series, stat, printed, scale, where] of PRINTED) {
      let value;
      if (stat.startsWith('tool:')) {
        value = await page.$eval(`[data-testid=samples-cell][data-file="${file}"] [data-testid=tool-figures-row][data-series=${JSON.stringify(series)}] [data-stat="${stat.slice(5)}"]`, (e) => e.dataset.value);
      } else {
        value = (await summaryOf(page, file))[series]?.[stat];
      }
      assert.ok(value != null, `${file} ${series}: ${stat} shown`);
      assert.ok(asPrinted(Number(value), printed, scale), `${file} ${series} ${stat}: page ${value}, the tool printed ${printed} (${where})`);
      covered.add(file);
    }
    assert.equal(covered.size, files.length + folders.length, 'a printed figure for every file and folder');

    // A folder of perf stat runs: one series per event, one execution per file.
    const runs = await summaryOf(page, 'runs-csv/');
    assert.deepEqual(Object.keys(runs).sort(), ['context-switches', 'cpu-migrations', 'page-faults', 'task-clock']);
    for (const s of Object.values(runs)) assert.equal(num(s.executions), 3);
    // Counts are whole numbers on the page too.
    const shownText = (file, series, stat) => page.$eval(`[data-testid=samples-cell][data-file="${file}"] [data-testid=series-row][data-series=${JSON.stringify(series)}] [data-stat=${stat}]`, (c) => c.textContent.replace(/\u202f/g, ' '));
    assert.equal(await shownText('perf-stat.csv', 'context-switches', 'mean'), '90 count');
    assert.equal(await shownText('go-bench.txt', 'BenchmarkJoin [allocs/op]', 'median'), '1 allocs/op');
    assert.equal(await shownText('memory.json', 'python3 -c "x = bytearray(4_000_000)" [max RSS]', 'max'), '17 813 504 bytes');
    await screenshot(page, 'import-printed');
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
});

test('hyperfine 1.20 peak memory compares as memory: MiB, larger or smaller', { timeout: 120_000 }, async () => {
  const pair = ['a.json', 'b.json'].map((f) => path.join(FIXTURES, 'compare/hyperfine', f));
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', pair);
    await waitForFiles(page, 2, 60_000);
    await page.waitForSelector('[data-testid=compare-row]', { timeout: 60_000 });
    const rows = await page.$$eval('[data-testid=compare-row]', (trs) => trs.map((r) => ({ key: r.dataset.key, text: r.textContent.replace(/\u202f/g, ' ') })));
    const mem = rows.find((r) => r.key.includes('[max RSS]'));
    assert.ok(mem, `a memory row among ${rows.map((r) => r.key)}`);
    assert.match(mem.text, /16\.97\d* MiB/, mem.text);
    assert.match(mem.text, /51\.19\d* MiB/, mem.text);
    assert.match(mem.text, /larger/, mem.text);
    assert.doesNotMatch(mem.text, /faster|slower/, mem.text);
    await page.locator('[data-testid=compare-cell]').screenshot({ path: path.join(ARTIFACTS, 'compare-memory.png') });
    assert.deepEqual(problems.pageErrors, [], 'page errors');
  } finally {
    await close();
  }
});
