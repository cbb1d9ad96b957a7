// Every chart the notebook draws, read back from the page and checked
// against `tickbook analyze --json` for the same file: each mark where its
// value says (by Plot's scale, recomputed independently, and by the axis's
// own tick labels read as numbers in the data's unit), every value inside
// its axis domain, the counts and drawn texts those of the report, and the
// layout a reader needs (no text outside its SVG, tick labels apart,
// legends whole, text readable). Run over a fresh collection of every suite
// (harness everySuiteCollection), every importer fixture, the hand-written
// fixtures and a generated coarse clock whose steps differ by 1 ns; each
// control that redraws a chart (form, cut, implementation × length, metric,
// workload, instrumented run, signal metric) is turned through its values.
//
// One test per chart kind, one subtest per check, each named; each prints
// what it measured ("bottleneck-bars: 1 chart, 88 marks, max error …").
// While working on the checks, TICKBOOK_CHART_SNAPSHOTS=FILE keeps what the
// page drew and reads it back from FILE on the next run (delete it after a
// change to the page).


import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, analyzeJson, serve, openBrowser, waitForFiles, everySuiteCollection, IMPORT_FIXTURES,
} from './harness.mjs';
import {
  snapshotCharts, settleCharts, ChartCheck, group, painted, classed, bandAt, bandLayout, checkSequentialFill, parseColour, mapScale, parseTick, axisLabel,
  checkTextsInside, checkTickOverlap, checkLabelCollisions, checkLegends, checkContrast, listProblems, tickLabels,
} from './marks.mjs';

const FOLDER_NAME = 'target-criterion/'; // as the page names a picked folder
const TIME_NS = { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 };

let tmp, server;
const snapshots = []; // every chart read back, with its report
const sparklines = []; // the Allocation cell's colour sparklines
const pageProblems = [];

/* ------------------------------------------------------------ collection */

/**
 * A clocks run whose coarse clock stepped by 3 999 999 and 4 000 000 ns:
 * steps under 1 % apart, the case where the step histogram's axis needs
 * its own unit to stay readable.
 */
async function narrowCoarseClock(dir) {
  const doc = JSON.parse(await readFile(path.join(FIXTURES, 'run-clocks.json'), 'utf8'));
  const coarse = doc.suites[0].data.clocks.find((c) => c.name === 'CLOCK_MONOTONIC_COARSE');
  coarse.scan.steps = [3999999, 4000000, 4000000, 3999999, 4000000, 4000000, 4000000, 3999999];
  coarse.scan.reads_between = coarse.scan.steps.map(() => 962000);
  const file = path.join(dir, 'coarse-1ns-apart.json');
  await writeFile(file, JSON.stringify(doc));
  return file;
}

/** Turn a page's controls that redraw charts through their values, reading the new charts each time. */
async function turnControls(page, source) {
  const read = async (view) => {
    await settleCharts(page);
    for (const s of await snapshotCharts(page, { view, onlyNew: true })) snapshots.push({ ...s, source });
  };
  const values = (sel) => page.$$eval(sel, (els) => els.map((e) => e.value));
  // Operations: each form, and in each the dendrogram at each cut.
  for (const form of await values('[data-testid=ops-cell] [data-testid=form-option]')) {
    await page.check(`[data-testid=ops-cell] [data-testid=form-option][value="${form}"]`);
    await read(`form ${form}`);
    for (const stat of await values('[data-testid=ops-cell] [data-testid=granularity-statistic] option')) {
      await page.selectOption('[data-testid=ops-cell] [data-testid=granularity-statistic]', stat);
      await read(`form ${form}, cut ${stat}`);
    }
  }
  // Samples: the series dendrogram at each cut, per file.
  const samplesCells = await page.$$eval('[data-testid=samples-cell]', (cs) => cs.map((c) => c.id));
  for (const id of samplesCells) {
    const sel = `#${id} [data-testid=granularity-statistic]`;
    for (const stat of await values(`${sel} option`)) {
      await page.selectOption(sel, stat);
      await read(`cut ${stat}`);
    }
  }
  // Copy: every implementation × length, in both metrics.
  if (await page.$('[data-testid=copy-cell]')) {
    for (const metric of await values('[data-testid=copy-metric] input')) {
      await page.check(`[data-testid=copy-metric] input[value="${metric}"]`);
      for (const impl of await values('[data-testid=copy-impl] option')) {
        await page.selectOption('[data-testid=copy-impl]', impl);
        for (const len of await values('[data-testid=copy-length] option')) {
          await page.selectOption('[data-testid=copy-length]', len);
          await read(`copy ${impl} ${len} ${metric}`);
        }
      }
    }
  }
  // Perturbation: every workload, every instrumented run's alignment, all series.
  const traceCells = await page.$$eval('[data-testid=trace-cell]', (cs) => cs.map((c) => c.id));
  for (const id of traceCells) {
    const workloads = await values(`#${id} [data-testid=trace-workload] option`);
    for (const w of workloads.length ? workloads : [null]) {
      if (w != null) {
        await page.selectOption(`#${id} [data-testid=trace-workload]`, w);
        await read(`workload ${w}`);
      }
      for (const level of await values(`#${id} [data-testid=trace-example-level] option`)) {
        await page.selectOption(`#${id} [data-testid=trace-example-level]`, level);
        await read(`workload ${w}, level ${level}`);
      }
      // The signals of every metric (times, counts, cycles: each its own axis unit).
      for (const metric of await values(`#${id} [data-testid=trace-example-metric] option`)) {
        await page.selectOption(`#${id} [data-testid=trace-example-metric]`, metric);
        await read(`workload ${w}, metric ${metric}`);
      }
      for (const kind of ['inner', 'outer']) {
        const box = `#${id} [data-testid=trace-${kind}-all]`;
        if (await page.$(`${box}:not(:checked)`)) {
          await page.click(box); // redraws the workload, the box with it
          await read(`workload ${w}, all ${kind}`);
        }
      }
    }
  }
}

async function collect(source, files, folder) {
  const started = Date.now();
  const reports = await analyzeJson(folder ? [...files, folder] : files);
  const byName = new Map(reports.map((r, i) => [i < files.length ? path.basename(r.file) : FOLDER_NAME, r]));
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    // Five files or more skip the layout of cells off screen; these charts
    // are read wherever they are.
    await page.addStyleTag({ content: '.slot > .cell, .compare-suite { content-visibility: visible !important; }' });
    await page.setInputFiles('[data-testid=file-input]', files);
    if (folder) await page.setInputFiles('[data-testid=folder-input]', folder);
    await waitForFiles(page, files.length + (folder ? 1 : 0), 180_000);
    await settleCharts(page);
    for (const s of await snapshotCharts(page, { view: 'as opened' })) snapshots.push({ ...s, source });
    sparklines.push(...(await readSparklines(page)).map((x) => ({ ...x, source })));
    await turnControls(page, source);
    for (const s of snapshots) if (s.source === source) s.report = byName.get(s.file);
    for (const s of sparklines) if (s.source === source) s.report = byName.get(s.file);
    console.log(`${source}: ${snapshots.filter((x) => x.source === source).length} charts read in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    pageProblems.push(...problems.pageErrors.map((e) => `${source}: page error ${e}`),
      ...problems.consoleErrors.map((e) => `${source}: console error ${e}`));
  } finally {
    await close();
  }
}

/** The bars of each configuration's colour sparkline (alloc.js), as drawn. */
function readSparklines(page) {
  return page.$$eval('[data-testid=alloc-config-row]', (rows) => rows.map((r) => {
    const svg = r.querySelector('svg.spark');
    return {
      file: r.closest('section.cell')?.dataset.file, index: Number(r.dataset.index),
      viewBox: svg?.getAttribute('viewBox') ?? null, d: svg?.querySelector('path')?.getAttribute('d') ?? null,
    };
  }));
}

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const cache = process.env.TICKBOOK_CHART_SNAPSHOTS;
  if (cache) {
    try {
      const saved = JSON.parse(await readFile(cache, 'utf8'));
      snapshots.push(...saved.snapshots);
      sparklines.push(...saved.sparklines);
      console.log(`read ${snapshots.length} charts from ${cache}`);
      return;
    } catch { /* not there yet: read the page */ }
  }
  const every = await everySuiteCollection();
  server = await serve(tmp);
  const started = Date.now();
  await collect('every suite', [every.run, every.alloc]);
  await collect('importers', IMPORT_FIXTURES.files, IMPORT_FIXTURES.folder);
  await collect('fixtures', [path.join(FIXTURES, 'samples-3x5.json'), path.join(FIXTURES, 'trace-small.json'), await narrowCoarseClock(tmp)]);
  console.log(`read ${snapshots.length} charts and ${sparklines.length} sparklines in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (cache) await writeFile(cache, JSON.stringify({ snapshots, sparklines }));
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/* ------------------------------------------------------------ helpers */

/** The number in a drawn label ("+306", "−0.128", "0.00983 ▲", "+0.12 ppm"). */
function numberIn(text) {
  const m = /[-+\u2212]?\s?\d[\d\u202f,]*(?:\.\d+)?(?:e[-+]?\d+)?/.exec(String(text));
  if (!m) return NaN;
  return Number(m[0].replace(/\u2212/, '-').replace(/[\s\u202f,]/g, ''));
}

/** Equal to the `digits` significant digits a label shows. */
function sameShown(shown, value, digits) {
  if (!Number.isFinite(shown) || value == null) return false;
  if (value === 0) return shown === 0;
  const ulp = 10 ** (Math.floor(Math.log10(Math.abs(value))) - digits + 1);
  return Math.abs(shown - value) <= ulp * 0.5 + 1e-12 * Math.abs(value);
}

/** Plot draws a facet's marks shifted by its fx band's start less the start of the fx range. */
const facetOffset = (s, value) => mapScale(s.scales.fx, value) - Math.min(...s.scales.fx.range);
const mid = (e) => ({ x: (e.x1 + e.x2) / 2, y: (e.y1 + e.y2) / 2 });
/** A labelled bytes size ("4.00 KiB", "1 010 KiB") names `bytes` to the digits shown. */
const saysBytes = (text, bytes) => {
  const p = parseTick(text.trim(), 'bytes');
  return p && !p.bad && Math.abs(p.value - bytes) <= 0.005 * bytes + 1;
};
/** The time unit an axis label names in parentheses: "step (µs) →" → 1000. */
const labelUnitNs = (label) => TIME_NS[(/\((ns|µs|ms|s)\b/.exec(label) ?? [])[1]] ?? null;

/* ------------------------------------------------------------ the specs */

// Per chart kind: which report values each mark shows. `C` is a
// ChartCheck on the snapshot `s`; `r` is the file's FileReport.
const SPECS = {
  'bottleneck-bars'(s, r, C) {
    const b = r.bottleneck;
    const rows = b.by_overhead.map((i) => b.cases[i]);
    C.axes({ x: 'share', y: null });
    const bars = group(s, 'bar');
    C.count(bars.length, 2 * rows.length, 'bars (predicted + overhead per timable region)');
    for (const el of bars) {
      const row = rows[el.index >> 1];
      const part = el.index & 1 ? 'overhead' : 'predicted';
      if (!row) { C.fail(`bar ${el.index} has no region`); continue; }
      const share = Math.min(1, row.predicted_ns / row.measured_ns.estimate);
      const [from, to] = part === 'predicted' ? [0, share] : [share, 1];
      const what = `${row.kernel} ${row.working_set_bytes} B ${part}`;
      C.marks++;
      C.at('x', from, el.x1, `${what} start`, { shift: 0.5 });
      C.at('x', to, el.x2, `${what} end`, { shift: -0.5 });
      C.band('y', s.scales.y.domain[el.index >> 1], mid(el).y, what, {
        labelSays: (t) => t.startsWith(`${row.kernel} `) && saysBytes(t.slice(row.kernel.length + 1), row.working_set_bytes),
      });
    }
    const labels = group(s, 'text');
    C.count(labels.length, rows.length, 'overhead labels');
    for (const el of labels) {
      const row = rows[el.index];
      // Three significant digits, at most to a thousandth (−0.00009 shows as 0).
      const shown = numberIn(el.text);
      const o = row.overhead.estimate;
      if (!(sameShown(shown, o, 3) || (Math.abs(o) < 0.1 && Math.abs(shown - o) <= 5e-4 + 1e-12))) C.fail(`${row.kernel} ${row.working_set_bytes} B: label "${el.text}" for overhead ${row.overhead.estimate}`);
      C.at('x', 1, el.x, `${row.kernel} ${row.working_set_bytes} B label`, { shift: 4 });
    }
  },

  'bottleneck-curves'(s, r, C) {
    const b = r.bottleneck;
    const pts = b.cases.filter((c) => c.timable && c.overhead != null);
    // The y axis is a symmetric log drawn by hand on a linear scale, as its
    // caption says: linear within ±0.1, logarithmic beyond, labelled in the
    // overhead itself. Plot receives log10(1 + |v| / 0.1) with v's sign.
    C.axes({ x: 'bytes', y: { kind: 'plain', toScale: (v) => Math.sign(v) * Math.log10(1 + Math.abs(v) / 0.1) } });
    if (s.scales.y.type !== 'linear') C.fail(`y scale is ${s.scales.y.type}, not the linear scale the hand-made symmetric log is drawn on`);
    // Plot draws a line whose title varies point to point as segments.
    const lines = group(s, 'line');
    const kernels = [...new Set(pts.map((p) => p.kernel))];
    const covered = new Set();
    const drawnKernels = new Set();
    for (const el of lines) {
      const ps = (el.index ?? []).map((i) => pts[i]);
      for (const i of el.index ?? []) covered.add(i);
      for (const p of ps) drawnKernels.add(p.kernel);
      if (new Set(ps.map((p) => p.kernel)).size > 1) C.fail(`one line joins kernels ${[...new Set(ps.map((p) => p.kernel))].join(', ')}`);
      C.line(el, ps.map((p) => ({ x: p.working_set_bytes, y: p.overhead.estimate })), `${ps[0]?.kernel} overhead`);
    }
    C.count(drawnKernels.size, kernels.length, 'kernels drawn');
    C.count(covered.size, pts.length, 'points on the lines');
    for (const el of group(s, 'rule', 2)) {
      const p = pts[el.index];
      C.marks++;
      C.at('x', p.working_set_bytes, el.x1, `${p.kernel} ${p.working_set_bytes} B CI`);
      C.at('y', p.overhead.lo, Math.max(el.y1, el.y2), `${p.kernel} ${p.working_set_bytes} B CI low`);
      C.at('y', p.overhead.hi, Math.min(el.y1, el.y2), `${p.kernel} ${p.working_set_bytes} B CI high`);
    }
    const caches = group(s, 'rule', 1);
    C.count(caches.length, b.caches.length, 'cache rules');
    for (const el of caches) C.at('x', b.caches[el.index].bytes, el.x1, `cache ${b.caches[el.index].name}`);
  },

  'read-cost-chart'(s, r, C) {
    const clocks = r.clocks.clocks.filter((c) => c.available && c.read_cost_ecdf.length);
    const points = clocks.flatMap((c) => c.read_cost_ecdf.map(([ns, f]) => ({ clock: c.name, ns, f })));
    C.axes({ x: 'time', y: 'share' });
    const lines = group(s, 'line');
    C.count(lines.length, clocks.length, 'ECDF lines (one per clock)');
    for (const el of lines) {
      const ps = (el.index ?? []).map((i) => points[i]);
      C.line(el, ps.map((p) => ({ x: p.ns, y: p.f })), `${ps[0]?.clock} ECDF`);
    }
  },

  'step-histogram'(s, r, C) {
    const clock = r.clocks.clocks.find((c) => c.name === s.caption);
    if (!clock) { C.fail(`no clock named "${s.caption}"`); return; }
    const label = axisLabel(s.plot, 'x');
    // Steps close together are drawn as their difference from the clock's
    // modal step, which the label states ("step − 4 ms (ns) →"): the spec
    // subtracts the report's modal step, and the label must say that value.
    const minus = /^step\s*−\s*(.+?)\s*\((?:ps|ns|µs|ms|s)\)/.exec(label);
    const ref = minus ? clock.modal_step_ns : 0;
    if (minus) {
      const said = parseTick(minus[1], 'time');
      if (!said || said.bad || Math.abs(said.value - clock.modal_step_ns) > 1e-9 * clock.modal_step_ns) {
        C.fail(`x axis label "${label}" subtracts ${minus[1]}, the report's modal step is ${clock.modal_step_ns} ns`);
      }
    }
    // The unit: in the label, or on every tick label (a log axis's "10 ns", "1 µs").
    let unit = labelUnitNs(label);
    if (unit == null) {
      const ticks = tickLabels(s.plot, 'x').filter((t) => t.text.trim());
      if (ticks.length && ticks.every((t) => { const p = parseTick(t.text, 'time'); return p && !p.bad; })) unit = 1;
      else C.fail(`x axis label "${label}" names no time unit, nor do its tick labels (${ticks.map((t) => t.text).join(', ')})`);
    }
    C.axes({ x: { kind: 'time', toScale: (ns) => ns / (unit ?? 1) }, y: 'count' });
    const bins = clock.step_histogram;
    const rules = group(s, 'rule', 0);
    C.count(rules.length, bins.length, 'step bars');
    for (const el of rules) {
      const bin = bins[el.index];
      C.marks++;
      C.at('x', bin.step_ns - ref, el.x1, `step ${bin.step_ns} ns`);
      C.at('y', 0, Math.max(el.y1, el.y2), `step ${bin.step_ns} ns base`);
      C.at('y', bin.count, Math.min(el.y1, el.y2), `step ${bin.step_ns} ns count`);
    }
    for (const el of group(s, 'dot', 0)) {
      const bin = bins[el.index];
      C.point(el, bin.step_ns - ref, bin.count, `step ${bin.step_ns} ns dot`);
    }
  },

  'ppm-chart'(s, r, C) {
    const rows = r.clocks.frequency.sources.filter((x) => x.ppm_from_median != null);
    C.axes({ x: 'ppm', y: null });
    const bars = group(s, 'bar');
    C.count(bars.length, rows.length, 'bars (one per readable source)');
    for (const el of bars) {
      const x = rows[el.index];
      C.marks++;
      const [lo, hi] = [Math.min(0, x.ppm_from_median), Math.max(0, x.ppm_from_median)];
      C.at('x', lo, el.x1, `${x.name} bar start`);
      C.at('x', hi, el.x2, `${x.name} bar end`);
      C.band('y', x.name, mid(el).y, x.name, { labelSays: (t) => t === x.name });
    }
    const pos = rows.filter((x) => x.ppm_from_median >= 0);
    const neg = rows.filter((x) => x.ppm_from_median < 0);
    for (const [els, data, dx] of [[group(s, 'text', 0), pos, 4], [group(s, 'text', 1), neg, -4]]) {
      for (const el of els) {
        const x = data[el.index];
        if (!sameShown(numberIn(el.text), x.ppm_from_median, 2) && !(Math.abs(x.ppm_from_median) >= 100 && Math.abs(numberIn(el.text) - x.ppm_from_median) <= 0.5)) {
          C.fail(`${x.name}: label "${el.text}" for ${x.ppm_from_median} ppm`);
        }
        C.at('x', x.ppm_from_median, el.x, `${x.name} label`, { shift: dx });
      }
    }
  },

  'bernoulli-chart'(s, r, C) {
    const events = r.bernoulli.events;
    C.axes({ x: 'time', y: 'time' });
    const lo = s.scales.y.domain[0];
    const intervals = events.filter((e) => e.interval_ns && e.interval_ns.hi > 0);
    const rules = group(s, 'rule');
    C.count(rules.length, intervals.length, 'interval bars');
    for (const el of rules) {
      const e = intervals[el.index];
      C.marks++;
      C.at('x', e.target_ns, el.x1, `${e.name} interval`);
      C.at('y', Math.max(e.interval_ns.lo, lo), Math.max(el.y1, el.y2), `${e.name} interval low`);
      C.at('y', e.interval_ns.hi, Math.min(el.y1, el.y2), `${e.name} interval high`);
    }
    const refs = events.filter((e) => e.reference_ns != null && e.reference_ns > 0);
    const refDots = group(s, 'dot', 0);
    C.count(refDots.length, refs.length, 'reference crosses');
    for (const el of refDots) C.point(el, refs[el.index].target_ns, refs[el.index].reference_ns, `${refs[el.index].name} reference`);
    const drawn = events.filter((e) => e.estimate_ns > 0);
    const dots = group(s, 'dot', 1);
    C.count(dots.length, drawn.length, 'estimate dots');
    for (const el of dots) C.point(el, drawn[el.index].target_ns, drawn[el.index].estimate_ns, `${drawn[el.index].name} estimate`);
  },

  'ops-box-plot'(s, r, C) {
    const f = r.ops.forms.find((x) => x.form === s.ctx.form);
    if (!f) { C.fail(`no form "${s.ctx.form}"`); return; }
    const sm = f.summary;
    const fe = f.fences;
    C.axes({ x: 'time', y: null });
    const at = (el, v, what) => { C.marks++; C.at('x', v, el.x1 ?? el.x, what); };
    at(group(s, 'rule')[0], fe.whisker_low, 'whisker line start');
    C.at('x', fe.whisker_high, group(s, 'rule')[0]?.x2, 'whisker line end');
    at(group(s, 'tick', 0)[0], fe.whisker_low, 'low whisker');
    at(group(s, 'tick', 1)[0], fe.whisker_high, 'high whisker');
    const box = group(s, 'bar')[0];
    at(box, sm.q1, 'box start (Q1)');
    C.at('x', sm.q3, box?.x2, 'box end (Q3)');
    at(group(s, 'tick', 2)[0], sm.median, 'median');
    at(group(s, 'dot', 0)[0], sm.mean, 'mean');
    const outDots = group(s, 'dot', 0, painted('var(--bad)'));
    C.count(outDots.length, f.outliers.length, 'outlier marks');
    for (const el of outDots) C.point(el, f.outliers[el.index].value_ns, 'box', `outlier ${f.outliers[el.index].name}`);
    const all = group(s, 'dot', 0, (g) => g.elements.every((e) => e.tag === 'circle'));
    C.count(all.length, f.names.length, 'operation dots');
    for (const el of all) C.point(el, f.values_ns[el.index], 'operations', `${f.names[el.index]}`);
    // Outlier names: each names an outlier and sits over its value.
    const byName = new Map(f.outliers.map((o) => [o.name, o]));
    for (const g of s.plot.groups.filter((x) => x.label === 'text')) {
      for (const el of g.elements) {
        const o = byName.get(el.text);
        if (!o) { C.fail(`label "${el.text}" names no outlier`); continue; }
        C.at('x', o.value_ns, el.x, `label ${o.name}`);
      }
    }
  },

  'box-plot'(s, r, C) {
    const name = s.caption.replace(/: distribution and per-execution means\.$/, '');
    const x = r.samples.series.find((v) => v.name === name);
    if (!x) { C.fail(`no series named "${name}"`); return; }
    // The axis label names the unit the axis is in: a time unit, or the
    // series' unit, perhaps in thousands, millions or billions.
    const label = axisLabel(s.plot, 'x');
    const unit = x.unit_ns != null ? labelUnitNs(label) : ({ thousand: 1e3, million: 1e6, billion: 1e9 }[(/\((thousand|million|billion) /.exec(label) ?? [])[1]] ?? 1);
    if (x.unit_ns != null && unit == null) C.fail(`x axis label "${label}" names no time unit`);
    if (x.unit_ns == null && !label.includes(`${x.unit})`)) C.fail(`x axis label "${label}" names no unit ${x.unit}`);
    const v = (n) => (x.unit_ns != null ? n * x.unit_ns : n);
    C.axes({ x: x.unit_ns != null ? { kind: 'time', toScale: (ns) => ns / (unit ?? 1) } : { kind: 'plain', toScale: (n) => n / unit }, y: null });
    const sm = x.summary;
    const fe = x.fences;
    const put = (el, n, what) => { if (!el) { C.fail(`${what}: not drawn`); return; } C.marks++; C.at('x', v(n), el.x1 ?? el.x, what); };
    put(group(s, 'rule')[0], fe.whisker_low, 'whisker line start');
    C.at('x', v(fe.whisker_high), group(s, 'rule')[0]?.x2, 'whisker line end');
    put(group(s, 'tick', 0)[0], fe.whisker_low, 'low whisker');
    put(group(s, 'tick', 1)[0], fe.whisker_high, 'high whisker');
    put(group(s, 'bar')[0], sm.q1, 'box start (Q1)');
    C.at('x', v(sm.q3), group(s, 'bar')[0]?.x2, 'box end (Q3)');
    put(group(s, 'tick', 2)[0], sm.median, 'median');
    put(group(s, 'dot', 0)[0], sm.mean, 'mean');
    const outDots = group(s, 'dot', 0, painted('var(--bad)'));
    C.count(outDots.length, x.outliers.length, 'outlier marks');
    for (const el of outDots) C.point(el, v(x.outliers[el.index].value), s.scales.y.domain[0], `outlier ${el.index}`);
    const medians = group(s, 'tick', 0, painted('var(--series-2)'));
    const means = group(s, 'dot', 0, painted('var(--series-2)'));
    C.count(means.length, x.per_execution.length, 'execution means');
    C.count(medians.length, x.per_execution.length, 'execution medians');
    for (const el of medians) {
      const e = x.per_execution[el.index];
      put(el, e.median, `execution ${el.index} median`);
      C.band('y', `execution ${el.index}`, (el.y1 + el.y2) / 2, `execution ${el.index} median`, { labelSays: (t) => t === `execution ${el.index}` });
    }
    for (const el of means) C.point(el, v(x.per_execution[el.index].mean), `execution ${el.index}`, `execution ${el.index} mean`);
  },

  dendrogram(s, r, C) {
    let f;
    if (s.cell === 'ops-cell') f = r.ops.forms.find((x) => x.form === s.ctx.form);
    else if (r.samples?.clustering) f = { ...r.samples.clustering, form: 'series' };
    const c = f?.clustering;
    const cut = c?.cuts.find((x) => x.statistic === s.ctx.statistic);
    if (!cut) { C.fail(`no clustering cut "${s.ctx.statistic}" for ${s.cell} ${s.ctx.form}`); return; }
    const d = c.dendrogram;
    const n = d.observations;
    C.axes({ y: 'time' });
    // The leaves as drawn name the observations; each dot's title names its leaf.
    const dots = group(s, 'dot');
    const leafTexts = group(s, 'text', 1);
    C.count(dots.length, n, 'leaves');
    C.count(leafTexts.length, n, 'leaf labels');
    C.text([...leafTexts.map((e) => e.text)].sort().join(' '), [...f.names].sort().join(' '), 'leaf names');
    // A leaf's dot and its label are the same datum (Plot's index).
    const dotAt = new Map(dots.map((e) => [e.index, e]));
    const leafX = new Map(leafTexts.map((e) => [e.text, dotAt.get(e.index)?.x]));
    for (const el of dots) C.at('y', 0, el.y, `leaf ${el.index}`);
    for (const el of leafTexts) {
      C.marks++;
      C.scale.px(el.x, leafX.get(el.text), `label ${el.text} over its leaf`);
    }
    const xOf = new Array(n + d.merges.length);
    const hOf = new Array(n + d.merges.length).fill(0);
    f.names.forEach((name, i) => { xOf[i] = leafX.get(name); });
    d.merges.forEach((m, i) => { xOf[n + i] = (xOf[m.a] + xOf[m.b]) / 2; hOf[n + i] = m.height; });
    // Each merge: a vertical link up from each child at its x, a bar across at the merge height.
    const links = group(s, 'link');
    C.count(links.length, 3 * d.merges.length, 'links (three per merge)');
    for (const el of links) {
      const m = d.merges[Math.floor(el.index / 3)];
      const part = el.index % 3;
      const p0 = el.points[0];
      const p1 = el.points[el.points.length - 1];
      const what = `merge ${Math.floor(el.index / 3)} (height ${m.height})`;
      C.marks++;
      if (part < 2) {
        const child = part === 0 ? m.a : m.b;
        C.scale.px(p0.x, xOf[child], `${what}: the link up from child ${child}`);
        C.at('y', hOf[child], p0.y, `${what}: child ${child} height`);
        C.at('y', m.height, p1.y, `${what} height`);
      } else {
        C.at('y', m.height, p0.y, `${what} bar`);
        C.at('y', m.height, p1.y, `${what} bar end`);
        C.scale.px(Math.min(p0.x, p1.x), Math.min(xOf[m.a], xOf[m.b]), `${what} bar from`);
        C.scale.px(Math.max(p0.x, p1.x), Math.max(xOf[m.a], xOf[m.b]), `${what} bar to`);
      }
    }
    const rule = group(s, 'rule')[0];
    if (rule) C.at('y', cut.granularity_ns, rule.y1, 'cut');
  },

  'calibration-chart'(s, r, C) {
    const f = r.ops.forms.find((x) => x.form === s.ctx.form);
    const cal = f?.calibration;
    if (!cal) { C.fail(`no calibration for form "${s.ctx.form}"`); return; }
    C.axes({ x: 'time', y: 'time' });
    const dots = group(s, 'dot', 0);
    C.count(dots.length, cal.points.length, 'operation dots');
    for (const el of dots) C.point(el, cal.points[el.index].portable_ns, cal.points[el.index].counter_ns, cal.points[el.index].name);
    const top = cal.points.filter((p) => cal.largest_residuals.includes(p.name));
    const rings = group(s, 'dot', 1);
    C.count(rings.length, cal.largest_residuals.length, 'largest-residual rings');
    for (const el of rings) C.point(el, top[el.index].portable_ns, top[el.index].counter_ns, `${top[el.index].name} ring`);
    const labels = s.plot.groups.filter((g) => g.label === 'text').flatMap((g) => g.elements);
    C.count(labels.length, top.length, 'largest-residual names');
    for (const el of labels) {
      const p = top.find((q) => q.name === el.text);
      if (!p) { C.fail(`label "${el.text}" names no largest residual`); continue; }
      C.marks++;
      // Beside its point: 10 px to the left (anchored at its end) or to the right.
      C.at('x', p.portable_ns, el.x, `${p.name} label`, { shift: el.anchor === 'end' ? -10 : 10 });
      C.at('y', p.counter_ns, el.y, `${p.name} label`);
    }
    // The fitted line y = α + βx between the ends of the x axis.
    const fit = group(s, 'line', 1)[0];
    const [x0, x1] = s.scales.x.domain;
    if (fit) {
      C.line(fit, [{ x: x0, y: cal.fit.intercept + cal.fit.slope * x0 }, { x: x1, y: cal.fit.intercept + cal.fit.slope * x1 }], 'fitted line');
    }
  },

  'copy-heatmap'(s, r, C) {
    const c = r.copy;
    const impl = s.dataset.implementation;
    const len = Number(s.dataset.length);
    const metric = s.ctx.copyMetric ?? 'ns_per_byte';
    const cells = c.cells.filter((x) => x.implementation === impl && x.nominal_length === len);
    const ok = cells.filter((x) => x.available && x[metric] != null);
    const missing = cells.filter((x) => !(x.available && x[metric] != null));
    const flagged = cells.filter((x) => x.flagged);
    C.axes({ x: null, y: null });
    const measured = group(s, 'cell', 0, classed('copy-measured'));
    C.count(measured.length, ok.length, `measured cells (${impl}, ${len} B)`);
    C.count(group(s, 'cell', 0, classed('copy-unavailable')).length, missing.length, 'cells not measured');
    C.count(group(s, 'cell', 0, classed('copy-flagged-mark')).length, flagged.length, 'flagged cells');
    const place = (el, x, what) => {
      const m = el.tag === 'rect' ? mid(el) : el;
      C.marks++;
      C.band('x', String(x.alignment), m.x, what, { labelSays: (t) => t === String(x.alignment) });
      C.band('y', s.scales.y.domain[x.variant - 1], m.y, what, { labelSays: (t) => t.startsWith(`${x.variant} ·`) });
    };
    // Both schemes run light to dark: the larger the value, the darker the cell.
    for (const p of checkSequentialFill(measured.map((el) => ({ value: ok[el.index][metric], fill: el.fill, what: `variant ${ok[el.index].variant} alignment ${ok[el.index].alignment}` })))) C.fail(p);
    for (const el of measured) {
      const x = ok[el.index];
      place(el, x, `variant ${x.variant} alignment ${x.alignment}`);
      const v = x[metric];
      const [d0, d1] = s.scales.color.domain;
      if (!(v >= Math.min(d0, d1) * (1 - 1e-9) && v <= Math.max(d0, d1) * (1 + 1e-9))) C.domain.push(`variant ${x.variant} alignment ${x.alignment}: ${v} outside the colour domain [${d0}, ${d1}]`);
    }
    for (const el of group(s, 'text', 0, (g) => !g.elements.some((e) => e.text === 'n/a'))) {
      const x = ok[el.index];
      place(el, x, `label of variant ${x.variant} alignment ${x.alignment}`);
      if (!sameShown(numberIn(el.text), x[metric], 3)) C.fail(`variant ${x.variant} alignment ${x.alignment}: label "${el.text}" for ${x[metric]}`);
      if (x.flagged !== el.text.includes('▲')) C.fail(`variant ${x.variant} alignment ${x.alignment}: flag mark ${x.flagged ? 'missing' : 'extra'}`);
    }
  },

  'trace-matrices'(s, r, C) {
    const w = r.trace.workloads.find((x) => x.name === s.ctx.workload);
    if (!w) { C.fail(`no workload "${s.ctx.workload}"`); return; }
    C.axes({ x: null, y: null, fx: null });
    const levelName = (l) => (l.level === 0 ? 'baseline (level 0)' : `level ${l.level}`);
    const pairOf = (a, b) => w.pairs.findIndex((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
    // The value the report gives the cell (level, x metric, y metric):
    // a pair's mean correlation; on the diagonal 1, unless the metric was
    // constant (its self-correlation null) in every run of the level.
    const expected = (level, xi, yi) => {
      if (xi === yi) {
        const runs = w.runs.filter((u) => u.level === level.level);
        return runs.some((u) => u.matrix?.[xi]?.[xi] != null) ? 1 : null;
      }
      return level.inner[pairOf(xi, yi)]?.correlation ?? null;
    };
    const where = (el) => {
      const fxName = bandAt(s.scales.fx, el.x);
      const fx0 = facetOffset(s, fxName);
      const level = w.levels.find((l) => levelName(l) === fxName);
      const xm = bandAt(s.scales.x, el.x - fx0);
      const ym = bandAt(s.scales.y, el.y);
      return { level, xi: w.metrics.indexOf(xm), yi: w.metrics.indexOf(ym), fx0 };
    };
    const cellName = (level, xi, yi) => `${levelName(level)}: ${w.metrics[xi]} × ${w.metrics[yi]}`;
    let want = 0;
    let wantUndefined = 0;
    for (const l of w.levels) {
      for (let i = 0; i < w.metrics.length; i++) for (let j = 0; j < w.metrics.length; j++) if (expected(l, i, j) != null) want++; else wantUndefined++;
    }
    // Labels: one per defined cell, its value to two decimals; or none,
    // which is right only where cells are too small for a label: "−0.00"
    // at 8 px (the smallest readable) is about 3.3 em, plus a pixel each side.
    const texts = group(s, 'text');
    const bw = bandLayout(s.scales.x).bandwidth;
    const bh = bandLayout(s.scales.y).bandwidth;
    const labelFits = 3.3 * 8 + 2 <= bw && 8 + 2 <= bh;
    if (texts.length || labelFits) C.count(texts.length, want, `value labels of defined cells (${w.name}; cells ${bw.toFixed(1)} × ${bh.toFixed(1)} px)`);
    for (const el of texts) {
      const { level, xi, yi } = where(el);
      C.marks++;
      if (!level || xi < 0 || yi < 0) { C.fail(`"${el.text}" at (${el.x}, ${el.y}) is in no cell`); continue; }
      const v = expected(level, xi, yi);
      const what = cellName(level, xi, yi);
      if (v == null) C.fail(`${what}: drawn "${el.text}", the report has null`);
      else C.text(el.text, v.toFixed(2).replace('-', '−'), what);
    }
    // Defined cells: one per value the report has, coloured on RdBu (red
    // below 0 and blue above, darker the further from 0), each naming its
    // value in its tooltip.
    const cells = group(s, 'cell', 0, classed('trace-matrix-cell'));
    C.count(cells.length, want, `coloured cells (${w.name})`);
    const painted0 = [];
    for (const el of cells) {
      const { level, xi, yi } = where(mid(el));
      const v = level && xi >= 0 && yi >= 0 ? expected(level, xi, yi) : null;
      const c = parseColour(el.fill);
      C.marks++;
      if (v == null || !c) { C.fail(`a coloured cell at (${mid(el).x}, ${mid(el).y}) whose value is ${v} (fill ${el.fill})`); continue; }
      const what = cellName(level, xi, yi);
      if (Math.abs(v) > 0.1 && (v > 0) !== (c.b > c.r)) C.fail(`${what}: ρ = ${v.toFixed(2)} painted ${c.b > c.r ? 'blue' : 'red'}`);
      const [head, rho] = (el.title ?? '').split('\n');
      if (head !== what) C.fail(`${what}: its tooltip names "${head}"`);
      if (!/^ρ = /.test(rho ?? '') || !sameShown(numberIn(rho), v, 3)) C.fail(`${what}: tooltip "${rho}" for ρ = ${v}`);
      painted0.push({ value: Math.abs(v), sign: Math.sign(v), fill: el.fill, what });
    }
    // Darker the further from 0 on each side of RdBu; its red and blue
    // ramps differ in luminance at equal |ρ|, so the sides are apart.
    for (const side of [-1, 1]) {
      for (const p of checkSequentialFill(painted0.filter((x) => x.sign === side), { slack: 0.02 })) C.fail(p);
    }
    // Undefined cells: one per cell the report leaves null, empty (no
    // colour of the scale, no label) and saying so in its tooltip.
    const undef = group(s, 'cell', 0, classed('trace-matrix-undefined'));
    C.count(undef.length, wantUndefined, `undefined cells (${w.name})`);
    for (const el of undef) {
      const { level, xi, yi } = where(mid(el));
      C.marks++;
      if (!level || xi < 0 || yi < 0) { C.fail(`an undefined cell at (${mid(el).x}, ${mid(el).y}) is in no cell`); continue; }
      const what = cellName(level, xi, yi);
      if (expected(level, xi, yi) != null) C.fail(`${what} drawn undefined, the report has ${expected(level, xi, yi)}`);
      if (parseColour(el.fill)) C.fail(`${what}: undefined, yet filled with the colour ${el.fill}`);
      if (!/\nundefined\b/.test(el.title ?? '')) C.fail(`${what}: undefined, its tooltip says "${el.title}"`);
    }
  },

  'trace-inner-overhead'(s, r, C) { overheadSpec(s, r, C, 'inner'); },
  'trace-outer-overhead'(s, r, C) { overheadSpec(s, r, C, 'outer'); },

  'trace-signals'(s, r, C) {
    const w = r.trace.workloads.find((x) => x.name === s.ctx.workload);
    const ex = w?.examples.find((e) => String(e.level) === s.ctx.level);
    const mi = w?.metrics.indexOf(s.ctx.metric);
    if (!ex || mi < 0) { C.fail(`no example for ${s.ctx.workload} level ${s.ctx.level} ${s.ctx.metric}`); return; }
    const base = w.reference_series[mi];
    const inst = ex.series[mi];
    const data = [
      ...base.map((v, i) => ({ panel: 'raw (by record)', t: i, v, run: 'baseline' })),
      ...inst.map((v, i) => ({ panel: 'raw (by record)', t: i, v, run: 'inst' })),
    ];
    for (let k = 0; k < ex.index1.length; k++) {
      data.push({ panel: 'aligned (by path step)', t: k, v: base[ex.index1[k]], run: 'baseline' });
      data.push({ panel: 'aligned (by path step)', t: k, v: inst[ex.index2[k]], run: 'inst' });
    }
    // The y axis in a scaled unit its label names: a time metric in s, ms,
    // µs or ns; another in its unit, perhaps in thousands, millions or billions.
    const unit = r.trace.metrics.find((m) => m.name === s.ctx.metric)?.unit;
    const label = axisLabel(s.plot, 'y');
    if (unit === 'ns') {
      if (labelUnitNs(label) == null) C.fail(`y axis label "${label}" names no time unit`);
    } else if (!['', 'thousand ', 'million ', 'billion '].some((k) => label.includes(`(${k}${unit || 'units'})`))) {
      C.fail(`y axis label "${label}" names no unit ${unit}`);
    }
    C.axes({ x: 'plain', y: unit === 'ns' ? 'time' : 'plain', fx: null });
    const lines = group(s, 'line');
    C.count(lines.length, 4, 'signals (two runs × two panels)');
    const first = facetOffset(s, s.scales.fx.domain[0]);
    let points = 0;
    for (const el of lines) {
      const ps = (el.index ?? []).map((i) => data[i]);
      points += ps.length;
      const shift = facetOffset(s, ps[0]?.panel);
      C.line(el, ps.map((p) => ({ x: p.t, y: p.v })), `${ps[0]?.panel} ${ps[0]?.run}`, { dx: shift, labelDx: shift - first });
    }
    C.count(points, data.length, 'signal points');
  },

  'trace-path'(s, r, C) {
    const w = r.trace.workloads.find((x) => x.name === s.ctx.workload);
    const ex = w?.examples.find((e) => String(e.level) === s.ctx.level);
    if (!ex) { C.fail(`no example for ${s.ctx.workload} level ${s.ctx.level}`); return; }
    C.axes({ x: 'plain', y: 'plain' });
    const path = group(s, 'line', 1)[0];
    if (!path) { C.fail('no warping path drawn'); return; }
    C.count(path.index?.length, ex.index1.length, 'path steps');
    C.line(path, ex.index1.map((i, k) => ({ x: ex.index2[k], y: i })), 'warping path');
  },

  'alloc-ecdf'(s, r, C) {
    const a = r.alloc;
    const points = a.impact_ecdf.flatMap((e) => e.points.map(([x, F]) => ({ strategy: e.strategy, x, F }))).filter((p) => p.x > 0);
    C.axes({ x: 'plain', y: 'share' });
    const dots = group(s, 'dot');
    C.count(dots.length, points.length, 'ECDF points');
    for (const el of dots) C.point(el, points[el.index].x, points[el.index].F, `${points[el.index].strategy} at ${points[el.index].x}`);
    for (const el of group(s, 'line')) {
      const ps = (el.index ?? []).map((i) => points[i]);
      C.line(el, ps.map((p) => ({ x: p.x, y: p.F })), `${ps[0]?.strategy} ECDF`);
    }
  },
};

/** The inner and outer perturbation charts (trace.js overheadChart). */
function overheadSpec(s, r, C, kind) {
  const w = r.trace.workloads.find((x) => x.name === s.ctx.workload);
  if (!w) { C.fail(`no workload "${s.ctx.workload}"`); return; }
  const inner = kind === 'inner';
  const names = inner ? w.pairs.map((p) => p.label) : w.metrics;
  const shownIdx = JSON.parse(s.dataset.shown ?? '[]');
  const shown = new Set(shownIdx);
  const points = [];
  for (const l of w.levels) {
    if (l.overhead == null) continue;
    l[kind].forEach((c, i) => {
      if (c.correlation != null && shown.has(i)) points.push({ series: names[i], overhead: l.overhead, r: c.correlation, level: l.level, flagged: c.flagged });
    });
  }
  // The chart hands Plot the overhead in percent; the axis says so.
  C.axes({ x: { kind: 'share', toScale: (v) => v * 100 }, y: 'plain' });
  const dots = group(s, 'dot', 0);
  C.count(dots.length, points.length, `${kind} correlation points`);
  for (const el of dots) {
    const p = points[el.index];
    C.point(el, p.overhead, p.r, `${p.series} at level ${p.level}`);
  }
  const rings = group(s, 'dot', 1);
  C.count(rings.length, points.filter((p) => p.flagged).length, 'flagged rings');
  for (const el of rings) {
    const p = points.filter((q) => q.flagged)[el.index];
    C.point(el, p.overhead, p.r, `ring of ${p.series} at level ${p.level}`);
  }
  // One line per series through its levels.
  for (const el of group(s, 'line')) {
    const ps = (el.index ?? []).map((i) => points[i]);
    if (new Set(ps.map((p) => p.series)).size !== 1) C.fail(`a line through ${[...new Set(ps.map((p) => p.series))].join(', ')}`);
    C.line(el, ps.map((p) => ({ x: p.overhead, y: p.r })), `${ps[0]?.series} line`);
  }
}

/* ------------------------------------------------------------ the tests */

const KINDS = [
  'read-cost-chart', 'step-histogram', 'ppm-chart', 'bernoulli-chart', 'ops-box-plot', 'dendrogram', 'calibration-chart',
  'copy-heatmap', 'trace-matrices', 'trace-inner-overhead', 'trace-outer-overhead', 'trace-signals', 'trace-path',
  'bottleneck-bars', 'bottleneck-curves', 'alloc-ecdf', 'box-plot',
];

test('the page read back without errors, every chart kind drawn', () => {
  assert.deepEqual(pageProblems, [], 'page and console errors');
  const drawn = new Set(snapshots.map((s) => s.testid));
  for (const k of KINDS) assert.ok(drawn.has(k), `${k} is drawn somewhere`);
  const unknown = [...drawn].filter((k) => !KINDS.includes(k));
  assert.deepEqual(unknown, [], 'chart kinds with no spec here: add one');
});

/** Collect one kind's checks over every chart of that kind. */
function runKind(kind) {
  const charts = snapshots.filter((s) => s.testid === kind);
  const out = {
    charts: charts.length, drawn: [], scale: [], content: [], domain: [], axis: [], ticks: [],
    inside: [], apart: [], legends: [], contrast: [], marks: 0, maxScale: 0, maxAxis: 0, axisCount: 0, worstContrast: Infinity, summaries: [],
  };
  for (const s of charts) {
    const where = `${s.source} · ${s.file}${s.view && s.view !== 'as opened' ? ` · ${s.view}` : ''}${s.caption && kind === 'step-histogram' ? ` · ${s.caption}` : ''}`;
    const tag = (list) => list.map((p) => `${where}: ${p}`);
    if (!s.drawn || s.error) { out.drawn.push(`${where}: ${s.error ?? 'no svg'}`); continue; }
    if (!s.report) { out.drawn.push(`${where}: no report for ${s.file}`); continue; }
    const C = new ChartCheck(s);
    try {
      SPECS[kind](s, s.report, C);
    } catch (e) {
      C.fail(`spec threw: ${e.stack}`);
    }
    out.marks += C.marks;
    out.maxScale = Math.max(out.maxScale, C.scale.max);
    out.maxAxis = Math.max(out.maxAxis, C.axis.max);
    out.axisCount += C.axis.count;
    out.scale.push(...tag(C.scale.problems));
    out.content.push(...tag(C.content.problems));
    out.domain.push(...tag(C.domain));
    out.axis.push(...tag(C.axis.problems));
    out.ticks.push(...tag(C.axisProblems));
    out.inside.push(...tag(checkTextsInside(s)));
    out.apart.push(...tag([...checkTickOverlap(s), ...checkLabelCollisions(s)]));
    out.legends.push(...tag(checkLegends(s)));
    const contrast = checkContrast(s);
    out.contrast.push(...tag(contrast.problems));
    out.worstContrast = Math.min(out.worstContrast, contrast.worst);
  }
  return out;
}

const dedupe = (list) => [...new Set(list)];

for (const kind of KINDS) {
  test(kind, async (t) => {
    const o = runKind(kind);
    console.log(`${kind}: ${o.charts} chart${o.charts === 1 ? '' : 's'}, ${o.marks} marks; max error ${o.maxScale.toFixed(2)} px by the scales, ` +
      `${o.axisCount ? `${o.maxAxis.toFixed(2)} px as the axes are labelled` : 'no labelled position axis'}; worst text contrast ${Number.isFinite(o.worstContrast) ? o.worstContrast.toFixed(2) : '—'}:1`);
    const check = (name, problems) => t.test(name, () => {
      const ps = dedupe(problems);
      assert.ok(ps.length === 0, `${kind}: ${name}\n${listProblems(ps)}`);
    });
    await check('drawn, one chart at least', o.charts ? o.drawn : ['never drawn']);
    await check('marks where the scales put the report\'s values', o.scale);
    await check('mark counts and drawn texts match the report', o.content);
    await check('every value inside its axis domain', o.domain);
    await check('marks where the axis labels say', o.axis);
    await check('tick labels read as the data\'s unit, spread over the axis', o.ticks);
    await check('no text outside its SVG', o.inside);
    await check('tick labels and axis labels apart', o.apart);
    await check('legend labels whole', o.legends);
    await check('text contrast (WCAG 1.4.3)', o.contrast);
  });
}

test('alloc sparklines: bar heights proportional to the colour histogram', () => {
  const problems = [];
  let bars = 0;
  let maxErr = 0;
  for (const sp of sparklines) {
    const c = sp.report?.alloc?.configs[sp.index];
    if (!c) { problems.push(`${sp.file} config ${sp.index}: no report`); continue; }
    const hist = c.colour_histogram;
    if (!hist?.length) { if (sp.d) problems.push(`config ${sp.index}: a sparkline without a histogram`); continue; }
    if (!sp.d) { problems.push(`config ${sp.index}: histogram of ${hist.length} colours not drawn`); continue; }
    const H = Number(sp.viewBox.split(/\s+/)[3]);
    // Each bar: "M x top h w V bottom h -w Z" — its left edge and its top.
    const drawn = [...sp.d.matchAll(/M([\d.]+) ([\d.]+)h/g)].map((m) => ({ x: Number(m[1]), top: Number(m[2]) }));
    const max = Math.max(...hist);
    const want = hist.map((v, i) => ({ i, v })).filter((b) => b.v > 0);
    if (drawn.length !== want.length) problems.push(`config ${sp.index}: ${drawn.length} bars for ${want.length} colours with pages`);
    for (const b of want) {
      const el = drawn.find((d) => Math.abs(d.x - (1 + 2 * b.i)) < 0.01);
      if (!el) { problems.push(`config ${sp.index}: colour ${b.i} has no bar`); continue; }
      bars++;
      // Full height (less a 1-unit margin) for the fullest colour; at least one unit for any page.
      const height = H - el.top;
      const expect = Math.max(1, (b.v / max) * (H - 1));
      const err = Math.abs(height - expect);
      maxErr = Math.max(maxErr, err);
      if (err > 0.01) problems.push(`config ${sp.index} colour ${b.i}: bar ${height.toFixed(2)} high for ${b.v} of ${max} pages (expected ${expect.toFixed(2)})`);
    }
  }
  console.log(`alloc sparklines: ${sparklines.length} configurations, ${bars} bars, max error ${maxErr.toFixed(3)} viewBox units`);
  assert.ok(sparklines.length > 0, 'sparklines read');
  assert.ok(problems.length === 0, listProblems(problems));
});



