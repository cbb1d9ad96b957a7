// The Commands cell on a file `tickbook run` wrote
// (tests/fixtures/run-commands.json): every number of its tables, read back
// from the page's cells (data-value and the text shown), equals `tickbook
// analyze --json`, and the verdicts are the report's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, assertClean, checkPrerequisites, tempDir, serve, openBrowser, waitForFiles, analyzeJson, sameNumber,
} from './harness.mjs';

let tmp, server, results;
const FILE = 'run-commands.json';

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, FILE), path.join(results, FILE));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the Commands cell shows analyze --json’s numbers and verdicts', { timeout: 120_000 }, async () => {
  const [report] = await analyzeJson([path.join(results, FILE)]);
  const r = report.commands;
  assert.ok(r.commands.length >= 2 && r.comparisons.length >= 1);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${FILE}`);
    await waitForFiles(page, 1, 60_000);
    await page.waitForSelector('[data-testid=commands-table]', { timeout: 60_000 });
    const rows = await page.$$eval('[data-testid=commands-row]', (trs) => trs.map((tr) => ({
      command: tr.dataset.command,
      cells: Object.fromEntries([...tr.querySelectorAll('td[data-stat]')].map((td) => [td.dataset.stat, { value: td.dataset.value, text: td.textContent }])),
    })));
    assert.deepEqual(rows.map((x) => x.command), r.commands.map((c) => c.name));
    rows.forEach((row, i) => {
      const c = r.commands[i];
      for (const key of ['runs', 'failed_runs', 'mean_ns', 'sd_ns', 'median_ns', 'min_ns', 'max_ns', 'user_mean_ns', 'sys_mean_ns', 'max_rss_kib']) {
        assert.ok(sameNumber(Number(row.cells[key].value), c[key]), `${c.name} ${key}: page ${row.cells[key].value}, json ${c[key]}`);
        assert.notEqual(row.cells[key].text, '', `${c.name} ${key} shown`);
      }
      assert.ok(sameNumber(Number(row.cells.drift.value), c.drift.over_run), `${c.name} drift`);
    });
    const comparisons = await page.$$eval('[data-testid=commands-comparison]', (trs) => trs.map((tr) => ({
      command: tr.dataset.command,
      stats: Object.fromEntries([...tr.querySelectorAll('[data-stat]')].map((el) => [el.dataset.stat, el.dataset.value])),
      paired: tr.querySelector('[data-testid=paired-verdict]').dataset.value,
      measure: tr.querySelector('[data-testid=paired-verdict]').dataset.measure,
      why: tr.querySelector('[data-testid=paired-verdict]').title,
      unpaired: tr.querySelector('[data-testid=unpaired-verdict]').dataset.value,
      cpu: tr.querySelector('[data-testid=cpu-verdict]').dataset.value,
    })));
    assert.equal(comparisons.length, r.comparisons.length);
    comparisons.forEach((row, i) => {
      const c = r.comparisons[i];
      assert.equal(row.command, r.commands[c.command].name);
      assert.ok(sameNumber(Number(row.stats.pairs), c.paired.rounds));
      for (const [stat, ci] of [['paired-ratio', c.paired.ratio], ['unpaired-ratio', c.unpaired.ratio], ['cpu-ratio', c.paired_cpu.ratio]]) {
        assert.ok(sameNumber(Number(row.stats[stat]), ci.estimate), `${stat} estimate`);
        assert.ok(sameNumber(Number(row.stats[`${stat}_lo`]), ci.lo), `${stat} lo`);
        assert.ok(sameNumber(Number(row.stats[`${stat}_hi`]), ci.hi), `${stat} hi`);
      }
      assert.ok(sameNumber(Number(row.stats['paired-p']), c.paired.test.p_value));
      assert.ok(sameNumber(Number(row.stats['unpaired-p']), c.unpaired.test.p_value));
      assert.ok(sameNumber(Number(row.stats['relative-speed']), c.relative_speed));
      assert.equal(row.paired, c.paired.verdict);
      assert.equal(row.measure, c.measure.time);
      assert.equal(row.why, `Paired by ${c.measure.why}`);
      assert.equal(row.unpaired, c.unpaired.verdict);
      assert.equal(row.cpu, c.paired_cpu.verdict);
    });
    assertClean(problems);
  } finally {
    await close();
  }
});
