// The Allocation cell (METHODS.md §002): page placement strategies and
// allocators under workloads, each configuration run as many separate
// executions. Rankings (the seed's Figures 6 and 8), geometric mean time
// ratios, the ECDF of impact factors on a log axis (Figure 9) and one row
// per configuration. Every number comes from the report's `alloc`.

import * as Plot from '@observablehq/plot';
import { h, table, numCell, later, svgEl } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtNum, fmtCount, fmtPercent, fmtBytes, fmtLevel, fmtFactor, fmtSeriesValue } from '../../ui/units.js';
import { cellSection, warningsList } from '../../ui/cell.js';
import { ciCell, ciText } from '../../ui/ci.js';
import { SERIES } from '../../ui/palette.js';
import { fmtImpactP, fmtImpactBand } from '../samples/executions.js';

const STRATEGY_TEXT = {
  default_4k: 'default 4 KiB pages, wherever the kernel puts them',
  thp_madvise: 'transparent huge pages requested with madvise(MADV_HUGEPAGE)',
  page_colouring: 'page colouring: pages remapped so consecutive pages take consecutive cache colours',
  bin_hopping: 'bin hopping: pages remapped to colours in the order they are touched',
};

export function build(report, key, ctx) {
  const a = report.alloc;
  const colour = (s) => SERIES[Math.max(0, a.strategies.indexOf(s)) % SERIES.length];
  const cc = a.colour_cache;
  return cellSection(ctx, report, key,
  a.partial
    ? h('div', { class: 'warnings partial-banner', role: 'note', 'data-testid': 'alloc-partial' },
      h('strong', {}, 'Partial run'), ' — the collector was stopped before it finished; only finished executions are shown, and some configurations may have fewer executions than planned.')
    : null,
  warningsList(report.warnings),
  h('div', { class: 'explain' },
    h('div', {}, 'Workloads (after SciMark2, plus a memory-bound kernel) at about ½×, 1× and 2× of a cache size, under page-placement strategies: ',
      h('ul', { class: 'strategy-list' }, a.strategies.map((s) => h('li', {}, h('code', {}, s), ' — ', STRATEGY_TEXT[s] ?? 'as recorded'))),
      'and allocators (the system allocator, mimalloc, jemalloc). ',
      cc ? `Colours: ${fmtCount(a.colours)}, from the L${cc.level} cache (${fmtBytes(cc.size_bytes)}, ${cc.ways}-way, ${cc.line_bytes}-byte lines). ` : 'No page colours (frame numbers hidden). '),
    h('p', {}, `Each configuration ran as ${fmtCount(a.executions_per_config)} separate executions (child processes, in a random order, seed ${a.schedule_seed}) of ${fmtCount(a.measurements_per_execution)} measurements each, so its mean and `,
      h('strong', {}, 'impact factor'), ' (how much wider measurements spread across executions than within one; 1 = no execution effect, p = how often shuffling the measurements across executions gives as much) come with intervals. Configurations that differ only in the strategy form a group; ',
      `in each group a strategy ranks first when no other is better by the comparison rule (CIs disjoint and difference above the threshold), tabulated at the seed’s thresholds (the toolbar’s threshold does not change these tables). ${fmtCount(a.groups)} groups.`)),
  h('div', { class: 'alloc-rankings' },
    rankingTable(a.mean_ranking, 'alloc-mean-ranking', 'Mean time: % of groups in which each strategy ranks first (Figure 6)', fmtPercent),
    rankingTable(a.impact_ranking, 'alloc-impact-ranking', 'Impact factor: % of groups in which each strategy ranks first (Figure 8)', (t) => fmtPercent(t)),
    ratioTable(a)),
  ecdfChart(a, colour),
  later(() => configsTable(a)));
}

function rankingTable(r, testid, caption, fmtT) {
  return table({
    testid, className: 'data compact-table', caption: `${caption}; ${fmtCount(r.groups)} groups with two or more strategies.`,
    columns: [{ label: 'Threshold', class: 'num' }, ...r.strategies.map((s) => ({ label: s, class: 'num' }))],
    rows: r.thresholds.map((t, ti) => h('tr', { 'data-testid': 'ranking-row', dataset: { threshold: t } },
      h('th', { scope: 'row', class: 'num' }, fmtT(t)),
      r.strategies.map((s, si) => {
        const v = r.first_percent[ti][si];
        return numCell(s, v, `${fmtNum(v, { digits: 3, exact: true })} %`, { className: 'num heat', title: `${s} ranks first in ${v} % of groups at threshold ${fmtT(t)}` });
      }))),
  });
}

function ratioTable(a) {
  return table({
    testid: 'alloc-time-ratios', className: 'data compact-table',
    caption: 'Geometric mean over groups of mean(strategy) / mean(default_4k): below 1 is faster.',
    columns: ['Strategy', { label: 'Time ratio', class: 'num' }, { label: 'Groups', class: 'num' }],
    rows: a.time_ratios.map((r) => h('tr', { 'data-testid': 'ratio-row', dataset: { strategy: r.strategy } },
      h('th', { scope: 'row' }, h('code', {}, r.strategy)),
      numCell('geometric-mean', r.geometric_mean, fmtFactor(r.geometric_mean),
        { className: ['num', r.geometric_mean > 1 ? 'bad' : r.geometric_mean < 1 ? 'good' : ''].join(' ') }),
      numCell('groups', r.groups, fmtCount(r.groups)))),
  });
}

function ecdfChart(a, colour) {
  const points = a.impact_ecdf.flatMap((e) => e.points.map(([x, F]) => ({ strategy: e.strategy, x, F })))
    .filter((p) => p.x > 0);
  const summary = 'ECDF of impact-factor estimates per strategy on a log x axis: ' +
    a.impact_ecdf.map((e) => `${e.strategy}: ${e.points.length} configurations, ` +
      (e.points.length ? `from ${fmtNum(e.points[0][0], { digits: 3 })} to ${fmtNum(e.points[e.points.length - 1][0], { digits: 3 })}` : 'none')).join('; ') + '.';
  const fig = chartFigure({
    testid: 'alloc-ecdf',
    caption: 'Impact factors by strategy (Figure 9): the share of configurations with an impact factor at most x. Further left = less run-to-run variation; 1 = none.',
    summary,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: 300,
      marginLeft: 52,
      marginRight: 36,
      marginBottom: 40,
      // Factors as plain numbers at 1, 2 and 5 × 10^k (Plot's default log
      // labels put an SI prefix on a factor: "100m" for 0.1).
      x: { type: 'log', label: 'impact factor (log scale; 1 = no execution effect) →', labelAnchor: 'center', grid: true, nice: true, tickFormat: factorTick },
      y: { domain: [0, 1], label: '↑ share of configurations', grid: true, tickFormat: (v) => `${Math.round(v * 100)} %` },
      color: { domain: a.strategies, range: a.strategies.map(colour), legend: true },
      marks: [
        Plot.ruleX([1], { stroke: 'currentColor', strokeOpacity: 0.5, strokeDasharray: '4 3' }),
        Plot.ruleY([0]),
        Plot.line(points, { x: 'x', y: 'F', stroke: 'strategy', curve: 'step-after', strokeWidth: 2 }),
        Plot.dot(points, { x: 'x', y: 'F', fill: 'strategy', r: 3, title: (p) => `${p.strategy}: impact factor ${fmtNum(p.x, { digits: 4 })}, F = ${fmtNum(p.F, { digits: 3 })}`, tip: true }),
      ],
    }),
  });
  fig.dataset.points = String(points.length);
  return fig;
}

/** A log axis tick: 1, 2 or 5 × 10^k as a plain number, the others unlabelled. */
function factorTick(v) {
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = v / 10 ** e;
  return [1, 2, 5].some((k) => Math.abs(m - k) < 1e-6) ? fmtNum(v, { digits: 3, exact: true }) : '';
}

function sparkline(hist, misses) {
  if (!hist?.length) return h('span', { class: 'muted' }, '—');
  const max = Math.max(...hist, 1);
  const W = 2 * hist.length + 1;
  // One path of bars, not a rect per colour: a run has ~70 configurations
  // of up to thousands of colours each, and a node per bar made this cell
  // the slowest to build and lay out.
  let d = '';
  hist.forEach((v, i) => {
    const hgt = Math.max(v > 0 ? 1 : 0, (v / max) * 19);
    if (hgt > 0) d += `M${1 + i * 2} ${20 - hgt}h1.5V20h-1.5Z`;
  });
  const svg = svgEl('svg', { viewBox: `0 0 ${W} 20`, class: 'spark', width: Math.min(140, W * 2), height: 20, 'aria-hidden': 'true' },
    svgEl('path', { d }));
  const total = hist.reduce((s, v) => s + v, 0);
  return h('span', {
    class: 'spark-wrap', title: `pages per colour (${hist.length} colours, ${fmtCount(total)} pages): ${hist.join(', ')}` +
      (misses != null ? `; ${fmtCount(misses)} pages not of the wanted colour` : ''),
  }, svg, misses != null ? h('span', { class: ['sub', misses > 0 ? 'bad' : ''] }, `${fmtCount(misses)} misses`) : null);
}

/** The impact factor cell's tooltip: its interval, the null and the paper's statistic. */
function impactTitle(s) {
  const f = s?.impact_factor;
  if (!f) return undefined;
  const nul = s.impact_null;
  const paper = s.impact_factor_paper;
  return `impact factor ${f.estimate} (${fmtLevel(f.confidence)} CI ${f.lo} to ${f.hi})` +
    (nul ? `; ${fmtImpactP(nul)}, noise alone ${fmtImpactBand(nul)}` : '') +
    (paper ? `; the paper’s statistic (Hocko & Kalibera) ${ciText(paper, fmtFactor)}, ${fmtFactor(nul?.paper_mean)} with no execution effect` : '');
}

function configsTable(a) {
  const rows = a.configs.map((c, i) => {
    const s = c.stats;
    const meanCi = s?.mean_hierarchical ?? s?.mean_bootstrap;
    const fmt = (v) => fmtSeriesValue(v, { unit: c.unit, unit_ns: c.unit === 'ns' ? 1 : null });
    const failures = c.failures.map(([m, n]) => `${n}× ${m}`).join('\n');
    return h('tr', { 'data-testid': 'alloc-config-row', class: c.available ? null : 'unavailable', dataset: { index: i, strategy: c.strategy, allocator: c.allocator, workload: c.workload } },
      h('th', { scope: 'row' }, h('code', {}, c.workload)),
      h('td', { dataset: { stat: 'size', value: c.size_factor } }, `${fmtNum(c.size_factor, { digits: 2, exact: true })}× ${c.cache}`,
        h('span', { class: 'sub' }, fmtBytes(c.working_set_bytes))),
      h('td', {}, h('code', {}, c.strategy)),
      h('td', {}, c.allocator),
      c.available
        ? h('td', { class: 'num', dataset: { stat: 'executions', value: c.executions_ok, failed: c.executions_failed }, title: failures || 'no failed executions' },
          `${fmtCount(c.executions_ok)} ok`,
          c.executions_failed
            ? h('details', { class: 'failures' }, h('summary', { class: 'bad' }, `${fmtCount(c.executions_failed)} failed`),
              h('ul', {}, c.failures.map(([m, n]) => h('li', {}, `${n}× `, m))))
            : null)
        : h('td', { colspan: 8, class: 'wrap muted', title: c.unavailable_reason ?? '' }, `not run: ${c.unavailable_reason ?? 'no reason recorded'}`),
      c.available ? ciCell('mean', meanCi, fmt) : null,
      c.available ? ciCell('ratio-to-baseline', c.ratio_to_baseline, fmtFactor) : null,
      c.available ? ciCell('impact-factor', s?.impact_factor, fmtFactor, { title: impactTitle(s) }) : null,
      c.available ? numCell('impact-p', s?.impact_null?.p_value, fmtImpactP(s?.impact_null, { short: true }), { title: s?.impact_null ? `${fmtImpactP(s.impact_null)}; noise alone: ${fmtImpactBand(s.impact_null)}` : undefined }) : null,
      c.available ? ciCell('cv-within', s?.cv_within, fmtPercent) : null,
      c.available ? numCell('huge-page-share', c.huge_page_share, fmtPercent(c.huge_page_share)) : null,
      c.available ? h('td', { class: 'spark-cell' }, sparkline(c.colour_histogram, c.colour_misses)) : null);
  });
  return h('div', { class: 'alloc-configs' },
    h('h3', {}, `Configurations (${fmtCount(a.configs.length)})`),
    table({
      testid: 'alloc-configs',
      caption: 'Mean: hierarchical bootstrap CI over executions. × default_4k: ratio of means with its CI. Impact factor: √(variance across executions ÷ within one), 1 = no execution effect, with p from shuffles of the measurements across executions (the paper’s statistic in the tooltip). Colours: pages per cache colour over all executions (flat = evenly spread); misses = pages that did not get the wanted colour.',
      columns: ['Workload', 'Size', 'Strategy', 'Allocator', { label: 'Executions', class: 'num' },
        { label: 'Mean', class: 'num' },
        { label: '× default_4k', class: 'num', title: 'Mean time over the same workload, size and allocator under default_4k, with a CI from resampling both configurations by execution' },
        { label: 'Impact factor', class: 'num' },
        { label: 'p (impact)', class: 'num', title: 'How often shuffling the measurements across executions (no execution effect) gives an impact factor as large' },
        { label: 'CV within', class: 'num' },
        { label: 'Huge pages', class: 'num', title: 'Mean share of the working set on huge pages' }, 'Colours'],
      rows,
    }));
}
