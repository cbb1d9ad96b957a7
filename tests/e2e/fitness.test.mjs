// The file's Fitness card: a fresh `tickbook collect ops --quick` (which
// writes the environment section) dropped on the page shows the verdict and
// every finding, each figure, level and worst interval equal to `tickbook
// analyze --json`'s, and the core clock per sample; a fixture without an
// environment section has no card.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, analyzeJson, assertClean, num, sameNumber,
} from './harness.mjs';

let tmp, server, fresh;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  fresh = path.join(results, 'fresh-ops.json');
  await tickbook(['collect', 'ops', '--quick', '--out', fresh], { timeout: 400_000 });
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
  assert.equal(f.findings.length, 6);
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
