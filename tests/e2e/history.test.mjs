// The History cell end to end: twenty per-commit samples files generated
// with known changes (history-files.mjs: a +10 % step at commit 10 of s000, a
// −8 % step at commit 6 of s002, s001 unchanged), loaded together. The cell
// shows the order used and the changes exactly as `tickbook history --json`
// on the same files; each changed series' chart draws every commit's
// estimate and interval, the fitted levels, the steps and their labels where
// the report and the chart's own axes put them (marks.mjs ChartCheck: by
// Plot's scale and by the tick labels); quiet series are counted. A change's
// button (by keyboard), its row and its band in the chart each open the
// Comparison cell on the two commits around it, and it goes back to every
// file. `tickbook report` of the files keeps the cell: opened from file://,
// it recomputes the same changes. Last, the history study's real hyperfine
// files (tests/fixtures/history/hyperfine: 80 commits measured with known
// steps, a drift and disturbed commits) opened as a folder: the same
// changes as `tickbook history --json` on that folder.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ARTIFACTS, FIXTURES, WEB_DIST, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, assertClean, sameNumber, num,
} from './harness.mjs';
import { snapshotCharts, ChartCheck, listProblems } from './marks.mjs';
import { historyFiles } from './history-files.mjs';

const COMMITS = 20;
const STEPS = [{ series: 0, at: 10, ratio: 1.1 }, { series: 2, at: 6, ratio: 0.92 }];
let tmp, files, server, expected;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const dir = path.join(tmp, 'history');
  await mkdir(dir, { recursive: true });
  files = [];
  for (const [name, text] of historyFiles({ commits: COMMITS, series: 3, executions: 3, measurements: 8, steps: STEPS, seed: 11, noise: { between: 0.005, within: 0.003 } })) {
    const f = path.join(dir, name);
    await writeFile(f, text);
    files.push(f);
  }
  expected = JSON.parse(await tickbook(['history', '--json', ...files]));
  // The known answer first: the steps made are the changes found, and nothing else.
  const byName = new Map(expected.series.map((s) => [s.name, s]));
  assert.deepEqual(expected.series.map((s) => s.name).sort(), ['s000', 's001', 's002']);
  for (const s of STEPS) {
    const cps = byName.get(`s00${s.series}`).change_points;
    assert.equal(cps.length, 1, `one change in s00${s.series}`);
    assert.equal(cps[0].kind, 'step');
    assert.equal(cps[0].index, s.at);
    assert.ok(cps[0].ratio.low < s.ratio && s.ratio < cps[0].ratio.high, `s00${s.series}: ${JSON.stringify(cps[0].ratio)} holds ${s.ratio}`);
  }
  assert.deepEqual(byName.get('s001').change_points, [], 'the unchanged series is quiet');
  assert.equal(expected.quiet, 1);
  assert.deepEqual(expected.files.map((f) => path.basename(f.name)), files.map((f) => path.basename(f)), 'ordered as the commits were');
  server = await serve(dir);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The changes as the cell must list them: every series' change points, largest |log ratio| first. */
function changesBySize(report) {
  return report.series.flatMap((s) => s.change_points.map((c) => ({ s, c })))
    .sort((a, b) => Math.abs(Math.log(b.c.ratio.estimate)) - Math.abs(Math.log(a.c.ratio.estimate)));
}

/** The elements of a chart's marks of class `history-<kind>` (chart.js), in drawing order. */
function marks(snap, kind) {
  return (snap.plot?.groups ?? []).filter((g) => (g.className ?? '').split(/\s+/).includes(`history-${kind}`)).flatMap((g) => g.elements);
}

/** A signed percentage as the page prints it (three significant digits): +10.0 %, −8.00 %. */
function signedPercent(r) {
  const x = (r - 1) * 100;
  const body = Math.abs(x).toPrecision(3);
  return `${x < 0 ? '\u2212' : x > 0 ? '+' : ''}${body}\u202f%`;
}

const SUPERSCRIPT = { '\u207b': '-', '\u2070': '0', '\u00b9': '1', '\u00b2': '2', '\u00b3': '3', '\u2074': '4', '\u2075': '5', '\u2076': '6', '\u2077': '7', '\u2078': '8', '\u2079': '9' };

/** A p-value as printed ("0.0031", "3.1 × 10⁻⁵"): its value and the size of its last digit. */
function readP(text) {
  const t = text.replace(/[\s\u202f]/g, '');
  const m = t.match(/^([\d.]+)×10(.+)$/);
  const [mant, exp] = m ? [m[1], Number([...m[2]].map((ch) => SUPERSCRIPT[ch] ?? '?').join(''))] : [t, 0];
  const decimals = mant.split('.')[1]?.length ?? 0;
  return { value: Number(mant) * 10 ** exp, unit: 10 ** (exp - decimals) };
}

async function openHistory(page) {
  await page.goto(server.url);
  await page.setInputFiles('[data-testid=file-input]', files);
  await waitForFiles(page, files.length, 120_000);
  await page.waitForSelector('[data-testid=history-cell]:not([data-pending]) [data-testid=history-summary]', { timeout: 120_000 });
  // Every chart of the cell drawn (they are built a part per frame, drawn from a queue).
  await page.waitForFunction(() => {
    const cell = document.querySelector('[data-testid=history-cell]');
    const figs = [...cell.querySelectorAll('figure.chart')];
    return figs.length > 0 && figs.every((f) => f.querySelector('svg')) && !cell.querySelector('.later[aria-busy=true]');
  }, null, { timeout: 60_000 });
}

/** The change rows' numbers, as the tests compare them with the report. */
async function changeRows(page) {
  return page.$$eval('[data-testid=history-change]', (trs) => trs.map((r) => {
    const { series, kind, index, end, ratio, lo, hi, p } = r.dataset;
    return { series, kind, index, end, ratio, lo, hi, p };
  }));
}

/** The two files the Comparison cell shows, once it shows two opened from the History cell. */
async function comparedPair(page) {
  await page.waitForSelector('[data-testid=compare-cell] [data-testid=compare-pair]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=compare-cell]')?.dataset.built === 'true', null, { timeout: 60_000 });
  return page.$$eval('[data-testid=compare-files] tbody tr td:nth-child(2)', (tds) => tds.map((t) => t.firstChild.textContent));
}

test('the History cell equals tickbook history --json, its charts read back', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url, { viewport: { width: 1024, height: 900 } });
  try {
    await openHistory(page);

    // The order used, and the summary's counts.
    const order = await page.$eval('[data-testid=history-order]', (d) => ({ ...d.dataset, text: d.querySelector('summary').textContent }));
    assert.equal(order.order, expected.order);
    assert.equal(Number(order.files), COMMITS);
    const rows = await page.$$eval('[data-testid=history-file]', (trs) => trs.map((r) => ({ ...r.dataset })));
    // (The page names a file by its name, the command line maybe by its path.)
    assert.deepEqual(rows.map((r) => r.name), expected.files.slice(0, rows.length).map((f) => path.basename(f.name)));
    rows.forEach((r, i) => {
      assert.equal(Number(r.index), i);
      assert.equal(r.commit, expected.files[i].commit ?? '');
      assert.equal(r.date, expected.files[i].date ?? '');
    });
    const summary = await page.$eval('[data-testid=history-summary]', (p) => ({ ...p.dataset }));
    const changed = expected.series.filter((s) => s.change_points.length);
    assert.deepEqual(
      { series: num(summary.series), changed: num(summary.changed), changes: num(summary.changes), quiet: num(summary.quiet) },
      { series: expected.series.length, changed: changed.length, changes: changesBySize(expected).length, quiet: expected.quiet },
    );
    assert.equal(await page.$$eval('[data-testid=history-machine-change]', (ps) => ps.length), expected.machine_changes.length);

    // The table of changes: the report's numbers exactly, largest first, and their text to its digits.
    const table = await page.$$eval('[data-testid=history-change]', (trs) => trs.map((r) => ({
      ...r.dataset,
      where: r.querySelector('[data-testid=history-where]').textContent,
      ratioText: r.querySelector('[data-testid=history-ratio]').textContent,
      pText: r.querySelector('[data-testid=history-p]').textContent,
      verdict: r.querySelector('[data-testid=history-verdict]').textContent,
      machine: !!r.querySelector('[data-testid=history-machine]'),
    })));
    const want = changesBySize(expected);
    assert.equal(table.length, want.length);
    want.forEach(({ s, c }, k) => {
      const row = table[k];
      const what = `${s.name} change at ${c.index}`;
      assert.equal(row.series, s.name, what);
      assert.equal(row.kind, c.kind, what);
      assert.equal(num(row.index), c.index, what);
      assert.equal(num(row.end), c.end, what);
      assert.equal(row.file, path.basename(c.file), what);
      for (const [key, value] of [['ratio', c.ratio.estimate], ['lo', c.ratio.low], ['hi', c.ratio.high], ['p', c.p], ['before', c.before.estimate], ['after', c.after.estimate]]) {
        assert.ok(sameNumber(num(row[key]), value), `${what}: ${key} ${row[key]} vs ${value}`);
      }
      assert.equal(row.cause, c.cause, what);
      assert.equal(row.regression, String(c.regression), what);
      assert.equal(row.verdict, c.regression == null ? (c.ratio.estimate > 1 ? 'higher' : 'lower') : c.regression ? 'regression' : 'improvement', what);
      assert.equal(row.machine, c.cause === 'machine', what);
      assert.ok(row.where.includes(path.basename(c.file)), `${what}: ${row.where}`);
      // "1.1010× [1.0950, 1.1070]": each figure within half its last shown digit.
      const m = row.ratioText.match(/^([\d.]+)× \[([\d.]+), ([\d.]+)\]$/);
      assert.ok(m, `${what}: ${row.ratioText}`);
      for (const [text, value] of [[m[1], c.ratio.estimate], [m[2], c.ratio.low], [m[3], c.ratio.high]]) {
        const decimals = text.split('.')[1]?.length ?? 0;
        assert.ok(Math.abs(Number(text) - value) <= 0.5 * 10 ** -decimals + 1e-12, `${what}: ${text} shows ${value}`);
      }
      const shownP = readP(row.pText);
      assert.ok(Math.abs(shownP.value - c.p) <= 0.5 * shownP.unit * (1 + 1e-9), `${what}: p ${row.pText} vs ${c.p}`);
      // The commits around it: the last before the change and its first after (a drift: its last).
      assert.deepEqual([num(row.from), num(row.to)], [c.index - 1, c.kind === 'drift' ? c.end : c.index], what);
    });

    // The charts: one per changed series, in the report's order.
    const snaps = (await snapshotCharts(page, { root: '[data-testid=history-cell]' })).filter((s) => s.testid === 'history-chart');
    assert.deepEqual(snaps.map((s) => s.dataset.series), changed.map((s) => s.name));
    const commitsOf = await page.$$eval('[data-testid=history-chart] g.history-estimate path', (ps) => ps.map((p) => p.dataset.commits));
    const intervalsOf = await page.$$eval('[data-testid=history-chart] g.history-interval path', (ps) => ps.map((p) => p.dataset.commits));
    for (const [k, snap] of snaps.entries()) {
      const s = changed[k];
      const scale = Number(snap.dataset.scale);
      assert.ok(scale > 0, `${s.name}: data-scale`);
      const check = new ChartCheck(snap).axes({ x: 'plain', y: { kind: s.unit_ns != null ? 'time' : 'plain', toScale: (v) => v / scale } });
      // Values in ns on a time axis (what its labels read as), else in the series' unit.
      const v = (x) => (s.unit_ns != null ? x * s.unit_ns : x);
      const disturbed = new Set(s.disturbed);
      const shown = s.estimates.map((e, i) => (e && !disturbed.has(i) ? i : null)).filter((i) => i != null);
      // Estimates: a round-capped dot per commit, one path ("M x,y h0" each).
      assert.equal(commitsOf[k], shown.join(','), `${s.name}: the commits with a dot`);
      const dots = marks(snap, 'estimate')[0]?.points.filter((p) => p.cmd === 'M') ?? [];
      check.count(dots.length, shown.length, `${s.name} estimates`);
      dots.forEach((p, j) => check.point(p, shown[j], v(s.estimates[shown[j]].estimate), `${s.name} estimate ${shown[j]}`));
      // Intervals: a rule per commit ("M x,low V high" each).
      assert.equal(intervalsOf[k], shown.join(','), `${s.name}: the commits with an interval`);
      const ends = marks(snap, 'interval')[0]?.points ?? [];
      check.count(ends.length, 2 * shown.length, `${s.name} interval ends`);
      shown.forEach((i, j) => {
        const e = s.estimates[i];
        check.point(ends[2 * j], i, v(e.low), `${s.name} interval ${i} low`);
        check.point(ends[2 * j + 1], i, v(e.high), `${s.name} interval ${i} high`);
      });
      // Disturbed commits: a cross each, of their own colour.
      check.count(marks(snap, 'disturbed').length, disturbed.size, `${s.name} disturbed commits`);
      // Levels: a flat segment over its commits (±½ a commit), a drift from its first to its last.
      const flat = s.levels.filter((l) => l.kind !== 'drift');
      const segs = marks(snap, 'level');
      check.count(segs.length, flat.length, `${s.name} levels`);
      segs.forEach((el, j) => {
        const l = flat[j];
        check.line(el, [{ x: l.start - 0.5, y: v(l.from) }, { x: l.end + 0.5, y: v(l.to) }], `${s.name} level ${l.start}–${l.end}`);
      });
      const drifts = s.levels.filter((l) => l.kind === 'drift');
      const driftEls = marks(snap, 'drift');
      check.count(driftEls.length, drifts.length, `${s.name} drifts`);
      driftEls.forEach((el, j) => check.line(el, [{ x: drifts[j].start, y: v(drifts[j].from) }, { x: drifts[j].end, y: v(drifts[j].to) }], `${s.name} drift`));
      // Steps: a rule between the last commit before and the first after, labelled with the change.
      const steps = s.change_points.filter((c) => c.kind === 'step');
      const rules = marks(snap, 'step');
      check.count(rules.length, steps.length, `${s.name} steps`);
      rules.forEach((el, j) => check.at('x', steps[j].index - 0.5, el.x1, `${s.name} step ${steps[j].index}`));
      const labels = marks(snap, 'change-label');
      check.count(labels.length, s.change_points.length, `${s.name} change labels`);
      for (const el of labels) {
        const c = s.change_points.find((cp) => el.text === signedPercent(cp.ratio.estimate));
        if (!c) check.fail(`${s.name}: a label "${el.text}" that is no change's`);
        else check.at('x', c.kind === 'drift' ? (c.index + c.end) / 2 : c.index - 0.5, el.x, `${s.name} label ${el.text}`);
      }
      const problems = [...check.scale.problems, ...check.axis.problems, ...check.content.problems, ...check.axisProblems, ...check.domain];
      assert.deepEqual(problems, [], listProblems(problems));
      console.log(`# ${s.name}: ${check.summary()}`);
    }
    await page.locator('[data-testid=history-cell]').screenshot({ path: path.join(ARTIFACTS, 'history-cell.png') });
    assertClean(problems);
  } finally {
    await close();
  }
});

test('a change opens the Comparison of the two commits around it: by keyboard, its row and its band', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url, { viewport: { width: 1024, height: 900 } });
  try {
    await openHistory(page);
    const names = expected.files.map((f) => path.basename(f.name));
    const [first, second] = changesBySize(expected);

    // The keyboard: the first change's button, focused and pressed.
    await page.focus('[data-testid=history-change] [data-testid=history-open]');
    await page.keyboard.press('Enter');
    assert.deepEqual(await comparedPair(page), [names[first.c.index - 1], names[first.c.index]]);
    // Focus went to the comparison, which is in view.
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'compare-pair');
    assert.ok(await page.$eval('[data-testid=compare-cell]', (c) => c.getBoundingClientRect().top < innerHeight));

    // Back to every file.
    await page.click('[data-testid=compare-pair-back]');
    await page.waitForFunction((n) => !document.querySelector('[data-testid=compare-pair]') &&
      document.querySelectorAll('[data-testid=compare-files] tbody tr').length === n, names.length, { timeout: 60_000 });

    // The second change's row, clicked anywhere but its button.
    await page.click(`[data-testid=history-change]:nth-child(2) [data-testid=history-levels]`);
    assert.deepEqual(await comparedPair(page), [names[second.c.index - 1], names[second.c.index]]);

    // The first change's band in its chart.
    const chart = `[data-testid=history-chart][data-series="${first.s.name}"]`;
    await page.locator(chart).scrollIntoViewIfNeeded();
    // (Its centre is under the step's rule, which opens the same change: the band's top left is clicked.)
    const band = page.locator(`${chart} g.history-change-hit rect`).first();
    const box = await band.boundingBox();
    await band.click({ position: { x: box.width * 0.25, y: 4 }, force: true });
    assert.deepEqual(await comparedPair(page), [names[first.c.index - 1], names[first.c.index]]);
    assertClean(problems);
  } finally {
    await close();
  }
});

test('tickbook report keeps the History cell: opened offline, the same changes', { timeout: 180_000 }, async () => {
  const out = path.join(tmp, 'history-report.html');
  await tickbook(['report', ...files, '-o', out, '--web-root', WEB_DIST]);
  const { page, problems, close } = await openBrowser(server.url, { viewport: { width: 1024, height: 900 } });
  try {
    await page.goto(pathToFileURL(out).href);
    await waitForFiles(page, files.length, 120_000);
    await page.waitForSelector('[data-testid=history-cell]:not([data-pending]) [data-testid=history-summary]', { timeout: 120_000 });
    const rows = await changeRows(page);
    const want = changesBySize(expected);
    assert.equal(rows.length, want.length);
    want.forEach(({ s, c }, k) => {
      assert.deepEqual(
        { series: rows[k].series, kind: rows[k].kind, index: num(rows[k].index), end: num(rows[k].end) },
        { series: s.name, kind: c.kind, index: c.index, end: c.end });
      for (const [key, value] of [['ratio', c.ratio.estimate], ['lo', c.ratio.low], ['hi', c.ratio.high], ['p', c.p]]) {
        assert.ok(sameNumber(num(rows[k][key]), value), `${s.name} ${key}`);
      }
    });
    assert.equal(await page.locator('[data-testid=history-chart]').count(), expected.series.filter((x) => x.change_points.length).length);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

test('the history study\'s real hyperfine files, opened as a folder: the changes of tickbook history --json', { timeout: 240_000 }, async () => {
  const dir = path.join(FIXTURES, 'history/hyperfine');
  const real = JSON.parse(await tickbook(['history', '--json', dir]));
  const { page, problems, close } = await openBrowser(server.url, { viewport: { width: 1024, height: 900 } });
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=folder-input]', dir);
    await waitForFiles(page, real.files.length, 180_000);
    await page.waitForSelector('[data-testid=history-cell]:not([data-pending]) [data-testid=history-summary]', { timeout: 120_000 });
    const order = await page.$eval('[data-testid=history-order]', (d) => d.dataset.order);
    assert.equal(order, real.order);
    const rows = await changeRows(page);
    const want = changesBySize(real);
    assert.equal(rows.length, Math.min(want.length, 30));
    rows.forEach((row, k) => {
      const { s, c } = want[k];
      assert.deepEqual({ series: row.series, kind: row.kind, index: num(row.index), end: num(row.end) }, { series: s.name, kind: c.kind, index: c.index, end: c.end });
      for (const [key, value] of [['ratio', c.ratio.estimate], ['lo', c.ratio.low], ['hi', c.ratio.high], ['p', c.p]]) {
        assert.ok(sameNumber(num(row[key]), value), `${s.name} at ${c.index}: ${key}`);
      }
    });
    const summary = await page.$eval('[data-testid=history-summary]', (p) => ({ ...p.dataset }));
    assert.equal(num(summary.quiet), real.quiet);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});
