// The Operations cell: primitive operations timed as homogeneous sequences
// (Lambert & Power), per form (latency, throughput): the cost table with
// bootstrap CIs, the six-number summary and box plot over all operations,
// the clustering of costs (clustering.js) and the calibration of the portable
// clock against the cycle counter (calibration.js), and the published
// figures of the host's core beside the measured ones (published.js). Every number is a field
// of the report's `ops` (OpsReport). The summary, outliers and clustering are
// of the reference clock's times (option `reference_clock`, chosen here and
// re-analysed in the worker); the calibration is always counter on portable.

import * as Plot from '@observablehq/plot';
import { h, table, numCell, clear } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { cellSection } from '../../ui/cell.js';
import { ciCell } from '../../ui/ci.js';
import { plotKey, glyph } from '../../ui/key.js';
import { fmtNs, fmtNum, fmtCount, fmtGHz, fmtLevel, fmtMHz } from '../../ui/units.js';
import { clusteringSection } from './clustering.js';
import { calibrationSection } from './calibration.js';
import { issueWidth, publishedColumns, publishedSection } from './published.js';

const FORM_TEXT = {
  latency: 'a dependency chain: each copy needs the previous one\u2019s result, so this is the operation\u2019s latency',
  throughput: 'independent copies the core can overlap, so this is the cost per operation at full throughput',
};

/** What a link keeps of this cell's view (app/state.js): the form shown, the
 * table's sort and filter, and the granularity statistic (clustering.js). */
export const viewFields = {
  form: 'string',
  filter: 'string',
  sort: { key: 'string', dir: 'number' },
  statistic: 'string',
};

export function build(report, key, ctx) {
  const o = report.ops;
  const view = ctx.view;
  const forms = o.forms.map((f) => f.form);
  if (!forms.includes(view.form)) view.form = forms[0] ?? null;
  const formArea = h('div', { class: 'form-area', 'data-testid': 'form-area' });
  const showForm = () => {
    for (const fig of formArea.querySelectorAll('figure.chart')) fig.dispose?.();
    clear(formArea);
    const f = o.forms.find((x) => x.form === view.form);
    formArea.dataset.form = view.form ?? '';
    formArea.append(opsTable(o, view, report), f ? formSection(o, f, report, key, ctx, showForm) : null);
  };
  const cell = cellSection(ctx, report, key,
  explanation(o),
  referenceNote(o),
  coreLine(o),
  issueWidth(o),
  publishedSection(o),
  formSelector(o, view, key, () => { showForm(); }),
  formArea);
  showForm();
  return cell;
}

function explanation(o) {
  return h('div', { class: 'explain' },
    h('p', {},
      'What does one machine operation cost? One is far too short for any clock, so the collector times ',
      h('strong', {}, 'homogeneous sequences'), ': n = ', h('span', { 'data-testid': 'copies', dataset: { value: o.copies } }, fmtCount(o.copies)),
      ' copies of the operation, then 2n, and takes ', h('span', { class: 'eq' }, '(t(2n) − t(n)) / n'),
      ' — the loop, the setup and the two clock reads are in both timings and cancel. ',
      'Each sequence is timed ', fmtCount(o.repetitions), ' times with the portable clock (', h('code', {}, o.portable_clock), ')',
      o.counter_clock ? [' and with the cycle counter (', h('code', {}, o.counter_clock), o.counter_hz ? `, ${fmtMHz(o.counter_hz)}` : '', ')'] : '',
      '; a cost is the median over the repetitions, with a percentile-bootstrap interval.'),
    h('p', {},
      h('strong', {}, 'Latency'), ' sequences are a dependency chain (each copy waits for the previous result); ',
      h('strong', {}, 'throughput'), ' sequences are independent copies the core can run side by side. ',
      'The same instruction usually costs several times less in throughput form.'));
}

/** What the reference clock is: the clock whose times the per-form figures are of. */
const clockName = (clock, o) => (clock === 'counter'
  ? `the cycle counter${o.counter_clock ? ` (${o.counter_clock})` : ''}`
  : `the portable clock (${o.portable_clock})`);
const clockShort = (clock) => (clock === 'counter' ? 'cycle-counter' : 'portable');

function referenceNote(o) {
  const used = o.reference_clock ?? 'portable';
  return [
    h('p', { class: 'reference-note', 'data-testid': 'reference-clock-note', dataset: { clock: used } },
      'Summary, outliers and clusters below are of the ns per operation by ', h('strong', {}, clockName(used, o)),
      ', the ', h('em', {}, 'reference clock'),
      used === 'portable' ? ' (the paper\u2019s method)' : '',
      '; choose it next to the outlier rule. The calibration always relates the counter to the portable clock.'),
    o.basis_fallback
      ? h('div', { class: 'warnings', role: 'note', 'data-testid': 'basis-fallback' },
        h('strong', {}, 'Reference clock: '), o.basis_fallback, '.')
      : null,
  ];
}

function coreLine(o) {
  const c = o.core;
  if (!c) {
    return h('p', { class: 'headline muted', 'data-testid': 'core-clock' },
      'No core-clock measurement (it needs the cycle counter): core cycles per operation are not available.');
  }
  const t = c.ticks_per_cycle;
  return h('p', { class: 'headline core', 'data-testid': 'core-clock', dataset: { coreHz: c.core_hz ?? '', cyclesPerTick: c.cycles_per_tick } },
    h('span', {}, 'Core clock ',
      h('strong', { 'data-testid': 'core-hz', dataset: { value: c.core_hz ?? '' } }, c.core_hz != null ? fmtGHz(c.core_hz) : 'unknown (no counter frequency)')),
    h('span', {},
      h('strong', { 'data-testid': 'cycles-per-tick', dataset: { value: c.cycles_per_tick } }, fmtNum(c.cycles_per_tick)),
      ' core cycles per counter tick'),
    h('span', { class: 'muted' },
      h('span', { 'data-testid': 'ticks-per-cycle', dataset: { value: t.estimate, lo: t.lo, hi: t.hi } },
        `${fmtNum(t.estimate)} ticks per cycle, ${fmtLevel(t.confidence)} CI ${fmtNum(t.lo)} to ${fmtNum(t.hi)}`),
      `; from ${fmtCount(c.samples)} chains of ${fmtCount(c.adds)} dependent adds, one cycle each`));
}

function formSelector(o, view, key, onChange) {
  if (o.forms.length < 2) {
    return o.forms.length
      ? h('p', { class: 'form-note' }, 'Form: ', h('strong', {}, o.forms[0].form), ' — ', FORM_TEXT[o.forms[0].form] ?? '')
      : h('p', { class: 'muted' }, 'No operation has an estimate.');
  }
  const name = `form-${key}`;
  const note = h('span', { class: 'muted form-text' }, FORM_TEXT[view.form] ?? '');
  return h('fieldset', { class: 'segmented', 'data-testid': 'form-selector' },
    h('legend', {}, 'Form'),
    o.forms.map((f) => h('label', {},
      h('input', {
        type: 'radio', name, value: f.form, checked: f.form === view.form, 'data-testid': 'form-option',
        onchange: (e) => { view.form = e.target.value; note.textContent = FORM_TEXT[view.form] ?? ''; onChange(); },
      }),
      h('span', {}, f.form, h('span', { class: 'count' }, fmtCount(f.names.length))))),
    note);
}

/* ------------------------------------------------------------ table */

const COLUMNS = [
  { key: 'name', label: 'Operation', get: (r) => r.name },
  { key: 'group', label: 'Group', get: (r) => r.group },
  { key: 'instruction', label: 'Instruction', get: (r) => r.instruction ?? '' },
  { key: 'portable_ns', label: 'ns/op (portable)', num: true, get: (r) => r.portable_ns?.estimate, title: 'Median over repetitions of (t(2n) − t(n)) / n by the portable clock, with its bootstrap interval' },
  { key: 'counter_ticks', label: 'Counter ticks/op', num: true, get: (r) => r.counter_ticks?.estimate, title: 'The same by the cycle counter, in its ticks' },
  { key: 'counter_ns', label: 'ns/op (counter)', num: true, get: (r) => r.counter_ns?.estimate, title: 'Counter ticks per op converted with the counter frequency' },
  { key: 'core_cycles', label: 'Core cycles/op', num: true, get: (r) => r.core_cycles?.estimate, title: 'Counter ticks per op divided by the counter ticks per core cycle' },
];

// The calibrated column, present while a fit is applied (view.calibrated,
// computed in Rust by applyCalibration; see calibration.js).
const CALIBRATED = { key: 'calibrated_ns', label: 'ns/op (calibrated)', num: true, get: (r) => r.calibrated?.calibrated_ns,
  title: 'α + β · portable ns/op with the applied fit, and its interval (the fit\u2019s prediction interval and this op\u2019s portable interval, in quadrature)' };

function opsTable(o, view, report) {
  const sort = view.sort ?? (view.sort = { key: null, dir: 1 });
  const cal = view.calibratedFor === report ? view.calibrated ?? null : null;
  const calByOp = new Map((cal?.ops ?? []).map((c) => [`${c.name}\u0000${c.form}`, c]));
  const published = publishedColumns(o);
  const columns = [...COLUMNS, ...published, ...(cal ? [CALIBRATED] : [])];
  const rowsOfForm = o.ops.filter((r) => r.form === view.form || !view.form);
  const level = fmtLevel(report.options?.bootstrap?.confidence);
  const trs = rowsOfForm.map((r) => {
    const name = h('th', { scope: 'row' }, h('code', {}, r.name), h('span', { class: 'sub' }, r.implementation));
    const tr = r.available
      ? h('tr', { 'data-testid': 'op-row', dataset: { op: r.name, form: r.form, group: r.group } },
        name,
        h('td', {}, r.group),
        h('td', { class: 'instr' }, r.instruction ? h('code', {}, r.instruction) : h('span', { class: 'muted' }, '—')),
        ciCell('portable_ns', r.portable_ns, (v) => fmtNs(v), { unit: 'ns' }),
        numCell('counter_ticks', r.counter_ticks?.estimate, fmtNum(r.counter_ticks?.estimate), { title: r.counter_ticks ? `${r.counter_ticks.estimate} ticks (${r.counter_ticks.lo} to ${r.counter_ticks.hi})` : undefined }),
        numCell('counter_ns', r.counter_ns?.estimate, fmtNs(r.counter_ns?.estimate), { unit: 'ns' }),
        ciCell('core_cycles', r.core_cycles, (v) => fmtNum(v, { digits: 3 }), { unit: 'cycles' }),
        published.map((c) => c.cell(r)),
        cal ? calibratedCell(calByOp.get(`${r.name}\u0000${r.form}`)) : null)
      : h('tr', { 'data-testid': 'op-row', class: 'unavailable', dataset: { op: r.name, form: r.form, group: r.group, available: 'false' } },
        name,
        h('td', {}, r.group),
        h('td', { class: 'instr' }, r.instruction ? h('code', {}, r.instruction) : null),
        h('td', { colspan: 4 + published.length + (cal ? 1 : 0) }, h('span', { class: 'badge neutral' }, 'unavailable'), ' ', r.unavailable_reason ?? 'no reason recorded'));
    tr.searchText = [r.name, r.group, r.instruction ?? '', r.implementation].join(' ').toLowerCase();
    tr.op = cal ? { ...r, calibrated: calByOp.get(`${r.name}\u0000${r.form}`) } : r;
    return tr;
  });
  const tbody = h('tbody', {});
  const count = h('span', { class: 'muted', 'data-testid': 'op-count', 'aria-live': 'polite' });
  const filter = h('input', {
    type: 'search', placeholder: 'Filter: name, group, instruction', 'data-testid': 'op-filter', value: view.filter ?? '',
    'aria-label': 'Filter the operations by name, group or instruction',
    oninput: () => { view.filter = filter.value; apply(); },
  });
  const headers = columns.map((c) => {
    const button = h('button', { type: 'button', class: 'sort', 'data-testid': `sort-${c.key}`, title: c.title, onclick: () => {
      sort.dir = sort.key === c.key ? -sort.dir : 1;
      sort.key = c.key;
      apply();
    } }, c.label, h('span', { class: 'arrow', 'aria-hidden': 'true' }));
    return h('th', { scope: 'col', class: c.num ? 'num' : null, dataset: { key: c.key } }, button);
  });
  function apply() {
    const q = (view.filter ?? '').trim().toLowerCase();
    let rows = [...trs];
    if (sort.key) {
      const col = columns.find((c) => c.key === sort.key) ?? COLUMNS[0];
      rows.sort((a, b) => {
        const x = col.get(a.op);
        const y = col.get(b.op);
        if (x == null || x === '') return y == null || y === '' ? 0 : 1; // missing last
        if (y == null || y === '') return -1;
        return (typeof x === 'number' ? x - y : String(x).localeCompare(String(y))) * sort.dir;
      });
    }
    let shown = 0;
    for (const tr of rows) {
      tr.hidden = q !== '' && !tr.searchText.includes(q);
      if (!tr.hidden) shown += 1;
    }
    tbody.replaceChildren(...rows);
    for (const th of headers) {
      const active = th.dataset.key === sort.key;
      th.setAttribute('aria-sort', active ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
      th.querySelector('.arrow').textContent = active ? (sort.dir > 0 ? ' ▲' : ' ▼') : '';
    }
    count.textContent = `${shown} of ${rows.length} operations${view.form ? ` (${view.form})` : ''}`;
  }
  apply();
  return h('div', { class: 'ops-table' },
    h('div', { class: 'table-tools' }, filter, count),
    h('div', { class: 'table-wrap tall' },
      h('table', { class: 'data', 'data-testid': 'ops-table' },
        h('caption', {}, `Cost per operation; small print: the ${level} bootstrap interval (${fmtCount(report.options?.bootstrap?.resamples)} resamples, seed ${report.options?.bootstrap?.seed}). Click a heading to sort.`),
        h('thead', {}, h('tr', {}, headers)),
        tbody)));
}

function calibratedCell(c) {
  const cell = ciCell('calibrated_ns', c && { estimate: c.calibrated_ns, lo: c.interval_ns[0], hi: c.interval_ns[1] }, (v) => fmtNs(v), {
    unit: 'ns',
    after: c?.extrapolated ? [' ', h('span', { class: 'badge warn', title: 'outside the portable range the fit was made on' }, 'extrapolated')] : null,
  });
  if (c?.extrapolated) cell.dataset.extrapolated = 'true';
  return cell;
}

/* ------------------------------------------------------------ per form */

function formSection(o, f, report, key, ctx, rerender) {
  return h('div', { class: 'form-section', 'data-testid': 'form-section', dataset: { form: f.form } },
    h('h3', {}, `All ${f.form} operations: summary and outliers`),
    h('p', { class: 'muted section-note' }, `Over the ${fmtCount(f.names.length)} ${f.form} operations with an estimate (${f.basis}), as the paper\u2019s Table 3. `,
      f.left_out?.length ? h('span', { 'data-testid': 'left-out' }, `Left out, with no time by this clock: ${f.left_out.join(', ')}. `) : null,
      `Tukey\u2019s fences: beyond ${fmtK(f.fences?.k ?? ctx.options().outlier_k)} IQR from the box is an outlier, beyond ${fmtK(2 * (f.fences?.k ?? ctx.options().outlier_k))} IQR an extreme one. `,
      outlierRule(ctx), ' ', referenceClockControl(o, ctx)),
    f.summary ? [summaryTable(f), boxKey(), boxPlot(f), outlierList(f)] : h('p', { class: 'muted' }, 'No operation of this form has an estimate.'),
    clusteringSection(f, report, key, ctx),
    calibrationSection(o, f, report, ctx, rerender));
}

const fmtK = (k) => String(Math.round(k * 1000) / 1000);

/** The outlier rule's k (an analysis option: re-analyses in the worker). */
function outlierRule(ctx) {
  const input = h('input', {
    type: 'number', min: '0.1', max: '10', step: '0.1', value: String(ctx.options().outlier_k),
    'data-testid': 'outlier-k', 'aria-label': 'Outlier rule: multiple k of the IQR',
  });
  input.addEventListener('change', () => {
    const k = Number(input.value);
    if (!(k > 0 && k <= 10)) { input.setCustomValidity('k must be above 0 and at most 10'); input.reportValidity(); return; }
    input.setCustomValidity('');
    ctx.setOptions({ outlier_k: k });
  });
  return h('label', { class: 'inline-control' }, 'k = ', input);
}

/** The reference clock (an analysis option: re-analyses in the worker). */
function referenceClockControl(o, ctx) {
  const asked = ctx.options().reference_clock ?? 'portable';
  const select = h('select', {
    'data-testid': 'reference-clock', 'aria-label': 'Reference clock of the summary, outliers and clusters',
    onchange: () => ctx.setOptions({ reference_clock: select.value }),
  },
  h('option', { value: 'portable', selected: asked === 'portable' }, `portable (${o.portable_clock})`),
  h('option', { value: 'counter', selected: asked === 'counter' },
    o.counter_clock ? `cycle counter (${o.counter_clock})` : 'cycle counter (none in this file)'));
  return h('label', { class: 'inline-control' }, 'Reference clock: ', select);
}

const SIX = [['min', 'Min'], ['q1', 'Q1'], ['median', 'Median'], ['mean', 'Mean'], ['q3', 'Q3'], ['max', 'Max']];

function summaryTable(f) {
  const s = f.summary;
  return table({
    testid: 'ops-summary',
    className: 'data compact-table',
    columns: [{ label: 'n', class: 'num' }, ...SIX.map(([, l]) => ({ label: l, class: 'num' })), { label: 'SD', class: 'num' }],
    rows: [h('tr', { 'data-testid': 'ops-summary-row', dataset: { form: f.form } },
      numCell('n', s.n, fmtCount(s.n)),
      SIX.map(([k]) => numCell(k, s[k], fmtNs(s[k]), { unit: 'ns' })),
      numCell('sd', s.sd, fmtNs(s.sd), { unit: 'ns' }))],
    caption: `Six-number summary of ${clockShort(f.reference_clock)} ns per operation (Hyndman–Fan type ${s.quantile_type} quartiles).`,
  });
}

function boxKey() {
  return plotKey('Key to the box plot', [
    [glyph.box('var(--accent)'), 'box: Q1 to Q3'],
    [glyph.tick('var(--accent)'), 'median'],
    [glyph.diamond('currentColor'), 'mean'],
    [glyph.whiskers('currentColor'), 'whiskers: furthest operations within 1.5 IQR'],
    [glyph.dot('var(--muted)'), 'one operation'],
    [glyph.ring('var(--bad)'), 'outlier'],
    [glyph.cross('var(--bad)'), 'extreme outlier'],
  ]);
}

function boxPlot(f) {
  const s = f.summary;
  const fe = f.fences;
  const outliers = new Set(f.outliers.map((x) => x.name));
  const ops = f.names.map((name, i) => ({ name, v: f.values_ns[i] })).filter((d) => !outliers.has(d.name));
  const box = [{ row: 'box' }];
  const summary = `Box plot of ns per operation over ${s.n} ${f.form} operations: median ${fmtNs(s.median)}, quartiles ${fmtNs(s.q1)} to ${fmtNs(s.q3)}, ` +
    `whiskers ${fmtNs(fe.whisker_low)} to ${fmtNs(fe.whisker_high)}, mean ${fmtNs(s.mean)}; ` +
    (f.outliers.length ? `outliers: ${f.outliers.map((x) => `${x.name} ${fmtNs(x.value_ns)}${x.extreme ? ' (extreme)' : ''}`).join(', ')}.` : 'no outliers.');
  const max = Math.max(...f.values_ns, fe.whisker_high) * 1.03;
  let labels = [];
  return chartFigure({
    testid: 'ops-box-plot',
    caption: `${f.form}: ${clockShort(f.reference_clock)} ns per operation over all operations.`,
    summary,
    draw: (width) => {
      labels = labelLevels(f.outliers, (v) => 84 + (v / max) * (width - 84 - 24));
      return Plot.plot({
      ...baseOptions(width),
      height: 116 + 13 * labels.length,
      marginLeft: 84,
      marginRight: 24,
      marginTop: 8 + 13 * labels.length,
      marginBottom: 36,
      x: { label: 'ns per operation →', grid: true, domain: [0, max] },
      y: { domain: ['box', 'operations'], label: null, padding: 0.3, tickFormat: (d) => (d === 'box' ? 'all' : 'each op') },
      marks: [
        Plot.ruleY(box, { y: 'row', x1: fe.whisker_low, x2: fe.whisker_high, stroke: 'currentColor', strokeOpacity: 0.7 }),
        Plot.tickX(box, { y: 'row', x: fe.whisker_low, strokeOpacity: 0.7 }),
        Plot.tickX(box, { y: 'row', x: fe.whisker_high, strokeOpacity: 0.7 }),
        Plot.barX(box, { y: 'row', x1: s.q1, x2: s.q3, fill: 'var(--accent)', fillOpacity: 0.25, stroke: 'var(--accent)' }),
        Plot.tickX(box, { y: 'row', x: s.median, stroke: 'var(--accent)', strokeWidth: 3 }),
        Plot.dot(box, { y: 'row', x: s.mean, symbol: 'diamond2', r: 4, stroke: 'currentColor' }),
        Plot.dot(f.outliers, {
          y: () => 'box', x: 'value_ns', symbol: (d) => (d.extreme ? 'times' : 'circle'), r: 4, stroke: 'var(--bad)', strokeWidth: 1.6,
          title: (d) => `${d.name}: ${fmtNs(d.value_ns)}${d.extreme ? ' (beyond 3 IQR)' : ' (beyond 1.5 IQR)'}`, tip: true,
        }),
        // Outlier names above the box, on as many levels as they need.
        ...labels.map((level, i) => Plot.text(level, {
          y: () => 'box', x: 'value_ns', text: 'name', fill: 'var(--bad)', fontSize: 11, fontFamily: 'var(--mono)',
          lineAnchor: 'bottom', dy: -12 - 13 * i,
        })),
        Plot.dot(f.names.map((name, i) => ({ name, v: f.values_ns[i], out: outliers.has(name) })), {
          y: () => 'operations', x: 'v', r: 3, fill: (d) => (d.out ? 'var(--bad)' : 'var(--muted)'), fillOpacity: 0.75,
          title: (d) => `${d.name}: ${fmtNs(d.v)}`, tip: true,
        }),
      ],
      });
    },
  });
}

/**
 * Stack outlier names in levels so that none overlaps another (x in px from
 * `px`, about 6.7 px per character); names that would need a fifth level are
 * left to the list under the chart.
 */
function labelLevels(outliers, px) {
  const levels = [];
  const ends = [];
  for (const o of [...outliers].sort((a, b) => a.value_ns - b.value_ns)) {
    const half = (o.name.length * 6.7) / 2;
    const x = px(o.value_ns);
    const i = ends.findIndex((end) => end + 6 < x - half);
    const level = i >= 0 ? i : ends.length < 4 ? ends.length : -1;
    if (level < 0) continue;
    ends[level] = x + half;
    (levels[level] ??= []).push(o);
  }
  return levels;
}

function outlierList(f) {
  return h('div', { class: 'outlier-list', 'data-testid': 'ops-outliers' },
    f.outliers.length
      ? [h('strong', {}, `${f.outliers.length} outlier${f.outliers.length === 1 ? '' : 's'}: `),
        f.outliers.map((x, i) => [i ? ', ' : '', h('span', { class: ['outlier', x.extreme && 'extreme'], 'data-testid': 'ops-outlier', dataset: { name: x.name, value: x.value_ns, extreme: x.extreme } },
          h('code', {}, x.name), ` ${fmtNs(x.value_ns)}`, x.extreme ? h('span', { class: 'badge bad' }, 'extreme') : null)]),
        '.']
      : h('span', { class: 'muted' }, 'No outliers: every operation lies within the 1.5 IQR fences.'));
}
