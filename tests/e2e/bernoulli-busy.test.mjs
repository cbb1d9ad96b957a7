// The Bernoulli cell on a busy machine, read against analyze --json on the
// real stressed fixture tests/fixtures/run-bernoulli-stressed.json: every
// event's share of disturbed trials, its corrected and uncorrected
// estimates, its interval or the no-interval verdict with its reason; the
// coverage line's count of events given no interval; and the chart, which
// draws an interval bar for exactly the events that have one, at its ends.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, serve, openBrowser, waitForFiles, analyzeJson, readTable, num, sameNumber, screenshot,
} from './harness.mjs';

let tmp, server, results;
const FILE = 'run-bernoulli-stressed.json';

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

const eq = (actual, expected, what) => assert.ok(sameNumber(num(actual), expected ?? null), `${what}: page ${actual}, CLI ${expected}`);

test('disturbed shares, corrected estimates and the no-interval verdict as analyze --json has them', { timeout: 120_000 }, async () => {
  const [report] = await analyzeJson([path.join(results, FILE)]);
  const b = report.bernoulli;
  // The fixture holds both kinds: events corrected with an interval, and one without.
  assert.ok(b.events.some((e) => e.interval_ns == null), 'an event without an interval');
  assert.ok(b.events.some((e) => e.corrected && e.interval_ns), 'a corrected event with an interval');
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${FILE}`);
    await waitForFiles(page, 1, 60_000);
    const sel = '[data-testid=bernoulli-cell]';
    await page.waitForSelector(`${sel} [data-testid=event-row]`, { timeout: 60_000 });
    const rows = await readTable(page, `${sel} [data-testid=event-row]`, 'event');
    assert.deepEqual(Object.keys(rows), b.events.map((e) => e.name), 'one row per event');
    for (const e of b.events) {
      const r = rows[e.name];
      eq(r.disturbed_share, e.disturbed_share, `${e.name} disturbed share`);
      eq(r.estimate_ns, e.estimate_ns, `${e.name} estimate`);
      const text = await page.locator(`${sel} [data-testid=event-row][data-event="${e.name}"]`).innerText();
      // The share as the reader sees it, to the shown precision.
      const shown = text.match(/(\d+(?:\.\d+)?)\s?%/);
      assert.ok(shown && Math.abs(Number(shown[1]) - 100 * e.disturbed_share) < 0.5, `${e.name} share in words: ${text}`);
      if (e.corrected) eq(r.uncorrected_ns, e.uncorrected_ns, `${e.name} uncorrected`);
      else assert.equal(r.uncorrected_ns, undefined, `${e.name} shows no correction`);
      if (e.interval_ns) {
        eq(r.interval_lo, e.interval_ns.lo, `${e.name} interval low`);
        eq(r.interval_hi, e.interval_ns.hi, `${e.name} interval high`);
        assert.equal(r.no_interval, undefined, `${e.name} has an interval`);
        assert.equal(r.covered, String(e.covered), `${e.name} covered`);
      } else {
        assert.equal(r.no_interval, e.no_interval, `${e.name} verdict`);
        assert.equal(r.interval_lo, undefined, `${e.name} draws no interval`);
        assert.equal(r.covered, '', `${e.name} not judged`);
        assert.ok(text.includes('no interval'), `${e.name} says no interval`);
        assert.ok(text.includes(e.no_interval.replace(/^no interval: /, '')), `${e.name} gives the reason`);
      }
    }
    const noInterval = page.locator(`${sel} [data-testid=no-interval-count]`);
    assert.equal(Number(await noInterval.getAttribute('data-value')), b.coverage.no_interval, 'no-interval count');

    // The chart: one interval bar per event with an interval, at its ends.
    const withInterval = b.events.filter((e) => e.interval_ns && e.interval_ns.hi > 0);
    const bars = await page.locator(`${sel} [data-testid=bernoulli-chart] svg [aria-label=rule] line`).count();
    assert.equal(bars, withInterval.length, 'interval bars');
    await screenshot(page, 'bernoulli-busy');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});
