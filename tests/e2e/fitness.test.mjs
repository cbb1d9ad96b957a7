// The file's Fitness card: a fresh `tickbook collect ops --quick` (which
// writes the environment section) dropped on the page shows the verdict and
// every finding, each figure, level and worst interval equal to `tickbook
// analyze --json`'s, and the core clock per sample; a fixture without an
// environment section has no card.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, readFile, writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, analyzeJson, assertClean, num, sameNumber,
} from './harness.mjs';

let tmp, server, fresh, realOps, sharedOps;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  fresh = path.join(results, 'fresh-ops.json');
  await tickbook(['collect', 'ops', '--quick', '--out', fresh], { timeout: 400_000 });
  // A real quick ops file of the development machine, and the same with
  // its integer throughputs twice as slow (a sibling thread's share).
  const text = gunzipSync(await readFile(path.join(FIXTURES, 'run-ops-quick.json.gz'))).toString('utf8');
  realOps = path.join(results, 'ops-real.json');
  await writeFile(realOps, text);
  const v = JSON.parse(text);
  const d = v.suites.find((x) => x.suite === 'ops').data;
  for (const list of [d.ops, ...d.probes.map((p) => p.ops)]) {
    for (const op of list) {
      if (op.form !== 'throughput' || !['integer', 'conversion', 'bit'].includes(op.group)) continue;
      op.counter_2n_ticks = op.counter_2n_ticks.map((b, i) => {
        const a = op.counter_n_ticks[i];
        return b >= a ? a + 2 * (b - a) : b;
      });
    }
  }
  sharedOps = path.join(results, 'ops-shared.json');
  await writeFile(sharedOps, JSON.stringify(v));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the Fitness card shows the analysis\' verdict and findings, figures equal to analyze --json', { timeout: 240_000 }, async () => {
  const old = path.join(FIXTURES, 'run-clocks.json');
  const [cli, oldCli] = await analyzeJson([fresh, old]);
  const f = cli.fitness;
  assert.ok(f, 'a fresh collection has a fitness');
  assert.equal(oldCli.fitness, undefined, 'a file without an environment has none');
  // Six signals of the environment and the ops table's issue width.
  assert.equal(f.findings.length, 7);
  assert.equal(f.findings.at(-1).signal, 'shared_core');
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [fresh, old]);
    await waitForFiles(page, 2);
    const card = page.locator(`[data-testid=fitness-cell][data-file="${path.basename(fresh)}"]`);
    await card.waitFor();
    assert.equal(await page.locator(`[data-testid=fitness-cell][data-file="${path.basename(old)}"]`).count(), 0);
    assert.equal(await card.getAttribute('data-verdict'), f.verdict);
    assert.match(await card.locator('[data-testid=fitness-verdict]').innerText(), new RegExp(`^${f.verdict} over`));
    // The card comes first among the file's cells.
    const first = await page.evaluate((file) => document.querySelector(`.slot section.cell[data-file="${file}"]`)?.dataset.testid, path.basename(fresh));
    assert.equal(first, 'fitness-cell');
    const rows = await card.locator('[data-testid=fitness-findings] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      signal: tr.dataset.signal,
      level: tr.dataset.level,
      levelText: tr.querySelector('td.level').textContent,
      figure: tr.querySelector('[data-stat=figure]').dataset.value,
      text: tr.cells[3].textContent,
    })));
    assert.deepEqual(rows.map((r) => r.signal), f.findings.map((x) => x.signal));
    for (const [r, x] of rows.map((r, i) => [r, f.findings[i]])) {
      assert.equal(r.level, x.level, x.signal);
      assert.equal(r.levelText, x.level, x.signal);
      assert.ok(sameNumber(num(r.figure), x.figure ?? null), `${x.signal}: page ${r.figure}, CLI ${x.figure}`);
      if (x.figure == null) assert.match(r.text, /^not measured: /, x.signal);
      else assert.ok(r.text.startsWith(x.text), `${x.signal}: ${r.text}`);
      if (x.worst) assert.ok(r.text.includes(x.worst.interval), `${x.signal}: the worst interval named`);
    }
    const clocks = f.core_clock_ghz.filter(([, g]) => g != null);
    if (clocks.length) {
      const text = await card.locator('[data-testid=fitness-clock]').innerText();
      for (const [at] of clocks) assert.ok(text.includes(at), `core clock at ${at}: ${text}`);
    }
    assertClean(problems);
  } finally {
    await close();
  }
});

test('a cell measured while disturbed says so beside its numbers; a shared core names its factor', { timeout: 240_000 }, async () => {
  const [real, shared] = await analyzeJson([realOps, sharedOps]);
  assert.equal(real.ops.issue.shared, false);
  assert.equal(shared.ops.issue.shared, true);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [realOps, sharedOps]);
    await waitForFiles(page, 2);
    for (const cli of [real, shared]) {
      const file = path.basename(cli.file);
      const cell = page.locator(`[data-testid=ops-cell][data-file="${file}"]`);
      await cell.waitFor();
      // The notes under the title are the report's, one per affected stretch.
      const want = cli.fitness.affects.filter((a) => a.cell === 'ops').map((a) => a.text);
      const got = await cell.locator(':scope > [data-testid=fitness-note] p').evaluateAll((ps) => ps.map((p) => p.textContent));
      assert.deepEqual(got, want.map((t) => `Fitness: ${t}`), file);
      // The issue width: the check's sentence and each phase's width.
      const iw = cell.locator('[data-testid=issue-width]');
      assert.equal(await iw.getAttribute('data-shared'), String(cli.ops.issue.shared), file);
      assert.ok((await iw.innerText()).includes(cli.ops.issue.text), file);
      const phases = await iw.locator('[data-testid=issue-phase]').evaluateAll((li) => li.map((x) => ({ ...x.dataset })));
      assert.deepEqual(phases.map((p) => p.at), cli.ops.issue.phases.map((p) => p.at));
      phases.forEach((p, i) => {
        assert.ok(sameNumber(num(p.width), cli.ops.issue.phases[i].probe_width), `${file} ${p.at} width`);
        assert.ok(sameNumber(num(p.below), cli.ops.issue.phases[i].below), `${file} ${p.at} below`);
      });
      // The Fitness card's row.
      const x = cli.fitness.findings.find((y) => y.signal === 'shared_core');
      const row = page.locator(`[data-testid=fitness-cell][data-file="${file}"] tr[data-signal=shared_core]`);
      assert.equal(await row.getAttribute('data-level'), x.level, file);
      assert.ok(sameNumber(num(await row.locator('[data-stat=figure]').getAttribute('data-value')), x.figure), file);
      assert.equal(await cell.locator('[data-testid=latencies-only]').count(), cli.ops.published.latencies_only ? 1 : 0, file);
    }
    assert.ok(shared.fitness.affects.some((a) => a.cell === 'ops' && a.text.startsWith('throughputs:')));
    assertClean(problems);
  } finally {
    await close();
  }
});
