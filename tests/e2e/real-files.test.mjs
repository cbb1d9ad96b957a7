// Result files other people wrote with the tools and committed to public
// repositories (tests/fixtures/import/real; each folder's README gives the
// source) in the page:
//  - every benchmark's mean and median in the Samples table equal the
//    tool's own figure (expected.json beside the files: what the tool
//    printed or stored, or for Go and perf the value on each line) to 1e-9
//    relative, Go's before and after kept apart;
//  - the Files table names the CPU and system the tool's metadata gives,
//    and fits a 1024 px window without scrolling sideways;
//  - a file of unrelated benchmarks (pyperf's) opens with none compared
//    with another, and compares them on request as analyze
//    --compare-series --every-series does; one benchmark under two
//    configurations (Go's) compares them; a hyperfine file of two commands
//    still opens with "A ran N ± e times faster than B".

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tickbook, serve, tempDir, openBrowser, waitForFiles, screenshot, sameNumber, num, assertClean,
} from './harness.mjs';

const REAL = path.join(FIXTURES, 'import/real');
let server;

before(async () => {
  await checkPrerequisites();
  server = await serve(await tempDir());
});

after(async () => {
  await server?.stop();
});

/** Seconds per unit of a time unit as the tools and tickbook write them. */
function seconds(unit) {
  return {
    ns: 1e-9, 'ns/op': 1e-9, us: 1e-6, 'us/op': 1e-6, 'µs/op': 1e-6,
    ms: 1e-3, 'ms/op': 1e-3, msec: 1e-3, s: 1, 's/op': 1, second: 1, seconds: 1,
  }[unit];
}

/** The tool's figure in the series' unit (times converted, others as written). */
function inUnit(x, toolUnit, unit) {
  const a = seconds(toolUnit);
  const b = seconds(unit);
  return a != null && b != null ? (x * a) / b : x;
}

/** {file: [{series, tool_unit, mean, median}]} of a folder's expected.json. */
async function expectedOf(folder) {
  const out = {};
  for (const e of JSON.parse(await readFile(path.join(REAL, folder, 'expected.json'), 'utf8'))) (out[e.file] ??= []).push(e);
  return out;
}

/** {series: {unit, mean, median}} of a file's Samples table. */
async function samplesOf(page, file) {
  return page.$$eval(`[data-testid=samples-cell][data-file="${file}"] [data-testid=series-row]`, (rows) => Object.fromEntries(rows.map((r) => [
    r.dataset.series,
    { unit: r.dataset.unit, mean: r.querySelector('[data-stat=mean]')?.dataset.value, median: r.querySelector('[data-stat=median]')?.dataset.value },
  ])));
}

test('real files: every benchmark\'s mean and median are the tool\'s, the Files table names CPU and system and fits 1024 px', { timeout: 300_000 }, async () => {
  // Every file each folder's expected.json names; perf's printed tables
  // one at a time (two picked together would be runs of one command).
  const folders = (await readdir(REAL, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  const batches = [];
  const want = {};
  for (const folder of folders) {
    if (folder === 'criterion-0.3') continue;
    const expected = await expectedOf(folder).catch(() => ({}));
    Object.assign(want, expected);
    const files = Object.keys(expected).map((f) => path.join(REAL, folder, f));
    if (folder === 'perf-text') batches.push(...files.map((f) => [f]));
    else if (files.length) batches.push(files);
  }
  const count = batches.flat().length;
  assert.ok(count >= 10, `the real fixtures hold at least ten files (${count})`);
  const { page, problems, close } = await openBrowser(server.url, { viewport: { width: 1024, height: 900 } });
  try {
    await page.goto(server.url);
    for (const [k, files] of batches.entries()) {
      await page.setInputFiles('[data-testid=file-input]', files);
      await waitForFiles(page, batches.slice(0, k + 1).flat().length, 120_000);
    }
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    await page.waitForFunction(() => !document.querySelector('[data-testid=cell-placeholder]'), null, { timeout: 120_000 });
    let checked = 0;
    for (const [file, entries] of Object.entries(want)) {
      const shown = await samplesOf(page, file);
      for (const e of entries) {
        const s = shown[e.series];
        assert.ok(s, `${file}: a row for ${e.series} (rows: ${Object.keys(shown).join(', ')})`);
        for (const stat of ['mean', 'median']) {
          const tool = inUnit(e[stat], e.tool_unit, s.unit);
          const got = num(s[stat]);
          assert.ok(Math.abs(got - tool) <= 1e-9 * Math.abs(tool) || got === tool, `${file} ${e.series} ${stat}: page ${got}, tool ${tool}`);
        }
        checked += 1;
      }
    }
    console.log(`# ${checked} benchmarks of ${Object.keys(want).length} files equal their tools' figures`);
    assert.ok(checked >= 100, `checked ${checked}`);
    // Go's configurations, never pooled: before 114.8 ns, after 78.8 ns.
    const go = await samplesOf(page, 'issue19634.txt');
    assert.ok(sameNumber(num(go['BenchmarkFloatSub/100 (note=before)'].mean), 114.8));
    assert.ok(sameNumber(num(go['BenchmarkFloatSub/100 (note=after)'].mean), 78.8));

    // What the tools' metadata says of the machine, in the Files table.
    const row = async (file) => page.$eval(`[data-testid=file-row][data-file="${file}"]`, (tr) => ({
      cpu: tr.querySelector('[data-field=cpu]')?.textContent ?? null,
      system: tr.querySelector('[data-field=system]')?.textContent ?? null,
    }));
    const telco = JSON.parse(await readFile(path.join(REAL, 'pyperf/telco.json'), 'utf8')).metadata;
    assert.deepEqual(await row('telco.json'), { cpu: `${telco.cpu_model_name} (${telco.cpu_count} CPUs)`, system: telco.platform });
    const gb = JSON.parse(await readFile(path.join(REAL, 'googlebench/test1_run1.json'), 'utf8')).context;
    assert.equal((await row('test1_run1.json')).cpu, `${gb.num_cpus} CPUs at ${gb.mhz_per_cpu} MHz`);
    const jmh = JSON.parse(await readFile(path.join(REAL, 'jmh/output-golden.json'), 'utf8'))[0];
    assert.equal((await row('output-golden.json')).system, `${jmh.vmName} ${jmh.vmVersion}`);

    // The Files table at 1024 px: no sideways scrolling.
    const wide = await page.$eval('[data-testid=file-list] table', (t) => {
      const wrap = t.closest('.table-wrap') ?? t.parentElement;
      return { table: t.scrollWidth, room: wrap.clientWidth, wrapScroll: wrap.scrollWidth };
    });
    assert.ok(wide.wrapScroll <= wide.room + 1, `the Files table is ${wide.wrapScroll} px wide in ${wide.room} px`);
    await page.evaluate(() => document.getElementById('files').scrollIntoView());
    await screenshot(page, 'real-files-1024');
    assertClean(problems);
  } finally {
    await close();
  }
});

/** The series comparison as the page shows it: scope, groups and rows. */
async function seriesComparison(page) {
  return page.$eval('[data-testid=compare-cell][data-series=true][data-built=true]', (cell) => ({
    byGroup: cell.dataset.byGroup,
    scope: cell.querySelector('[data-testid=series-scope]')?.dataset.scope ?? null,
    groups: [...cell.querySelectorAll('[data-testid=series-group]')].map((g) => ({
      group: g.dataset.group,
      unit: g.dataset.unit,
      rows: [...g.querySelectorAll('[data-testid=series-compare-row]')].map((r) => ({ series: r.dataset.series, value: r.dataset.value, ratio: r.dataset.ratio ?? null, verdict: r.dataset.verdict ?? null })),
      summary: g.querySelector('[data-testid=series-summary]')?.textContent ?? '',
    })),
  }));
}

function assertSameComparison(shown, want, what) {
  assert.deepEqual(shown.groups.map((g) => [g.group, g.unit]), want.groups.map((g) => [g.group ?? '', g.unit]), `${what}: groups`);
  want.groups.forEach((g, k) => {
    assert.deepEqual(shown.groups[k].rows.map((r) => r.series), g.series, `${what}: ${g.unit} series`);
    g.series.forEach((name, i) => {
      const r = shown.groups[k].rows[i];
      assert.ok(sameNumber(num(r.value), g.values[i]?.estimate ?? null), `${what}: ${name} value`);
      if (i) {
        assert.ok(sameNumber(num(r.ratio), g.against_reference[i - 1].ratio?.estimate ?? null), `${what}: ${name} ratio`);
        assert.equal(r.verdict, g.against_reference[i - 1].verdict, `${what}: ${name} verdict`);
      }
    });
  });
}

async function openAlone(file, fn) {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [file]);
    await waitForFiles(page, 1, 120_000);
    await fn(page);
    assertClean(problems);
  } finally {
    await close();
  }
}

test('unrelated benchmarks open uncompared and compare on request; configurations and hyperfine\'s commands are compared', { timeout: 300_000 }, async () => {
  // pyperf never compares the benchmarks of one file.
  const pyperf = path.join(REAL, 'pyperf/mult_list_py38.json');
  const grouped = JSON.parse(await tickbook(['analyze', '--compare-series', '--json', pyperf]));
  const every = JSON.parse(await tickbook(['analyze', '--compare-series', '--every-series', '--json', pyperf]));
  assert.equal(grouped.groups.length, 0, 'the CLI compares none of them');
  assert.ok(grouped.alone.length >= 3 && every.groups.length === 1, 'and all on request');
  await openAlone(pyperf, async (page) => {
    await page.waitForSelector('[data-testid=compare-cell][data-series=true][data-built=true]', { timeout: 120_000 });
    let shown = await seriesComparison(page);
    assert.equal(shown.byGroup, 'true');
    assert.equal(shown.scope, 'groups');
    assert.deepEqual(shown.groups, [], 'nothing compared');
    assert.equal(await page.locator('[data-testid=series-alone]').getAttribute('data-count'), String(grouped.alone.length));
    await page.click('[data-testid=series-every]');
    await page.waitForSelector('[data-testid=compare-cell][data-by-group=false][data-built=true]', { timeout: 120_000 });
    shown = await seriesComparison(page);
    assert.equal(shown.scope, 'every');
    assertSameComparison(shown, every, 'pyperf, every series');
    // And back.
    await page.click('[data-testid=series-every]');
    await page.waitForSelector('[data-testid=compare-cell][data-by-group=true][data-built=true]', { timeout: 120_000 });
  });

  // One Go benchmark under two configurations: before against after.
  const go = path.join(REAL, 'go/issue19634.txt');
  const goWant = JSON.parse(await tickbook(['analyze', '--compare-series', '--json', go]));
  assert.deepEqual(goWant.groups.map((g) => g.group), ['BenchmarkFloatSub/100']);
  await openAlone(go, async (page) => {
    await page.waitForSelector('[data-testid=compare-cell][data-series=true][data-built=true]', { timeout: 120_000 });
    const shown = await seriesComparison(page);
    assertSameComparison(shown, goWant, 'go');
    assert.deepEqual(shown.groups[0].rows.map((r) => r.series), ['BenchmarkFloatSub/100 (note=after)', 'BenchmarkFloatSub/100 (note=before)']);
    assert.equal(shown.groups[0].rows[1].verdict, 'different');
  });

  // hyperfine's commands are alternatives: compared as before, with its summary.
  const hf = path.join(FIXTURES, 'import/hyperfine/sleep.json');
  const hfWant = JSON.parse(await tickbook(['analyze', '--compare-series', '--json', hf]));
  assert.equal(hfWant.alternatives, 'all');
  await openAlone(hf, async (page) => {
    await page.waitForSelector('[data-testid=compare-cell][data-series=true][data-built=true]', { timeout: 120_000 });
    const shown = await seriesComparison(page);
    assert.equal(shown.scope, null, 'no note on which series are compared');
    assertSameComparison(shown, hfWant, 'hyperfine');
    assert.match(shown.groups[0].summary, /ran\n\s+[\d.]+ ± [\d.]+ times (faster|slower) than '/);
  });
});
