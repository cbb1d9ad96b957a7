// Charts of the Clocks cell: read-cost ECDFs on a log axis (one line per
// clock) and a small histogram of the steps each clock took.

import * as Plot from '@observablehq/plot';
import { h } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtNs, fmtNum, fmtCount, timeUnit } from '../../ui/units.js';
import { CATEGORICAL } from '../../ui/palette.js';

export function readCostChart(c, key) {
  const clocks = c.clocks.filter((r) => r.available && r.read_cost_ecdf.length);
  const points = clocks.flatMap((r) => r.read_cost_ecdf.map(([ns, f]) => ({ clock: r.name, ns, f })));
  const byMedian = [...clocks].sort((a, b) => (a.read_cost?.median ?? Infinity) - (b.read_cost?.median ?? Infinity));
  const summary = `Empirical cumulative distribution of the cost of one read for ${clocks.length} clocks, ` +
    `on a logarithmic time axis: for each cost x, the fraction of batches whose cost per read was at most x. ` +
    `Medians, fastest first: ${byMedian.map((r) => `${r.name} ${fmtNs(r.read_cost?.median)}`).join('; ')}.`;
  return chartFigure({
    testid: 'read-cost-chart',
    caption: 'Read cost per clock (ECDF, log scale).',
    summary,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: Math.max(280, Math.min(420, width * 0.4)),
      marginBottom: 40,
      x: { type: 'log', label: 'cost of one read →', grid: true, tickFormat: logTick },
      y: { domain: [0, 1], label: '↑ fraction of batches', grid: true, tickFormat: '.0%' },
      color: { legend: true, domain: clocks.map((r) => r.name), range: CATEGORICAL },
      marks: [
        Plot.ruleY([0]),
        Plot.line(points, { x: 'ns', y: 'f', stroke: 'clock', curve: 'step-after', strokeWidth: 1.75 }),
        Plot.tip(points, Plot.pointer({
          x: 'ns', y: 'f', stroke: 'clock',
          channels: { clock: { value: 'clock', label: 'clock' } },
          format: { x: (v) => fmtNs(v), y: '.1%', stroke: false, clock: true },
        })),
      ],
    }),
  });
}

function logTick(v) {
  const s = String(v);
  // Label powers of ten and 2×, 5× between them; leave the rest unlabelled.
  return /^[125](0*)(\.0+)?$|^0\.0*[125]$/.test(s) ? fmtNs(v, { exact: true }).replace('\u202f', '') : '';
}

export function stepHistograms(c, key) {
  const clocks = c.clocks.filter((r) => r.available && r.step_histogram.length);
  return h('div', { class: 'steps', 'data-testid': 'step-histograms' },
    h('h3', {}, 'Steps between consecutive reads'),
    h('p', { class: 'muted' }, 'How often each non-zero step occurred during the scan (up to 64 distinct steps per clock). ' +
      'A clock whose steps cluster at one large value is coarse; spread-out steps come from the time the reads themselves take.'),
    h('div', { class: 'small-multiples' }, clocks.map((r) => stepHistogram(r))));
}

function stepHistogram(r) {
  const bins = r.step_histogram;
  const lo = bins[0].step_ns;
  const hi = bins[bins.length - 1].step_ns;
  const summary = `${r.name}: ${bins.length} distinct step${bins.length === 1 ? '' : 's'} from ${fmtNs(lo)} to ${fmtNs(hi)}` +
    `; the most frequent is ${fmtNs(r.modal_step_ns)}` +
    (r.steps_not_shown ? `; ${fmtCount(r.steps_not_shown)} larger steps not shown.` : '.');
  const logX = hi / lo > 20;
  // Steps that differ by under 1 % (a coarse clock's 4 ms ± 1 ns) are drawn
  // as their difference from the most frequent step, in the unit of their
  // range, so that tick labels say what differs.
  const narrow = !logX && lo !== hi && (hi - lo) / hi < 0.01;
  const ref = narrow ? (r.modal_step_ns ?? hi) : 0;
  const [scale, unit] = logX ? [1, 'ns'] : timeUnit(narrow ? hi - lo : hi);
  const data = bins.map((b) => ({ ...b, x: (b.step_ns - ref) / scale }));
  const tickText = (v) => fmtNum(v, { digits: 12, exact: true }).replace('-', '−');
  const label = narrow ? `step − ${fmtNs(ref, { exact: true, digits: 12 })} (${unit}) →` : logX ? 'step →' : `step (${unit}) →`;
  return chartFigure({
    testid: 'step-histogram',
    className: 'small',
    caption: r.name,
    summary,
    draw: (width) => {
      // Few distinct steps: a tick at each of them, nothing in between,
      // when their labels are short and apart (a TSC's 10.3448… ns steps are
      // not: they get round ticks).
      const domain = lo === hi ? [data[0].x * 0.5, data[0].x * 1.5] : padded(data.map((d) => d.x));
      const exactTicks = bins.length <= 4 && fewTicks(data.map((d) => d.x), tickText, domain, width - 70) ? data.map((d) => d.x) : undefined;
      return Plot.plot({
        ...baseOptions(width),
        height: 140,
        marginLeft: 44,
        marginRight: 26,
        marginBottom: 40,
        x: logX
          ? { type: 'log', label, ticks: decades(lo, hi, width - 70), tickFormat: (v) => fmtNs(v, { exact: true, digits: 12 }) }
          : {
            label, ticks: exactTicks ?? (narrow ? 2 : 4), nice: !exactTicks && lo !== hi, tickFormat: tickText,
            domain: lo === hi || exactTicks ? domain : undefined,
          },
        y: { label: 'count', ticks: 3, grid: true, tickFormat: (v) => (v >= 1000 ? `${fmtNum(v / 1000, { digits: 3, exact: true })}k` : fmtNum(v, { digits: 3, exact: true })) },
        marks: [
          Plot.ruleX(data, { x: 'x', y1: 0, y2: 'count', stroke: 'var(--accent)', strokeWidth: 2 }),
          Plot.dot(data, { x: 'x', y: 'count', r: 2, fill: 'var(--accent)', tip: true,
            title: (b) => `step ${fmtNs(b.step_ns, { exact: true, digits: 12 })}: ${fmtCount(b.count)} times` }),
          Plot.ruleY([0]),
        ],
      });
    },
  });
}

/**
 * Whether ticks at `xs` read well: each label short (at most 4 significant
 * digits) and each clear of the next on a `px`-wide axis over `domain`
 * (about 7 px a character at the charts' 12 px font, and a gap).
 */
function fewTicks(xs, text, [d0, d1], px) {
  const labels = xs.map(text);
  if (labels.some((t) => t.replace(/[^0-9]/g, '').replace(/^0+/, '').replace(/0+$/, '').length > 4)) return false;
  const at = xs.map((x, i) => ({ px: ((x - d0) / (d1 - d0)) * px, w: 7 * labels[i].length })).sort((a, b) => a.px - b.px);
  return at.every((t, i) => i === 0 || t.px - at[i - 1].px >= (t.w + at[i - 1].w) / 2 + 8);
}

/**
 * Powers of ten in [lo, hi], every other one when they would be under 48 px
 * apart. A range holding fewer than two of them (200 ns to 5 µs holds one)
 * takes 1, 2 and 5 times them, each 48 px clear of the last, and at worst
 * its two ends: an axis needs two labels to be read.
 */
function decades(lo, hi, px) {
  const e0 = Math.ceil(Math.log10(lo) - 1e-9);
  const e1 = Math.floor(Math.log10(hi) + 1e-9);
  const perDecade = px / Math.max(Math.log10(hi / lo), 1e-9);
  const step = perDecade >= 48 ? 1 : perDecade >= 24 ? 2 : 3;
  const out = [];
  for (let e = e0; e <= e1; e += step) out.push(10 ** e);
  if (out.length >= 2) return out;
  const inRange = (v) => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
  const more = [];
  for (let e = e0 - 1; e <= e1 + 1; e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (inRange(v) && (!more.length || Math.log10(v / more[more.length - 1]) * perDecade >= 48)) more.push(v);
    }
  }
  return more.length >= 2 ? more : [lo, hi];
}

/** A domain around a few values with a margin of a tenth of their range each side. */
function padded(xs) {
  const a = Math.min(...xs);
  const b = Math.max(...xs);
  const m = (b - a) * 0.1 || Math.abs(a) * 0.1 || 1;
  return [a - m, b + m];
}
