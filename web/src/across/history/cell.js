// The History cell: which commit changed what, across per-commit result
// files (report::across::history, `tickbook history --json`). The order the
// files were put in and why; the changes of every series sorted by size
// (step or drift, where, the levels either side, the ratio with its CI, p,
// whether the machine rather than the code moved, regression or
// improvement), each opening the comparison of the two commits around it;
// the changes that moved most series at one commit named as a likely change
// of the machine; quiet series counted; and per changed series a chart
// (chart.js). Formatting only: every number is the report's.

import { h, later, showMore, svgEl } from '../../ui/dom.js';
import { plotKey, glyph } from '../../ui/key.js';
import { warningsList } from '../../ui/cell.js';
import { fmtCount, fmtFactor, fmtProb, fmtSignedPercent, scaleOf, ciDecimals } from '../../ui/units.js';
import { historyChart, commitsAround, fmtEstimate } from './chart.js';

// Rows and charts built at first; the rest behind Show all (dom.js showMore).
const FIRST_CHANGES = 30;
const FIRST_FILES = 12;
const FIRST_CHARTS = 4;

const ORDER_WORDS = {
  commit_date: 'by the commit date recorded in the files',
  run_date: 'by the date each file was collected (no commit dates recorded)',
  name: 'by file name (no dates recorded)',
  given: 'as given',
};

/** A ratio with its interval, to four significant digits and the digits the interval needs: 1.050× [1.040, 1.060]. */
function fmtRatioCi(r) {
  if (!r) return '\u2014';
  if (r.high >= 1e300) return [h('span', { class: 'value' }, fmtFactor(r.estimate, { digits: 4 })), h('span', { class: 'ci' }, ` [${fmtFactor(r.low, { digits: 4 })}, \u221e]`)];
  const d = ciDecimals(r.estimate, r.low, r.high);
  return [h('span', { class: 'value' }, `${r.estimate.toFixed(d)}\u00d7`), h('span', { class: 'ci' }, ` [${r.low.toFixed(d)}, ${r.high.toFixed(d)}]`)];
}

/** Two levels in the series' unit: "12.31 → 12.93 ms". */
function fmtLevels(c, series) {
  const [s, unit] = scaleOf(c.before.estimate, series);
  const d = Math.max(ciDecimals(c.before.estimate / s, c.before.low / s, c.before.high / s),
    ciDecimals(c.after.estimate / s, c.after.low / s, c.after.high / s));
  return `${(c.before.estimate / s).toFixed(d)} \u2192 ${(c.after.estimate / s).toFixed(d)}\u202f${unit}`;
}

/** A file by its position: its name and, muted, its commit's short id. */
function fileRef(files, i) {
  const f = files[i];
  if (!f) return `#${i}`;
  return [h('span', { class: 'file' }, f.name), f.commit ? h('span', { class: 'muted' }, ` (${f.commit.slice(0, 8)})`) : null];
}

function whereText(c, files) {
  if (c.kind === 'drift') {
    return [h('span', { class: 'kind' }, 'drift '), `${c.index}\u2013${c.end}: `, fileRef(files, c.index), ' \u2192 ', fileRef(files, c.end)];
  }
  return [h('span', { class: 'kind' }, 'step '), `at ${c.index}: `, fileRef(files, c.index)];
}

/** The verdict badges: regression or improvement, and the machine when it is the likely cause. */
function verdict(c, series) {
  const time = series.unit_ns != null;
  const up = c.ratio.estimate > 1;
  const word = up ? (time ? 'slower' : 'higher') : (time ? 'faster' : 'lower');
  // (No regression or improvement for a quantity where more is not worse: regression is null.)
  const [cls, text] = c.regression == null ? ['neutral', up ? 'higher' : 'lower'] : c.regression ? ['bad', 'regression'] : ['ok', 'improvement'];
  return [
    h('span', { class: ['badge', cls], 'data-testid': 'history-verdict', title: `${fmtSignedPercent(c.ratio.estimate - 1)}: ${word}` }, text),
    c.cause === 'machine'
      ? [' ', h('span', { class: 'badge warn', 'data-testid': 'history-machine', title: 'most series changed at this commit at once' }, 'likely the machine')]
      : null,
  ];
}

/**
 * Every change of every series, largest |log ratio| first (the report
 * lists the series so, but a series' later changes may be smaller than the
 * next series' first).
 */
function changesBySize(report) {
  const all = report.series.flatMap((series) => series.change_points.map((c, k) => ({ series, c, k })));
  const size = ({ c }) => Math.abs(Math.log(c.ratio.estimate));
  return all.sort((a, b) => size(b) - size(a));
}

function changeRow({ series, c, k }, files, open) {
  const [a, b] = commitsAround(c);
  const button = h('button', {
    type: 'button', class: 'button small', 'data-testid': 'history-open',
    'aria-label': `Compare ${files[a]?.name ?? a} with ${files[b]?.name ?? b} (${series.name})`,
    onclick: (e) => { e.stopPropagation(); open(c); },
  }, 'Compare');
  const r = c.ratio;
  return h('tr', {
    'data-testid': 'history-change', class: 'clickable',
    dataset: {
      series: series.name, change: k, kind: c.kind, index: c.index, end: c.end, file: c.file,
      ratio: r.estimate, lo: r.low, hi: r.high, p: c.p, cause: c.cause, regression: String(c.regression),
      before: c.before.estimate, after: c.after.estimate, from: a, to: b,
    },
    onclick: () => open(c),
  },
  h('th', { scope: 'row', class: 'wrap' }, series.name),
  h('td', { class: 'wrap', 'data-testid': 'history-where' }, whereText(c, files)),
  h('td', { class: 'num', 'data-testid': 'history-levels' }, fmtLevels(c, series)),
  h('td', { class: 'num', 'data-testid': 'history-ratio' }, fmtRatioCi(r)),
  h('td', { class: 'num', 'data-testid': 'history-p' }, fmtProb(c.p, 2)),
  h('td', {}, verdict(c, series)),
  h('td', {}, button));
}

function changesTable(report, open) {
  const rows = changesBySize(report);
  if (!rows.length) {
    return h('p', { class: 'muted', 'data-testid': 'history-no-change' },
      'No series changed: every difference between commits is within this machine\u2019s noise for it.');
  }
  const tbody = h('tbody', {});
  const more = showMore(tbody, rows.length, (i) => changeRow(rows[i], report.files, open), { first: FIRST_CHANGES, noun: 'changes' });
  return [h('div', { class: 'table-wrap' }, h('table', { class: 'data history-changes', 'data-testid': 'history-changes' },
    h('caption', {}, 'Changes, largest first: a step between two commits, or a drift over several; the levels either side, after / before with its CI, and p (docs/methods.md, \u201cHistory\u201d). A row or its button opens the comparison of the two commits around the change.'),
    h('thead', {}, h('tr', {}, ['Series', 'Where (position: file)', 'Level before \u2192 after', 'Ratio [CI]', 'p', 'Change', h('span', { class: 'sr-only' }, 'Compare the commits around it')]
      .map((t, i) => h('th', { scope: 'col', class: i >= 2 && i <= 4 ? 'num' : null }, t)))),
    tbody)), more];
}

function orderBlock(report) {
  const files = report.files;
  const tbody = h('tbody', {});
  const row = (i) => {
    const f = files[i];
    return h('tr', { 'data-testid': 'history-file', dataset: { index: i, name: f.name, commit: f.commit ?? '', date: f.date ?? '' } },
      h('td', { class: 'num' }, String(i)),
      h('td', { class: 'wrap' }, f.name),
      h('td', {}, f.commit ? h('code', { title: f.commit }, f.commit.slice(0, 12)) : '\u2014', f.dirty ? h('span', { class: 'muted' }, ' (dirty)') : null),
      h('td', {}, f.branch ?? '\u2014'),
      h('td', {}, f.date ?? '\u2014'));
  };
  const more = showMore(tbody, files.length, row, { first: FIRST_FILES, noun: 'files' });
  return h('details', { class: 'history-order', 'data-testid': 'history-order', dataset: { order: report.order, files: files.length } },
    h('summary', {}, `${fmtCount(files.length)} files, ordered ${ORDER_WORDS[report.order] ?? report.order}`),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data compact' },
      h('caption', { class: 'sr-only' }, 'The files in the order used'),
      h('thead', {}, h('tr', {}, ['Position', 'File', 'Commit', 'Branch', 'Date'].map((t) => h('th', { scope: 'col' }, t)))),
      tbody)),
    more);
}

function machineNotes(report) {
  return (report.machine_changes ?? []).map((m) => h('p', {
    class: 'warnings', role: 'note', 'data-testid': 'history-machine-change',
    dataset: { index: m.index, file: m.file, series: m.series, of: m.of },
  },
  h('strong', {}, 'Likely a change of the machine: '),
  `${fmtCount(m.series)} of ${fmtCount(m.of)} series changed at once at ${m.index} (${m.file}). A change of the code seldom moves most benchmarks together; compare the two commits\u2019 machines before blaming the code.`));
}

/** What the chart's pointer is over: the commit, its file, and its estimate with its interval. */
function pointText(series, files, i) {
  const f = files[i] ?? {};
  const e = series.estimates[i];
  const [s, unit] = scaleOf(e?.estimate ?? series.estimates.find(Boolean)?.estimate ?? 1, series);
  return [`${i}: ${f.name ?? ''}`, f.commit ? ` (${f.commit.slice(0, 12)})` : '', f.date ? `, ${f.date}` : '', ': ',
    e ? fmtEstimate(e, s, unit) : 'no estimate (the file lacks the series)',
    (series.disturbed ?? []).includes(i) ? ', disturbed (left out of the fit)' : ''].join('');
}

function seriesBlock(series, files, open) {
  const n = series.estimates.filter(Boolean).length;
  const dist = series.disturbed ?? [];
  const readout = h('p', { class: 'muted history-point', 'data-testid': 'history-point' }, 'Point at a commit in the chart for its file and estimate.');
  const point = (i) => {
    readout.dataset.index = String(i);
    readout.textContent = pointText(series, files, i);
  };
  return h('div', { class: 'history-series', 'data-testid': 'history-series', dataset: { series: series.name, changes: series.change_points.length } },
    h('h3', {}, series.name, h('span', { class: 'muted' }, ` \u00b7 ${fmtCount(n)} commits`)),
    historyChart(series, files, open, point),
    readout,
    dist.length
      ? h('p', { class: 'muted', 'data-testid': 'history-disturbed', dataset: { commits: dist.join(',') } },
        `Disturbed commits (a short excursion that came back; left out of the fit, not a change): ${dist.join(', ')}.`)
      : null);
}

/** The key to the charts' marks (static). */
function chartKey() {
  const slope = [svgEl('line', { x1: 1, x2: 21, y1: 11, y2: 3, stroke: 'var(--accent)', 'stroke-width': 2.5 })];
  return plotKey('Key to the history charts', [
    [[...glyph.vbar('currentColor'), ...glyph.dot('currentColor')], 'a commit\u2019s estimate and interval'],
    [glyph.cross('var(--warn)'), 'disturbed commit (left out of the fit)'],
    [glyph.line('var(--accent)'), 'fitted level'],
    [slope, 'drift'],
    [glyph.tick('var(--bad)', 2), 'step: a regression (red), an improvement (green), likely the machine (amber)'],
    [glyph.box('var(--bad)'), 'a drift\u2019s commits'],
  ]);
}

/**
 * The cell for a HistoryReport. `open(series, change)`: show the comparison
 * of the two commits around `change` (index.js).
 */
export function historyCell(report, open) {
  const changed = report.series.filter((s) => s.change_points.length);
  const changes = changed.reduce((n, s) => n + s.change_points.length, 0);
  const openOf = (series) => (c) => open(series, c);
  const byChange = new Map(report.series.flatMap((s) => s.change_points.map((c) => [c, s])));
  const section = h('section', {
    class: 'cell history', id: 'cell-history', 'data-testid': 'history-cell', 'aria-labelledby': 'history-title',
    dataset: { files: report.files.length, order: report.order },
  },
  h('header', { class: 'cell-head' },
    h('h2', { id: 'history-title' }, h('span', { class: 'kind' }, 'History'), ' ',
      h('span', { class: 'file' }, `${fmtCount(report.files.length)} files, one per commit`)),
    h('p', { class: 'lede' },
      'Which commit changed what: each series\u2019 estimate commit by commit, split into stretches of one level where a shift is larger than this benchmark\u2019s noise on this machine (within a commit\u2019s executions and between the commits of an unchanged stretch). ',
      'A change is a step between two commits or a drift over several; a one-commit excursion that comes back is a disturbed commit, not a change; a shift of most series at one commit is likely the machine. Method: docs/methods.md, \u201cHistory\u201d.')),
  orderBlock(report),
  h('p', {
    class: 'summary-line', 'data-testid': 'history-summary',
    dataset: { series: report.series.length, changed: changed.length, changes, quiet: report.quiet },
  },
  h('strong', {}, fmtCount(changed.length)), ` of ${fmtCount(report.series.length)} series in three files or more changed (${fmtCount(changes)} change${changes === 1 ? '' : 's'}); `,
  h('strong', {}, fmtCount(report.quiet)), ` quiet series (no change) are counted, not listed.`),
  machineNotes(report),
  report.shared ? h('p', { class: 'muted', 'data-testid': 'history-shared', dataset: { commits: report.shared.length } },
    'The run-to-run wobble the time series shared commit by commit (the machine\u2019s state at each run) was taken out before the levels were fitted, so a commit\u2019s estimate may sit off its level by that commit\u2019s shared factor (docs/methods.md).') : null,
  warningsList(report.warnings),
  changesTable(report, (c) => open(byChange.get(c), c)));
  if (changed.length) {
    const list = h('div', { class: 'history-charts' });
    section.append(later(() => [
      h('h3', {}, 'Changed series'),
      chartKey(),
      list,
      showMore(list, changed.length, (i) => seriesBlock(changed[i], report.files, openOf(changed[i])), { first: FIRST_CHARTS, noun: 'charts' }),
    ]));
  }
  return section;
}

/** The placeholder while the history is computed. */
export function historyPending(n) {
  return h('section', { class: 'cell history', id: 'cell-history', 'data-testid': 'history-cell', dataset: { pending: 'true' } },
    h('h2', {}, h('span', { class: 'kind' }, 'History'), ' ', h('span', { class: 'file' }, `${fmtCount(n)} files`)),
    h('p', { class: 'muted', role: 'status' }, `Finding the changes across ${fmtCount(n)} files in the background\u2026`));
}

export function historyFailed(message) {
  return h('section', { class: 'cell history', id: 'cell-history', 'data-testid': 'history-cell', dataset: { failed: 'true' } },
    h('h2', {}, h('span', { class: 'kind' }, 'History')),
    h('p', { class: 'error-text', role: 'alert' }, `The history could not be computed: ${message}`));
}
