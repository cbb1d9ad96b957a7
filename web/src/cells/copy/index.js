// The Copy cell (after Tišnovský’s ArrayCopyTest3): time per byte of array copies as a heat
// map of variant × alignment, for one implementation and nominal length at a
// time, and the cases the comparison rule flags as slower than the same copy
// between distinct arrays at offsets (0, 0). Every number comes from the
// report's `copy`; this module only looks cells up and formats them.

import * as Plot from '@observablehq/plot';
import { h, table, numCell, svgEl } from '../../ui/dom.js';
import { chartFigure, baseOptions, legendTicks } from '../../ui/charts.js';
import { fmtNum, fmtCount, fmtNs, fmtPercent, fmtBytes, fmtFactor } from '../../ui/units.js';
import { cellSection, warningsList } from '../../ui/cell.js';
import { ciCell } from '../../ui/ci.js';

const OFFSETS = ['(0, 0)', '(off, 0)', '(0, off)', '(off, off)'];

/** What variant 1–8 is: distinct arrays 1–4, the same array 5–8, × the offsets. */
function variantLabel(v) {
  const same = v > 4;
  return `${v} · ${same ? 'same array' : 'distinct'} ${OFFSETS[(v - 1) % 4]}`;
}

const METRICS = {
  ns_per_byte: { label: 'ns per byte', short: 'ns/B', get: (c) => c.ns_per_byte, scheme: 'YlOrRd', better: 'lower is faster' },
  gb_per_s: { label: 'GB/s', short: 'GB/s', get: (c) => c.gb_per_s, scheme: 'YlGnBu', better: 'higher is faster' },
};

let hatchCounter = 0;

/** What a link keeps of this cell's view (app/state.js). */
export const viewFields = {
  copyImpl: 'string',
  copyLen: 'number',
  copyMetric: 'string',
};

export function build(report, key, ctx) {
  const c = report.copy;
  const view = ctx.view;
  if (!c.implementations.includes(view.copyImpl)) view.copyImpl = c.implementations[0] ?? null;
  if (!c.lengths.includes(view.copyLen)) view.copyLen = c.lengths[0] ?? null;
  if (!METRICS[view.copyMetric]) view.copyMetric = 'ns_per_byte';
  const area = h('div', { class: 'copy-map-area' });
  const redraw = () => {
    for (const fig of area.querySelectorAll('figure.chart')) fig.dispose?.();
    area.replaceChildren(heatMap(c, view));
  };
  redraw();
  const caches = c.cache_bytes.map((x) => `${x.name} ${fmtBytes(x.bytes)}`).join(', ');
  return cellSection(ctx, report, key,
  warningsList(report.warnings),
  h('div', { class: 'explain' },
    h('p', {}, 'Tišnovský’s array-copy benchmark (ArrayCopyTest3) in eight variants: ',
      h('strong', {}, 'distinct source and destination arrays'), ' (variants 1–4) or ', h('strong', {}, 'the same array'),
      ' (5–8), each with offsets (source, destination) of (0, 0), (off, 0), (0, off) and (off, off). ',
      'For an alignment a, the offset off and the length are both rounded down to a multiple of a (off from 1 087, length from nominal + 63, as in ArrayCopyTest3’s i − i % align), so each case is aligned to exactly a bytes; ',
      'lengths cross the caches (', caches || 'sizes not recorded', ').'),
    h('p', {}, `Each case is timed ${fmtCount(c.repetitions)} times by ${c.clock}; the map shows the median. `,
      'A case is ', h('strong', {}, 'flagged'), ' when it is slower than the same copy between distinct arrays at (0, 0) ',
      `(same implementation, length and alignment) by the comparison rule: the bootstrap CIs of the medians do not overlap and the difference exceeds the threshold (${fmtPercent(c.threshold)}; set it in the toolbar). No hand-written cut-off.`)),
  controls(c, view, redraw),
  area,
  flaggedTable(c));
}

function selectControl(label, testid, values, current, text, onChange) {
  const select = h('select', { 'data-testid': testid, onchange: () => onChange(select.value) },
    values.map((v) => h('option', { value: String(v), selected: v === current }, text(v))));
  return h('label', { class: 'select' }, h('span', {}, label), select);
}

function controls(c, view, redraw) {
  const name = `copy-metric-${++hatchCounter}`;
  return h('div', { class: 'copy-controls' },
    selectControl('Implementation', 'copy-impl', c.implementations, view.copyImpl, (v) => v, (v) => { view.copyImpl = v; redraw(); }),
    selectControl('Length', 'copy-length', c.lengths, view.copyLen, (v) => (v < 1024 ? fmtBytes(v) : `${fmtBytes(v)} (${fmtCount(v)} B)`),
      (v) => { view.copyLen = Number(v); redraw(); }),
    h('fieldset', { class: 'segmented inline', 'data-testid': 'copy-metric' },
      h('legend', {}, 'Colour by'),
      Object.entries(METRICS).map(([k, m]) => h('label', {},
        h('input', { type: 'radio', name, value: k, checked: k === view.copyMetric, onchange: () => { view.copyMetric = k; redraw(); } }),
        h('span', {}, m.label)))));
}

function heatMap(c, view) {
  const metric = METRICS[view.copyMetric];
  const cells = c.cells.filter((x) => x.implementation === view.copyImpl && x.nominal_length === view.copyLen);
  const data = cells.map((x) => ({
    ...x, row: variantLabel(x.variant), col: String(x.alignment), value: x.available ? metric.get(x) : null,
  }));
  const ok = data.filter((d) => d.value != null);
  const missing = data.filter((d) => d.value == null);
  const flagged = data.filter((d) => d.flagged);
  const rows = [1, 2, 3, 4, 5, 6, 7, 8].map(variantLabel);
  const cols = c.alignments.map(String);
  const fmtV = (v) => fmtNum(v, { digits: 3 });
  const title = (d) => {
    if (!d.available || d.value == null) return `${d.row}, alignment ${d.col}: not measured — ${d.unavailable_reason ?? 'no estimate'}`;
    const ci = d.ns_per_copy;
    return `${d.row}, alignment ${d.col}, length ${fmtCount(d.length)} B (offsets ${d.src_offset}, ${d.dst_offset})\n` +
      `${fmtV(d.ns_per_byte)} ns/B · ${fmtV(d.gb_per_s)} GB/s\n` +
      `median ${fmtNs(ci?.estimate)} per copy [${fmtNs(ci?.lo)}, ${fmtNs(ci?.hi)}]\n` +
      `ratio to distinct (0, 0): ${fmtFactor(d.ratio_to_baseline)}${d.flagged ? ' — FLAGGED (slower by the comparison rule)' : ''}`;
  };
  const hatch = `copy-hatch-${++hatchCounter}`;
  // Text colour for contrast: light text on the darker half of the (log) colour ramp.
  const logs = ok.map((d) => Math.log(d.value)).filter(Number.isFinite);
  const [lmin, lmax] = [Math.min(...logs), Math.max(...logs)];
  const pos = (v) => (lmax > lmin ? (Math.log(v) - lmin) / (lmax - lmin) : 0);
  const dark = (v) => pos(v) > 0.55;
  const summary = `Heat map of ${metric.label} for ${view.copyImpl} at nominal length ${fmtCount(view.copyLen)} bytes: ` +
    `${ok.length} measured cells, ${missing.length} not measured, ${flagged.length} flagged. ` +
    (ok.length
      ? `Range ${fmtV(Math.min(...ok.map((d) => d.value)))} to ${fmtV(Math.max(...ok.map((d) => d.value)))} ${metric.short} (${metric.better}).`
      : '') +
    (flagged.length ? ` Flagged: ${flagged.map((d) => `variant ${d.variant} at alignment ${d.col} (${fmtFactor(d.ratio_to_baseline)})`).join('; ')}.` : '');
  const legend = legendTicks(Math.min(...ok.map((d) => d.value)), Math.max(...ok.map((d) => d.value)), { log: true });
  const legendText = (v) => fmtNum(v, { digits: 4, exact: true });
  const edge = (v) => (v == null ? 16 : Math.max(16, Math.ceil(3 * legendText(v).length) + 4));
  const fig = chartFigure({
    testid: 'copy-heatmap',
    caption: `${view.copyImpl}, ${fmtBytes(view.copyLen)}: ${metric.label} (${metric.better}) by variant and alignment. Outlined in red: flagged; hatched: not measured (hover for the reason).`,
    summary,
    draw: (width) => {
      const out = Plot.plot({
        ...baseOptions(width),
        height: 60 + rows.length * 38,
        marginLeft: 190,
        marginTop: 40,
        marginBottom: 10,
        x: { domain: cols, label: 'alignment (bytes) →', axis: 'top', tickSize: 0 },
        y: { domain: rows, label: null, tickSize: 0 },
        // A few round ticks, so labels neither overlap nor repeat; margins
        // on the legend for half its end labels, which may be centred on
        // its ends (about 6 px a character at the legend's 10 px font).
        color: {
          scheme: metric.scheme, type: 'log', legend: true, label: metric.label, tickFormat: legendText, ticks: legend,
          marginLeft: edge(legend[0]), marginRight: edge(legend[legend.length - 1]), width: 272,
        },
        marks: [
          Plot.cell(missing, { x: 'col', y: 'row', fill: 'var(--neutral-bg)', inset: 1.5, rx: 4, className: 'copy-unavailable', ariaLabel: 'not measured', title }),
          Plot.cell(ok, { x: 'col', y: 'row', fill: 'value', inset: 1.5, rx: 4, className: 'copy-measured', ariaLabel: 'measured case', title }),
          Plot.cell(flagged, { x: 'col', y: 'row', fill: 'none', stroke: 'var(--bad)', strokeWidth: 3, inset: 1, rx: 4, className: 'copy-flagged-mark', ariaLabel: 'flagged case', title }),
          Plot.text(ok, {
            x: 'col', y: 'row', text: (d) => fmtV(d.value) + (d.flagged ? ' ▲' : ''),
            fill: (d) => (dark(d.value) ? '#fff' : '#111'), stroke: (d) => (dark(d.value) ? 'rgba(0,0,0,0.35)' : 'rgba(255,255,255,0.6)'),
            strokeWidth: 3, paintOrder: 'stroke', fontSize: 11.5, fontWeight: (d) => (d.flagged ? 700 : 500), title,
          }),
          Plot.text(missing, { x: 'col', y: 'row', text: () => 'n/a', fill: 'var(--muted)', fontSize: 11, title }),
        ],
      });
      // Hatch the cells that were not measured.
      const svg = out.tagName === 'svg' ? out : out.querySelector('svg:not(.legend)') ?? out.querySelectorAll('svg')[1];
      const plotSvg = [...(out.tagName === 'svg' ? [out] : out.querySelectorAll('svg'))].find((s) => s.querySelector('.copy-unavailable')) ?? svg;
      if (plotSvg && missing.length) {
        plotSvg.prepend(svgEl('defs', {},
          svgEl('pattern', { id: hatch, width: 7, height: 7, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
            svgEl('rect', { width: 7, height: 7, fill: 'var(--neutral-bg)' }),
            svgEl('line', { x1: 0, y1: 0, x2: 0, y2: 7, stroke: 'var(--muted)', 'stroke-opacity': 0.45, 'stroke-width': 2.5 }))));
        for (const r of plotSvg.querySelectorAll('.copy-unavailable rect')) r.setAttribute('fill', `url(#${hatch})`);
      }
      return out;
    },
  });
  fig.dataset.cells = String(data.length);
  fig.dataset.measured = String(ok.length);
  fig.dataset.flagged = String(flagged.length);
  fig.dataset.implementation = view.copyImpl ?? '';
  fig.dataset.length = String(view.copyLen ?? '');
  return fig;
}

function flaggedTable(c) {
  const base = (x) => c.cells.find((b) => b.variant === 1 && b.implementation === x.implementation &&
    b.length === x.length && b.alignment === x.alignment);
  const rows = c.flagged.map((i) => {
    const x = c.cells[i];
    const b = base(x);
    return h('tr', { 'data-testid': 'copy-flagged-row', dataset: { index: i } },
      h('th', { scope: 'row' }, h('code', {}, x.implementation)),
      numCell('length', x.length, fmtCount(x.length), { unit: 'B' }),
      h('td', { dataset: { stat: 'variant', value: x.variant } }, variantLabel(x.variant)),
      numCell('alignment', x.alignment, fmtCount(x.alignment)),
      numCell('ratio', x.ratio_to_baseline, fmtFactor(x.ratio_to_baseline)),
      ciCell('ns-per-copy', x.ns_per_copy, (v) => fmtNs(v)),
      ciCell('baseline-ns-per-copy', b?.ns_per_copy, (v) => fmtNs(v)));
  });
  return h('div', { class: 'copy-flagged' },
    h('h3', {}, `Flagged cases (${fmtCount(c.flagged.length)})`),
    rows.length
      ? tall(table({
        testid: 'copy-flagged',
        caption: `Worst first. Slower than the distinct-array (0, 0) copy of the same implementation, length and alignment, with disjoint CIs and a difference above ${fmtPercent(c.threshold)}.`,
        columns: ['Implementation', { label: 'Length', class: 'num' }, 'Variant', { label: 'Alignment', class: 'num' },
          { label: 'Ratio to baseline', class: 'num', title: 'Median of this case over the median of variant 1' },
          { label: 'Median per copy', class: 'num' }, { label: 'Baseline (variant 1)', class: 'num' }],
        rows,
      }))
      : h('p', { class: 'muted', 'data-testid': 'copy-none-flagged' },
        `None: no case is slower than its distinct-array (0, 0) baseline by more than ${fmtPercent(c.threshold)} with disjoint CIs.`));
}

function tall(wrap) {
  wrap.classList.add('tall');
  return wrap;
}
