// Imported benchmarks clustered by cost: the Google Benchmark
// fixture (six time series) shows the Samples cell's clustering, whose cluster
// count at each of the six granularity cuts, the granularities and the members
// at the median cut equal `tickbook analyze --json`; the one-series pyperf
// timeit file shows none.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, analyzeJson, serve, openBrowser, waitForFiles, sameNumber,
} from './harness.mjs';

const IMPORT = path.join(FIXTURES, 'import');
const GBENCH = path.join(IMPORT, 'googlebench/repetitions.json');
const TIMEIT = path.join(IMPORT, 'pyperf/timeit.json');

let tmp, server, expected;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const [g, t] = await analyzeJson([GBENCH, TIMEIT]);
  assert.ok(g.ok && t.ok);
  expected = g.samples.clustering;
  assert.ok(expected, 'the Google Benchmark fixture is clustered by the CLI');
  assert.ok(expected.names.length >= 3);
  assert.equal(t.samples.clustering, null, 'one series: no clustering');
  server = await serve(tmp);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the Samples cell clusters imported series by cost as the CLI does', { timeout: 120_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [GBENCH, TIMEIT]);
    await waitForFiles(page, 2, 90_000);
    const cell = '[data-testid=samples-cell][data-file="repetitions.json"]';
    await page.waitForSelector(`${cell} [data-testid=samples-clustering] [data-testid=cuts-table]`);
    const cuts = await page.$$eval(`${cell} [data-testid=cut-row]`, (rows) => rows.map((r) => ({
      statistic: r.dataset.statistic,
      clusters: Number(r.querySelector('[data-stat=clusters]').dataset.value),
      granularity: r.querySelector('[data-stat=granularity_ns]').dataset.value,
    })));
    const want = expected.clustering.cuts;
    assert.deepEqual(cuts.map((c) => c.statistic), want.map((c) => c.statistic));
    assert.deepEqual(cuts.map((c) => c.clusters), want.map((c) => c.clusters));
    for (const [i, c] of cuts.entries()) assert.ok(sameNumber(Number(c.granularity), want[i].granularity_ns), `granularity at ${c.statistic}: ${c.granularity} vs ${want[i].granularity_ns}`);
    // Not a degenerate fixture: the cuts tell series apart.
    assert.ok(Math.max(...want.map((c) => c.clusters)) >= 3, JSON.stringify(want.map((c) => c.clusters)));

    // Members at the median cut (the default statistic), in order of cost.
    const median = want.find((c) => c.statistic === 'median');
    const members = await page.$$eval(`${cell} [data-testid=cluster-row] [data-stat=names]`, (tds) => tds.map((td) => td.dataset.value));
    assert.deepEqual(members, median.members.map((m) => m.names.join(' ')));
    assert.equal(await page.locator(`${cell} [data-testid=dendrogram]`).count(), 1);

    assert.equal(await page.locator('[data-testid=samples-cell][data-file="timeit.json"] [data-testid=samples-clustering]').count(), 0);
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
    assert.deepEqual(problems.foreignRequests, [], 'no requests elsewhere');
  } finally {
    await close();
  }
});
