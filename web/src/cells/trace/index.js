// The Perturbation cell (Mytkowicz et al.): does
// instrumenting a program change what its metrics say? Inner perturbation
// (Spearman correlation of metric pairs inside a trace, per instrumentation
// level), outer perturbation (each metric against itself after aligning the
// run to a baseline by dynamic time warping), both against the spread between
// baseline runs. Every number comes from the report's `trace`; this module
// only looks values up, formats and draws them. The DTW step pattern and band
// are analysis options: changing them re-analyses the file in the worker.

import * as Plot from '@observablehq/plot';
import { h, table, numCell } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtNum, fmtCount, fmtNs, fmtSignedPercent, fmtSigned as fmtChange, timeUnit } from '../../ui/units.js';
import { cellSection, warningsList } from '../../ui/cell.js';
import { CATEGORICAL, SERIES } from '../../ui/palette.js';

const fmtR = (v) => fmtNum(v, { digits: 3 }).replace('-', '−');
const levelName = (l) => (l.level === 0 ? 'baseline (level 0)' : `level ${l.level}`);

/** What a link keeps of this cell's view (app/state.js): the workload, run
 * and metric shown, and the "show all" toggles, each of which may be unset. */
export const viewFields = {
  traceWorkload: 'string',
  traceLevel: 'number',
  traceMetric: 'string',
  traceAll: { inner: 'boolean?', outer: 'boolean?' },
};

export function build(report, key, ctx) {
  const t = report.trace;
  const view = ctx.view;
  if (!t.workloads.some((w) => w.name === view.traceWorkload)) view.traceWorkload = t.workloads[0]?.name ?? null;
  const w = t.workloads.find((x) => x.name === view.traceWorkload);
  const body = h('div', { class: 'trace-workload' });
  const redraw = () => {
    for (const fig of body.querySelectorAll('figure.chart')) fig.dispose?.();
    const wl = t.workloads.find((x) => x.name === view.traceWorkload);
    body.replaceChildren(...(wl ? workloadBlock(t, wl, view, redraw) : [h('p', { class: 'muted' }, 'This trace has no workloads.')]));
  };
  redraw();
  return cellSection(ctx, report, key,
  warningsList(report.warnings),
  explain(t),
  unavailable(t),
  controls(t, w, view, ctx, redraw),
  body);
}

function explain(t) {
  return h('div', { class: 'explain' },
    h('p', {}, 'Does measuring a program change what its metrics say? (After Mytkowicz, Diwan, Hauswirth and Sweeney, 2007.) ',
      'Each workload ran several times uninstrumented (', h('strong', {}, 'baseline, level 0'), ') and at instrumentation levels 1…k that add software counters to its hot code; ',
      'every run is a trace of metric values per sampling interval.'),
    h('p', {}, h('strong', {}, 'Inner perturbation'), ': the Spearman correlation (average ranks for ties, as scipy’s spearmanr) of every pair of metrics inside one trace, ',
      'compared between the baseline and each level. ', h('strong', {}, 'Outer perturbation'), ': each run is aligned to the first baseline run by dynamic time warping ',
      `(dtw-python’s ${t.step_pattern}${t.band != null ? `, Sakoe–Chiba band ${t.band}` : ', no band'}; metrics z-scored so each weighs the same whatever its unit, Euclidean local cost), `,
      'then each metric is correlated with itself along the warping path: 1 means unperturbed.'),
    h('p', {}, 'A change is ', h('strong', {}, 'flagged'), ' only when it exceeds the spread between baseline runs: for a pair, the range of its correlation over baseline runs; ',
      'for a metric’s outer correlation, the largest drop below 1 of a baseline run aligned to the first. Overhead is the level’s mean wall time over the baseline’s, minus 1. ',
      'JSON keys: docs/cli.md, “trace”.'));
}

function unavailable(t) {
  if (!t.unavailable.length) return null;
  return h('div', { class: 'warnings', role: 'note', 'data-testid': 'trace-unavailable' },
    h('strong', {}, `${t.unavailable.length} metric${t.unavailable.length === 1 ? ' was' : 's were'} not available on this machine`),
    h('ul', {}, t.unavailable.map((u) => h('li', { 'data-testid': 'trace-unavailable-metric', dataset: { metric: u.name } },
      h('code', {}, u.name), ` (${u.source}): ${u.reason}`))));
}

function controls(t, w, view, ctx, redraw) {
  const opts = ctx.options?.() ?? {};
  const dtw = opts.dtw ?? { step_pattern: t.step_pattern, band: t.band };
  const pattern = h('select', {
    'data-testid': 'trace-step-pattern',
    title: 'dtw-python step pattern: symmetric2 weighs a diagonal step twice (normalizable by n + m, the default); symmetric1 weighs every step once',
    onchange: () => ctx.setOptions({ dtw: { ...dtw, step_pattern: pattern.value } }),
  }, ['symmetric2', 'symmetric1'].map((p) => h('option', { value: p, selected: p === t.step_pattern }, p)));
  const band = h('input', {
    'data-testid': 'trace-band', class: 'number', type: 'text', inputmode: 'numeric', autocomplete: 'off',
    value: t.band == null ? '' : String(t.band), placeholder: 'none',
    title: 'Sakoe–Chiba band: aligned records may be at most this many records apart (|i − j| ≤ band); empty = no band',
  });
  band.addEventListener('change', () => {
    const s = band.value.trim();
    if (s === '') return ctx.setOptions({ dtw: { ...dtw, band: null } });
    if (!/^\d+$/.test(s) || Number(s) > 10_000_000) {
      band.setCustomValidity('The band is a whole number of records from 0 to 10 000 000, or empty for none');
      band.setAttribute('aria-invalid', 'true');
      band.reportValidity?.();
      return undefined;
    }
    band.setCustomValidity('');
    band.removeAttribute('aria-invalid');
    return ctx.setOptions({ dtw: { ...dtw, band: Number(s) } });
  });
  const workload = t.workloads.length > 1
    ? h('label', { class: 'select' }, h('span', {}, 'Workload'),
      (() => {
        const sel = h('select', { 'data-testid': 'trace-workload', onchange: () => { view.traceWorkload = sel.value; redraw(); } },
          t.workloads.map((x) => h('option', { value: x.name, selected: x.name === w?.name }, x.name)));
        return sel;
      })())
    : null;
  return h('div', { class: 'controls trace-controls' },
    workload,
    h('label', { class: 'select' }, h('span', {}, 'DTW step pattern'), pattern),
    h('label', { class: 'select' }, h('span', {}, 'Band (records)'), band),
    benchButton(t, ctx));
}

/** Time DTW with its path on two 3000-record series in the analysis worker. */
function benchButton(t, ctx) {
  const out = h('span', { class: 'muted', 'data-testid': 'trace-bench-result', 'aria-live': 'polite' });
  const button = h('button', {
    type: 'button', class: 'button', 'data-testid': 'trace-bench',
    title: 'Align two synthetic 3000-record series (with the warping path) in this browser’s analysis worker and show the time',
    onclick: async () => {
      button.disabled = true;
      out.textContent = 'timing…';
      try {
        const r = await ctx.call('dtwBench', 3000, t.step_pattern, t.band);
        out.dataset.value = String(r.ms_best);
        out.textContent = `DTW of 2 × ${fmtCount(r.n)} records with path (${r.step_pattern}${r.band != null ? `, band ${r.band}` : ''}): ` +
          `${fmtNum(r.ms_best, { digits: 3 })} ms (best of ${r.ms_all.length}), ${fmtCount(r.path_steps)} path steps`;
      } catch (e) {
        out.textContent = `could not time DTW: ${e.message ?? e}`;
      } finally {
        button.disabled = false;
      }
    },
  }, 'Time DTW');
  return h('span', { class: 'trace-bench' }, button, ' ', out);
}

function workloadBlock(t, w, view, redraw) {
  const out = [
    h('h3', {}, `Workload ${w.name}`),
    h('p', { class: 'muted' }, w.description, ` · sampled every ${fmtNs(w.interval_ns, { digits: 3 })} · ${fmtCount(w.runs.length)} runs, ${fmtCount(w.baseline.runs)} baseline`),
  ];
  if (w.class_note) {
    out.push(h('p', { class: 'note', 'data-testid': 'trace-class-note', dataset: { class: w.class } },
      h('strong', {}, 'No hardware metrics: '), w.class_note, '.'));
  }
  for (const n of w.notes) out.push(h('p', { class: 'note', 'data-testid': 'trace-note' }, n));
  out.push(h('p', {}, `Metrics analysed (${w.class}): `, w.metrics.map((m, i) => [i ? ', ' : '', h('code', {}, m)])));
  out.push(levelsTable(w));
  if (w.pairs.length) {
    out.push(h('h4', {}, 'Inner correlation per level'));
    out.push(matrices(w));
    out.push(overheadChart(w, 'inner', view, redraw));
    out.push(changeTable(w, 'inner'));
  }
  if (w.reference && w.metrics.length) {
    out.push(h('h4', {}, 'Outer correlation per level'));
    out.push(overheadChart(w, 'outer', view, redraw));
    out.push(changeTable(w, 'outer'));
    out.push(alignmentBlock(t, w, view, redraw));
  }
  out.push(runsTable(w));
  return out;
}

function levelsTable(w) {
  const rows = w.levels.map((l) => h('tr', { 'data-testid': 'trace-level-row', dataset: { level: l.level } },
    h('th', { scope: 'row' }, levelName(l)),
    h('td', {}, l.description || '—'),
    numCell('runs', l.runs, fmtCount(l.runs)),
    numCell('wall-ns-mean', l.wall_ns_mean, fmtNs(l.wall_ns_mean)),
    numCell('overhead', l.overhead, fmtSignedPercent(l.overhead)),
    h('td', {
      class: 'num', dataset: { stat: 'overhead-ci', lo: l.overhead_ci?.[0], hi: l.overhead_ci?.[1] },
      title: l.overhead_ci ? `${l.overhead_ci[0]} to ${l.overhead_ci[1]}` : 'needs at least two runs here and at the baseline',
    }, l.overhead_ci ? `${fmtSignedPercent(l.overhead_ci[0])} to ${fmtSignedPercent(l.overhead_ci[1])}` : '—'),
    numCell('instrumentation', l.instrumentation_mean, fmtCount(l.instrumentation_mean)),
    numCell('flagged-inner', l.flagged_inner, fmtCount(l.flagged_inner), { className: ['num', l.flagged_inner && 'flag'].filter(Boolean).join(' ') }),
    numCell('flagged-outer', l.flagged_outer, fmtCount(l.flagged_outer), { className: ['num', l.flagged_outer && 'flag'].filter(Boolean).join(' ') })));
  return table({
    testid: 'trace-levels',
    caption: 'Instrumentation levels: wall-time overhead against the baseline (with its bootstrap CI when both have two runs or more) and how many correlations changed beyond the baseline spread.',
    columns: ['Level', 'Instruments', { label: 'Runs', class: 'num' }, { label: 'Mean wall time', class: 'num' },
      { label: 'Overhead', class: 'num' }, { label: 'Overhead CI', class: 'num' }, { label: 'Counter increments per run', class: 'num' },
      { label: 'Flagged pairs (inner)', class: 'num' }, { label: 'Flagged metrics (outer)', class: 'num' }],
    rows,
  });
}

/**
 * One heat map per level: the mean inner correlation of each pair. The
 * diagonal is the runs' own (1, or undefined for a metric constant in every
 * run of the level): a constant metric has no correlation, not even with itself.
 */
function matrices(w) {
  const data = [];
  for (const l of w.levels) {
    const runs = w.runs.filter((r) => r.level === l.level && r.matrix);
    w.metrics.forEach((m, i) => {
      const diag = runs.map((r) => r.matrix[i]?.[i]).find((v) => v != null) ?? null;
      data.push({ level: levelName(l), x: m, y: m, r: diag, diag: true, flagged: false });
    });
    w.pairs.forEach((p, i) => {
      const c = l.inner[i];
      for (const [x, y] of [[w.metrics[p.a], w.metrics[p.b]], [w.metrics[p.b], w.metrics[p.a]]]) {
        data.push({ level: levelName(l), x, y, r: c.correlation, change: c.change, spread: c.spread, flagged: c.flagged, diag: false });
      }
    });
  }
  const levels = w.levels.map(levelName);
  const defined = data.filter((d) => d.r != null);
  const undefinedCells = data.filter((d) => d.r == null);
  const flagged = data.filter((d) => d.flagged);
  const title = (d) => `${d.level}: ${d.x} × ${d.y}\n` + (d.r == null ? 'undefined (a constant metric)' : `ρ = ${fmtR(d.r)}`) +
    (d.diag || d.r == null ? '' : `\nchange from baseline ${fmtChange(d.change)}, baseline spread ${fmtR(d.spread)}${d.flagged ? ' — FLAGGED' : ''}`);
  const fig = chartFigure({
    testid: 'trace-matrices',
    caption: 'Spearman correlation of each metric pair, mean over the runs of each level. Outlined in red: changed beyond the baseline spread; dashed and empty: undefined (a metric constant in every run of the level).',
    summary: `${levels.length} correlation matrices of ${w.metrics.length} metrics (${w.metrics.join(', ')}); ${flagged.length / 2} pair-levels flagged; ${undefinedCells.filter((d) => !d.diag).length / 2} pair-levels and ${undefinedCells.filter((d) => d.diag).length} diagonal cells undefined (constant metrics).`,
    draw: (width) => {
      const side = Math.max(140, Math.min(260, (width - 40) / Math.min(levels.length, 4) - 20));
      const out = Plot.plot({
        ...baseOptions(width),
        height: side + 60 + 6.8 * Math.max(...w.metrics.map((m) => m.length)),
        marginLeft: 16 + 6.5 * Math.max(...w.metrics.map((m) => m.length)),
        marginBottom: 20 + 6.8 * Math.max(...w.metrics.map((m) => m.length)),
        fx: { domain: levels, label: null },
        // Upright names: slanted ones overlap once a cell is narrower than they are tall.
        x: { domain: w.metrics, label: null, tickRotate: -90 },
        y: { domain: w.metrics, label: null },
        color: {
          type: 'linear', domain: [-1, 1], scheme: 'RdBu', legend: true, label: 'Spearman ρ',
          ticks: [-1, -0.5, 0, 0.5, 1], tickFormat: fmtRho1, marginLeft: 12, marginRight: 12, width: 264,
        },
        marks: [
          // Undefined: an empty cell with a dashed border, unlike a ρ near 0.
          Plot.cell(undefinedCells, {
            fx: 'level', x: 'x', y: 'y', fill: 'var(--card)', stroke: 'var(--muted)', strokeOpacity: 0.6, strokeDasharray: '2 2', inset: 1.5,
            title, className: 'trace-matrix-undefined',
          }),
          Plot.cell(defined, { fx: 'level', x: 'x', y: 'y', fill: 'r', inset: 1, title, className: 'trace-matrix-cell' }),
          // The outline's stroke stays inside the cell (inset 2 + half of 2 px).
          Plot.cell(flagged, { fx: 'level', x: 'x', y: 'y', fill: 'none', stroke: 'var(--bad)', strokeWidth: 2, inset: 2, title, className: 'trace-matrix-flagged' }),
          Plot.text(defined, {
            fx: 'level', x: 'x', y: 'y', text: (d) => fmtRho2(d.r), fontSize: 10, fill: (d) => (Math.abs(d.r) > 0.6 ? '#fff' : '#111'), title, className: 'trace-matrix-label',
            // A halo: around |ρ| = 0.7 neither white nor black text reads on the cell alone.
            stroke: (d) => (Math.abs(d.r) > 0.6 ? 'rgba(0,0,0,0.35)' : 'rgba(255,255,255,0.6)'), strokeWidth: 3, paintOrder: 'stroke',
          }),
        ],
      });
      fitLabels(out);
      return out;
    },
  });
  fig.dataset.cells = String(defined.length);
  return fig;
}

const fmtRho2 = (r) => r.toFixed(2).replace('-', '−');
const fmtRho1 = (r) => r.toFixed(1).replace('-', '−');

/**
 * Cell labels (at most "−0.00") only where they fit: the largest font of
 * 10, 9 or 8 px whose label fits the cell (inset 1 each side), else none.
 */
function fitLabels(out) {
  const labels = out.querySelectorAll('g.trace-matrix-label');
  if (!labels.length) return;
  const bw = out.scale('x')?.bandwidth ?? 0;
  const bh = out.scale('y')?.bandwidth ?? 0;
  // "−0.00" is about 3.3 em wide in the page's sans-serif fonts.
  const size = [10, 9, 8].find((f) => 3.3 * f + 2 <= bw - 2 && f + 2 <= bh - 2);
  for (const g of labels) {
    if (size == null) g.remove();
    else g.setAttribute('font-size', String(size));
  }
}

/** Figures 4, 6 and 7 of Mytkowicz et al.: correlation against the instrumentation overhead. */
function overheadChart(w, kind, view, redraw) {
  const inner = kind === 'inner';
  const names = inner ? w.pairs.map((p) => p.label) : w.metrics;
  // Many series (36 pairs of 9 metrics) drown the chart: then show those
  // flagged at some level unless the reader asks for all.
  const flaggedSeries = names.map((_, i) => w.levels.some((l) => l[kind][i]?.flagged));
  const crowded = names.length > 10 && flaggedSeries.some(Boolean);
  view.traceAll ??= {};
  const showAll = !crowded || view.traceAll[kind] === true;
  const shown = names.map((_, i) => showAll || flaggedSeries[i]);
  const points = [];
  for (const l of w.levels) {
    if (l.overhead == null) continue;
    l[kind].forEach((c, i) => {
      if (c.correlation != null && shown[i]) points.push({ series: names[i], overhead: l.overhead * 100, r: c.correlation, level: l.level, flagged: c.flagged, change: c.change, spread: c.spread });
    });
  }
  // The baseline spread as a band around the baseline value of each series.
  const bands = names.map((n, i) => {
    if (!shown[i]) return null;
    const base = inner ? w.baseline.inner_mean[i] : 1;
    const s = inner ? w.baseline.inner_spread[i] : w.baseline.outer_spread[i];
    return base == null || s == null ? null : { series: n, lo: inner ? base - s : 1 - s, hi: inner ? base + s : 1 };
  }).filter(Boolean);
  const flagged = points.filter((p) => p.flagged);
  const title = (d) => `${d.series}, level ${d.level}\noverhead ${fmtNum(d.overhead, { digits: 3 })} %, ρ = ${fmtR(d.r)}\nchange ${fmtChange(d.change)}, baseline spread ${fmtR(d.spread)}${d.flagged ? ' — FLAGGED' : ''}`;
  const xs = points.map((p) => p.overhead);
  const fig = chartFigure({
    testid: `trace-${kind}-overhead`,
    caption: inner
      ? 'Inner correlation of each metric pair against the wall-time overhead of its level (Mytkowicz et al.’s Figures 4 and 6). Red rings: changed beyond the baseline spread; shaded: baseline mean ± spread.'
      : 'Outer correlation of each metric with itself after alignment to the first baseline run, against overhead (Mytkowicz et al.’s Figure 7). Red rings: dropped below 1 by more than any baseline run; shaded: 1 − spread to 1.',
    summary: `${shown.filter(Boolean).length} of ${names.length} ${inner ? 'pairs' : 'metrics'} over ${w.levels.length} levels; overhead from ${fmtNum(Math.min(...xs), { digits: 3 })} % to ${fmtNum(Math.max(...xs), { digits: 3 })} %; ${flagged.length} flagged points` +
      (flagged.length ? `: ${flagged.map((p) => `${p.series} at level ${p.level} (ρ ${fmtR(p.r)})`).join('; ')}.` : '.'),
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: 320,
      marginBottom: 40,
      x: { label: 'wall-time overhead (%) →', nice: true },
      y: { label: inner ? '↑ inner Spearman ρ' : '↑ outer Spearman ρ', domain: inner ? [-1, 1] : [Math.min(0, ...points.map((p) => p.r)), 1], grid: true },
      // The legend lists the series drawn (a constant metric has no point).
      color: { domain: names.filter((n, i) => shown[i] && points.some((p) => p.series === n)), range: CATEGORICAL, legend: true },
      marks: [
        Plot.areaY(bands.flatMap((b) => [{ ...b, overhead: Math.min(0, ...xs) }, { ...b, overhead: Math.max(0, ...xs) }]),
          { x: 'overhead', y1: 'lo', y2: 'hi', fill: 'series', fillOpacity: 0.1, z: 'series' }),
        Plot.ruleY(inner ? [0] : [1], { stroke: 'var(--line-strong)' }),
        Plot.line(points, { x: 'overhead', y: 'r', stroke: 'series', sort: 'overhead', strokeWidth: 1.8 }),
        Plot.dot(points, { x: 'overhead', y: 'r', fill: 'series', r: 3.5, title, className: 'trace-point' }),
        Plot.dot(flagged, { x: 'overhead', y: 'r', stroke: 'var(--bad)', r: 7, strokeWidth: 2, title }),
      ],
    }),
  });
  fig.dataset.points = String(points.length);
  fig.dataset.flagged = String(flagged.length);
  fig.dataset.shown = JSON.stringify(shown.flatMap((v, i) => (v ? [i] : [])));
  if (!crowded) return fig;
  const toggle = h('label', { class: 'select' },
    h('input', {
      type: 'checkbox', 'data-testid': `trace-${kind}-all`, checked: showAll,
      onchange: (e) => { view.traceAll[kind] = e.target.checked; redraw(); },
    }),
    h('span', {}, `Show all ${names.length} ${inner ? 'pairs' : 'metrics'} (else the ${flaggedSeries.filter(Boolean).length} flagged at some level)`));
  return h('div', { class: 'trace-overhead' }, toggle, fig);
}

function changeTable(w, kind) {
  const inner = kind === 'inner';
  const names = inner ? w.pairs.map((p) => p.label) : w.metrics;
  const rows = [];
  for (const l of w.levels) {
    if (l.level === 0) continue;
    l[kind].forEach((c, i) => rows.push(h('tr', {
      'data-testid': `trace-${kind}-row`, class: c.flagged ? 'flagged' : null, dataset: { level: l.level, index: i },
    },
    h('th', { scope: 'row' }, levelName(l)),
    h('td', {}, h('code', {}, names[i])),
    numCell('baseline', inner ? w.baseline.inner_mean[i] : w.baseline.outer_mean[i], fmtR(inner ? w.baseline.inner_mean[i] : w.baseline.outer_mean[i])),
    numCell('correlation', c.correlation, fmtR(c.correlation)),
    numCell('change', c.change, fmtChange(c.change)),
    numCell('spread', c.spread, fmtR(c.spread)),
    h('td', { dataset: { stat: 'flagged', value: String(c.flagged) } }, verdict(c, inner)))));
  }
  const wrap = table({
    testid: `trace-${kind}-table`,
    caption: inner
      ? 'Inner correlation per level and pair: the mean over the level’s runs, its change from the baseline mean, and the baseline spread (range over baseline runs) it must exceed.'
      : 'Outer correlation per level and metric (mean over the level’s runs; baseline column: other baseline runs aligned to the first), its change from 1, and the spread (largest baseline drop below 1) it must exceed.',
    columns: ['Level', inner ? 'Pair' : 'Metric', { label: inner ? 'Baseline ρ' : 'Baseline outer ρ', class: 'num' }, { label: 'ρ', class: 'num' },
      { label: inner ? 'Change' : 'Change from 1', class: 'num' }, { label: 'Baseline spread', class: 'num' }, 'Verdict'],
    rows,
  });
  wrap.classList.add('tall');
  return wrap;
}

/** The verdict on one correlation: only a defined change can be within the spread. */
function verdict(c, inner) {
  if (c.flagged) return h('strong', { class: 'bad' }, 'flagged');
  if (c.correlation == null) return h('span', { class: 'muted' }, inner ? 'undefined (a constant metric)' : 'undefined (constant metric or no alignment)');
  if (c.change == null) return h('span', { class: 'muted' }, 'undefined at the baseline');
  if (c.spread == null) return h('span', { class: 'muted' }, 'no baseline spread');
  return 'within spread';
}

/** Figure 5 of Mytkowicz et al. (the two signals side by side) and the warping path. */
function alignmentBlock(t, w, view, redraw) {
  if (!w.examples.length) {
    return h('p', { class: 'muted', 'data-testid': 'trace-no-alignment' }, 'No instrumented run could be aligned to the baseline (see the runs table for the reason).');
  }
  if (!w.examples.some((e) => e.level === view.traceLevel)) view.traceLevel = w.examples[w.examples.length - 1].level;
  if (!w.metrics.includes(view.traceMetric)) {
    // Default to the metric whose outer correlation dropped most at that level.
    const l = w.levels.find((x) => x.level === view.traceLevel);
    let best = 0;
    l?.outer.forEach((c, i) => { if ((c.correlation ?? 2) < (l.outer[best].correlation ?? 2)) best = i; });
    view.traceMetric = w.metrics[best];
  }
  const ex = w.examples.find((e) => e.level === view.traceLevel);
  const mi = w.metrics.indexOf(view.traceMetric);
  const run = w.runs.find((r) => r.level === ex.level && r.repetition === ex.repetition);
  const levelSel = h('select', { 'data-testid': 'trace-example-level', onchange: () => { view.traceLevel = Number(levelSel.value); redraw(); } },
    w.examples.map((e) => h('option', { value: String(e.level), selected: e.level === ex.level }, `level ${e.level} (run ${e.repetition})`)));
  const metricSel = h('select', { 'data-testid': 'trace-example-metric', onchange: () => { view.traceMetric = metricSel.value; redraw(); } },
    w.metrics.map((m) => h('option', { value: m, selected: m === view.traceMetric }, m)));
  return h('div', { class: 'trace-alignment' },
    h('h4', {}, 'Signals and alignment'),
    h('div', { class: 'controls' },
      h('label', { class: 'select' }, h('span', {}, 'Instrumented run'), levelSel),
      h('label', { class: 'select' }, h('span', {}, 'Metric'), metricSel)),
    h('p', { class: 'muted' }, `Baseline run ${w.reference.repetition} against level ${ex.level} run ${ex.repetition}: DTW distance `,
      h('span', { 'data-testid': 'trace-dtw-distance', dataset: { value: run?.dtw_distance ?? '' } }, fmtNum(run?.dtw_distance)),
      run?.dtw_normalized_distance != null ? [' (normalized ', h('span', { 'data-testid': 'trace-dtw-normalized', dataset: { value: run.dtw_normalized_distance } }, fmtNum(run.dtw_normalized_distance)), ')'] : ' (symmetric1 is not normalizable)',
      `, path of ${fmtCount(ex.index1.length)} steps; outer ρ of ${view.traceMetric} in this run `,
      h('span', { 'data-testid': 'trace-example-outer', dataset: { value: run?.outer?.[mi] ?? '' } }, fmtR(run?.outer?.[mi])), '.'),
    signals(t, w, ex, mi),
    pathChart(w, ex));
}

/**
 * The y axis of a metric in a scaled unit: a time in s, ms, µs or ns; other
 * units in thousands, millions or billions, so that ticks keep few digits.
 */
function valueAxis(unit, values) {
  const max = Math.max(0, ...values.map(Math.abs).filter(Number.isFinite));
  if (unit === 'ns') {
    const [scale, name] = timeUnit(max);
    return { scale, label: name };
  }
  const k = Math.min(3, Math.max(0, Math.floor(Math.log10(max || 1) / 3)));
  const scale = 10 ** (3 * k);
  return { scale, label: ['', 'thousand ', 'million ', 'billion '][k] + (unit || 'units') };
}

function signals(t, w, ex, mi) {
  const base = w.reference_series[mi];
  const inst = ex.series[mi];
  const name = w.metrics[mi];
  const axis = valueAxis(t.metrics.find((m) => m.name === name)?.unit, [...base, ...inst]);
  const raw = [
    ...base.map((v, i) => ({ panel: 'raw (by record)', t: i, v, run: 'baseline' })),
    ...inst.map((v, i) => ({ panel: 'raw (by record)', t: i, v, run: `level ${ex.level}` })),
  ];
  const aligned = [];
  for (let k = 0; k < ex.index1.length; k++) {
    aligned.push({ panel: 'aligned (by path step)', t: k, v: base[ex.index1[k]], run: 'baseline' });
    aligned.push({ panel: 'aligned (by path step)', t: k, v: inst[ex.index2[k]], run: `level ${ex.level}` });
  }
  const data = [...raw, ...aligned];
  // A metric constant in both runs (no page faults at all) gets an axis from
  // 0 to twice its value (0 to 1, ticked at both, for 0), not a domain of
  // one point with one tick.
  const vs = data.map((d) => d.v).filter(Number.isFinite);
  const flat = vs.length > 0 && vs.every((v) => v === vs[0]);
  const yDomain = flat ? (vs[0] === 0 ? [0, 1] : [Math.min(0, 2 * vs[0]), Math.max(0, 2 * vs[0])]) : undefined;
  const fig = chartFigure({
    testid: 'trace-signals',
    caption: `${name}: the baseline and the level-${ex.level} signal side by side (Mytkowicz et al.’s Figure 5), as recorded and after the warping path aligns them.`,
    summary: `${name}: baseline ${base.length} records, level ${ex.level} ${inst.length} records, aligned over ${ex.index1.length} path steps.`,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: 300,
      marginLeft: 64,
      fx: { domain: ['raw (by record)', 'aligned (by path step)'], label: null },
      x: { label: 'record / path step →' },
      y: { label: `↑ ${name} per interval (${axis.label})`, grid: true, domain: yDomain, ticks: flat && vs[0] === 0 ? [0, 1] : undefined, tickFormat: (v) => fmtNum(v / axis.scale, { digits: 6, exact: true }) },
      color: { domain: ['baseline', `level ${ex.level}`], range: SERIES.slice(0, 2), legend: true },
      marks: [Plot.line(data, { fx: 'panel', x: 't', y: 'v', stroke: 'run', z: 'run', strokeWidth: 1.4 })],
    }),
  });
  fig.dataset.points = String(data.length);
  return fig;
}

function pathChart(w, ex) {
  const n = w.reference_series[0]?.length ?? 0;
  const m = ex.series[0]?.length ?? 0;
  const path = ex.index1.map((i, k) => ({ i, j: ex.index2[k] }));
  const fig = chartFigure({
    testid: 'trace-path',
    caption: `The warping path: which record of the level-${ex.level} run (across) each baseline record (up) is matched with. The diagonal would be a perfect lockstep.`,
    summary: `Warping path of ${path.length} steps from (0, 0) to (${n - 1}, ${m - 1}).`,
    draw: (width) => {
      const side = Math.min(width, 420);
      return Plot.plot({
        ...baseOptions(side),
        height: side,
        marginBottom: 40,
        x: { label: `level ${ex.level} record →`, domain: [0, Math.max(m - 1, 1)] },
        y: { label: '↑ baseline record', domain: [0, Math.max(n - 1, 1)] },
        marks: [
          Plot.line([{ i: 0, j: 0 }, { i: n - 1, j: m - 1 }], { x: 'j', y: 'i', stroke: 'var(--line-strong)', strokeDasharray: '4 3' }),
          Plot.line(path, { x: 'j', y: 'i', stroke: 'var(--accent)', strokeWidth: 1.6, className: 'trace-path-line' }),
        ],
      });
    },
  });
  fig.dataset.steps = String(path.length);
  return fig;
}

function runsTable(w) {
  const rows = w.runs.map((r) => h('tr', { 'data-testid': 'trace-run-row', dataset: { level: r.level, repetition: r.repetition } },
    h('th', { scope: 'row' }, `level ${r.level} · run ${r.repetition}`),
    numCell('records', r.records, fmtCount(r.records)),
    numCell('wall-ns', r.wall_ns, fmtNs(r.wall_ns)),
    numCell('instrumentation-count', r.instrumentation_count, fmtCount(r.instrumentation_count)),
    numCell('dtw-distance', r.dtw_distance, fmtNum(r.dtw_distance)),
    numCell('dtw-normalized', r.dtw_normalized_distance, fmtNum(r.dtw_normalized_distance)),
    h('td', { 'data-testid': 'trace-run-notes' }, [r.alignment_error ?? (r.outer ? null : 'the reference'), ...r.undefined].filter(Boolean).join('; '))));
  return h('details', { class: 'trace-runs' },
    h('summary', {}, `Every run (${fmtCount(w.runs.length)})`),
    table({
      testid: 'trace-runs',
      caption: 'Each run: its length, wall time, instrumentation increments, and its DTW distance to the reference baseline run.',
      columns: ['Run', { label: 'Records', class: 'num' }, { label: 'Wall time', class: 'num' }, { label: 'Counter increments', class: 'num' },
        { label: 'DTW distance', class: 'num' }, { label: 'Normalized', class: 'num' }, 'Notes'],
      rows,
    }));
}

