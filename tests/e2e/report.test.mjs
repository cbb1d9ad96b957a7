// Sharing: Export report writes one self-contained .html that, opened from
// file:// in a fresh profile with the network blocked, recomputes exactly
// the numbers the live page showed (same options, same view);
// `tickbook report` makes the same report from the command line; the URL
// fragment reopens a view; charts export as SVG and PNG, tables as CSV.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  FIXTURES, WEB_DIST, CHROMIUM, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, screenshot,
  everySuiteCollection,
  cellViewFields,
} from './harness.mjs';
import { csvField } from '../../web/src/app/export.js';
import {
  initialState, restoreOptions, restoreViews, currentState, stateHash, declareViewFields,
} from '../../web/src/app/state.js';

// As the page does with the bundled cells: what a link may keep of each view.
declareViewFields(await cellViewFields());

let tmp, results, server;
const RUN = 'clocks-ops.json';
const SAMPLES = 'samples-3x5.json';

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await tickbook(['collect', 'clocks', 'ops', '--quick', '--out', path.join(results, RUN)], { timeout: 300_000 });
  await copyFile(path.join(FIXTURES, SAMPLES), path.join(results, SAMPLES));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Every number the notebook shows: [closest data-testid, data-stat, data-value], in page order. */
function shownNumbers(page) {
  return page.$$eval('#cells [data-value]', (els) => els.map((el) => [
    el.closest('[data-testid]')?.dataset.testid ?? '', el.dataset.stat ?? '', el.dataset.value,
  ]));
}

/** Wait until every file's slot was rendered with this confidence level. */
async function waitForConfidence(page, level, timeout = 60_000) {
  await page.waitForFunction((c) => {
    const slots = [...document.querySelectorAll('#cells .slot')];
    return slots.length > 0 && slots.every((s) => s.dataset.options && JSON.parse(s.dataset.options)?.confidence === c);
  }, level, { timeout });
}

/**
 * A fresh Chromium profile that can reach nothing but files and blob:/data:
 * URLs: every other request is aborted and logged.
 */
async function offlineBrowser() {
  const profile = await tempDir('tickbook-chromium-offline-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    offline: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
  });
  const requests = [];
  const blocked = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (/^(file|blob|data):/.test(u)) return route.continue();
    blocked.push(u);
    return route.abort('blockedbyclient');
  });
  context.on('request', (r) => requests.push(r.url()));
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = { consoleErrors: [], pageErrors: [] };
  page.on('console', (m) => { if (m.type() === 'error') problems.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => problems.pageErrors.push(String(e?.stack ?? e)));
  const close = async () => {
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true }).catch(() => {});
  };
  return { context, page, problems, requests, blocked, close };
}

/** Open a report file offline; returns its numbers and what it requested. */
async function openReport(file, count, check) {
  const b = await offlineBrowser();
  try {
    const url = pathToFileURL(file).href;
    await b.page.goto(url);
    await waitForFiles(b.page, count, 60_000);
    await check?.(b.page);
    const numbers = await shownNumbers(b.page);
    await screenshot(b.page, `report-${path.basename(file, '.html')}`);
    const foreign = b.requests.filter((u) => u !== url && !u.startsWith('blob:') && !u.startsWith('data:'));
    assert.deepEqual(foreign, [], 'the report requested nothing outside itself');
    assert.deepEqual(b.blocked, []);
    assert.deepEqual(b.problems.pageErrors, []);
    assert.deepEqual(b.problems.consoleErrors, []);
    return numbers;
  } finally {
    await b.close();
  }
}

function assertSameNumbers(actual, expected, what) {
  assert.ok(expected.length > 200, `the live page shows many numbers (${expected.length})`);
  assert.equal(actual.length, expected.length, `${what}: as many numbers as the live page`);
  const diffs = [];
  expected.forEach((e, i) => {
    if (JSON.stringify(actual[i]) !== JSON.stringify(e)) diffs.push({ i, live: e, report: actual[i] });
  });
  assert.deepEqual(diffs.slice(0, 10), [], `${what}: ${diffs.length} numbers differ`);
}

test('CSV fields: RFC 4180 quoting, formulas neutralised, numbers kept', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('two\nlines'), '"two\nlines"');
  assert.equal(csvField('=1+1'), "'=1+1");
  assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvField('+33 6'), "'+33 6");
  assert.equal(csvField('-cmd'), "'-cmd");
  assert.equal(csvField('-1.5'), '-1.5');
  assert.equal(csvField('2e-9'), '2e-9');
  assert.equal(csvField(null), '');
});

test('link state: only known fields of the right type are taken; a link round-trips', () => {
  const defaults = { quantile_type: 7, confidence: 0.95, bootstrap: { resamples: 2000, seed: 5, confidence: 0.95 }, linkage: 'average' };
  const o = restoreOptions(defaults, { o: { confidence: 0.9, quantile_type: 'x', bootstrap: { seed: 'NaN', resamples: 10 }, evil: 1, linkage: 'ward' } });
  assert.deepEqual(o, { quantile_type: 7, confidence: 0.9, bootstrap: { resamples: 10, seed: 5, confidence: 0.95 }, linkage: 'ward' });
  assert.deepEqual(restoreOptions(defaults, { o: [1, 2] }), defaults);

  const views = new Map();
  restoreViews(views, ['f1', 'f2'], { v: [{ form: 5, filter: 'div', sort: { key: 'name', dir: 'up' }, statistic: null, extra: '<b>' }, 'junk'] });
  assert.deepEqual(views.get('f1'), { filter: 'div', statistic: null });
  assert.equal(views.has('f2'), false);

  const state = currentState({ options: { ...o, confidence: 0.99 }, views: [{ form: 'throughput', sort: { key: null, dir: -1 }, calibratedFor: { huge: true } }] });
  assert.deepEqual(state, { o: { confidence: 0.99, bootstrap: { resamples: 10 }, linkage: 'ward' }, v: [{ form: 'throughput', sort: { key: null, dir: -1 } }] });
  const hash = stateHash(state);
  assert.match(hash, /^#s=%7B/);
  assert.deepEqual(initialState(null, hash), state);
  // A mangled link falls back to the report's state, then to none.
  assert.deepEqual(initialState({ state: { o: { confidence: 0.9 } } }, '#s=%7Bbroken'), { o: { confidence: 0.9 } });
  assert.equal(initialState(null, '#cell-f1-clocks'), null);
  assert.equal(stateHash({}), '');
});

const liveUrl = () => `${server.url}?url=/results/${RUN}&url=/results/${SAMPLES}`;

test('Export report: opens from file:// offline and shows the live page\u2019s numbers, options and view', { timeout: 300_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  let reportFile, live, hash;
  try {
    await page.goto(liveUrl());
    await waitForFiles(page, 2, 60_000);
    // Change an option and a view choice: the report must carry both.
    await page.selectOption('[data-testid=confidence]', '0.9');
    await waitForConfidence(page, 0.9);
    await page.locator('[data-testid=ops-cell] [data-testid=form-option][value=throughput]').check();
    await page.waitForSelector('[data-testid=form-area][data-form=throughput]');
    await page.selectOption('[data-testid=granularity-statistic]', 'q3');
    await page.waitForFunction(() => location.hash.startsWith('#s=') && decodeURIComponent(location.hash).includes('"statistic":"q3"'));
    hash = await page.evaluate(() => location.hash);
    live = await shownNumbers(page);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=export-report]'),
    ]);
    assert.equal(download.suggestedFilename(), 'tickbook-report.html');
    reportFile = path.join(tmp, 'exported.html');
    await download.saveAs(reportFile);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
  const size = (await stat(reportFile)).size;
  const run = (await stat(path.join(results, RUN))).size;
  console.log(`# exported report: ${size} bytes for a ${run}-byte clocks+ops file and a ${(await stat(path.join(results, SAMPLES))).size}-byte samples file`);

  const html = await readFile(reportFile, 'utf8');
  assert.match(html, /<script type="application\/json" id="tickbook-data">\{/);
  assert.doesNotMatch(html, /<script[^>]+src=/i, 'no external script');

  const shown = await openReport(reportFile, 2, async (p) => {
    assert.equal(await p.inputValue('[data-testid=confidence]'), '0.9');
    assert.equal(await p.locator('[data-testid=form-area]').getAttribute('data-form'), 'throughput');
    assert.equal(await p.inputValue('[data-testid=granularity-statistic]'), 'q3');
    const rows = await p.$$eval('[data-testid=file-row]', (trs) => trs.map((t) => [t.dataset.file, t.dataset.status]));
    assert.deepEqual(rows, [[`/results/${RUN}`, 'ok'], [`/results/${SAMPLES}`, 'ok']]);
    // A report exports again (offline, from its own document).
    const [d] = await Promise.all([p.waitForEvent('download'), p.click('[data-testid=export-report]')]);
    await d.saveAs(path.join(tmp, 'exported-again.html'));
  });
  assertSameNumbers(shown, live, 'exported report');
  assertSameNumbers(await openReport(path.join(tmp, 'exported-again.html'), 2), live, 'report exported from a report');

  // The link alone (fragment) reopens the same view on the live page.
  const again = await openBrowser(server.url);
  try {
    await again.page.goto(liveUrl() + hash);
    await waitForFiles(again.page, 2, 60_000);
    await waitForConfidence(again.page, 0.9);
    assert.equal(await again.page.inputValue('[data-testid=granularity-statistic]'), 'q3');
    assertSameNumbers(await shownNumbers(again.page), live, 'page reopened from its link');
  } finally {
    await again.close();
  }
});

/** The Bernoulli trial planner as shown: its confidence, inputs and result, and Table 1's entry for the same inputs. */
function readPlanner(page) {
  return page.$eval('[data-testid=bernoulli-cell]', (cell) => {
    const p = cell.querySelector('[data-testid=planner]');
    const val = (t) => p.querySelector(`[data-testid=${t}]`).value;
    const result = p.querySelector('[data-testid=plan-result]').dataset;
    return {
      confidence: val('plan-confidence'), event: val('plan-event'), eventUnit: val('plan-event-unit'), epsilon: val('plan-epsilon'),
      trials: result.trials, wallTime: result.wallTime,
      intervals: cell.querySelector('[data-testid=bernoulli-confidence]').dataset.value,
      table100ns: (() => {
        const row = cell.querySelector('[data-testid=planner-row][data-event="100"]');
        const eps = Number(val('plan-epsilon')) / 100;
        return row ? [...row.querySelectorAll('[data-stat]')].find((c) => c.dataset.stat === `trials_${eps}`)?.dataset.value ?? null : null;
      })(),
    };
  });
}

async function waitForPlan(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=bernoulli-cell] [data-testid=plan-result]')?.dataset.trials, null, { timeout: 60_000 });
}

test('the trial planner follows the toolbar\u2019s confidence until it is set in the planner, and the exported report opens with the page\u2019s planner', { timeout: 900_000 }, async () => {
  const { run } = await everySuiteCollection();
  await copyFile(run, path.join(results, 'every.json'));
  const { page, problems, close } = await openBrowser(server.url);
  let followed, chosen, live;
  const files = {};
  const exportTo = async (name) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-report]')]);
    files[name] = path.join(tmp, `${name}.html`);
    await d.saveAs(files[name]);
  };
  try {
    await page.goto(`${server.url}?url=/results/every.json`);
    await waitForFiles(page, 1, 120_000);
    await waitForPlan(page);
    assert.equal((await readPlanner(page)).confidence, '0.95', 'the planner starts at the toolbar\u2019s confidence');

    // The toolbar at 99 %: the planner, untouched, follows it, and gives
    // Table 1's trials (computed by the analysis at the report's confidence).
    await page.selectOption('[data-testid=confidence]', '0.99');
    await waitForConfidence(page, 0.99);
    await waitForPlan(page);
    followed = await readPlanner(page);
    assert.equal(followed.intervals, '0.99');
    assert.equal(followed.confidence, '0.99', 'the untouched planner follows the toolbar');
    assert.equal(`${followed.event} ${followed.eventUnit}`, '100 ns');
    if (followed.table100ns != null) assert.equal(followed.trials, followed.table100ns, 'the planner at 99 % gives Table 1\u2019s trials at 99 %');
    live = await shownNumbers(page);
    await exportTo('planner-followed');

    // A level picked in the planner stays when the toolbar changes.
    await page.selectOption('[data-testid=planner] [data-testid=plan-confidence]', '0.9');
    await page.waitForFunction(() => document.querySelector('[data-testid=plan-result]').dataset.trials && decodeURIComponent(location.hash).includes('"confidence":"0.9"'));
    await page.selectOption('[data-testid=confidence]', '0.95');
    await waitForConfidence(page, 0.95);
    await waitForPlan(page);
    chosen = await readPlanner(page);
    assert.equal(chosen.intervals, '0.95');
    assert.equal(chosen.confidence, '0.9', 'a level picked in the planner is kept');
    await exportTo('planner-chosen');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
  const inReport = async (file) => {
    let shown;
    const numbers = await openReport(file, 1, async (p) => {
      await waitForPlan(p);
      shown = await readPlanner(p);
    });
    return { shown, numbers };
  };
  const a = await inReport(files['planner-followed']);
  assert.deepEqual(a.shown, followed, 'the report opens with the page\u2019s planner (toolbar at 99 %)');
  assertSameNumbers(a.numbers, live, 'report of the whole notebook at 99 %');
  const b = await inReport(files['planner-chosen']);
  assert.deepEqual(b.shown, chosen, 'the report keeps the level picked in the planner');
});

test('tickbook report: the command line\u2019s report shows the page\u2019s numbers for the same files', { timeout: 300_000 }, async () => {
  const out = path.join(tmp, 'cli-report.html');
  const files = [path.join(results, RUN), path.join(results, SAMPLES)];
  await tickbook(['report', ...files, '-o', out, '--web-root', WEB_DIST]);
  const { page, close } = await openBrowser(server.url);
  let live;
  try {
    await page.goto(liveUrl());
    await waitForFiles(page, 2, 60_000);
    live = await shownNumbers(page);
  } finally {
    await close();
  }
  const shown = await openReport(out, 2, async (p) => {
    const rows = await p.$$eval('[data-testid=file-row]', (trs) => trs.map((t) => [t.dataset.file, t.dataset.status]));
    assert.deepEqual(rows, [[files[0], 'ok'], [files[1], 'ok']], 'files named as given, as tickbook analyze names them');
  });
  assertSameNumbers(shown, live, 'tickbook report');
});

test('tickbook report: an unreadable or bad file gets its error card; the others are shown', { timeout: 120_000 }, async () => {
  const out = path.join(tmp, 'cli-bad.html');
  const missing = path.join(tmp, 'missing.json');
  const truncated = path.join(FIXTURES, 'bad/truncated.json');
  let failed;
  try {
    await tickbook(['report', truncated, missing, path.join(results, SAMPLES), '-o', out]);
  } catch (e) {
    failed = e;
  }
  assert.match(String(failed?.message), /missing\.json/, 'non-zero exit naming the unreadable file');
  await openReport(out, 3, async (p) => {
    const cards = await p.$$eval('[data-testid=error-card]', (cs) => cs.map((c) => [c.dataset.file, c.querySelector('h2 .kind').textContent]));
    assert.deepEqual(cards, [[truncated, 'Could not read'], [missing, 'Could not load']]);
    assert.equal(await p.locator('[data-testid=samples-cell]').count(), 1);
  });
  // No template: a clear message.
  await assert.rejects(tickbook(['report', path.join(results, SAMPLES), '-o', path.join(tmp, 'x.html'), '--web-root', tmp]),
    /scripts\/build-web/);
});

test('charts export as SVG and PNG, tables as CSV with the raw numbers', { timeout: 120_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(liveUrl());
    await waitForFiles(page, 2, 60_000);
    const figures = page.locator('#cells figure.chart');
    const tables = page.locator('#cells table.data');
    assert.ok(await figures.count() > 3);
    assert.equal(await page.locator('#cells figure.chart [data-testid=export-svg]').count(), await figures.count(), 'every chart has SVG');
    assert.equal(await page.locator('#cells figure.chart [data-testid=export-png]').count(), await figures.count(), 'every chart has PNG');
    const withRows = await tables.evaluateAll((ts) => ts.filter((t) => t.tBodies[0]?.rows.length).length);
    assert.equal(await page.locator('#cells [data-testid=export-csv]').count(), withRows, 'every table with rows has CSV');

    const save = async (locator) => {
      const [d] = await Promise.all([page.waitForEvent('download'), locator.click()]);
      const file = path.join(tmp, d.suggestedFilename());
      await d.saveAs(file);
      return { name: d.suggestedFilename(), bytes: await readFile(file) };
    };
    // CSV of the samples summary: one line per series, raw values.
    const samples = page.locator('[data-testid=samples-cell]');
    const csv = await save(samples.locator('[data-testid=samples-summary] ~ [data-testid=table-export] [data-testid=export-csv], .table-wrap:has([data-testid=samples-summary]) + [data-testid=table-export] [data-testid=export-csv]').first());
    const lines = csv.bytes.toString('utf8').trimEnd().split('\r\n');
    const expected = await page.$$eval('[data-testid=samples-summary] [data-testid=series-row]', (rows) => rows.map((r) => [
      r.dataset.series, r.querySelector('[data-stat=median]').dataset.value,
    ]));
    assert.equal(lines.length, 1 + expected.length);
    const header = lines[0].split(',');
    const median = header.indexOf('Median');
    assert.ok(median > 0, `header: ${lines[0]}`);
    expected.forEach(([series, value], i) => {
      const cells = lines[1 + i].split(',');
      assert.ok(cells[0].includes(series), `${cells[0]} names ${series}`);
      assert.equal(cells[median], value, 'the raw number, not the rounded text');
    });

    // An interval's ends get columns of their own (ui/ci.js): the CSV of the
    // first series' execution statistics keeps every CI, raw.
    const parse = (text) => text.trimEnd().split('\r\n').map((l) => [...l.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)]
      .filter((m, i, all) => i < all.length - 1 || m[0] !== '').map((m) => m[1].replace(/^"|"$/g, '').replace(/""/g, '"')));
    const statsCsv = parse((await save(samples.locator('.table-wrap:has([data-testid=exec-stats]) + [data-testid=table-export] [data-testid=export-csv]').first())).bytes.toString('utf8'));
    const intervals = await samples.locator('[data-testid=exec-stats]').first().evaluate((t) => [...t.tBodies[0].rows]
      .map((r, i) => ({ i, c: r.querySelector('td.interval') })).filter(({ c }) => c)
      .map(({ i, c }) => ({ i, stat: c.dataset.stat, lo: c.dataset.lo, hi: c.dataset.hi })));
    assert.ok(intervals.length >= 3, 'the execution statistics have intervals');
    for (const { i, stat, lo, hi } of intervals) {
      for (const [end, value] of [['lo', lo], ['hi', hi]]) {
        const col = statsCsv[0].findIndex((h) => h.endsWith(`(${stat}_${end})`));
        assert.ok(col > 0, `a column for ${stat}_${end}: ${statsCsv[0].join(' | ')}`);
        assert.equal(statsCsv[1 + i][col], value, `${stat} ${end}: the raw number`);
      }
    }

    // SVG and PNG of the first box plot.
    const fig = samples.locator('figure.chart').first();
    const svg = await save(fig.locator('[data-testid=export-svg]'));
    assert.match(svg.name, /\.svg$/);
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.doesNotMatch(text, /var\(--/, 'colours resolved, not CSS variables');
    const png = await save(fig.locator('[data-testid=export-png]'));
    assert.deepEqual([...png.bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG');
    const width = png.bytes.readUInt32BE(16);
    const shown = await fig.locator('.chart-body svg').first().evaluate((s) => s.getBoundingClientRect().width);
    assert.equal(width, 2 * Math.ceil(shown), 'drawn at twice its size');

    // A chart with a legend keeps it: every series label is in the SVG.
    const clocksFig = page.locator('[data-testid=clocks-cell] figure.chart').first();
    const labels = await clocksFig.locator('[class$="-swatch"]').allTextContents();
    assert.ok(labels.length > 2, 'the read-cost chart has a legend');
    const withKey = (await save(clocksFig.locator('[data-testid=export-svg]'))).bytes.toString('utf8');
    for (const l of labels) assert.ok(withKey.includes(`>${l.trim()}</text>`), `legend label ${l} in the SVG`);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});
