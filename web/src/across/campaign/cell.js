// The Campaign cell: files of one configuration from several machines as one
// campaign (report::campaign, the worker's `campaign` call, `tickbook analyze
// --campaign --json`). Per suite, each item's machines side by side (the mean
// of a machine's execution means with its interval, and whether it stands out
// from the others), then the variance of one measurement split into what the
// measurements, the executions and the machines add, the impact factor of the
// two upper levels with their intervals and the F test's p-value of "the
// level adds nothing", and the cheapest campaign for ±1 %. Formatting only.

import { h, numCell, table } from '../../ui/dom.js';
import { fmtPercent, fmtFactor, fmtProb, scaleOf, ciDecimals } from '../../ui/units.js';

// Rows a table shows before its Show all button (dom.js showMore).
const FIRST_ROWS = 30;

/** A machine's mean with its interval, scaled to the item's unit. */
function machineCell(v, item) {
  if (!v) return h('td', { class: 'missing', 'data-testid': 'campaign-machine', dataset: { value: '' } }, '\u2014');
  const [s, unit] = scaleOf(v.mean, item);
  const x = v.mean / s;
  const ci = v.ci ? [v.ci[0] / s, v.ci[1] / s] : null;
  const d = ci ? ciDecimals(x, ci[0], ci[1]) : ciDecimals(x, x, x);
  return h('td', {
    class: ['num', v.stands_out && 'stands-out'],
    'data-testid': 'campaign-machine',
    dataset: { value: String(v.mean), executions: String(v.executions), standsOut: String(v.stands_out ?? '') },
    title: `${v.executions} executions${v.stands_out ? ': outside the other machines\u2019 prediction interval' : ''}`,
  },
  h('span', { class: 'value' }, `${x.toFixed(d)}\u202f${unit}`),
  ci ? h('span', { class: 'ci' }, ` [${ci[0].toFixed(d)}, ${ci[1].toFixed(d)}]`) : null,
  h('span', { class: 'muted' }, ` (${v.executions}\u00d7)`),
  v.stands_out ? h('strong', { class: 'stands-out-mark' }, ' stands out') : null);
}

/**
 * A factor, muted its interval, and the F test's p-value of "the level adds
 * nothing" (stats::levels); the point value alone where the level has no
 * interval.
 */
function impactCell(level) {
  const ci = level?.impact_ci;
  const value = ci?.estimate ?? level?.impact;
  if (value == null) {
    const td = numCell('impact', null, '');
    td.dataset.testid = 'campaign-impact';
    return td;
  }
  const p = level.p_value;
  const text = [
    h('span', { class: 'value' }, fmtFactor(value)),
    ci ? h('span', { class: 'ci' }, ` [${fmtFactor(ci.lo)}, ${fmtFactor(ci.hi)}]`) : null,
    p == null ? null : h('span', { class: 'p muted' }, `, p\u202f=\u202f${fmtProb(p, 2)}`),
  ];
  return h('td', {
    class: 'num',
    'data-testid': 'campaign-impact',
    dataset: { value: String(value), lo: String(ci?.lo ?? ''), hi: String(ci?.hi ?? ''), p: String(p ?? ''), unit: level.unit },
    title: `${fmtPercent(ci?.confidence ?? 0.95)} interval from the F distribution (exact when balanced); p: the F test of \u201cno ${level.unit} effect\u201d (docs/methods.md)`,
  }, text);
}

function shareCell(level) {
  const td = numCell('share', level?.share ?? null, level?.share == null ? '' : fmtPercent(level.share));
  td.dataset.testid = 'campaign-share';
  td.dataset.unit = level?.unit ?? '';
  return td;
}

/** The plan for ±1 % when a machine costs ten executions (the terminal's column). */
function planCell(item) {
  const p = item.plans.find((q) => q.machine_cost === 10 && q.rel_half_width === 0.01);
  const range = p?.executions_per_machine_range;
  const rangeText = range ? ` (${range[0]}\u2013${range[1] ?? '\u221e'})` : '';
  const text = !p || p.machines == null ? '\u2014'
    : p.executions_per_machine == null ? `${p.machines} machines (any split)`
      : `${p.machines} machines \u00d7 ${p.executions_per_machine}${rangeText}`;
  return h('td', {
    'data-testid': 'campaign-plan',
    dataset: {
      machines: String(p?.machines ?? ''),
      executions: String(p?.executions_per_machine ?? ''),
      range: range ? `${range[0]},${range[1] ?? ''}` : '',
    },
    title: 'the fewest machines for a 95 % interval of \u00b11 % of the mean, with the executions per machine that cost least when a machine costs as much as ten executions, and in brackets that optimum over the machine factor\u2019s interval (\u221e: the interval reaches no machine effect; docs/methods.md)',
  }, text);
}

function suiteBlock(report, suite) {
  const machines = report.machines;
  const items = suite.items;
  const side = table({
    testid: 'campaign-machines',
    caption: `${suite.suite}: machines side by side (mean of execution means [interval], executions)`,
    columns: ['item', ...machines],
    rows: [],
    lazy: {
      count: items.length, first: FIRST_ROWS,
      build: (i) => h('tr', { 'data-testid': 'campaign-row', dataset: { key: items[i].key } },
        h('th', { scope: 'row' }, items[i].key),
        machines.map((_, m) => machineCell(items[i].machines[m], items[i]))),
    },
  });
  const split = table({
    testid: 'campaign-split',
    caption: `${suite.suite}: share of one measurement\u2019s variance each level adds, and impact factors`,
    columns: ['item', 'within executions', 'between executions', 'between machines', 'impact: executions [CI], p', 'impact: machines [CI], p', 'for \u00b11 % (machine = 10 executions; optimum range)'],
    rows: [],
    lazy: {
      count: items.length, first: FIRST_ROWS,
      build: (i) => {
        const it = items[i];
        const lv = it.components?.levels ?? [];
        return h('tr', { 'data-testid': 'campaign-split-row', dataset: { key: it.key } },
          h('th', { scope: 'row' }, it.key),
          shareCell(lv[0]), shareCell(lv[1]), shareCell(lv[2]),
          impactCell(lv[1]), impactCell(lv[2]), planCell(it));
      },
    },
  });
  const note = items.map((i) => i.components?.ci_note).find(Boolean);
  return h('div', { class: 'campaign-suite', 'data-testid': 'campaign-suite', dataset: { suite: suite.suite } },
    side, split, note ? h('p', { class: 'muted' }, `(${note})`) : null);
}

/** The cell for a CampaignReport. */
export function campaignCell(report) {
  const read = report.files.filter((f) => f.ok).length;
  return h('section', { class: 'cell campaign', 'data-testid': 'campaign-cell' },
    h('h2', {}, 'Campaign'),
    h('p', { class: 'muted', 'data-testid': 'campaign-summary', dataset: { files: String(read), machines: String(report.machines.length) } },
      `${read} files from ${report.machines.length} machines: each file an execution, grouped by machine (a campaign task\u2019s node, else the host name).`),
    report.suites.map((s) => suiteBlock(report, s)));
}

/**
 * Whether the loaded files make a campaign worth a cell: two machines or
 * more, one of them with two executions or more (two files from two hosts
 * are a comparison, not a campaign).
 */
export function isCampaign(report) {
  const perMachine = new Map();
  for (const f of report.files) if (f.machine != null) perMachine.set(f.machine, (perMachine.get(f.machine) ?? 0) + 1);
  return perMachine.size >= 2 && [...perMachine.values()].some((n) => n >= 2) && report.suites.length > 0;
}
