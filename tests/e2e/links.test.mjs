// Links (`#s=`, web/src/app/state.js): a link reopens the whole view — every
// analysis option (a nullable one such as dtw.band included), the Bernoulli
// trial planner's inputs, the Perturbation cell's choices and the Comparison
// cell's toggles — and a hand-edited link with values the analysis refuses
// falls back to the defaults for those fields only, with one notice naming
// them, instead of error cards.
//
// Files: a fresh `tickbook collect bernoulli --quick` run (the planner needs
// a real tick and overhead), tests/fixtures/trace-small.json and two copies of
// tests/fixtures/samples-3x5.json (a Comparison cell).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  ROOT, FIXTURES, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot, sameNumber, num,
  cellViewFields,
} from './harness.mjs';
import init, { defaultOptions, checkOptions as wasmCheck } from '../../web/pkg/tickbook_analysis_wasm.js';
import {
  initialState, restoreOptions, checkOptions, currentState, stateHash, linkNotice, pickView, restoreViews, restoreCompare,
  declareViewFields,
} from '../../web/src/app/state.js';

// As the page does with the bundled cells: what a link may keep of each view.
declareViewFields(await cellViewFields());

const FILES = ['bern.json', 'trace-small.json', 'samples-a.json', 'samples-b.json'];
let tmp, results, server, defaults;

// A valid value other than the default for every analysis option (a new
// option fails the first test until it is added here).
const VALID = {
  quantile_type: 6,
  ecdf_points: 100,
  confidence: 0.9,
  'bootstrap.resamples': 500,
  'bootstrap.confidence': 0.99,
  'bootstrap.seed': 42,
  linkage: 'ward',
  'impact.pairs': 50,
  'impact.group_size': 5,
  'impact.permutations': 100,
  threshold: 0.1,
  outlier_k: 3,
  impact_resamples: 100,
  'dtw.step_pattern': 'symmetric1',
  'dtw.band': 12,
  reference_clock: 'counter',
};

const leaves = (o, p = []) => Object.entries(o).flatMap(([k, v]) =>
  (v && typeof v === 'object' ? leaves(v, [...p, k]) : [[[...p, k].join('.'), v]]));
const set = (o, field, value) => {
  const [k, ...rest] = field.split('.');
  return { ...o, [k]: rest.length ? set(o[k], rest.join('.'), value) : value };
};
const check = async (o) => wasmCheck(o) ?? null;
const stateOf = (hash) => JSON.parse(decodeURIComponent(hash.slice('#s='.length)));
const pageUrl = () => `${server.url}?${FILES.map((f) => `url=/results/${f}`).join('&')}`;

before(async () => {
  await checkPrerequisites();
  await init({ module_or_path: await readFile(path.join(ROOT, 'web/pkg/tickbook_analysis_wasm_bg.wasm')) });
  defaults = defaultOptions();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await tickbook(['collect', 'bernoulli', '--quick', '--out', path.join(results, 'bern.json')], { timeout: 300_000 });
  await copyFile(path.join(FIXTURES, 'trace-small.json'), path.join(results, 'trace-small.json'));
  await copyFile(path.join(FIXTURES, 'samples-3x5.json'), path.join(results, 'samples-a.json'));
  await copyFile(path.join(FIXTURES, 'samples-3x5.json'), path.join(results, 'samples-b.json'));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** All given values of every non-default option, and where the page shows them. */
function allOptions() {
  let o = defaults;
  for (const [field, value] of Object.entries(VALID)) if (leaves(defaults).some(([f]) => f === field)) o = set(o, field, value);
  return o;
}

test('every analysis option round-trips through a link; refused values fall back one by one', async () => {
  // Every option has a test value, different from its default, that the analysis takes.
  for (const [field, value] of leaves(defaults)) {
    assert.ok(Object.hasOwn(VALID, field), `VALID has a value for the option ${field}`);
    assert.notDeepEqual(VALID[field], value, `${field}: the test value differs from the default`);
    assert.equal(await check(set(defaults, field, VALID[field])), null, `${field}: the analysis takes ${VALID[field]}`);
  }
  const all = allOptions();
  restoreOptions(defaults, null);
  const hash = stateHash(currentState({ options: all, views: [] }));
  assert.equal(await checkOptions(restoreOptions(defaults, initialState(null, hash)), check).then((o) => JSON.stringify(o)), JSON.stringify(all));
  assert.equal(linkNotice(), null);
  // A nullable option goes back to null.
  const banded = restoreOptions(defaults, { o: { dtw: { band: 7 } } });
  assert.equal(banded.dtw.band, 7);
  assert.equal(restoreOptions(defaults, { o: { dtw: { band: null } } }).dtw.band, null);

  // Refused values: each falls back to its default; the others apply; the notice names each.
  const bad = {
    confidence: 1.5, quantile_type: 42, outlier_k: -1, threshold: '5', nope: 1, impact_resamples: 0,
    impact: { permutations: 5 }, bootstrap: { resamples: 1e9, seed: 7 }, dtw: { step_pattern: 'bogus', band: 12 },
  };
  const got = await checkOptions(restoreOptions(defaults, { o: bad }), check);
  assert.deepEqual(got, set(set(defaults, 'bootstrap.seed', 7), 'dtw.band', 12));
  const notice = linkNotice();
  for (const f of ['confidence', 'quantile_type', 'outlier_k', 'threshold', 'nope', 'impact_resamples', 'impact.permutations', 'bootstrap.resamples', 'dtw.step_pattern']) {
    assert.ok(notice.includes(`${f} (`), `the notice names ${f}: ${notice}`);
  }
  assert.ok(!/bootstrap\.seed|dtw\.band/.test(notice), 'valid fields are not named');
  // A mangled link says so.
  restoreOptions(defaults, initialState(null, '#s=%7Bbroken'));
  assert.match(linkNotice(), /could not be read/);

  // View state: the planner only once edited; the trace toggles one by one; the comparison toggles.
  const planner = {
    edited: true, tickDefault: 4e6, overheadDefault: 30, event: { text: '250', unit: 'µs', exact: null },
    tick: { text: '4', unit: 'ms', exact: 4e6 }, overhead: { text: '30', unit: 'ns', exact: 30 }, epsilon: { text: '2', exact: null }, confidence: '0.99',
  };
  assert.deepEqual(pickView({ planner }).planner, planner);
  assert.equal(pickView({ planner: { ...planner, edited: false } }).planner, undefined);
  assert.equal(pickView({ planner: { ...planner, tick: { text: '4' } } }).planner, undefined, 'a half planner is no planner');
  assert.deepEqual(pickView({ traceAll: { inner: true, outer: 'yes' }, traceLevel: 2, traceMetric: 'x'.repeat(500) }), { traceAll: { inner: true }, traceLevel: 2 });
  assert.deepEqual(pickView({ traceAll: { outer: 'yes' }, nope: 'x', sort: { key: 'name', dir: Infinity } }), {}, 'nothing valid is nothing kept');
  assert.deepEqual(pickView({ planner: { ...planner, edited: null } }), {}, 'only edited: true keeps the planner');
  // The fields are the cells' own: every cell's declared field is kept, and two cells declaring one field are refused.
  const declared = await cellViewFields();
  assert.deepEqual(Object.keys(pickView({ form: 'sse', copyLen: 64, traceLevel: 1, planner })).sort(), ['copyLen', 'form', 'planner', 'traceLevel']);
  assert.throws(() => declareViewFields({ ...declared, zzz: { form: 'string' } }), /view field form is declared by cells ops and zzz/);
  const views = new Map();
  restoreViews(views, ['f1'], { v: [{ traceWorkload: 'compress', traceMetric: '<img src=x>' }] });
  assert.deepEqual(views.get('f1'), { traceWorkload: 'compress', traceMetric: '<img src=x>' }, 'text is kept as text (the cell matches it against the report)');
  assert.deepEqual(restoreCompare({ c: { pool: true, only: ['samples', 3, 'ops'] } }), { pool: true, warmUps: false, reference: null, only: new Set(['samples', 'ops']), every: false });
  assert.deepEqual(restoreCompare({ c: { pool: 'yes', warm: 'yes', ref: 3, all: 'yes' } }), { pool: false, warmUps: false, reference: null, only: new Set(), every: false });
  assert.deepEqual(restoreCompare({ c: { warm: true, ref: 'sleep 0.01' } }), { pool: false, warmUps: true, reference: 'sleep 0.01', only: new Set(), every: false });
  const s = currentState({ options: defaults, views: [], compare: { pool: true, only: new Set(['samples']) } });
  assert.deepEqual(s, { c: { pool: true, only: ['samples'] } });
  // The warm-up toggle and a series reference round-trip.
  const w = currentState({ options: defaults, views: [], compare: { warmUps: true, reference: 'sleep 0.01', only: new Set() } });
  assert.deepEqual(w, { c: { warm: true, ref: 'sleep 0.01' } });
  assert.deepEqual(restoreCompare(w), { pool: false, warmUps: true, reference: 'sleep 0.01', only: new Set(), every: false });
  // Every series compared, asked for on a file of unrelated benchmarks.
  const e = currentState({ options: defaults, views: [], compare: { every: true, only: new Set() } });
  assert.deepEqual(e, { c: { all: true } });
  assert.equal(restoreCompare(e).every, true);
});

/** Wait until every file's cells were rendered with options containing `text`. */
async function waitForOptions(page, text) {
  await page.waitForFunction(([t, n]) => {
    const slots = [...document.querySelectorAll('.slot')];
    return slots.length === n && slots.every((s) => (s.dataset.options ?? '').includes(t));
  }, [text, FILES.length], { timeout: 120_000 });
  await waitForFiles(page, FILES.length, 120_000);
}

async function waitForComparison(page, pooling) {
  await page.waitForFunction((p) => {
    const c = document.querySelector('[data-testid=compare-cell]');
    return c && !c.dataset.pending && c.dataset.pooling === String(p) && c.dataset.built === 'true' &&
      [...c.querySelectorAll('[data-testid=compare-suite] tbody')].every((b) => b.dataset.complete === 'true');
  }, pooling, { timeout: 120_000 });
}

/**
 * How many comparisons the page asked for, once every file's cells are
 * drawn (main.js marks 'render <file>' then, and asks after the last).
 */
async function comparisonsAsked(page) {
  await page.waitForFunction((n) => performance.getEntriesByType('measure')
    .filter((m) => m.name.startsWith('render ') && !m.name.startsWith('render cell ')).length >= n, FILES.length);
  return page.evaluate(() => performance.getEntriesByName('compare asked').length);
}

/** What the page shows that the link must bring back. */
async function shown(page) {
  return page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    const val = (s) => q(s)?.value ?? null;
    const trace = '[data-testid=trace-cell]';
    const planner = '[data-testid=bernoulli-cell] [data-testid=planner]';
    return {
      options: { band: val(`${trace} [data-testid=trace-band]`), pattern: val(`${trace} [data-testid=trace-step-pattern]`), seed: val('[data-testid=seed]') },
      planner: {
        event: val(`${planner} [data-testid=plan-event]`), eventUnit: val(`${planner} [data-testid=plan-event-unit]`),
        tick: val(`${planner} [data-testid=plan-tick]`), tickUnit: val(`${planner} [data-testid=plan-tick-unit]`),
        epsilon: val(`${planner} [data-testid=plan-epsilon]`), confidence: val(`${planner} [data-testid=plan-confidence]`),
        trials: q(`${planner} [data-testid=plan-trials]`)?.dataset.value ?? null,
        wall: q(`${planner} [data-testid=plan-wall-time]`)?.dataset.value ?? null,
      },
      trace: {
        level: val(`${trace} [data-testid=trace-example-level]`), metric: val(`${trace} [data-testid=trace-example-metric]`),
        distance: q(`${trace} [data-testid=trace-dtw-distance]`)?.dataset.value ?? null,
        outer: q(`${trace} [data-testid=trace-example-outer]`)?.dataset.value ?? null,
      },
      compare: {
        pool: q('[data-testid=pool-toggle]')?.checked ?? null,
        only: [...document.querySelectorAll('[data-testid=compare-suite]')].filter((b) => b.querySelector('[data-testid=compare-only-different]').checked && b.classList.contains('only-different')).map((b) => b.dataset.suite),
        pooled: !!q('[data-testid=compare-cell] [data-testid=compare-pooled]'),
      },
    };
  });
}

test('a link reopens the planner, the Perturbation choices, the DTW options and the Comparison toggles', { timeout: 600_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  let hash, before, fresh;
  try {
    await page.goto(pageUrl());
    await waitForFiles(page, FILES.length, 120_000);
    await waitForComparison(page, false);
    fresh = await shown(page);
    assert.equal(await comparisonsAsked(page), 1, 'loading the files asks for one comparison');

    // Options: the DTW step pattern and a band (null by default).
    await page.selectOption('[data-testid=trace-step-pattern]', 'symmetric1');
    await waitForOptions(page, '"step_pattern":"symmetric1"');
    await page.fill('[data-testid=trace-band]', '12');
    await page.press('[data-testid=trace-band]', 'Enter');
    await waitForOptions(page, '"band":12');

    // The planner.
    const planner = '[data-testid=bernoulli-cell] [data-testid=planner]';
    await page.fill(`${planner} [data-testid=plan-event]`, '250');
    await page.selectOption(`${planner} [data-testid=plan-event-unit]`, 'µs');
    await page.fill(`${planner} [data-testid=plan-tick]`, '3');
    await page.fill(`${planner} [data-testid=plan-epsilon]`, '2');
    await page.selectOption(`${planner} [data-testid=plan-confidence]`, '0.99');
    await page.waitForFunction((p) => document.querySelector(`${p} [data-testid=plan-trials]`) &&
      document.querySelector(`${p} [data-testid=plan-result]`).dataset.trials !== '', planner);

    // The Perturbation cell: another instrumented run and another metric than the defaults.
    const levels = await page.$$eval('[data-testid=trace-example-level] option', (os) => os.map((o) => o.value));
    const metrics = await page.$$eval('[data-testid=trace-example-metric] option', (os) => os.map((o) => o.value));
    const level = levels.find((l) => l !== fresh.trace.level);
    const metric = metrics.find((m) => m !== fresh.trace.metric);
    assert.ok(level && metric, `the trace has a second level (${levels}) and metric (${metrics})`);
    await page.selectOption('[data-testid=trace-example-level]', level);
    await page.waitForFunction((l) => document.querySelector('[data-testid=trace-example-level]').value === l, level);
    await page.selectOption('[data-testid=trace-example-metric]', metric);
    await page.waitForFunction((m) => document.querySelector('[data-testid=trace-example-metric]').value === m, metric);

    // The Comparison cell: pooling on, then only the differing items of the samples suite.
    await page.click('[data-testid=pool-toggle]');
    await waitForComparison(page, true);
    await page.check('[data-testid=compare-suite][data-suite=samples] [data-testid=compare-only-different]');
    await page.waitForFunction(() => {
      const h = decodeURIComponent(location.hash);
      return h.includes('"pool":true') && h.includes('"only":["samples"]') && h.includes('"band":12') && h.includes('"planner"');
    });
    hash = await page.evaluate(() => location.hash);
    before = await shown(page);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }

  // What was set is what the page showed, and it changed the cells' numbers.
  assert.deepEqual(before.options, { band: '12', pattern: 'symmetric1', seed: fresh.options.seed });
  assert.notEqual(before.planner.trials, fresh.planner.trials, 'the planner\u2019s inputs change its result');
  assert.notEqual(before.trace.distance, fresh.trace.distance, 'the DTW options and the chosen run change the distance');
  assert.deepEqual({ ...before.planner, trials: null, wall: null },
    { event: '250', eventUnit: 'µs', tick: '3', tickUnit: before.planner.tickUnit, epsilon: '2', confidence: '0.99', trials: null, wall: null });
  assert.deepEqual({ pool: before.compare.pool, only: before.compare.only, pooled: before.compare.pooled }, { pool: true, only: ['samples'], pooled: true });
  const st = stateOf(hash);
  assert.deepEqual(st.o.dtw, { step_pattern: 'symmetric1', band: 12 });
  assert.deepEqual(st.c, { pool: true, only: ['samples'] });
  assert.equal(st.v[0].planner.event.text, '250');
  assert.equal(st.v[1].traceLevel, Number(before.trace.level));
  assert.equal(st.v[1].traceMetric, before.trace.metric);

  // The CLI with the same options gives the distance the page showed for that run.
  const cli = JSON.parse(await tickbook(['analyze', '--json', '--step-pattern', 'symmetric1', '--band', '12', path.join(results, 'trace-small.json')]));
  const w = cli[0].trace.workloads[0];
  const ex = w.examples.find((e) => e.level === Number(before.trace.level));
  const run = w.runs.find((r) => r.level === ex.level && r.repetition === ex.repetition);
  assert.ok(sameNumber(num(before.trace.distance), run.dtw_distance), `DTW distance ${before.trace.distance} vs the CLI's ${run.dtw_distance}`);
  assert.ok(sameNumber(num(before.trace.outer), run.outer[w.metrics.indexOf(before.trace.metric)]), 'outer ρ of the chosen metric');

  // A fresh page from the link alone shows the same.
  const again = await openBrowser(server.url);
  try {
    await again.page.goto(pageUrl() + hash);
    await waitForOptions(again.page, '"band":12');
    await waitForComparison(again.page, true);
    assert.equal(await comparisonsAsked(again.page), 1, 'a link asks for one comparison too');
    await again.page.waitForFunction(() => document.querySelector('[data-testid=planner] [data-testid=plan-result]')?.dataset.trials);
    const after = await shown(again.page);
    assert.deepEqual(after, before);
    assert.equal(await again.page.locator('[data-testid=link-notice]').isHidden(), true, 'no notice for a good link');
    await screenshot(again.page, 'links-reopened');
    assert.deepEqual(again.problems.pageErrors, []);
    assert.deepEqual(again.problems.consoleErrors, []);
    assert.deepEqual(again.problems.foreignRequests, []);
  } finally {
    await again.close();
  }
});

test('a link with every option changed opens with all of them; a click writes the same options back', { timeout: 300_000 }, async () => {
  const all = allOptions();
  restoreOptions(defaults, null);
  const hash = stateHash(currentState({ options: all, views: [] }));
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(pageUrl() + hash);
    await waitForOptions(page, '"band":12');
    assert.equal(await page.inputValue('[data-testid=confidence]'), String(all.confidence));
    assert.equal(await page.inputValue('[data-testid=quantile-type]'), String(all.quantile_type));
    assert.equal(await page.inputValue('[data-testid=resamples]'), String(all.bootstrap.resamples));
    assert.equal(await page.inputValue('[data-testid=seed]'), String(all.bootstrap.seed));
    assert.equal(Number(await page.inputValue('[data-testid=threshold]')), all.threshold * 100);
    assert.equal(await page.inputValue('[data-testid=trace-step-pattern]'), 'symmetric1');
    assert.equal(await page.inputValue('[data-testid=trace-band]'), '12');
    const used = await page.$eval('.slot', (s) => JSON.parse(s.dataset.options));
    assert.deepEqual(used, all, 'the analysis ran with every option of the link');
    assert.equal(await page.locator('[data-testid=link-notice]').isHidden(), true);
    await page.click('h1');
    await page.waitForFunction(() => location.hash.startsWith('#s='));
    assert.deepEqual(stateOf(await page.evaluate(() => location.hash)).o, stateOf(hash).o);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});

test('a hand-edited link with refused options: defaults for those, the rest applies, one notice, no error cards', { timeout: 300_000 }, async () => {
  const state = {
    o: {
      confidence: 1.5, quantile_type: 42, outlier_k: -1, impact_resamples: 0,
      bootstrap: { resamples: 1e9, seed: 12345 }, threshold: 0.1, dtw: { step_pattern: 'bogus', band: 12 },
    },
    v: [null, { traceMetric: '<img src=x onerror=alert(1)>' }],
    c: { pool: true },
  };
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(pageUrl() + stateHash(state));
    await waitForFiles(page, FILES.length, 120_000);
    const cards = await page.$$eval('[data-testid=error-card]', (cs) => cs.map((c) => c.textContent.trim().slice(0, 200)));
    assert.deepEqual(cards, [], 'no error cards');
    await waitForOptions(page, '"band":12');
    await waitForComparison(page, true);
    for (const id of ['bernoulli-cell', 'trace-cell', 'samples-cell']) {
      assert.ok(await page.locator(`[data-testid=${id}]`).count() > 0, `${id} is shown`);
    }
    const notice = page.locator('[data-testid=link-notice]');
    assert.equal(await notice.isVisible(), true);
    const text = await notice.innerText();
    for (const f of ['confidence', 'quantile_type', 'outlier_k', 'impact_resamples', 'bootstrap.resamples', 'dtw.step_pattern']) {
      assert.ok(text.includes(`${f} (`), `the notice names ${f}: ${text}`);
    }
    assert.ok(!/seed|threshold \(|band/.test(text), `valid fields are not named: ${text}`);
    assert.equal(await notice.locator('*').count(), 0, 'the notice is text only');
    // The dropped ones are at their defaults, the valid ones applied.
    const used = await page.$eval('.slot', (s) => JSON.parse(s.dataset.options));
    assert.deepEqual(used, set(set(set(defaults, 'bootstrap.seed', 12345), 'threshold', 0.1), 'dtw.band', 12));
    assert.equal(await page.inputValue('[data-testid=confidence]'), '0.95');
    assert.equal(await page.inputValue('[data-testid=seed]'), '12345');
    assert.equal(await page.inputValue('[data-testid=threshold]'), '10');
    assert.equal(await page.inputValue('[data-testid=trace-band]'), '12');
    assert.equal(await page.inputValue('[data-testid=trace-step-pattern]'), 'symmetric2');
    assert.equal(await page.locator('[data-testid=pool-toggle]').isChecked(), true);
    // A metric the trace does not have is no choice: the cell picks its own, as text.
    assert.equal(await page.locator('img[src=x]').count(), 0);
    await screenshot(page, 'links-bad-options');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});
