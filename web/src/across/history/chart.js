// One changed series of the History cell as a chart: each commit's estimate
// with its interval (a rule per commit; disturbed commits a cross of another
// colour), the fitted levels (flat segments; drifts as sloped lines), and the
// changes marked where they are: a step as a rule between the last commit
// before and the first after, a drift as a band over its commits, each
// labelled with its signed change. Everything drawn comes from the report
// (report::across::history); the page only scales the series' unit.
//
// The marks carry what the tests read back: each mark's class names its
// kind (`history-` and `interval`, `estimate`, `disturbed`,
// `disturbed-interval`, `level`, `drift`, `step`, `drift-range`,
// `change-label`, `change-hit`) and Plot's datum index is
// the commit (estimates), the level or the change point's index in the
// series' lists, so a drawn element is found in `tickbook history --json`.
// The figure's data-scale is what a value is divided by to be drawn.

import * as Plot from '@observablehq/plot';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { svgEl } from '../../ui/dom.js';
import { fmtNum, fmtSignedPercent, scaleOf, ciDecimals } from '../../ui/units.js';

// Commits a chart shows one tick label per at most, by its width.
const TICK_SPACING_PX = 70;

/**
 * A mark of many commits as one path: `segment(i)` is the path data of
 * datum `i` (in pixels); the commits drawn, in the path's order, are its
 * data-commits (the datum index is the commit's position).
 */
function onePath(kind, index, segment, attrs) {
  let d = '';
  for (const i of index) d += segment(i);
  return svgEl('g', { 'aria-label': kind, class: `history-${kind}` }, svgEl('path', { d, fill: 'none', 'data-commits': Array.from(index).join(','), ...attrs }));
}

/** Integer ticks over 0..n-1, about one per TICK_SPACING_PX. */
function commitTicks(n, width) {
  const want = Math.max(2, Math.floor(width / TICK_SPACING_PX));
  const raw = Math.max(1, (n - 1) / want);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let i = 0; i <= n - 1; i += step) out.push(i);
  return out;
}

/** The two commits a change lies between: the last before it and, for a step its first after, for a drift its last. */
export function commitsAround(c) {
  return [Math.max(0, c.index - 1), c.kind === 'drift' ? c.end : c.index];
}

/** A value of the series as text in its chart's unit (`s` of the series' unit each). */
function fmtIn(s, unit, v) {
  return `${fmtNum(v / s)}\u202f${unit}`;
}

/** An estimate with its interval in the chart's unit, to the digits the interval needs: 1.2000 [1.1950, 1.2050] ms. */
export function fmtEstimate(e, s, unit) {
  const d = ciDecimals(e.estimate / s, e.low / s, e.high / s);
  return `${(e.estimate / s).toFixed(d)} [${(e.low / s).toFixed(d)}, ${(e.high / s).toFixed(d)}]\u202f${unit}`;
}

/**
 * The chart of `series` (one entry of report.series) over `files` (the
 * report's files, in the order used). `open(change)`: show the comparison of
 * the commits around a change (a click on its band); `point(i)`: the
 * pointer is over commit `i`.
 */
export function historyChart(series, files, open, point) {
  const n = files.length;
  const present = series.estimates.filter(Boolean);
  const typical = present.length ? present[Math.floor(present.length / 2)].estimate : 1;
  const [s, unit] = scaleOf(typical, series);
  const disturbed = new Set(series.disturbed ?? []);
  const points = series.estimates.map((e, i) => (e ? { i, estimate: e.estimate / s, low: e.low / s, high: e.high / s, disturbed: disturbed.has(i) } : null));
  const levels = series.levels.map((l) => ({ ...l, from: l.from / s, to: l.to / s }));
  const changes = series.change_points;
  const name = (i) => files[i]?.name ?? `commit ${i}`;
  const label = (c) => fmtSignedPercent(c.ratio.estimate - 1);
  const summary = `Each commit's estimate of ${series.name} with its interval over ${n} commits (position in the order on the x axis), ` +
    `the fitted levels (${levels.map((l) => (l.kind === 'drift'
      ? `a drift from ${fmtIn(s, unit, l.from * s)} at ${l.start} to ${fmtIn(s, unit, l.to * s)} at ${l.end}`
      : `${fmtIn(s, unit, l.from * s)} over ${l.start}\u2013${l.end}`)).join('; ')}), ` +
    `and ${changes.length} change${changes.length === 1 ? '' : 's'}: ` +
    changes.map((c) => `${c.kind === 'drift' ? `a drift over ${c.index}\u2013${c.end}` : `a step at ${c.index} (${name(c.index)})`} of ${label(c)}`).join('; ') +
    (disturbed.size ? `; disturbed commits (left out of the fit): ${[...disturbed].join(', ')}` : '') + '.';
  const labelX = (c) => (c.kind === 'drift' ? (c.index + c.end) / 2 : c.index - 0.5);
  const labelAnchor = (x) => ((x + 0.5) / n < 0.08 ? 'start' : (x + 0.5) / n > 0.92 ? 'end' : 'middle');
  // Smaller dots the more commits share the width.
  const dotRadius = n > 300 ? 1.2 : n > 100 ? 1.8 : 2.5;
  const colour = (c) => (c.cause === 'machine' ? 'var(--warn)' : c.regression == null ? 'currentColor' : c.regression ? 'var(--bad)' : 'var(--ok)');
  const figure = chartFigure({
    testid: 'history-chart',
    caption: `${series.name}: each commit's estimate with its interval, the fitted levels, and the changes.`,
    summary,
    draw: (width) => {
      const t0 = performance.now();
      const plot = Plot.plot({
        ...baseOptions(width),
        height: 240,
        marginTop: 26,
        x: { domain: [-0.5, n - 0.5], ticks: commitTicks(n, width), tickFormat: (i) => String(i), label: 'commit (position in the order) \u2192' },
        y: { label: `\u2191 ${series.name} (${unit})`, grid: true, nice: true },
        marks: [
          // The bands first (under everything): a drift's commits, and the
          // gap of a step (from the last commit before to the first after),
          // which also take the click that opens the comparison.
          Plot.rect(changes, {
            filter: (c) => c.kind === 'drift', x1: (c) => c.index - 0.5, x2: (c) => c.end + 0.5,
            fill: colour, fillOpacity: 0.12, className: 'history-drift-range',
          }),
          Plot.rect(changes, {
            filter: (c) => c.kind === 'step', x1: (c) => c.index - 1, x2: (c) => c.index,
            fill: 'transparent', className: 'history-change-hit',
          }),
          Plot.ruleX(changes, {
            filter: (c) => c.kind === 'step', x: (c) => c.index - 0.5,
            stroke: colour, strokeWidth: 2, strokeDasharray: '5 3', className: 'history-step',
          }),
          // A commit's interval and estimate: one path each for all the
          // commits (a rule and a round-capped dot per commit), not an
          // element per commit: a thousand commits drew in 100-170 ms as
          // Plot's elements, too long a task with a dozen charts.
          Plot.ruleX(points, {
            filter: (p) => p != null && !p.disturbed, x: 'i', y1: 'low', y2: 'high',
            render: (index, _scales, v) => onePath('interval', index, (i) => `M${v.x[i]},${v.y1[i]}V${v.y2[i]}`,
              { stroke: 'currentColor', 'stroke-opacity': 0.55, 'stroke-width': 1 }),
          }),
          Plot.ruleX(points, {
            filter: (p) => p != null && p.disturbed, x: 'i', y1: 'low', y2: 'high',
            stroke: 'var(--warn)', strokeOpacity: 0.8, className: 'history-disturbed-interval',
          }),
          Plot.dot(points, {
            filter: (p) => p != null && !p.disturbed, x: 'i', y: 'estimate',
            render: (index, _scales, v) => onePath('estimate', index, (i) => `M${v.x[i]},${v.y[i]}h0`,
              { stroke: 'currentColor', 'stroke-width': 2 * dotRadius, 'stroke-linecap': 'round' }),
          }),
          Plot.dot(points, {
            filter: (p) => p != null && p.disturbed, x: 'i', y: 'estimate', r: 4, symbol: 'times', stroke: 'var(--warn)', strokeWidth: 2, className: 'history-disturbed',
          }),
          // The fitted levels over the commits' marks, which many commits make a band.
          Plot.link(levels, {
            filter: (l) => l.kind !== 'drift', x1: (l) => l.start - 0.5, x2: (l) => l.end + 0.5, y1: 'from', y2: 'to',
            stroke: 'var(--accent)', strokeWidth: 2.5, className: 'history-level',
          }),
          Plot.link(levels, {
            filter: (l) => l.kind === 'drift', x1: 'start', x2: 'end', y1: 'from', y2: 'to',
            stroke: 'var(--accent)', strokeWidth: 2.5, className: 'history-drift',
          }),
          // A label near either end of the axis is anchored inward, so it stays inside the chart.
          ...['start', 'middle', 'end'].map((anchor) => Plot.text(changes, {
            filter: (c) => labelAnchor(labelX(c)) === anchor,
            x: labelX, frameAnchor: 'top', dy: -14, textAnchor: anchor,
            text: label, fill: colour, fontWeight: 'bold', className: 'history-change-label',
          })),
        ],
      });
      // The commit under the pointer, said under the chart (Plot's tip over
      // a thousand points cost 60 ms a chart to set up).
      const x = plot.scale('x');
      plot.addEventListener('pointermove', (e) => {
        const r = plot.getBoundingClientRect();
        if (!r.width) return;
        const i = Math.round(x.invert((e.clientX - r.left) * (width / r.width)));
        if (i >= 0 && i < n) point(i);
      });
      // A click on a change's band or rule opens the comparison of the two
      // commits around it (the keyboard's way is the table's button).
      for (const g of plot.querySelectorAll('g.history-drift-range, g.history-change-hit, g.history-step, g.history-change-label')) {
        g.style.cursor = 'pointer';
        for (const el of g.children) {
          const c = changes[el.__data__];
          if (!c) continue;
          el.dataset.change = String(el.__data__);
          el.addEventListener('click', () => open(c));
        }
      }
      performance.measure(`history chart ${series.name}`, { start: t0 });
      return plot;
    },
  });
  figure.dataset.series = series.name;
  figure.dataset.scale = String(s);
  figure.dataset.unit = unit;
  figure.dataset.commits = String(n);
  return figure;
}
