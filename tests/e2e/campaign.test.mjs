// The Campaign cell end to end: twelve files from four machines (three
// executions each; one machine 15 % slower), loaded together. The cell shows
// every machine's mean, which machine stands out, each level's share of the
// variance, the impact factors with their intervals and F tests' p-values,
// and the plan exactly as `tickbook analyze --campaign --json`; the generated
// outlier is the one marked, and the machine level's F test finds it. Two files
// from two hosts make a comparison, not a campaign: no cell. Then the six
// files of the real two-node Slurm campaign that collector/tests/campaign.rs
// ran just before (scripts/test runs it first; the campaign folder's manifest
// and results kept in target/tickbook-test/campaign), opened as a folder with
// the folder picker as a user would (the page reads a campaign folder's
// results/ only, as `tickbook analyze --campaign DIR` does): the same cell,
// equal to the CLI, with the nodes as machines.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  ARTIFACTS, ROOT, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot, sameNumber, num,
} from './harness.mjs';

let tmp, server, files;

function campaignFiles() {
  let x = 17;
  const noise = () => {
    x = (x * 1103515245 + 12345) % 2147483648; // deterministic, no Math.random
    return x / 2147483648 - 0.5;
  };
  const out = [];
  for (let m = 0; m < 4; m++) {
    const machine = 100 + 2 * noise() + (m === 3 ? 15 : 0);
    for (let e = 0; e < 3; e++) {
      const execution = machine + noise();
      out.push([`node${m}-e${e}.json`, JSON.stringify({
        format: 'tickbook', format_version: '1.0', kind: 'samples', source: 'campaign e2e',
        host: { hostname: `node${m}` },
        series: [
          { name: 'op', unit: 'ns', executions: [Array.from({ length: 40 }, () => execution + 0.5 * noise())] },
          { name: 'flat', unit: 'us', executions: [Array.from({ length: 40 }, () => 250 + noise())] },
        ],
      })]);
    }
  }
  return out;
}

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  files = [];
  for (const [name, text] of campaignFiles()) {
    const f = path.join(tmp, name);
    await writeFile(f, text);
    files.push(f);
  }
  server = await serve(path.join(tmp, 'results'));
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function readCell(page) {
  return page.$$eval('[data-testid=campaign-suite]', (blocks) => blocks.map((b) => ({
    suite: b.dataset.suite,
    rows: [...b.querySelectorAll('[data-testid=campaign-row]')].map((r) => ({
      key: r.dataset.key,
      machines: [...r.querySelectorAll('[data-testid=campaign-machine]')].map((c) => ({
        mean: c.dataset.value, executions: c.dataset.executions, out: c.dataset.standsOut,
        text: c.textContent,
      })),
    })),
    split: [...b.querySelectorAll('[data-testid=campaign-split-row]')].map((r) => ({
      key: r.dataset.key,
      shares: [...r.querySelectorAll('[data-testid=campaign-share]')].map((c) => c.dataset.value),
      impacts: [...r.querySelectorAll('[data-testid=campaign-impact]')].map((c) => ({ ...c.dataset, text: c.textContent })),
      plan: { ...r.querySelector('[data-testid=campaign-plan]').dataset, text: r.querySelector('[data-testid=campaign-plan]').textContent },
    })),
  })));
}

function assertCellEquals(cell, expected) {
  assert.deepEqual(cell.map((s) => s.suite), expected.suites.map((s) => s.suite));
  for (const [k, want] of expected.suites.entries()) {
    const got = cell[k];
    assert.deepEqual(got.rows.map((r) => r.key), want.items.map((i) => i.key));
    for (const [i, item] of want.items.entries()) {
      item.machines.forEach((m, j) => {
        const shown = got.rows[i].machines[j];
        assert.ok(sameNumber(num(shown.mean), m.mean), `${item.key} machine ${j} mean`);
        assert.equal(Number(shown.executions), m.executions);
        assert.equal(shown.out, String(m.stands_out ?? ''), `${item.key} machine ${j} stands out`);
        assert.equal(shown.text.includes('stands out'), m.stands_out === true);
      });
      const lv = item.components.levels;
      got.split[i].shares.forEach((s, j) => assert.ok(sameNumber(num(s), lv[j].share), `${item.key} share ${j}`));
      // Each factor with its interval and the F test's p-value: the values
      // behind the cell exactly, and the text shows them to its digits.
      for (const [j, level] of [lv[1], lv[2]].entries()) {
        const shown = got.split[i].impacts[j];
        const what = `${item.key} ${level.unit} factor`;
        assert.ok(sameNumber(num(shown.value), level.impact_ci?.estimate ?? level.impact), what);
        assert.ok(sameNumber(num(shown.lo), level.impact_ci?.lo ?? null), `${what} lo`);
        assert.ok(sameNumber(num(shown.hi), level.impact_ci?.hi ?? null), `${what} hi`);
        assert.ok(sameNumber(num(shown.p), level.p_value ?? null), `${what} p`);
        if (level.impact_ci) {
          const m = shown.text.match(/^(.+?)× \[(.+?)×, (.+?)×\], p\u202f=\u202f(.+)$/);
          assert.ok(m, `${what}: ${shown.text}`);
          const near = (text, x) => Math.abs(Number(text.replace(/\s/g, '')) - x) <= 0.006 * x;
          assert.ok(near(m[1], level.impact_ci.estimate) && near(m[2], level.impact_ci.lo) && near(m[3], level.impact_ci.hi), `${what}: ${shown.text}`);
          // Two significant digits, or a power of ten for a tiny p.
          const p = m[4].includes('\u00d7') ? null : Number(m[4]);
          assert.ok(p == null ? level.p_value < 1e-3 : Math.abs(p - level.p_value) <= 0.051 * level.p_value, `${what}: ${shown.text} vs ${level.p_value}`);
        }
      }
      const plan = item.plans.find((p) => p.machine_cost === 10 && p.rel_half_width === 0.01);
      assert.equal(num(got.split[i].plan.machines), plan.machines);
      assert.equal(num(got.split[i].plan.executions), plan.executions_per_machine);
      const range = plan.executions_per_machine_range;
      assert.equal(got.split[i].plan.range, range ? `${range[0]},${range[1] ?? ''}` : '');
      if (range && plan.machines != null && plan.executions_per_machine != null) assert.ok(got.split[i].plan.text.endsWith(`(${range[0]}\u2013${range[1] ?? '\u221e'})`), got.split[i].plan.text);
    }
  }
}

test('a four-machine campaign: the Campaign cell equals analyze --campaign, the outlier stands out', async () => {
  const expected = JSON.parse(await tickbook(['analyze', '--campaign', '--json', ...files]));
  assert.deepEqual(expected.machines, ['node0', 'node1', 'node2', 'node3']);
  const op = expected.suites[0].items.find((i) => i.key === 'op');
  assert.deepEqual(op.machines.map((m) => m.stands_out), [false, false, false, true], 'the generated outlier');
  assert.ok(op.components.levels[2].share > 0.8, 'machines hold most of the variance of op');
  assert.ok(op.components.levels[2].p_value < 0.025 && op.components.levels[2].impact_ci.lo > 1, 'a machine effect found');

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files);
    await waitForFiles(page, files.length, 120_000);
    await page.waitForSelector('[data-testid=campaign-cell]', { timeout: 120_000 });
    assertCellEquals(await readCell(page), expected);
    // The shown mean of node3's op is its value scaled (ns): read it back.
    const cell = await readCell(page);
    const node3 = cell[0].rows.find((r) => r.key === 'op').machines[3].text;
    const shownMean = Number(node3.match(/^([\d.]+)/)[1]);
    assert.ok(Math.abs(shownMean - op.machines[3].mean) < 0.05, `${node3} vs ${op.machines[3].mean}`);
    await screenshot(page, 'campaign');
    await page.locator('[data-testid=campaign-cell]').screenshot({ path: path.join(ARTIFACTS, 'campaign-cell.png') });

    // Two files from two hosts: a comparison, no campaign.
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [files[0], files[3]]);
    await waitForFiles(page, 2, 60_000);
    await page.waitForSelector('[data-testid=compare-cell]', { timeout: 60_000 });
    assert.equal(await page.$('[data-testid=campaign-cell]'), null);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});

test('a real Slurm campaign (two nodes × three executions): the Campaign cell equals analyze --campaign', async (t) => {
  const dir = path.join(ROOT, 'target/tickbook-test/campaign');
  const names = await readdir(path.join(dir, 'results')).catch(() => []);
  if (names.length === 0) {
    // scripts/test runs the cluster test first as root; by hand, run it first.
    assert.notEqual(process.env.TICKBOOK_REQUIRE_SLURM, '1', `no campaign files in ${dir}: collector/tests/campaign.rs did not keep them`);
    t.skip(`no campaign files in ${dir} (run collector/tests/campaign.rs first, as root)`);
    return;
  }
  const real = names.filter((n) => n.endsWith('.json'));
  assert.equal(real.length, 6);
  // The whole folder, as a user gives it: its manifest is no result file.
  const expected = JSON.parse(await tickbook(['analyze', '--campaign', '--json', dir]));
  assert.deepEqual(expected.machines, ['n1', 'n2']);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=folder-input]', dir);
    await waitForFiles(page, real.length, 120_000);
    await page.waitForSelector('[data-testid=campaign-cell]', { timeout: 120_000 });
    // Every row, not only the first ones each table shows.
    for (const button of await page.$$('[data-testid=campaign-cell] [data-testid=show-more]')) await button.click();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=campaign-cell] tbody')]
      .every((b) => b.dataset.shown === b.dataset.total), null, { timeout: 60_000 });
    const summary = await page.$eval('[data-testid=campaign-summary]', (p) => ({ ...p.dataset }));
    assert.deepEqual(summary, { testid: 'campaign-summary', files: '6', machines: '2' });
    assertCellEquals(await readCell(page), expected);
    await page.locator('[data-testid=campaign-cell]').screenshot({ path: path.join(ARTIFACTS, 'campaign-slurm.png') });
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});
