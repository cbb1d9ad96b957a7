// The Operations cell's reference clock (option `reference_clock`): the
// select next to the outlier rule re-analyses in the worker, and the form's
// summary, outliers and cluster counts then equal `tickbook analyze --json
// --reference-clock counter` of the same file. Two fresh files: `tickbook
// collect ops --quick` (with the cycle counter where the machine has one)
// and the same with --no-counter, whose cell must fall back to the portable
// clock and say so.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  ARTIFACTS, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, readTable, num, sameNumber,
} from './harness.mjs';

let tmp, server, opsFile, noCounterFile, hasCounter;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  opsFile = path.join(results, 'ops.json');
  noCounterFile = path.join(results, 'ops-no-counter.json');
  await tickbook(['collect', 'ops', '--quick', '--out', opsFile], { timeout: 400_000 });
  await tickbook(['collect', 'ops', '--quick', '--no-counter', '--out', noCounterFile], { timeout: 400_000 });
  const ops = JSON.parse(await readFile(opsFile, 'utf8')).suites.find((s) => s.suite === 'ops');
  assert.equal(ops?.status, 'complete', 'the ops suite ran');
  hasCounter = ops.data.counter_clock != null && ops.data.counter_hz != null;
  if (!hasCounter) console.log('# this machine has no usable cycle counter: both files fall back to the portable clock');
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const base = (f) => path.basename(f);
const cellSel = (file) => `[data-testid=ops-cell][data-file="${base(file)}"]`;

/** `tickbook analyze --json` with the page's options, keyed by file name. */
async function cli(opts, files) {
  const reports = JSON.parse(await tickbook(['analyze', '--json',
    '--confidence', String(opts.confidence),
    '--resamples', String(opts.bootstrap.resamples),
    '--seed', String(opts.bootstrap.seed),
    '--linkage', opts.linkage,
    '--quantile-type', String(opts.quantile_type),
    '--outlier-k', String(opts.outlier_k),
    '--reference-clock', opts.reference_clock,
    ...files]));
  return Object.fromEntries(reports.map((r) => [base(r.file), r]));
}

async function pageOptions(page, file) {
  return page.evaluate((f) => {
    const slot = [...document.querySelectorAll('.slot')].find((s) => s.querySelector(`[data-file="${f}"]`));
    return JSON.parse(slot.dataset.options);
  }, base(file));
}

async function waitForReference(page, file, clock) {
  await page.waitForFunction(({ f, c }) => {
    const slot = [...document.querySelectorAll('.slot')].find((s) => s.querySelector(`[data-file="${f}"]`));
    return slot?.dataset.options && JSON.parse(slot.dataset.options).reference_clock === c;
  }, { f: base(file), c: clock }, { timeout: 60_000 });
}

const eq = (actual, expected, what) => assert.ok(sameNumber(num(actual), expected ?? null), `${what}: page ${actual}, CLI ${expected}`);

/** Every form of the cell: summary, outliers and the six cuts as the CLI's report. */
async function checkForms(page, file, o) {
  const sel = cellSel(file);
  const note = page.locator(`${sel} [data-testid=reference-clock-note]`);
  assert.equal(await note.getAttribute('data-clock'), o.reference_clock, 'the note names the clock used');
  assert.match(await note.innerText(), o.reference_clock === 'counter' ? /cycle counter/ : /portable clock/);
  for (const f of o.forms) {
    const option = page.locator(`${sel} [data-testid=form-option][value="${f.form}"]`);
    if (await option.count()) await option.check();
    await page.waitForFunction(({ s, form }) => document.querySelector(`${s} [data-testid=form-area]`)?.dataset.form === form, { s: sel, form: f.form });
    assert.equal(f.reference_clock, o.reference_clock);
    const section = page.locator(`${sel} [data-testid=form-section]`);
    assert.ok((await section.innerText()).includes(f.basis), `${f.form}: the basis "${f.basis}" is said`);
    const sum = (await readTable(page, `${sel} [data-testid=ops-summary-row]`, 'form'))[f.form];
    for (const k of ['n', 'min', 'q1', 'median', 'mean', 'q3', 'max', 'sd']) eq(sum[k], f.summary[k], `${f.form} summary ${k}`);
    const outliers = await page.locator(`${sel} [data-testid=ops-outlier]`).evaluateAll((xs) => xs.map((x) => [x.dataset.name, Number(x.dataset.value)]));
    assert.deepEqual(outliers, f.outliers.map((x) => [x.name, x.value_ns]), `${f.form} outliers`);
    const cuts = await readTable(page, `${sel} [data-testid=cut-row]`, 'statistic');
    for (const cut of f.clustering.cuts) {
      eq(cuts[cut.statistic].clusters, cut.clusters, `${f.form} ${cut.statistic} clusters`);
      eq(cuts[cut.statistic].granularity_ns, cut.granularity_ns, `${f.form} ${cut.statistic} granularity`);
    }
    if (f.calibration) eq(await page.locator(`${sel} [data-testid=fit-slope]`).getAttribute('data-value'), f.calibration.fit.slope, `${f.form} slope`);
  }
}

test('the reference clock select re-analyses in the worker and matches tickbook analyze --reference-clock', { timeout: 240_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [opsFile, noCounterFile]);
    await waitForFiles(page, 2);
    const sel = cellSel(opsFile);
    const select = page.locator(`${sel} [data-testid=reference-clock]`);
    // The default: the portable clock, as the paper.
    assert.equal(await select.inputValue(), 'portable');
    let opts = await pageOptions(page, opsFile);
    assert.equal(opts.reference_clock, 'portable', 'the page starts on the portable clock');
    const portable = await cli(opts, [opsFile, noCounterFile]);
    await checkForms(page, opsFile, portable[base(opsFile)].ops);
    // Labelled and reached by Tab from the outlier rule's input.
    assert.match(await select.evaluate((s) => s.closest('label')?.textContent ?? ''), /Reference clock/);
    await page.locator(`${sel} [data-testid=outlier-k]`).focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'reference-clock', 'Tab reaches the select');

    // The cycle counter.
    await select.selectOption('counter');
    await waitForReference(page, opsFile, 'counter');
    await waitForReference(page, noCounterFile, 'counter');
    opts = await pageOptions(page, opsFile);
    const counter = await cli(opts, [opsFile, noCounterFile]);
    const o = counter[base(opsFile)].ops;
    await checkForms(page, opsFile, o);
    if (hasCounter) {
      assert.equal(o.reference_clock, 'counter');
      assert.equal(o.basis_fallback, null);
      // The figures really changed clock: the counter's medians are not the
      // portable clock's (the portable clock is quantised; the counter is not).
      const p = portable[base(opsFile)].ops;
      const medians = (x) => x.forms.map((f) => f.summary.median);
      assert.notDeepEqual(medians(o), medians(p), 'counter and portable summaries differ');
      for (const f of o.forms) {
        const byName = new Map(o.ops.filter((r) => r.form === f.form).map((r) => [r.name, r.counter_ns?.estimate]));
        assert.deepEqual(f.values_ns, f.names.map((n) => byName.get(n)), `${f.form}: values are the counter ns medians`);
      }
      assert.equal(await page.locator(`${sel} [data-testid=basis-fallback]`).count(), 0, 'no fallback note');
    }
    // The file without a counter falls back to the portable clock and says so.
    const nc = counter[base(noCounterFile)].ops;
    assert.equal(nc.reference_clock, 'portable');
    assert.match(nc.basis_fallback, /no cycle-counter times/);
    await checkForms(page, noCounterFile, nc);
    const fallback = page.locator(`${cellSel(noCounterFile)} [data-testid=basis-fallback]`);
    assert.ok((await fallback.innerText()).includes(nc.basis_fallback), 'the fallback reason is shown');
    assert.equal(await page.locator(`${cellSel(noCounterFile)} [data-testid=reference-clock]`).inputValue(), 'counter', 'the select shows what was asked');
    await mkdir(ARTIFACTS, { recursive: true });
    await page.addStyleTag({ content: '.top { position: static !important; }' });
    await page.locator(cellSel(noCounterFile)).screenshot({ path: path.join(ARTIFACTS, 'reference-clock-fallback.png') });
    await page.locator(`${sel} [data-testid=form-section]`).screenshot({ path: path.join(ARTIFACTS, 'reference-clock-counter.png') });

    // And back: the paper's numbers again.
    await page.locator(`${sel} [data-testid=reference-clock]`).selectOption('portable');
    await waitForReference(page, opsFile, 'portable');
    await waitForReference(page, noCounterFile, 'portable');
    await checkForms(page, opsFile, portable[base(opsFile)].ops);
    assert.equal(await page.locator(`${cellSel(noCounterFile)} [data-testid=basis-fallback]`).count(), 0, 'no fallback when the portable clock is asked for');

    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
    assert.deepEqual(problems.foreignRequests, [], 'requests that did not go to the local server');
  } finally {
    await close();
  }
});
