// The Samples cell: per-series summary, box plots drawn from the report's
// quartiles, whiskers and outliers (nothing recomputed here), the outliers
// by position in the file, and the mean of each execution.

import * as Plot from '@observablehq/plot';
import { h, table, numCell, showMore, later } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtSeriesValue, fmtCount, fmtPercent, timeUnit } from '../../ui/units.js';
import { cellSection, warningsList } from '../../ui/cell.js';
import { plotKey, glyph } from '../../ui/key.js';
import { quantileName } from '../../ui/quantiles.js';
import { executionExplain, executionStatsBlock } from './executions.js';
import { clusteringSection } from '../ops/clustering.js';

const STATS = [
  ['min', 'Min'], ['q1', 'Q1'], ['median', 'Median'], ['mean', 'Mean'],
  ['q3', 'Q3'], ['max', 'Max'], ['sd', 'SD'],
];

export function build(report, key, ctx) {
  const s = report.samples;
  if (report.growing?.samples) return growingCell(report, key, ctx);
  const qt = s.series[0]?.summary.quantile_type ?? report.options?.quantile_type;
  return cellSection(ctx, report, key,
  warningsList(report.warnings),
  sourceBlock(s),
  summaryTable(s, qt, quantileName),
  restOfCell(report, key, ctx));
}

function sourceBlock(s) {
  return s.source || s.description
    ? h('div', { class: 'explain' },
      s.source ? h('p', {}, h('strong', {}, 'Source: '), s.source) : null,
      s.description ? h('p', {}, s.description) : null)
    : null;
}

/** Rows of the summary table built at once; the rest behind "Show all". */
const FIRST_ROWS = 50;

/**
 * The cell of a big file whose series come in batches (worker.js
 * analyzeSamples; notebook.js appends each part): the summary table's rows
 * as they are analysed, and a line saying how far it has come. The cell
 * is never rebuilt: `grow(part, growing)` appends a batch's rows,
 * `finish(report)` (the final report, whole) the rows not yet built and the
 * parts that need every series (box plots, outliers, executions, execution
 * statistics, the clustering).
 */
function growingCell(report, key, ctx) {
  const series = [...report.samples.series];
  const qt = series[0]?.summary.quantile_type ?? report.options?.quantile_type;
  const status = h('p', { class: 'muted', 'data-testid': 'samples-growing' });
  const setStatus = (g) => {
    status.dataset.done = String(g.done);
    status.dataset.total = String(g.total);
    status.textContent = `${fmtCount(g.done)} of ${fmtCount(g.total)} series analysed; the box plots, outliers, executions and clustering follow when all are.`;
  };
  setStatus(report.growing.samples);
  const wrap = table({ testid: 'samples-summary', columns: summaryColumns(), caption: summaryCaption(qt, quantileName) });
  const tbody = wrap.querySelector('tbody');
  const fill = () => {
    while (tbody.childElementCount < Math.min(series.length, FIRST_ROWS)) tbody.append(summaryRow(series[tbody.childElementCount]));
  };
  fill();
  const cell = cellSection(ctx, report, key, warningsList(report.warnings), sourceBlock(report.samples), status, wrap);
  cell.dataset.growing = 'true';
  cell.dataset.parts = '1';
  cell.grow = (part, growing) => {
    cell.dataset.parts = String(Number(cell.dataset.parts) + 1);
    series.push(...part.series);
    fill();
    setStatus(growing);
  };
  // `final`: the whole report, its cell without the rows the parts brought
  // (worker.js analyzeSamples), or with them all.
  cell.finish = (final) => {
    delete cell.grow;
    delete cell.finish;
    if (final.samples.series.length) series.splice(0, series.length, ...final.samples.series);
    const all = series;
    final = { ...final, samples: { ...final.samples, series: all } };
    fill();
    status.remove();
    const more = showMore(tbody, all.length, (i) => summaryRow(all[i]), { first: FIRST_ROWS, built: tbody.childElementCount, noun: 'series' });
    if (more) wrap.after(more);
    cell.append(...[restOfCell(final, key, ctx)].flat().filter(Boolean));
    delete cell.dataset.growing;
  };
  return cell;
}

/** The cell below its summary table, built in later tasks. */
function restOfCell(report, key, ctx) {
  const s = report.samples;
  return [
  // The rest in later tasks (dom.js later): a file of hundreds of series
  // made this one long task.
  later(() => toolFigures(s)),
  later(() => metadataTable(s)),
  later(() => [boxKey(), lazyList('series-charts', s.series, boxPlot, 24, 'box plots')]),
  later(() => outliersTable(s)),
  later(() => executionsTable(s)),
  later(() => executionStatsSection(s)),
  s.clustering && ctx ? later(() => seriesClustering(s.clustering, report, key, ctx)) : null];
}

/** The series clustered by mean cost, with the ops cell's component. */
function seriesClustering(c, report, key, ctx) {
  const f = { ...c, form: 'series', noun: 'series' };
  return h('div', { 'data-testid': 'samples-clustering' },
    clusteringSection(f, report, key, ctx),
    c.left_out.length
      ? h('p', { class: 'muted', 'data-testid': 'clustering-left-out' },
        'Left out (not a time unit): ', c.left_out.map(([n, u]) => `${n} (${u})`).join(', '), '.')
      : null);
}

function summaryColumns() {
  return [
    'Series',
    { label: 'n', class: 'num', title: 'Measurements, all executions pooled' },
    { label: 'Executions', class: 'num', title: 'Process runs (groups of measurements)' },
    ...STATS.map(([, label]) => ({ label, class: 'num' })),
    { label: 'CV', class: 'num', title: 'Coefficient of variation: SD / mean' },
  ];
}

function summaryRow(x) {
  return h('tr', { 'data-testid': 'series-row', dataset: { series: x.name, unit: x.unit } },
    h('th', { scope: 'row' }, h('code', {}, x.name), h('span', { class: 'sub' }, `unit: ${x.unit}`)),
    numCell('n', x.summary.n, fmtCount(x.summary.n)),
    numCell('executions', x.executions, fmtCount(x.executions)),
    STATS.map(([stat]) => numCell(stat, x.summary[stat], fmtSeriesValue(x.summary[stat], x), { unit: x.unit })),
    numCell('cv', x.summary.cv, fmtPercent(x.summary.cv)));
}

function summaryCaption(qt, quantileName) {
  return `All measurements of each series pooled. Quartiles: Hyndman–Fan type ${qt}${quantileName ? ' (' + quantileName(qt) + ')' : ''}; SD with n − 1.`;
}

function summaryTable(s, qt, quantileName) {
  return table({
    testid: 'samples-summary', columns: summaryColumns(),
    lazy: { count: s.series.length, build: (i) => summaryRow(s.series[i]), first: FIRST_ROWS, noun: 'series' },
    caption: summaryCaption(qt, quantileName),
  });
}

/**
 * Imported files: the tool's own statistics as its file records them
 * (docs/importers.md), beside tickbook's; shown as written, not recomputed.
 */
function toolFigures(s) {
  const withStats = s.series.filter((x) => x.tool_statistics && typeof x.tool_statistics === 'object');
  if (!withStats.length) return null;
  const num = (v) => (typeof v === 'number' ? v : null);
  const shown = (v) => {
    if (num(v) != null) return v;
    if (Array.isArray(v)) return v;
    if (v && typeof v === 'object') return ['point_estimate', 'estimate', 'value'].map((k) => num(v[k])).find((n) => n != null) ?? null;
    return typeof v === 'string' ? v : null;
  };
  const text = (v) => (Array.isArray(v) ? `[${v.map(text).join(', ')}]` : typeof v === 'number' ? String(Number(v.toPrecision(6))) : String(v));
  const rows = withStats.map((x) => h('tr', { 'data-testid': 'tool-figures-row', dataset: { series: x.name } },
    h('th', { scope: 'row' }, h('code', {}, x.name)),
    h('td', { class: 'wrap' }, Object.entries(x.tool_statistics)
      .map(([k, v]) => [k, shown(v)])
      .filter(([, v]) => v != null)
      .map(([k, v], i) => [i ? ', ' : '', h('span', { dataset: { stat: k, value: Array.isArray(v) ? v.join(' ') : String(v) } }, `${k} ${text(v)}`)]))));
  return table({
    testid: 'tool-figures',
    caption: 'The tool\'s own figures, as its file records them (in the tool\'s unit). tickbook\'s mean, median and SD above use the same measurements; see docs/importers.md for where the intervals differ on purpose.',
    columns: ['Series', 'Reported by the tool'],
    rows,
  });
}

/** Longest list shown whole; a longer one shows its first items and its length (as the terminal). */
const LIST_SHOWN = 12;

/** `[key, text]` pairs of a metadata value: nested keys joined by dots, lists as `[a, b, …]`. */
function flatMetadata(v, key = '', out = []) {
  const scalar = (x) => (typeof x === 'string' ? x : JSON.stringify(x));
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) flatMetadata(x, key ? `${key}.${k}` : k, out);
  } else if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
    const items = v.slice(0, LIST_SHOWN).map(scalar);
    if (v.length > LIST_SHOWN) items.push(`… (${v.length} in all)`);
    out.push([key, `[${items.join(', ')}]`]);
  } else {
    out.push([key, scalar(v)]);
  }
  return out;
}

/**
 * What the file records about each series beside its measurements: an
 * imported tool's parameters, exit codes, counters, iterations, throughput,
 * metadata (docs/importers.md); a samples file's own metadata. As written.
 */
function metadataTable(s) {
  const withMeta = s.series.filter((x) => x.metadata != null);
  if (!withMeta.length) return null;
  const row = (x) => h('tr', { 'data-testid': 'series-metadata-row', dataset: { series: x.name } },
    h('th', { scope: 'row' }, h('code', {}, x.name)),
    h('td', { class: 'wrap' }, flatMetadata(x.metadata)
      .map(([k, v], i) => [i ? '; ' : '', h('span', { dataset: { key: k, value: v } }, k ? `${k} ${v}` : v)])));
  return table({
    testid: 'series-metadata',
    caption: 'What the file records about each series beside its measurements (for an imported file: what the tool wrote, e.g. parameters, exit codes, counters, iterations), as written.',
    columns: ['Series', 'Metadata'],
    lazy: { count: withMeta.length, build: (i) => row(withMeta[i]), first: 50, noun: 'series' },
  });
}

/** Other units from 10 000 up in thousands, millions or billions, named in the axis label: "23,400,000" ticks overran each other. */
function plainUnit(v, unit) {
  for (const [from, scale, name] of [[1e9, 1e9, 'billion'], [1e6, 1e6, 'million'], [1e4, 1e3, 'thousand']]) if (Math.abs(v) >= from) return [scale, `${name} ${unit}`];
  return [1, unit];
}

/**
 * An x domain around the value when every measurement is the same (one run
 * of perf stat, Go's 0 B/op): Plot's domain would have no width, every mark
 * would sit mid-axis with a single tick printed at full precision.
 */
function constantDomain(x, v) {
  if (x.summary.min !== x.summary.max) return {};
  const c = v(x.summary.min);
  const d = Math.abs(c) * 0.1 || 1;
  // Measurements are ≥ 0: no negative axis under a constant 0.
  return { domain: [c >= 0 ? Math.max(0, c - d) : c - d, c + d] };
}

function boxPlot(x) {
  // Plot in the series' own unit scaled to a readable time unit (display only).
  const [scale, unitLabel] = x.unit_ns != null ? timeUnit(x.summary.median * x.unit_ns) : plainUnit(x.summary.median, x.unit);
  const k = x.unit_ns != null ? x.unit_ns / scale : 1 / scale;
  const v = (n) => n * k;
  const sm = x.summary;
  const f = x.fences;
  const all = `all ${x.executions > 1 ? '(pooled)' : ''}`.trim();
  const rows = [all, ...x.per_execution.map((_, i) => `execution ${i}`)];
  const box = [{ row: all }];
  const execs = x.per_execution.map((e, i) => ({ row: `execution ${i}`, mean: v(e.mean), median: v(e.median), raw: e }));
  const outliers = x.outliers.map((o) => ({ ...o, x: v(o.value), row: all }));
  const fmt = (n) => fmtSeriesValue(n, x);
  const summary = `Box plot of ${x.name} (${fmtCount(sm.n)} measurements): median ${fmt(sm.median)}, ` +
    `quartiles ${fmt(sm.q1)} to ${fmt(sm.q3)}, whiskers ${fmt(f.whisker_low)} to ${fmt(f.whisker_high)}, ` +
    `${x.outliers.length} outlier${x.outliers.length === 1 ? '' : 's'}` +
    (x.outliers.length ? ` (${x.outliers.map((o) => fmt(o.value)).join(', ')})` : '') +
    `. Below it, the mean (dot) and median (tick) of each execution: ` +
    x.per_execution.map((e, i) => `execution ${i} mean ${fmt(e.mean)}`).join('; ') + '.';
  return chartFigure({
    testid: 'box-plot',
    caption: `${x.name}: distribution and per-execution means.`,
    summary,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: 56 + rows.length * 26,
      marginLeft: 110,
      marginBottom: 36,
      x: { label: `${x.name} (${unitLabel}) →`, grid: true, nice: true, ...constantDomain(x, v) },
      y: { domain: rows, label: null, padding: 0.25 },
      symbol: { domain: ['outlier', 'extreme outlier'], range: ['circle', 'times'] },
      marks: [
        // Whiskers, box (Q1–Q3) and median, all from the report.
        Plot.ruleY(box, { y: 'row', x1: v(f.whisker_low), x2: v(f.whisker_high), stroke: 'currentColor', strokeOpacity: 0.7 }),
        Plot.tickX(box, { y: 'row', x: v(f.whisker_low), strokeOpacity: 0.7 }),
        Plot.tickX(box, { y: 'row', x: v(f.whisker_high), strokeOpacity: 0.7 }),
        Plot.barX(box, { y: 'row', x1: v(sm.q1), x2: v(sm.q3), fill: 'var(--accent)', fillOpacity: 0.25, stroke: 'var(--accent)' }),
        Plot.tickX(box, { y: 'row', x: v(sm.median), stroke: 'var(--accent)', strokeWidth: 3 }),
        Plot.dot(box, { y: 'row', x: v(sm.mean), symbol: 'diamond2', r: 4, stroke: 'currentColor', title: () => `mean ${fmt(sm.mean)}` }),
        Plot.dot(outliers, {
          y: 'row', x: 'x', symbol: (o) => (o.extreme ? 'extreme outlier' : 'outlier'), stroke: 'var(--bad)', r: 4,
          title: (o) => `${fmt(o.value)} at executions[${o.execution}][${o.index}]${o.extreme ? ' (beyond 3 IQR)' : ''}`, tip: true,
        }),
        // Per-execution mean (dot) and median (tick).
        Plot.tickX(execs, { y: 'row', x: 'median', stroke: 'var(--series-2)', strokeWidth: 2 }),
        Plot.dot(execs, { y: 'row', x: 'mean', fill: 'var(--series-2)', r: 4,
          title: (e) => `${e.row}: mean ${fmt(e.raw.mean)}, median ${fmt(e.raw.median)}, n = ${e.raw.n}`, tip: true }),
      ],
    }),
  });
}

function executionStatsSection(s) {
  return h('div', { class: 'execution-stats', 'data-testid': 'execution-stats' },
    h('h3', {}, 'Execution statistics'),
    executionExplain(),
    lazyList('execution-stats-list', s.series, (x) => executionStatsBlock(x.name, x.execution_stats, (v) => fmtSeriesValue(v, x), x.unit), 24, 'series'));
}

function outliersTable(s) {
  const all = s.series.flatMap((x) => x.outliers.map((o) => [x, o]));
  const row = ([x, o]) => h('tr', {
    'data-testid': 'outlier-row', dataset: { series: x.name, execution: o.execution, index: o.index },
  },
  h('th', { scope: 'row' }, h('code', {}, x.name)),
  h('td', { class: 'num', dataset: { stat: 'execution', value: o.execution } }, String(o.execution)),
  h('td', { class: 'num', dataset: { stat: 'index', value: o.index } }, String(o.index)),
  numCell('value', o.value, fmtSeriesValue(o.value, x), { unit: x.unit }),
  h('td', { dataset: { stat: 'extreme', value: o.extreme } }, o.extreme ? h('span', { class: 'badge bad' }, 'extreme (> 3 IQR)') : 'outside 1.5 IQR'));
  return h('div', { class: 'outliers' },
    h('h3', {}, 'Outliers'),
    all.length
      ? table({
        testid: 'outliers-table',
        caption: 'Measurements outside the fences Q1 − 1.5 IQR and Q3 + 1.5 IQR; execution and index are 0-based positions in the file (executions[e][i]).',
        columns: ['Series', { label: 'Execution', class: 'num' }, { label: 'Index', class: 'num' }, { label: 'Value', class: 'num' }, 'How far'],
        lazy: { count: all.length, build: (i) => row(all[i]), first: 50, noun: 'outliers' },
      })
      : h('p', { class: 'muted', 'data-testid': 'no-outliers' }, 'None: every measurement lies within Q1 − 1.5 IQR and Q3 + 1.5 IQR.'));
}

function executionsTable(s) {
  const all = s.series.flatMap((x) => x.per_execution.map((e, i) => [x, e, i]));
  const row = ([x, e, i]) => h('tr', {
    'data-testid': 'execution-row', dataset: { series: x.name, execution: i },
  },
  h('th', { scope: 'row' }, h('code', {}, x.name)),
  h('td', { class: 'num', dataset: { stat: 'execution', value: i } }, String(i)),
  numCell('n', e.n, fmtCount(e.n)),
  numCell('mean', e.mean, fmtSeriesValue(e.mean, x), { unit: x.unit }),
  numCell('median', e.median, fmtSeriesValue(e.median, x), { unit: x.unit }),
  numCell('sd', e.sd, fmtSeriesValue(e.sd, x), { unit: x.unit }));
  return h('div', { class: 'executions' },
    h('h3', {}, 'Per execution'),
    h('p', { class: 'muted' }, 'Each execution is one process run. Means that differ between executions by more than their spread usually point at run-to-run effects (layout, frequency, placement) that more measurements in one run will not average away.'),
    table({
      testid: 'executions-table',
      columns: ['Series', { label: 'Execution', class: 'num' }, { label: 'n', class: 'num' }, { label: 'Mean', class: 'num' }, { label: 'Median', class: 'num' }, { label: 'SD', class: 'num' }],
      lazy: { count: all.length, build: (i) => row(all[i]), first: 50, noun: 'executions' },
    }));
}

/** A list of per-series blocks, the first `first` built now (dom.js showMore). */
function lazyList(className, series, build, first, noun) {
  const list = h('div', { class: className });
  return [list, showMore(list, series.length, (i) => build(series[i]), { first, noun, parts: 6 })];
}

/** What the box plots' marks mean (static; the same for every series). */
function boxKey() {
  return plotKey('Key to the box plots', [
    [glyph.box('var(--accent)'), 'box: Q1 to Q3'],
    [glyph.tick('var(--accent)'), 'median'],
    [glyph.diamond('currentColor'), 'mean'],
    [glyph.whiskers('currentColor'), 'whiskers: furthest measurements within 1.5 IQR of the box'],
    [glyph.ring('var(--bad)'), 'outlier (beyond 1.5 IQR)'],
    [glyph.cross('var(--bad)'), 'extreme outlier (beyond 3 IQR)'],
    [glyph.dot('var(--series-2)'), 'mean of one execution'],
    [glyph.tick('var(--series-2)', 2), 'median of one execution'],
  ]);
}
