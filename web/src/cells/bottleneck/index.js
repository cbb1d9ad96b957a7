// The Bottlenecks cell (MTOOL): each region's measured time
// against its prediction as if every access hit L1, the overhead
// (measured − predicted) / predicted sorted largest first as a bar split into
// predicted time and memory overhead, overhead against working-set size per
// kernel with the cache sizes drawn, the share of time the predictions
// explain, and the jump in overhead at each cache boundary. Every number is
// the report's `bottleneck`; this module only formats it.

import * as Plot from '@observablehq/plot';
import { h, table, numCell } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtNum, fmtCount, fmtNs, fmtPercent, fmtBytes, fmtSigned as fmtOverhead } from '../../ui/units.js';
import { cellSection, warningsList } from '../../ui/cell.js';
import { ciCell } from '../../ui/ci.js';
import { CATEGORICAL, SERIES } from '../../ui/palette.js';

const counted = (c) => c.timable && c.overhead != null;

export function build(report, key, ctx) {
  const b = report.bottleneck;
  const e = b.explained;
  const caches = b.caches.map((x) => `${x.name} ${fmtBytes(x.bytes)}`).join(', ');
  return cellSection(ctx, report, key,
  warningsList(report.warnings),
  h('div', { class: 'explain' },
    h('p', {}, 'MTOOL’s method: each region’s time is ', h('strong', {}, 'predicted'),
      ' from its exact operation counts × per-operation costs measured in the same run, as if every memory access hit L1; the ',
      h('strong', {}, 'overhead'), ' is (measured − predicted) / predicted. ',
      'The prediction for an out-of-order core is the busiest resource class (loads and stores; floating adds, multiplies and FMAs; integer operations and loop branches, each Σ count × throughput cost) or the dependency chain (Σ count × latency cost), whichever is longer. ',
      `Working sets cross the caches (${caches || 'cache sizes not recorded'}).`),
    h('p', {}, `Regions are timed by ${b.clock} (tick ${fmtNs(b.tick_ns)}, one read ${fmtNs(b.read_cost_ns)}); `,
      `a region is timable when its shortest repetition lasts at least ${fmtCount(b.min_tick_multiple)} ticks and ${fmtCount(b.min_read_multiple)} clock reads. `,
      'Regions that are not are listed but neither ranked nor counted. Overhead CIs resample both the region’s repetitions and the cost sequences’ repetitions. ',
      'Method and JSON keys: docs/format.md and docs/cli.md, “bottleneck”.')),
  h('dl', { class: 'facts bottleneck-explained', 'data-testid': 'bottleneck-explained' },
    fact('Regions counted', 'regions', e.regions, fmtCount(e.regions)),
    fact('Not timable or not predicted', 'excluded', e.excluded, fmtCount(e.excluded)),
    fact('Time explained by the L1 predictions', 'explained-share', e.explained_share, fmtPercent(e.explained_share)),
    fact('Unexplained (memory overhead)', 'unexplained-share', e.unexplained_share, `${fmtPercent(e.unexplained_share)} (${fmtNs(e.unexplained_ns)})`),
    fact('Memory operations covered', 'memory-ops-covered', e.memory_ops_covered, fmtPercent(e.memory_ops_covered))),
  overheadBars(b),
  overheadCurves(b),
  crossingsTable(b),
  casesTable(b),
  costsTable(b));
}

function fact(label, stat, value, text) {
  return h('div', {}, h('dt', {}, label),
    h('dd', { 'data-testid': `bottleneck-${stat}`, dataset: { value: value == null ? '' : String(value) } }, value == null ? '—' : text));
}

/** MTOOL's histogram: regions sorted by overhead, each bar the measured time split into predicted and overhead. */
function overheadBars(b) {
  const rows = b.by_overhead.map((i) => b.cases[i]);
  const label = (c) => `${c.kernel} ${fmtBytes(c.working_set_bytes)}`;
  const data = [];
  for (const c of rows) {
    const m = c.measured_ns.estimate;
    const p = c.predicted_ns;
    const share = Math.min(1, p / m);
    const title = `${label(c)} (${c.level}): measured ${fmtNs(m)}, predicted ${fmtNs(p)} (bound: ${c.bound}), overhead ${fmtOverhead(c.overhead.estimate)}`;
    data.push({ region: label(c), part: 'predicted', share, title });
    data.push({ region: label(c), part: 'memory overhead', share: 1 - share, title });
  }
  const order = rows.map(label);
  // The bar labels to three significant digits and at most a thousandth (the
  // tooltip keeps every digit): a tiny overhead such as −0.0000905 is zero at
  // any precision the bars can show.
  const barLabel = (c) => {
    const o = c.overhead.estimate;
    const r = Math.abs(o) >= 0.1 ? o : Math.round(o * 1000) / 1000;
    return r === 0 ? '0' : fmtOverhead(r);
  };
  // Room on the right for the longest label (about 7 px a character at 11 px).
  const marginRight = Math.max(70, 12 + 7 * Math.max(0, ...rows.map((c) => barLabel(c).length)));
  const top = rows[0];
  const summary = rows.length
    ? `${rows.length} timable regions sorted by overhead; largest ${label(top)} at ${fmtOverhead(top.overhead.estimate)}, smallest ${label(rows[rows.length - 1])} at ${fmtOverhead(rows[rows.length - 1].overhead.estimate)}.`
    : 'No timable region with a prediction.';
  const fig = chartFigure({
    testid: 'bottleneck-bars',
    caption: 'Share of each region’s measured time that the L1 prediction explains (blue) and the memory overhead (orange), largest overhead first; the label is the overhead (three significant digits, at most to a thousandth).',
    summary,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: 40 + 16 * order.length,
      marginLeft: 170,
      marginRight,
      // Shares are fractions: the axis labels them as percentages (Plot's
      // `percent` would multiply the values by 100 against a [0, 1] domain).
      x: { domain: [0, 1], label: 'share of measured time →', tickFormat: (v) => `${Math.round(v * 100)}\u202f%` },
      y: { domain: order, label: null, tickSize: 0 },
      color: { domain: ['predicted', 'memory overhead'], range: [SERIES[0], CATEGORICAL[1]], legend: true },
      marks: [
        Plot.barX(data, Plot.stackX({ x: 'share', y: 'region', fill: 'part', order: ['predicted', 'memory overhead'], title: 'title', inset: 0.5 })),
        Plot.text(rows, { x: 1, y: label, text: barLabel, textAnchor: 'start', dx: 4, fontSize: 11 }),
      ],
    }),
  });
  fig.dataset.bars = String(rows.length);
  return fig;
}

/**
 * Overhead against working-set size, one line per kernel, cache sizes as rules.
 * The y axis is logarithmic in measured / predicted = 1 + overhead (never
 * below 0), labelled as the overhead, with ticks where the points are; the x
 * axis is logarithmic with ticks at powers of two, labelled exactly.
 */
function overheadCurves(b) {
  const pts = b.cases.filter(counted).map((c) => ({
    kernel: c.kernel, bytes: c.working_set_bytes, overhead: c.overhead.estimate, lo: c.overhead.lo, hi: c.overhead.hi,
    title: `${c.kernel} ${fmtBytes(c.working_set_bytes)} (${c.level}): overhead ${fmtOverhead(c.overhead.estimate)} [${fmtOverhead(c.overhead.lo)}, ${fmtOverhead(c.overhead.hi)}]`,
  }));
  const kernels = [...new Set(pts.map((p) => p.kernel))];
  const summary = kernels.map((k) => {
    const ks = pts.filter((p) => p.kernel === k);
    return `${k}: ${fmtOverhead(ks[0].overhead)} at ${fmtBytes(ks[0].bytes)} to ${fmtOverhead(ks[ks.length - 1].overhead)} at ${fmtBytes(ks[ks.length - 1].bytes)}`;
  }).join('; ');
  // A symmetric log scale drawn by hand on a linear one (Plot's own symlog
  // and log scales label only ticks they deem round): linear within ±0.1,
  // logarithmic beyond, so that −0.2…+3, where most regions are, gets room
  // next to the few of +100 and more.
  const ys = pts.flatMap((p) => [p.overhead, p.lo, p.hi]).filter((v) => v != null).map(symlog);
  const pad = ys.length ? 0.04 * Math.max(Math.max(...ys) - Math.min(...ys), 0.5) : 0;
  const yDomain = ys.length ? [Math.min(0, ...ys) - pad, Math.max(0, ...ys) + pad] : [symlog(-0.1), symlog(1)];
  const sizes = [...pts.map((p) => p.bytes), ...b.caches.map((c) => c.bytes)].filter((v) => v > 0);
  const xDomain = sizes.length ? [Math.min(...sizes) / 1.25, Math.max(...sizes) * 1.25] : [1024, 2 ** 20];
  const height = 360;
  const margin = { top: 24, bottom: 36 };
  const fig = chartFigure({
    testid: 'bottleneck-curves',
    caption: 'Overhead (measured − predicted) / predicted against working-set size, per kernel, with its CI; logarithmic axes (the vertical one linear within ±0.1). Vertical rules: cache sizes.',
    summary: summary || 'No timable region with a prediction.',
    draw: (width) => {
      const plotWidth = width - 56 - 20;
      return Plot.plot({
        ...baseOptions(width),
        height,
        marginLeft: 56,
        marginRight: 20,
        marginTop: margin.top,
        marginBottom: margin.bottom,
        // Base 2, so that the labels of the powers of two are kept.
        x: { type: 'log', base: 2, domain: xDomain, label: 'working set →', ticks: binaryTicks(xDomain, plotWidth), tickFormat: (v) => fmtBytes(v) },
        y: {
          domain: yDomain, label: '↑ overhead', grid: true,
          ticks: overheadTicks(yDomain, height - margin.top - margin.bottom).map(symlog),
          tickFormat: (t) => fmtOverheadTick(unsymlog(t)),
        },
        color: { domain: kernels, range: CATEGORICAL, legend: true },
        marks: [
          Plot.ruleY([0], { stroke: 'currentColor', strokeOpacity: 0.5 }),
          Plot.ruleX(b.caches, { x: 'bytes', stroke: 'var(--muted, #888)', strokeDasharray: '4 3' }),
          Plot.text(b.caches, { x: 'bytes', frameAnchor: 'top', text: 'name', dy: -12, dx: 3, textAnchor: 'start', fill: 'var(--muted, #888)' }),
          Plot.ruleX(pts, { x: 'bytes', y1: (p) => symlog(p.lo), y2: (p) => symlog(p.hi), stroke: 'kernel', strokeOpacity: 0.4 }),
          Plot.line(pts, { x: 'bytes', y: (p) => symlog(p.overhead), stroke: 'kernel' }),
          Plot.dot(pts, { x: 'bytes', y: (p) => symlog(p.overhead), fill: 'kernel', r: 3, title: 'title', className: 'bottleneck-point' }),
        ],
      });
    },
  });
  fig.dataset.points = String(pts.length);
  return fig;
}

/** Powers of two inside [lo, hi], every 2^k-th so that labels stay ~70 px apart. */
function binaryTicks([lo, hi], px) {
  const k0 = Math.ceil(Math.log2(lo));
  const k1 = Math.floor(Math.log2(hi));
  const perPower = px / Math.max(Math.log2(hi / lo), 1e-9);
  const step = [1, 2, 5, 10, 20].find((s) => s * perPower >= 70) ?? 20;
  const ticks = [];
  for (let k = Math.ceil(k0 / step) * step; k <= k1; k += step) ticks.push(2 ** k);
  return ticks;
}

// Candidate overhead ticks, most wanted first: 0, then decades, then the
// steps between them.
const OVERHEAD_TICKS = [0, 1, 10, 100, 1000, 0.1, -0.1, -0.5, 3, 30, 300, 0.3, -0.3, 0.5, 2, 5, 20, 50, 200, 500,
  0.2, -0.2, 0.05, -0.05, -0.9, 0.02, -0.02, 0.01, -0.01, -0.99];

const SYMLOG_LINEAR = 0.1;
const symlog = (v) => Math.sign(v) * Math.log10(1 + Math.abs(v) / SYMLOG_LINEAR);
const unsymlog = (t) => Math.sign(t) * SYMLOG_LINEAR * (10 ** Math.abs(t) - 1);

/** Overhead ticks inside the (symlog) domain, at least 18 px apart. */
function overheadTicks([lo, hi], px) {
  const pos = (v) => (symlog(v) - lo) / (hi - lo) * px;
  const chosen = [];
  for (const v of OVERHEAD_TICKS) {
    if (symlog(v) < lo || symlog(v) > hi) continue;
    if (chosen.every((c) => Math.abs(pos(c) - pos(v)) >= 18)) chosen.push(v);
  }
  return chosen.sort((a, b) => a - b);
}

function fmtOverheadTick(v) {
  const r = Math.round(v * 1000) / 1000;
  return r === 0 ? '0' : `${r > 0 ? '+' : '−'}${fmtNum(Math.abs(r), { digits: 3, exact: true })}`;
}

function crossingsTable(b) {
  const rows = [];
  for (const k of b.kernels) {
    for (const x of k.crossings) {
      rows.push(h('tr', { 'data-testid': 'bottleneck-crossing', dataset: { kernel: k.name, from: x.from_level, to: x.to_level } },
        h('th', { scope: 'row' }, h('code', {}, k.name)),
        h('td', {}, `${x.from_level} → ${x.to_level}`),
        numCell('from-bytes', x.from_bytes, fmtBytes(x.from_bytes)),
        numCell('to-bytes', x.to_bytes, fmtBytes(x.to_bytes)),
        numCell('overhead-before', x.overhead_before, fmtOverhead(x.overhead_before)),
        numCell('overhead-after', x.overhead_after, fmtOverhead(x.overhead_after)),
        numCell('jump', x.jump, fmtOverhead(x.jump))));
    }
  }
  const notes = b.kernels.filter((k) => k.size_note).map((k) => h('li', {}, h('code', {}, k.name), ': ', k.size_note));
  return h('div', { class: 'bottleneck-crossings' },
    h('h3', {}, 'Overhead at the cache boundaries'),
    table({
      testid: 'bottleneck-crossings',
      caption: 'For each boundary a kernel’s sizes cross: the overhead of the last size inside and of the first size beyond.',
      columns: ['Kernel', 'Boundary', { label: 'Last inside', class: 'num' }, { label: 'First beyond', class: 'num' },
        { label: 'Overhead before', class: 'num' }, { label: 'Overhead after', class: 'num' }, { label: 'Jump', class: 'num' }],
      rows,
    }),
    notes.length ? h('ul', { class: 'muted' }, notes) : null);
}

function casesTable(b) {
  const rows = b.cases.map((c, i) => h('tr', {
    'data-testid': 'bottleneck-row',
    class: counted(c) ? null : 'muted',
    dataset: { index: i, kernel: c.kernel, bytes: c.working_set_bytes, passes: c.passes, timable: String(c.timable) },
  },
  h('th', { scope: 'row' }, h('code', {}, c.kernel)),
  numCell('working-set', c.working_set_bytes, fmtBytes(c.working_set_bytes), { unit: 'B' }),
  h('td', {}, c.level),
  h('td', {}, c.shape),
  numCell('passes', c.passes, fmtCount(c.passes)),
  ciCell('measured', c.measured_ns, (v) => fmtNs(v)),
  numCell('predicted', c.predicted_ns, fmtNs(c.predicted_ns), { unit: 'ns' }),
  h('td', {}, c.bound ?? '—'),
  numCell('serial', c.serial_ns, fmtNs(c.serial_ns), { unit: 'ns' }),
  c.timable
    ? (c.overhead ? ciCell('overhead', c.overhead, fmtOverhead) : h('td', { class: 'muted' }, `no prediction: missing ${c.missing_costs.join(', ')}`))
    : h('td', { class: 'muted', 'data-testid': 'bottleneck-untimable', title: c.untimable_reason ?? '' }, `not timable: ${c.untimable_reason ?? ''}`)));
  return h('div', { class: 'bottleneck-cases' },
    h('h3', {}, `Regions (${fmtCount(b.cases.length)})`),
    table({
      testid: 'bottleneck-table',
      caption: 'Every region in run order. Measured: median over repetitions with its bootstrap CI. Predicted: the L1 prediction and the class that bounds it. Serial: the in-order sum of every operation’s cost (MTOOL’s original estimate, an upper bound for an out-of-order core).',
      columns: ['Kernel', { label: 'Working set', class: 'num' }, 'Fits in', 'Shape', { label: 'Passes', class: 'num' },
        { label: 'Measured', class: 'num' }, { label: 'Predicted', class: 'num' }, 'Bound', { label: 'Serial', class: 'num' },
        { label: 'Overhead', class: 'num' }],
      rows,
    }));
}

function costsTable(b) {
  const rows = b.costs.map((c) => h('tr', { 'data-testid': 'bottleneck-cost', dataset: { name: c.name, form: c.form } },
    h('th', { scope: 'row' }, h('code', {}, c.name)),
    h('td', {}, c.form),
    h('td', {}, c.instruction ? h('code', {}, c.instruction) : '—'),
    c.ns ? ciCell('ns', c.ns, (v) => fmtNs(v)) : numCell('ns', null, '—')));
  return h('details', { class: 'bottleneck-costs' },
    h('summary', {}, `Operation costs used by the predictions (${fmtCount(b.costs.length)})`),
    table({
      testid: 'bottleneck-costs',
      caption: 'Per operation: median over repetitions of (t(2n) − t(n)) / n, timed in this run.',
      columns: ['Operation', 'Form', 'Instruction', { label: 'ns per op', class: 'num' }],
      rows,
    }));
}

