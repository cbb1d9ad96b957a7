// The Bernoulli and Operations cells (and the Clocks cell's cross-CPU table)
// end to end: one fresh `tickbook collect clocks bernoulli ops --quick` file,
// collected once and shared by the tests, every number checked against
// `tickbook analyze --json`; the planner through the worker; the analysis
// options (confidence, resamples, seed, linkage) re-analysing in the worker.
//
// Where this build of the collector cannot measure operations yet (the ops
// suite is missing or failed), the Operations cell is checked on a SYNTHETIC
// ops file from synthetic.mjs instead, named synthetic-ops.json, and the test
// says so in its output.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  ARTIFACTS, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot, readTable, num, sameNumber, assertClean,
} from './harness.mjs';
import { syntheticOpsRun } from './synthetic.mjs';

let tmp, server, runFile, opsFile, usedSynthetic = false;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  runFile = path.join(results, 'suites.json');
  const help = await tickbook(['collect', '--help']);
  const suites = ['clocks', 'bernoulli', 'ops'].filter((s) => help.includes(s));
  assert.ok(suites.includes('bernoulli'), `this tickbook collects bernoulli (collect --help: ${help})`);
  try {
    await tickbook(['collect', ...suites, '--quick', '--out', runFile], { timeout: 400_000 });
  } catch (e) {
    if (!suites.includes('ops')) throw e;
    // The ops suite is new; while it cannot run here, collect the others and
    // check the Operations cell on synthetic data (below).
    console.log(`# collect with ops failed (${e.message.split('\n')[0]}); collecting without it`);
    await tickbook(['collect', ...suites.filter((s) => s !== 'ops'), '--quick', '--out', runFile], { timeout: 400_000 });
  }
  const run = JSON.parse(await readFile(runFile, 'utf8'));
  const ops = run.suites.find((s) => s.suite === 'ops');
  opsFile = runFile;
  if (!ops || ops.status !== 'complete') {
    usedSynthetic = true;
    opsFile = path.join(results, 'synthetic-ops.json');
    await writeFile(opsFile, JSON.stringify(syntheticOpsRun()));
    console.log(`# ops suite ${ops ? ops.status + ': ' + ops.error : 'not collected'}; the Operations cell is checked on SYNTHETIC data (synthetic-ops.json)`);
  }
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const base = (f) => path.basename(f);
const files = () => (usedSynthetic ? [runFile, opsFile] : [runFile]);

/** `tickbook analyze --json` with the page's options, keyed by file name. */
async function cli(opts) {
  const args = ['analyze', '--json',
    '--confidence', String(opts.confidence),
    '--resamples', String(opts.bootstrap.resamples),
    '--seed', String(opts.bootstrap.seed),
    '--linkage', opts.linkage,
    '--quantile-type', String(opts.quantile_type),
    ...files()];
  const reports = JSON.parse(await tickbook(args, { okCodes: [0, 1] }));
  return Object.fromEntries(reports.map((r) => [base(r.file), r]));
}

/** The options the page last analysed `file` with. */
async function pageOptions(page, file) {
  return page.evaluate((f) => {
    const slot = [...document.querySelectorAll('.slot')].find((s) => s.querySelector(`[data-file="${f}"]`));
    return JSON.parse(slot.dataset.options);
  }, file);
}

async function waitForOptions(page, file, check) {
  await page.waitForFunction(({ f, c }) => {
    const slot = [...document.querySelectorAll('.slot')].find((s) => s.querySelector(`[data-file="${f}"]`));
    if (!slot?.dataset.options) return false;
    const o = JSON.parse(slot.dataset.options);
    return Object.entries(c).every(([k, v]) => JSON.stringify(k.split('.').reduce((x, p) => x?.[p], o)) === JSON.stringify(v));
  }, { f: file, c: check }, { timeout: 60_000 });
}


const eq = (actual, expected, what) => assert.ok(sameNumber(num(actual), expected ?? null), `${what}: page ${actual}, CLI ${expected}`);

async function checkClocksExtras(page, rep) {
  const sel = `[data-testid=clocks-cell][data-file="${base(runFile)}"]`;
  const c = rep.clocks;
  const batched = c.clocks.filter((r) => r.available && r.read_cost_batch != null);
  if (batched.length && batched.every((r) => r.read_cost_batch === batched[0].read_cost_batch && r.read_cost_reference === batched[0].read_cost_reference)) {
    const text = await page.locator(`${sel} [data-testid=batch-facts]`).innerText();
    assert.ok(text.includes(`batches of ${batched[0].read_cost_batch} reads timed by ${batched[0].read_cost_reference}`), `batch explanation: ${text}`);
  }
  const stops = await page.$$eval(`${sel} [data-testid=clock-row]`, (trs) => Object.fromEntries(trs.map((t) => [t.dataset.clock, t.querySelector('[data-testid=scan-facts]')?.dataset.stoppedBy ?? null])));
  for (const r of c.clocks.filter((x) => x.scan_reads)) assert.equal(stops[r.name], r.scan_stopped_by ?? null, `${r.name} scan stop reason`);
  const shownStops = await page.locator(`${sel} [data-testid=scan-facts]`).allInnerTexts();
  if (c.clocks.some((r) => r.scan_stopped_by === 'max_steps')) assert.ok(shownStops.some((t) => t.includes('step limit')), 'the stop reason is in words');

  const rows = await readTable(page, `${sel} [data-testid=cross-cpu-row]`, 'clock');
  assert.deepEqual(Object.keys(rows), c.cross_cpu.map((x) => x.clock), 'one cross-CPU row per clock checked');
  for (const x of c.cross_cpu) {
    const row = rows[x.clock];
    assert.equal(row.cpus, x.cpus.join(','));
    for (const k of ['migrations', 'not_moved', 'backwards', 'min_step_ns', 'median_step_ns']) eq(row[k], x[k], `cross-CPU ${x.clock} ${k}`);
  }
}

async function checkBernoulli(page, rep) {
  const b = rep.bernoulli;
  const sel = `[data-testid=bernoulli-cell][data-file="${base(runFile)}"]`;
  const cell = page.locator(sel);
  assert.equal(await cell.count(), 1, 'one Bernoulli cell');
  const explain = await cell.locator(':scope > .explain').innerText();
  for (const words of ['Bernoulli timing', 'eq. 1', 'eq. 2', 'eq. 5', 'eq. 6', 'Te = p·Tc − To']) assert.ok(explain.toLowerCase().includes(words.toLowerCase()), `explanation mentions ${words}`);
  eq(await cell.locator('[data-testid=tick-ns]').getAttribute('data-value'), b.tick_ns, 'tick');
  if (b.overhead) eq(await cell.locator('[data-testid=overhead-ns]').getAttribute('data-value'), b.overhead.raw_ns, 'To');

  const rows = await readTable(page, `${sel} [data-testid=event-row]`, 'event');
  assert.deepEqual(Object.keys(rows), b.events.map((e) => e.name), 'one row per event, in order');
  for (const e of b.events) {
    const r = rows[e.name];
    const want = {
      target_ns: e.target_ns, n: e.trials.n, m: e.trials.m, estimate_ns: e.estimate_ns, disturbed_share: e.disturbed_share,
      interval_lo: e.interval_ns?.lo, interval_hi: e.interval_ns?.hi, reference_ns: e.reference_ns,
      relative_error: e.relative_error, trials_ratio: e.trials.trials_ratio, trials_needed: e.trials.trials_needed,
    };
    for (const [k, v] of Object.entries(want)) eq(r[k], v, `${e.name} ${k}`);
    assert.equal(r.covered, e.covered == null ? '' : String(e.covered), `${e.name} covered`);
    assert.equal(r.capped, String(e.trials.capped), `${e.name} capped`);
    const text = await cell.locator(`[data-testid=event-row][data-event="${e.name}"]`).innerText();
    if (e.covered != null) assert.ok(text.includes(e.covered ? '✓' : '✗'), `${e.name} shows ✓/✗`);
    assert.equal(text.includes('Wilson'), e.trials.wilson_used && !e.corrected && e.interval_ns != null, `${e.name} Wilson flag`);
    assert.equal(r.no_interval, e.interval_ns ? undefined : e.no_interval, `${e.name} no-interval verdict`);
  }
  const cov = cell.locator('[data-testid=coverage]');
  assert.equal(Number(await cov.getAttribute('data-covered')), b.coverage.covered);
  assert.equal(Number(await cov.getAttribute('data-events')), b.coverage.events);
  assert.ok((await cov.innerText()).includes(`${b.coverage.covered} of ${b.coverage.events}`), 'coverage line in words');

  // The chart: log–log, one estimate dot per positive estimate, one cross per reference.
  const chart = cell.locator('[data-testid=bernoulli-chart]');
  assert.match(await chart.locator('svg[role=img]').first().getAttribute('aria-label'), /logarithmic/);
  const dots = await chart.locator('svg [aria-label=dot]').evaluateAll((gs) => gs.map((g) => g.querySelectorAll('circle, path').length));
  assert.deepEqual(dots.sort((a, c) => a - c), [
    b.events.filter((e) => e.estimate_ns > 0).length, b.events.filter((e) => e.reference_ns > 0).length,
  ].sort((a, c) => a - c), 'estimate dots and reference crosses');
  assert.ok(await chart.locator('svg [aria-label=rule] line').count() >= b.events.filter((e) => e.interval_ns && e.interval_ns.hi > 0).length, 'interval bars');

  // The planner table: Table 1 for this machine.
  const planRows = await readTable(page, `${sel} [data-testid=planner-row]`, 'event');
  for (const p of b.planner) {
    const row = planRows[String(p.event_ns)];
    assert.ok(row, `planner row for ${p.event_ns} ns`);
    eq(row[`trials_${p.epsilon}`], p.trials, `planner ${p.event_ns} ns ε ${p.epsilon} trials`);
    eq(row[`wall_time_${p.epsilon}`], p.wall_time_ns, `planner ${p.event_ns} ns ε ${p.epsilon} wall time`);
  }
}

async function checkPlanner(page, rep) {
  const b = rep.bernoulli;
  const sel = `[data-testid=bernoulli-cell][data-file="${base(runFile)}"] [data-testid=planner]`;
  const result = page.locator(`${sel} [data-testid=plan-result]`);
  const trialsFor = (ev, eps) => b.planner.find((p) => p.event_ns === ev && p.epsilon === eps);
  // Defaults: 100 ns, this file's tick and To, the planned ε, the report's confidence: Table 1's row.
  const want = trialsFor(100, b.planned_epsilon);
  if (want) {
    await page.waitForFunction((s) => document.querySelector(s)?.dataset.trials, `${sel} [data-testid=plan-result]`);
    eq(await result.getAttribute('data-trials'), want.trials, 'planner default trials = Table 1');
    eq(await result.getAttribute('data-wall-time'), want.wall_time_ns, 'planner default wall time = Table 1');
  }
  // 1 µs at ε = 1 %: typed in µs, computed by wasm plan() in the worker.
  await page.fill(`${sel} [data-testid=plan-event]`, '1');
  await page.selectOption(`${sel} [data-testid=plan-event-unit]`, 'µs');
  await page.fill(`${sel} [data-testid=plan-epsilon]`, '1');
  const want2 = trialsFor(1000, 0.01);
  await page.waitForFunction(({ s, t }) => document.querySelector(s)?.dataset.trials === String(t), { s: `${sel} [data-testid=plan-result]`, t: want2.trials });
  eq(await result.getAttribute('data-wall-time'), want2.wall_time_ns, 'planner 1 µs, 1 %');
  // A tick of 0 admits no plan: said in words, nothing computed.
  await page.fill(`${sel} [data-testid=plan-tick]`, '0');
  await page.waitForFunction((s) => document.querySelector(s)?.dataset.trials === '', `${sel} [data-testid=plan-result]`);
  assert.match(await result.innerText(), /No plan/);
  await page.click(`${sel} [data-testid=plan-reset]`);
  await page.waitForFunction((s) => document.querySelector(s)?.dataset.trials, `${sel} [data-testid=plan-result]`);
}

async function checkOps(page, rep) {
  const o = rep.ops;
  const file = base(opsFile);
  const sel = `[data-testid=ops-cell][data-file="${file}"]`;
  const cell = page.locator(sel);
  assert.equal(await cell.count(), 1, 'one Operations cell');
  const explain = await cell.locator(':scope > .explain').innerText();
  for (const words of ['homogeneous sequences', 'Latency', 'throughput', '(t(2n) − t(n)) / n']) assert.ok(explain.toLowerCase().includes(words.toLowerCase()), `explanation mentions ${words}`);
  if (o.core) {
    eq(await cell.locator('[data-testid=core-hz]').getAttribute('data-value'), o.core.core_hz, 'core Hz');
    eq(await cell.locator('[data-testid=cycles-per-tick]').getAttribute('data-value'), o.core.cycles_per_tick, 'cycles per tick');
    const tpc = cell.locator('[data-testid=ticks-per-cycle]');
    eq(await tpc.getAttribute('data-lo'), o.core.ticks_per_cycle.lo, 'ticks per cycle lo');
    eq(await tpc.getAttribute('data-hi'), o.core.ticks_per_cycle.hi, 'ticks per cycle hi');
    assert.match(await cell.locator('[data-testid=core-clock]').innerText(), /GHz/);
  }
  const forms = o.forms.map((f) => f.form);
  assert.ok(forms.length >= 1, 'at least one form');
  for (const form of forms) {
    if (forms.length > 1) await cell.locator(`[data-testid=form-option][value="${form}"]`).check();
    await page.waitForFunction(({ s, f }) => document.querySelector(`${s} [data-testid=form-area]`)?.dataset.form === f, { s: sel, f: form });
    const f = o.forms.find((x) => x.form === form);
    // The table: every op of the form, numbers as the CLI's.
    const rows = await readTable(page, `${sel} [data-testid=op-row]`, 'op');
    const ofForm = o.ops.filter((r) => r.form === form);
    assert.deepEqual(Object.keys(rows), ofForm.map((r) => r.name), `${form}: one row per operation`);
    for (const r of ofForm.filter((x) => x.available)) {
      const row = rows[r.name];
      for (const k of ['portable_ns', 'core_cycles']) {
        eq(row[k], r[k]?.estimate, `${r.name} ${k}`);
        if (r[k]) { eq(row[`${k}_lo`], r[k].lo, `${r.name} ${k} lo`); eq(row[`${k}_hi`], r[k].hi, `${r.name} ${k} hi`); }
      }
      eq(row.counter_ticks, r.counter_ticks?.estimate, `${r.name} counter ticks`);
      eq(row.counter_ns, r.counter_ns?.estimate, `${r.name} counter ns`);
    }
    for (const r of ofForm.filter((x) => !x.available && x.unavailable_reason)) {
      assert.ok((await cell.locator(`[data-testid=op-row][data-op="${r.name}"]`).innerText()).includes(r.unavailable_reason), `${r.name} says why it is unavailable`);
    }
    if (!f.summary) continue;
    // Six-number summary, box plot, outliers.
    const sum = (await readTable(page, `${sel} [data-testid=ops-summary-row]`, 'form'))[form];
    for (const k of ['n', 'min', 'q1', 'median', 'mean', 'q3', 'max']) eq(sum[k], f.summary[k], `${form} summary ${k}`);
    const box = cell.locator('[data-testid=ops-box-plot]');
    assert.equal(await box.locator('svg [aria-label=bar] rect').count(), 1, 'the box');
    assert.match(await box.locator('svg[role=img]').getAttribute('aria-label'), new RegExp(`over ${f.summary.n} ${form} operations`));
    const outliers = await cell.locator('[data-testid=ops-outlier]').evaluateAll((xs) => xs.map((x) => x.dataset.name));
    assert.deepEqual(outliers, f.outliers.map((x) => x.name), `${form} outliers named`);
    const boxText = await box.locator('svg').first().textContent();
    if (f.outliers.length) assert.ok(f.outliers.some((x) => boxText.includes(x.name)), 'outliers named in the box plot');

    await checkClustering(page, sel, f);
    await checkCalibration(page, sel, f);
  }
  await checkTableTools(page, sel, o);
}

async function checkClustering(page, sel, f) {
  const c = f.clustering;
  if (!c) return;
  const cuts = await readTable(page, `${sel} [data-testid=cut-row]`, 'statistic');
  assert.deepEqual(Object.keys(cuts), ['min', 'q1', 'median', 'mean', 'q3', 'max']);
  for (const cut of c.cuts) {
    eq(cuts[cut.statistic].granularity_ns, cut.granularity_ns, `${f.form} ${cut.statistic} granularity`);
    eq(cuts[cut.statistic].clusters, cut.clusters, `${f.form} ${cut.statistic} clusters`);
  }
  assert.equal(await page.locator(`${sel} [data-testid=linkage]`).inputValue(), c.method);
  for (const stat of ['median', 'min']) {
    await page.selectOption(`${sel} [data-testid=granularity-statistic]`, stat);
    const cut = c.cuts.find((x) => x.statistic === stat);
    const members = await page.$$eval(`${sel} [data-testid=cluster-row]`, (trs) => trs.map((t) => t.querySelector('[data-stat=names]').dataset.value.split(' ')));
    assert.deepEqual(members, cut.members.map((m) => m.names), `${f.form} ${stat}: members in order of cost`);
    // The dendrogram: every operation named once, the cut drawn, clusters coloured.
    const dendro = page.locator(`${sel} [data-testid=dendrogram]`);
    // The dendrogram is redrawn after the switch (charts draw when laid
    // out): wait for it to carry every leaf and this cut's label.
    await page.waitForFunction(({ s, names, label }) => {
      const ts = [...document.querySelectorAll(`${s} [data-testid=dendrogram] svg [aria-label=text] text`)].map((t) => t.textContent);
      return names.every((n) => ts.includes(n)) && ts.some((t) => t.includes(label));
    }, { s: sel, names: f.names, label: `${cut.clusters} cluster` }, { timeout: 30_000 }).catch(() => {});
    const svgText = await dendro.locator('svg [aria-label=text] text').allTextContents();
    for (const name of f.names) assert.equal(svgText.filter((t) => t === name).length, 1, `${name} is a leaf of the dendrogram`);
    assert.ok(svgText.some((t) => t.includes(`${cut.clusters} cluster`)), 'the cut is labelled with its cluster count');
    assert.equal(await dendro.locator('svg [aria-label=rule] line').count(), 1, 'the cut line');
    assert.equal(await dendro.locator('svg [aria-label=link] path').count(), 3 * c.dendrogram.merges.length, 'three segments per merge');
    const colours = new Set(await dendro.locator('svg [aria-label=text] text').evaluateAll((ts) => ts.map((t) => t.getAttribute('fill')).filter(Boolean)));
    assert.ok(colours.size >= Math.min(cut.clusters, 2), `leaves coloured by cluster (${colours.size} colours, ${cut.clusters} clusters)`);
    // Leaves in depth-first order: no two branches cross, so every cluster's leaves are contiguous.
    const order = svgText.filter((t) => f.names.includes(t));
    const clusterOf = new Map(cut.members.flatMap((m, k) => m.names.map((n) => [n, k])));
    const seen = new Set();
    let last = -1;
    for (const name of order) {
      const k = clusterOf.get(name);
      if (k !== last) { assert.ok(!seen.has(k), `cluster ${k + 1} is contiguous in the leaf order`); seen.add(k); last = k; }
    }
  }
}

async function checkCalibration(page, sel, f) {
  const cal = f.calibration;
  const box = page.locator(`${sel} [data-testid=calibration]`);
  if (!cal) {
    assert.match(await box.innerText(), /cannot be calibrated|Not enough/);
    return;
  }
  eq(await box.locator('[data-testid=fit-r]').getAttribute('data-value'), cal.fit.r, 'r');
  const slope = box.locator('[data-testid=fit-slope]');
  eq(await slope.getAttribute('data-value'), cal.fit.slope, 'slope');
  eq(await slope.getAttribute('data-lo'), cal.fit.slope_ci[0], 'slope CI lo');
  eq(await slope.getAttribute('data-hi'), cal.fit.slope_ci[1], 'slope CI hi');
  const icpt = box.locator('[data-testid=fit-intercept]');
  eq(await icpt.getAttribute('data-value'), cal.fit.intercept, 'intercept');
  eq(await icpt.getAttribute('data-lo'), cal.fit.intercept_ci[0], 'intercept CI lo');
  const residuals = await box.locator('[data-testid=residual]').evaluateAll((xs) => xs.map((x) => x.dataset.name));
  assert.deepEqual(residuals, cal.largest_residuals, 'largest residuals named, largest first');
  if (cal.cycles_per_tick != null) eq(await box.locator('[data-testid=calibration-cycles-per-tick]').getAttribute('data-value'), cal.cycles_per_tick, 'slope read against cycles per tick');
  const chart = box.locator('[data-testid=calibration-chart]');
  assert.ok(await chart.locator('svg [aria-label=line] path').count() >= 2, 'fitted line and y = x');
  const dots = await chart.locator('svg [aria-label=dot]').first().locator('circle').count();
  assert.equal(dots, cal.points.length, 'one point per operation');
}

async function checkTableTools(page, sel, o) {
  const form = await page.locator(`${sel} [data-testid=form-area]`).getAttribute('data-form');
  const ofForm = o.ops.filter((r) => r.form === form && r.portable_ns);
  // Sort by portable ns/op, ascending then descending.
  await page.click(`${sel} [data-testid=sort-portable_ns]`);
  let shown = await page.$$eval(`${sel} [data-testid=op-row]`, (trs) => trs.map((t) => t.dataset.op));
  const asc = [...ofForm].sort((a, b) => a.portable_ns.estimate - b.portable_ns.estimate).map((r) => r.name);
  assert.deepEqual(shown.slice(0, asc.length), asc, 'sorted by ns/op, ascending');
  await page.click(`${sel} [data-testid=sort-portable_ns]`);
  shown = await page.$$eval(`${sel} [data-testid=op-row]`, (trs) => trs.map((t) => t.dataset.op));
  assert.equal(shown[0], asc[asc.length - 1], 'descending puts the dearest first');
  assert.equal(await page.locator(`${sel} th:has([data-testid=sort-portable_ns])`).getAttribute('aria-sort'), 'descending');
  // Filter.
  const needle = ofForm[0].name.slice(0, 3);
  await page.fill(`${sel} [data-testid=op-filter]`, needle);
  const visible = await page.$$eval(`${sel} [data-testid=op-row]:not([hidden])`, (trs) => trs.map((t) => t.textContent.toLowerCase()));
  assert.ok(visible.length >= 1 && visible.every((t) => t.includes(needle.toLowerCase())), `filter "${needle}" keeps matching rows only`);
  await page.fill(`${sel} [data-testid=op-filter]`, '');
}

test('Clocks extras, Bernoulli and Operations cells match tickbook analyze --json', { timeout: 240_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files());
    await waitForFiles(page, files().length);
    const opts = await pageOptions(page, base(runFile));
    assert.equal(await page.locator('[data-testid=seed]').inputValue(), String(opts.bootstrap.seed), 'the seed is shown');
    const expected = await cli(opts);
    assert.ok(expected[base(runFile)].bernoulli, 'the fresh file has a bernoulli report');
    assert.ok(expected[base(opsFile)].ops, 'an ops report to check');
    await checkClocksExtras(page, expected[base(runFile)]);
    await checkBernoulli(page, expected[base(runFile)]);
    await checkPlanner(page, expected[base(runFile)]);
    await checkOps(page, expected[base(opsFile)]);
    await screenshot(page, 'suites-light');
    // Cell screenshots without the sticky toolbar drawn over them.
    await page.addStyleTag({ content: '.top { position: static !important; }' });
    for (const id of ['bernoulli-cell', 'ops-cell', 'cross-cpu']) {
      await page.locator(`[data-testid=${id}]`).first().screenshot({ path: path.join(ARTIFACTS, `${id}.png`) });
    }
    assertClean(problems, { failed: false });
  } finally {
    await close();
  }
});

test('confidence, resamples, seed and linkage re-analyse in the worker; the view survives', { timeout: 240_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url, { colorScheme: 'dark' });
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files());
    await waitForFiles(page, files().length);
    const runName = base(runFile);
    const opsName = base(opsFile);
    const opsSel = `[data-testid=ops-cell][data-file="${opsName}"]`;
    const forms = await page.locator(`${opsSel} [data-testid=form-option]`).evaluateAll((xs) => xs.map((x) => x.value));
    // Choose a view: the last form and the Q1 cut.
    if (forms.length > 1) await page.locator(`${opsSel} [data-testid=form-option][value="${forms.at(-1)}"]`).check();
    await page.selectOption(`${opsSel} [data-testid=granularity-statistic]`, 'q1');

    // Confidence 99 %: Bernoulli intervals and bootstrap CIs follow the CLI's --confidence 0.99.
    await page.selectOption('[data-testid=confidence]', '0.99');
    await waitForOptions(page, runName, { confidence: 0.99, 'bootstrap.confidence': 0.99 });
    await waitForOptions(page, opsName, { confidence: 0.99 });
    let opts = await pageOptions(page, opsName);
    let want = await cli(opts);
    const b = want[runName].bernoulli;
    const rows = await readTable(page, `[data-testid=bernoulli-cell][data-file="${runName}"] [data-testid=event-row]`, 'event');
    for (const e of b.events) eq(rows[e.name].interval_lo, e.interval_ns?.lo, `99 % interval of ${e.name}`);
    assert.match(await page.locator(`[data-testid=bernoulli-cell][data-file="${runName}"] [data-testid=coverage]`).innerText(), /99\s%/);

    // Resamples and seed.
    await page.fill('[data-testid=resamples]', '500');
    await page.press('[data-testid=resamples]', 'Enter');
    await waitForOptions(page, opsName, { 'bootstrap.resamples': 500 });
    await page.fill('[data-testid=seed]', '42');
    await page.press('[data-testid=seed]', 'Enter');
    await waitForOptions(page, opsName, { 'bootstrap.seed': 42 });
    // A bad seed is refused in place, nothing re-analysed.
    await page.fill('[data-testid=seed]', '12x');
    await page.press('[data-testid=seed]', 'Enter');
    assert.equal(await page.locator('[data-testid=seed]').getAttribute('aria-invalid'), 'true');
    assert.equal((await pageOptions(page, opsName)).bootstrap.seed, 42);

    // Linkage from the clustering section.
    await page.selectOption(`${opsSel} [data-testid=linkage]`, 'complete');
    await waitForOptions(page, opsName, { linkage: 'complete' });
    opts = await pageOptions(page, opsName);
    assert.deepEqual(opts.bootstrap, { ...opts.bootstrap, resamples: 500, seed: 42, confidence: 0.99 });
    want = await cli(opts);
    const o = want[opsName].ops;
    // The view survived every re-analysis: same form, same cut.
    const form = forms.length > 1 ? forms.at(-1) : o.forms[0].form;
    assert.equal(await page.locator(`${opsSel} [data-testid=form-area]`).getAttribute('data-form'), form);
    assert.equal(await page.locator(`${opsSel} [data-testid=granularity-statistic]`).inputValue(), 'q1');
    assert.equal(await page.locator(`${opsSel} [data-testid=linkage]`).inputValue(), 'complete');
    const f = o.forms.find((x) => x.form === form);
    const opRows = await readTable(page, `${opsSel} [data-testid=op-row]`, 'op');
    for (const r of o.ops.filter((x) => x.form === form && x.portable_ns)) {
      eq(opRows[r.name].portable_ns_lo, r.portable_ns.lo, `${r.name} CI lo at 500 resamples, seed 42, 99 %`);
      eq(opRows[r.name].portable_ns_hi, r.portable_ns.hi, `${r.name} CI hi`);
    }
    if (f.clustering) {
      const cuts = await readTable(page, `${opsSel} [data-testid=cut-row]`, 'statistic');
      for (const cut of f.clustering.cuts) eq(cuts[cut.statistic].clusters, cut.clusters, `complete linkage ${cut.statistic} clusters`);
      const members = await page.$$eval(`${opsSel} [data-testid=cluster-row]`, (trs) => trs.map((t) => t.querySelector('[data-stat=names]').dataset.value.split(' ')));
      assert.deepEqual(members, f.clustering.cuts.find((x) => x.statistic === 'q1').members.map((m) => m.names));
    }
    if (f.calibration) eq(await page.locator(`${opsSel} [data-testid=fit-slope]`).getAttribute('data-hi'), f.calibration.fit.slope_ci[1], '99 % slope CI');
    await screenshot(page, 'suites-dark');
    assertClean(problems, { failed: false });
  } finally {
    await close();
  }
});

test('a fit exported from one file applies to another: the page matches tickbook analyze --export-fit/--calibrate-with', { timeout: 240_000 }, async () => {
  // The other file: synthetic ops with its own skew, so the applied fit is
  // visibly another machine's.
  const other = path.join(tmp, 'results', 'other-ops.json');
  await writeFile(other, JSON.stringify(syntheticOpsRun({ seed: 11 })));
  const cliFit = path.join(tmp, 'cli-fit.json');
  await tickbook(['analyze', opsFile, '--export-fit', cliFit, '--form', 'latency']);
  const fitCli = JSON.parse(await readFile(cliFit, 'utf8'));
  assert.equal(fitCli.format, 'tickbook-calibration-fit');
  assert.equal(fitCli.form, 'latency');
  const [calCli] = JSON.parse(await tickbook(['analyze', '--json', '--calibrate-with', cliFit, other]));
  const calibrated = calCli.ops.calibrated;
  assert.ok(calibrated && calibrated.ops.length > 0, 'the CLI calibrated the other file');

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [opsFile, other]);
    await waitForFiles(page, 2);
    // Export from the first file's latency form.
    const src = `[data-testid=ops-cell][data-file="${base(opsFile)}"]`;
    const latency = page.locator(`${src} [data-testid=form-option][value=latency]`);
    if (await latency.count()) await latency.check();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator(`${src} [data-testid=calibration][data-form=latency] [data-testid=export-fit]`).click(),
    ]);
    const pageFitFile = path.join(tmp, 'page-fit.json');
    await download.saveAs(pageFitFile);
    const fitPage = JSON.parse(await readFile(pageFitFile, 'utf8'));
    assert.equal(fitPage.source_file, base(opsFile), 'the page names the file it exported from');
    for (const k of ['intercept', 'slope', 'r', 'intercept_se', 'slope_se', 'residual_sd', 't', 'mean_portable_ns', 'min_portable_ns', 'max_portable_ns']) {
      eq(fitPage[k], fitCli[k], `exported fit ${k}`);
    }
    assert.equal(fitPage.n, fitCli.n, 'exported fit n');

    // Apply it to the other file: the ops table gains the calibrated column.
    const dst = `[data-testid=ops-cell][data-file="${base(other)}"]`;
    const otherLatency = page.locator(`${dst} [data-testid=form-option][value=latency]`);
    if (await otherLatency.count()) await otherLatency.check();
    await page.setInputFiles(`${dst} [data-testid=calibration] [data-testid=apply-fit]`, pageFitFile);
    await page.waitForSelector(`${dst} [data-testid=applied-fit]`);
    eq(await page.locator(`${dst} [data-testid=applied-fit]`).getAttribute('data-slope'), fitCli.slope, 'applied slope');
    eq(await page.locator(`${dst} [data-testid=calibrated-count]`).getAttribute('data-value'), calibrated.ops.length, 'calibrated operations');
    const rows = await readTable(page, `${dst} [data-testid=op-row]:not(.unavailable)`, 'op');
    const shown = calibrated.ops.filter((c) => c.form === 'latency');
    assert.ok(shown.length > 0, 'latency operations calibrated');
    for (const c of shown) {
      const row = rows[c.name];
      assert.ok(row, `row ${c.name} in the table`);
      eq(row.calibrated_ns, c.calibrated_ns, `${c.name} calibrated ns`);
      eq(row.calibrated_ns_lo, c.interval_ns[0], `${c.name} interval low`);
      eq(row.calibrated_ns_hi, c.interval_ns[1], `${c.name} interval high`);
    }
    // A file that is not a fit is refused with a message, not an exception.
    await page.setInputFiles(`${dst} [data-testid=calibration] [data-testid=apply-fit]`, other);
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-testid=fit-status]`)?.textContent.includes('not a tickbook calibration fit'), dst);
    // Removing the fit drops the column.
    await page.locator(`${dst} [data-testid=remove-fit]`).click();
    await page.waitForFunction((sel) => !document.querySelector(`${sel} [data-stat=calibrated_ns]`), dst);
    assertClean(problems, { failed: false });
  } finally {
    await close();
  }
});
