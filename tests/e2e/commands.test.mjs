// The Commands cell on a file `tickbook run` wrote
// (tests/fixtures/run-commands.json): every number of its tables, read back
// from the page's cells (data-value and the text shown), equals `tickbook
// analyze --json`, and the verdicts are the report's. On a run this test
// makes with real child processes: the chart of runs in time order read
// back from its marks (each dot's command by its colour and symbol, its
// round and wall time by inverting the scales, then placed again by the
// scales and the axis labels), each round's rule and each drift line
// against `analyze --json`, the chart's layout, and axe over the cell.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import {
  ROOT, FIXTURES, assertClean, checkPrerequisites, tempDir, serve, openBrowser, waitForFiles, analyzeJson, sameNumber, tickbook,
} from './harness.mjs';
import {
  snapshotCharts, settleCharts, ChartCheck, markElements, axisLabel, checkTextsInside, checkTickOverlap, checkLabelCollisions,
  checkLegends, checkContrast, listProblems,
} from './marks.mjs';

let tmp, server, results;
const FILE = 'run-commands.json';
const REAL = 'run-real.json';
const TIME_NS = { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 };

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, FILE), path.join(results, FILE));
  // Three commands of different lengths, 14 interleaved rounds: real
  // processes, so the times, drifts and counters are this machine's.
  await tickbook(['run', '--runs', '14', '--seed', '7', '--name', 'short', '--name', 'middle', '--name', 'long',
    'sleep 0.002', 'sleep 0.004', 'sleep 0.006', '--out', path.join(results, REAL)], { timeout: 120_000 });
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the Commands cell shows analyze --json’s numbers and verdicts', { timeout: 120_000 }, async () => {
  const [report] = await analyzeJson([path.join(results, FILE)]);
  const r = report.commands;
  assert.ok(r.commands.length >= 2 && r.comparisons.length >= 1);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${FILE}`);
    await waitForFiles(page, 1, 60_000);
    await page.waitForSelector('[data-testid=commands-table]', { timeout: 60_000 });
    const rows = await page.$$eval('[data-testid=commands-row]', (trs) => trs.map((tr) => ({
      command: tr.dataset.command,
      cells: Object.fromEntries([...tr.querySelectorAll('td[data-stat]')].map((td) => [td.dataset.stat, { value: td.dataset.value, text: td.textContent }])),
    })));
    assert.deepEqual(rows.map((x) => x.command), r.commands.map((c) => c.name));
    rows.forEach((row, i) => {
      const c = r.commands[i];
      for (const key of ['runs', 'failed_runs', 'mean_ns', 'sd_ns', 'median_ns', 'min_ns', 'max_ns', 'user_mean_ns', 'sys_mean_ns', 'max_rss_kib']) {
        assert.ok(sameNumber(Number(row.cells[key].value), c[key]), `${c.name} ${key}: page ${row.cells[key].value}, json ${c[key]}`);
        assert.notEqual(row.cells[key].text, '', `${c.name} ${key} shown`);
      }
      assert.ok(sameNumber(Number(row.cells.drift.value), c.drift.over_run), `${c.name} drift`);
    });
    const comparisons = await page.$$eval('[data-testid=commands-comparison]', (trs) => trs.map((tr) => ({
      command: tr.dataset.command,
      stats: Object.fromEntries([...tr.querySelectorAll('[data-stat]')].map((el) => [el.dataset.stat, el.dataset.value])),
      paired: tr.querySelector('[data-testid=paired-verdict]').dataset.value,
      measure: tr.querySelector('[data-testid=paired-verdict]').dataset.measure,
      why: tr.querySelector('[data-testid=paired-verdict]').title,
      unpaired: tr.querySelector('[data-testid=unpaired-verdict]').dataset.value,
      cpu: tr.querySelector('[data-testid=cpu-verdict]').dataset.value,
    })));
    assert.equal(comparisons.length, r.comparisons.length);
    comparisons.forEach((row, i) => {
      const c = r.comparisons[i];
      assert.equal(row.command, r.commands[c.command].name);
      assert.ok(sameNumber(Number(row.stats.pairs), c.paired.rounds));
      for (const [stat, ci] of [['paired-ratio', c.paired.ratio], ['unpaired-ratio', c.unpaired.ratio], ['cpu-ratio', c.paired_cpu.ratio]]) {
        assert.ok(sameNumber(Number(row.stats[stat]), ci.estimate), `${stat} estimate`);
        assert.ok(sameNumber(Number(row.stats[`${stat}_lo`]), ci.lo), `${stat} lo`);
        assert.ok(sameNumber(Number(row.stats[`${stat}_hi`]), ci.hi), `${stat} hi`);
      }
      assert.ok(sameNumber(Number(row.stats['paired-p']), c.paired.test.p_value));
      assert.ok(sameNumber(Number(row.stats['unpaired-p']), c.unpaired.test.p_value));
      assert.ok(sameNumber(Number(row.stats['relative-speed']), c.relative_speed));
      assert.equal(row.paired, c.paired.verdict);
      assert.equal(row.measure, c.measure.time);
      assert.equal(row.why, `Paired by ${c.measure.why}`);
      assert.equal(row.unpaired, c.unpaired.verdict);
      assert.equal(row.cpu, c.paired_cpu.verdict);
    });
    assertClean(problems);
  } finally {
    await close();
  }
});

/** The run whose marks are read back: {command, round, wall_ns} of the report's `commands`. */
function runsOf(r) {
  return r.commands.flatMap((c) => c.rounds.map((round, k) => ({ command: c.name, round, wall_ns: c.wall_ns[k] })));
}

test('the chart of runs in time order draws analyze --json’s runs, rounds and drifts', { timeout: 180_000 }, async () => {
  const [report] = await analyzeJson([path.join(results, REAL)]);
  assert.ok(report.ok, 'the run file reads');
  const r = report.commands;
  assert.equal(r.commands.length, 3);
  assert.equal(r.rounds, 14);
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(`${server.url}?url=/results/${REAL}`);
    await waitForFiles(page, 1, 60_000);
    await page.waitForSelector('figure[data-testid=commands-runs] svg', { timeout: 60_000 });
    await settleCharts(page);
    const [s] = (await snapshotCharts(page, { root: '[data-testid=commands-cell]' })).filter((x) => x.testid === 'commands-runs');
    assert.ok(s?.drawn && !s.error, `the chart is drawn (${s?.error ?? ''})`);
    const unit = /\((ns|µs|ms|s)\)/.exec(axisLabel(s.plot, 'y'))?.[1];
    assert.ok(unit, `the y axis names its unit: "${axisLabel(s.plot, 'y')}"`);
    assert.equal(Number(s.dataset.scale), TIME_NS[unit], 'the figure\u2019s scale is its axis\u2019 unit');
    const C = new ChartCheck(s).axes({ x: 'plain', y: { kind: 'time', toScale: (ns) => ns / TIME_NS[unit] } });
    const { x, y, color, symbol } = s.scales;
    const invert = (scale, px) => scale.domain[0] + ((px - scale.range[0]) / (scale.range[1] - scale.range[0])) * (scale.domain[1] - scale.domain[0]);
    const commandOf = (el) => color.domain[color.range.indexOf(el.stroke)];
    // Colour and symbol both tell the commands apart, in the report's order.
    assert.deepEqual(color.domain, r.commands.map((c) => c.name));
    assert.deepEqual(symbol.domain, color.domain);
    assert.equal(new Set(color.range).size, color.range.length, 'a colour per command');
    assert.equal(new Set(symbol.range).size, symbol.range.length, 'a symbol per command');

    // Every dot, read back: its command, round and wall time.
    const want = runsOf(r);
    const dots = markElements(s, 'dot');
    C.count(dots.length, want.length, 'dots');
    const seen = new Set();
    for (const el of dots) {
      const command = commandOf(el);
      const round = invert(x, el.x);
      const wall = invert(y, el.y) * TIME_NS[unit];
      const k = Math.round(round);
      if (Math.abs(round - k) > 0.05) { C.fail(`a dot at round ${round.toFixed(2)}: not on a round`); continue; }
      const run = want.find((w) => w.command === command && w.round === k);
      if (!run) { C.fail(`a dot of ${command} in round ${k}: no such run`); continue; }
      seen.add(`${command} ${k}`);
      C.point(el, k, run.wall_ns, `${command} round ${k} (${wall.toFixed(0)} ns read back, ${run.wall_ns} in the report)`);
    }
    C.count(seen.size, want.length, 'distinct runs drawn');

    // Each round's rule: from its fastest run to its slowest, at its round.
    const [pairPath] = markElements(s, 'commands-pair');
    const pts = pairPath?.points ?? [];
    const rules = [];
    for (let i = 0; i + 1 < pts.length; i += 2) rules.push([pts[i], pts[i + 1]]);
    C.count(rules.length, r.rounds, 'rules pairing the rounds');
    for (const [a, b] of rules) {
      const k = Math.round(invert(x, a.x));
      const walls = want.filter((w) => w.round === k).map((w) => w.wall_ns);
      C.at('x', k, a.x, `round ${k}'s rule`);
      const [lo, hi] = [Math.min(a.y, b.y), Math.max(a.y, b.y)];
      C.at('y', Math.max(...walls), lo, `round ${k}'s rule top`);
      C.at('y', Math.min(...walls), hi, `round ${k}'s rule bottom`);
    }

    // Each command's drift: the report's line over its first to last round.
    const links = markElements(s, 'link');
    C.count(links.length, r.commands.filter((c) => c.drift).length, 'drift lines');
    for (const el of links) {
      const c = r.commands.find((q) => q.name === commandOf(el));
      if (!c?.drift) { C.fail(`a drift line of ${commandOf(el)}, which has no drift`); continue; }
      const [a, b] = [Math.min(...c.rounds), Math.max(...c.rounds)];
      const at = (k) => c.drift.intercept_ns + c.drift.slope_ns_per_round * k;
      C.line(el, [{ x: a, y: at(a) }, { x: b, y: at(b) }], `${c.name}'s drift`);
    }
    console.log(`commands-runs: ${C.summary()}`);
    const all = [...C.scale.problems, ...C.axis.problems, ...C.content.problems, ...C.domain, ...C.axisProblems,
      ...checkTextsInside(s), ...checkTickOverlap(s), ...checkLabelCollisions(s), ...checkLegends(s), ...checkContrast(s).problems];
    assert.ok(all.length === 0, listProblems(all));
    assert.ok(C.marks >= want.length + r.commands.length, 'marks were checked');

    // The perf events: each command's mean count where some run has it
    // (task-clock always: a software event), and every event not counted
    // named with the file's reason.
    assert.ok(r.counters, 'a fresh run says how its perf events were counted');
    assert.equal(r.counters.unavailable.task_clock, undefined, 'task-clock is counted');
    const shown = await page.$$eval('[data-testid=commands-row]', (trs) => trs.map((tr) => Object.fromEntries(
      [...tr.querySelectorAll('td[data-stat]')].map((td) => [td.dataset.stat, td.dataset.value ?? null]))));
    r.commands.forEach((c, i) => {
      for (const key of ['task_clock_mean_ns', 'instructions_mean', 'cycles_mean']) {
        if (!r.commands.some((q) => q[key] != null)) { assert.equal(shown[i][key], undefined, `no ${key} column`); continue; }
        if (c[key] == null) continue;
        assert.ok(sameNumber(Number(shown[i][key]), c[key]), `${c.name} ${key}: page ${shown[i][key]}, json ${c[key]}`);
      }
    });
    const notes = await page.$$eval('[data-testid=commands-counters] li[data-event]', (lis) => lis.map((li) => [li.dataset.event, li.textContent]));
    assert.deepEqual(notes, Object.entries(r.counters.unavailable).map(([e, why]) => [e, `${e} not counted: ${why}`]));
    console.log(`perf events: ${Object.keys(r.counters.unavailable).length ? `not counted here: ${Object.keys(r.counters.unavailable).join(', ')}` : 'all counted'}`);

    // axe over the cell: no serious or critical violation.
    await page.evaluate(await readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
    const violations = await page.evaluate(async () => {
      const res = await globalThis.axe.run(document.querySelector('[data-testid=commands-cell]'), { resultTypes: ['violations'] });
      return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(violations, [], 'axe');
    assertClean(problems);
  } finally {
    await close();
  }
});
