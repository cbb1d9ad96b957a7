// Execution statistics (METHODS.md §002): how much of a series' noise lives
// between process runs rather than inside one. Every number comes from the
// report's `execution_stats`; this module only formats them. Shared by the
// Samples cell (one block per series) and the Allocation cell.

import { h, table, numCell } from './dom.js';
import { fmtNum, fmtCount, fmtPercent, fmtLevel } from './units.js';

/** "estimate [lo, hi]" of a BootstrapCi, each end formatted with `fmt`. */
export function ciText(ci, fmt) {
  if (!ci) return '—';
  return `${fmt(ci.estimate)} [${fmt(ci.lo)}, ${fmt(ci.hi)}]`;
}

/** A cell holding an estimate and, below it, its interval; data-lo/hi for tests. */
export function ciCell(stat, ci, fmt, { title } = {}) {
  if (!ci) return numCell(stat, null, '—');
  return h('td', {
    class: 'num interval', dataset: { stat, value: ci.estimate, lo: ci.lo, hi: ci.hi },
    title: title ?? `${ci.estimate} (${fmtLevel(ci.confidence)} CI ${ci.lo} to ${ci.hi}; ${ci.resamples} resamples, seed ${ci.seed})`,
  }, fmt(ci.estimate), h('span', { class: 'sub ci' }, `${fmt(ci.lo)} to ${fmt(ci.hi)}`));
}

export const fmtFactor = (x) => (x == null || !Number.isFinite(x) ? '—' : `${fmtNum(x, { digits: 3 })}×`);

/** The plain-language explanation shown once above the per-series tables. */
export function executionExplain() {
  return h('div', { class: 'explain' },
    h('p', {}, 'Noise comes in two layers. ', h('strong', {}, 'Within an execution'),
      ', repeated measurements scatter (interrupts, timer resolution). ', h('strong', {}, 'Between executions'),
      ' — separate process runs — the whole level can shift (memory layout, page placement, frequency, what else the machine does). ',
      'More measurements in one run average away only the first layer; only more runs average away the second.'),
    h('p', {}, 'Following Kalibera & Jones (“Rigorous benchmarking in reasonable time”), the mean gets a random-effects interval ',
      'with variance components T₁² (between executions) and T₂² (within), and a hierarchical bootstrap interval (resampling executions, then measurements in each). ',
      'The ', h('strong', {}, 'impact factor'), ' (Hocko & Kalibera) is how much wider the spread of means over executions is than the spread over measurements of one run would predict: ',
      h('strong', {}, '1 = no execution effect'), '; 10 means run-to-run effects dominate. ',
      'The planning table gives the measurements per execution that minimise cost for a given cost of starting one execution, and the executions then needed for a ±1 % or ±5 % interval.'));
}

/**
 * One table of a series' execution statistics plus planning and modes.
 * `fmt(x)` formats a value in the series' unit.
 */
export function executionStatsBlock(name, es, fmt, unit) {
  if (!es) {
    return h('p', { class: 'muted', 'data-testid': 'no-execution-stats', dataset: { series: name } },
      `${name}: no execution statistics (an execution without measurements).`);
  }
  const re = es.random_effects;
  const single = es.single_measurement;
  const rows = [];
  const row = (label, sub, ...cells) => rows.push(h('tr', { 'data-testid': 'exec-stat-row' },
    h('th', { scope: 'row' }, label, sub ? h('span', { class: 'sub' }, sub) : null), ...cells));
  if (re) {
    const [lo, hi] = re.ci ?? [null, null];
    row('Mean', `random-effects ${fmtLevel(re.confidence)} CI (t, ${re.executions - 1} df)${re.balanced ? '' : ', unbalanced'}`,
      re.ci
        ? h('td', { class: 'num interval', dataset: { stat: 're-mean', value: re.mean, lo, hi }, title: `${re.mean} (${lo} to ${hi})` },
          fmt(re.mean), h('span', { class: 'sub ci' }, `${fmt(lo)} to ${fmt(hi)}`))
        : numCell('re-mean', re.mean, fmt(re.mean)));
  }
  if (es.mean_hierarchical) {
    row('Mean', 'hierarchical bootstrap CI', ciCell('mean-hierarchical', es.mean_hierarchical, fmt));
  }
  if (es.mean_bootstrap) {
    row('Mean', 'bootstrap CI (one measurement per execution)', ciCell('mean-bootstrap', es.mean_bootstrap, fmt));
  }
  if (!single) row('CV within executions', 'measurement noise', ciCell('cv-within', es.cv_within, fmtPercent));
  row('CV overall', 'all measurements pooled', ciCell('cv-overall', es.cv_overall, fmtPercent));
  if (!single) {
    row('Impact factor', `1 = no execution effect (${fmtCount(es.impact.pairs)} pairs of ${fmtCount(es.impact.group_size)})`,
      ciCell('impact-factor', es.impact_factor, fmtFactor));
  }
  if (re) {
    const u = unit ? ` ${unit}²` : '';
    row('T₁²', `variance between executions${u ? ',' + u : ''}`, numCell('t1-sq', re.t1_sq, fmtNum(re.t1_sq) + u));
    row('T₂²', `variance within executions${u ? ',' + u : ''}`, numCell('t2-sq', re.t2_sq, fmtNum(re.t2_sq) + u));
  }
  const stats = table({
    testid: 'exec-stats', className: 'data compact-table',
    columns: [name, { label: 'Estimate and CI', class: 'num' }],
    rows,
  });
  const planning = es.planning?.length
    ? table({
      testid: 'exec-planning', className: 'data compact-table',
      caption: 'Planning: for an execution costing as much as N measurements (start-up, warm-up).',
      columns: [
        { label: 'Execution cost', class: 'num', title: 'Cost of one execution, in measurements' },
        { label: 'Measurements / execution', class: 'num', title: 'Cost-optimal measurements per execution' },
        { label: 'Executions for ±1 %', class: 'num' },
        { label: 'Executions for ±5 %', class: 'num' },
      ],
      rows: es.planning.map((p) => h('tr', { 'data-testid': 'planning-row' },
        numCell('execution-cost', p.execution_cost, fmtCount(p.execution_cost)),
        numCell('measurements', p.measurements_per_execution, fmtCount(p.measurements_per_execution)),
        numCell('executions-1pct', p.executions_for_1pct, fmtCount(p.executions_for_1pct)),
        numCell('executions-5pct', p.executions_for_5pct, fmtCount(p.executions_for_5pct)))),
    })
    : null;
  const m = es.modes;
  const modes = h('p', { class: 'modes', 'data-testid': 'modes', dataset: { k: m?.k ?? '' } },
    h('strong', {}, 'Modes among execution means: '),
    m ? `${m.k} — ${m.rule}` : 'not determined (needs three executions with several measurements each).',
    m && m.k > 1 ? ` Centres: ${m.centres.map((c, i) => `${fmt(c)} (${m.sizes[i]} executions)`).join(', ')}.` : null);
  return h('div', { class: 'exec-block', 'data-testid': 'exec-block', dataset: { series: name } },
    h('div', { class: 'exec-tables' }, stats, planning), modes);
}
