// Execution statistics (METHODS.md §002): how much of a series' noise lives
// between process runs rather than inside one. Every number comes from the
// report's `execution_stats`; this module only formats them. Shared by the
// Samples cell (one block per series) and the Allocation cell.

import { h, table, numCell } from '../../ui/dom.js';
import { fmtNum, fmtCount, fmtPercent, fmtLevel, fmtProb, fmtFactor } from '../../ui/units.js';
import { ciCell } from '../../ui/ci.js';

/**
 * The impact factor's p-value as text: "p = 0.005", saying so when it is the
 * least the permutations can give (1 / (permutations + 1)); `short` (for a
 * table column): the number alone, "(least)" when it is that.
 */
export function fmtImpactP(nul, { short = false } = {}) {
  if (!nul) return '—';
  const least = Math.abs(nul.p_value - 1 / (nul.permutations + 1)) < 1e-12;
  if (short) return `${fmtProb(nul.p_value, 2)}${least ? ' (least)' : ''}`;
  return `p = ${fmtProb(nul.p_value, 2)}${least ? ` (the least ${fmtCount(nul.permutations)} shuffles give)` : ''}`;
}

/** The null band as text: what noise alone gives. */
export const fmtImpactBand = (nul) => (nul ? `${fmtFactor(nul.band[0])} to ${fmtFactor(nul.band[1])}` : '—');

/**
 * A cell with the p-value and, below it, the null band: the impact factor
 * on the measurements shuffled across executions. data-value is the
 * p-value, data-lo/hi the band, data-paper the paper's statistic's null mean.
 */
function impactNullCell(nul) {
  if (!nul) return numCell('impact-null', null, '—');
  return h('td', {
    class: 'num interval', dataset: { stat: 'impact-null', value: nul.p_value, lo: nul.band[0], hi: nul.band[1], paper: nul.paper_mean ?? '' },
    title: `p-value ${nul.p_value} from ${nul.permutations} shuffles of the measurements across executions (seed ${nul.seed}); ` +
      `their impact factors' central ${fmtLevel(nul.confidence)}: ${nul.band[0]} to ${nul.band[1]} (mean ${nul.mean})`,
  }, fmtImpactP(nul), h('span', { class: 'sub ci' }, 'noise alone: ',
    // The band's ends in spans of their own: a CSV of the table has a column for each.
    h('span', { dataset: { stat: 'impact-null_lo', value: nul.band[0] } }, fmtFactor(nul.band[0])), ' to ',
    h('span', { dataset: { stat: 'impact-null_hi', value: nul.band[1] } }, fmtFactor(nul.band[1]))));
}
/** The plain-language explanation shown once above the per-series tables. */
export function executionExplain() {
  return h('div', { class: 'explain' },
    h('p', {}, 'Noise comes in two layers. ', h('strong', {}, 'Within an execution'),
      ', repeated measurements scatter (interrupts, timer resolution). ', h('strong', {}, 'Between executions'),
      ' — separate process runs — the whole level can shift (memory layout, page placement, frequency, what else the machine does). ',
      'More measurements in one run average away only the first layer; only more runs average away the second.'),
    h('p', {}, 'Following Kalibera & Jones (“Rigorous benchmarking in reasonable time”), the mean gets a random-effects interval ',
      'with variance components T₁² (the variance within an execution) and T₂² (the variance between executions: what they add on top, the variance of execution means less its share of T₁²), and a hierarchical bootstrap interval (resampling executions, then measurements in each). ',
      'The planning table gives the measurements per execution that minimise cost for a given cost of starting one execution, and the executions then needed for a ±1 % or ±5 % interval.'),
    h('p', {}, 'The ', h('strong', {}, 'impact factor'), ' (after Hocko & Kalibera) is how much wider measurements spread across executions than within one: ',
      'the square root of the mean variance of measurements from different executions over the mean variance of measurements from one. ',
      h('strong', {}, '1 = no execution effect'), '; 3 means the spread across runs is three times the spread inside a run. ',
      'Its p-value is how often shuffling the measurements across executions — which removes any execution effect — gives a factor at least as large; ',
      '“noise alone” is the range the factor takes over those shuffles. ',
      'The paper’s own statistic (a mean of standard-deviation ratios of small groups) is shown too: it is above 1 even with no execution effect ',
      '(about 1.13 for groups of 6, 1.06 for 10, more for skewed data), so read it against its value under the shuffles. tickbook’s docs/methods.md has the details.'));
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
    row('Mean', `random-effects ${fmtLevel(re.confidence)} CI (t, ${re.executions - 1} df)${re.balanced ? '' : ', unbalanced'}`,
      re.ci
        ? ciCell('re-mean', { estimate: re.mean, lo: re.ci[0], hi: re.ci[1] }, fmt, { title: `${re.mean} (${re.ci[0]} to ${re.ci[1]})` })
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
    const nul = es.impact_null;
    row('Impact factor', '√(variance across executions ÷ within one); 1 = no execution effect',
      ciCell('impact-factor', es.impact_factor, fmtFactor));
    row('Impact factor with no execution effect', nul
      ? `${fmtCount(nul.permutations)} shuffles of the measurements across executions`
      : 'needs three executions, each with two measurements or more', impactNullCell(nul));
    row('Impact factor, the paper’s statistic', nul
      ? `Hocko & Kalibera: mean SD ratio of ${fmtCount(es.impact.pairs)} pairs of groups of ${fmtCount(nul.group_size)}; ${fmtFactor(nul.paper_mean)} with no execution effect`
      : 'Hocko & Kalibera: mean SD ratio of random group pairs',
    ciCell('impact-factor-paper', es.impact_factor_paper, fmtFactor));
  }
  if (re) {
    const u = unit ? ` ${unit}²` : '';
    row('T₁²', `variance within an execution${u ? ',' + u : ''}`, numCell('t1-sq', re.t1_sq, fmtNum(re.t1_sq) + u));
    row('T₂²', `variance executions add (between)${u ? ',' + u : ''}`, numCell('t2-sq', re.t2_sq, fmtNum(re.t2_sq) + u));
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
