// The Clocks cell: what each clock costs to read, how fine it ticks, whether
// it ever went backwards, and how well the TSC frequency sources agree.
// Every number is a field of the report's `clocks` (ClocksReport).

import { h, table, numCell } from '../../ui/dom.js';
import { fmtNs, fmtCount, fmtMHz } from '../../ui/units.js';
import { cellSection, warningsList } from '../../ui/cell.js';
import { readCostChart, stepHistograms } from './charts.js';
import { frequencySection } from './frequency.js';

export function build(report, key, ctx) {
  const c = report.clocks;
  const available = c.clocks.filter((r) => r.available);
  return cellSection(ctx, report, key,
  warningsList(report.warnings),
  h('div', { class: 'explain' },
    h('p', {},
      'How much each clock costs to read, how finely it ticks, and whether it ever ran backwards, ',
      'measured on this machine. ',
      h('strong', {}, 'Read cost'), ': the collector reads the clock back to back in ', batchText(c),
      ' and divides each batch\u2019s time by its size — one sample per batch, the reference clock\u2019s own overhead amortised over the batch. ',
      h('strong', {}, 'Observed tick'), ': the smallest non-zero step between consecutive reads in a scan; ',
      h('strong', {}, 'modal step'), ': the most frequent step, the tick a coarse clock really has. ',
      h('strong', {}, 'Violations'), ': consecutive reads where the second was earlier than the first.'),
    c.tsc_hz != null
      ? h('p', { class: 'muted' }, 'TSC ticks were converted to time with ',
        h('span', { 'data-testid': 'tsc-hz', dataset: { value: c.tsc_hz } }, fmtMHz(c.tsc_hz)),
        c.tsc_hz_source ? [' from ', h('code', {}, c.tsc_hz_source)] : null, '.')
      : null),
  clockTable(c),
  available.some((r) => r.read_cost_ecdf.length)
    ? readCostChart(c, key)
    : h('p', { class: 'muted' }, 'No clock has read-cost samples to chart.'),
  available.some((r) => r.step_histogram.length) ? stepHistograms(c, key) : null,
  crossCpuSection(c),
  frequencySection(c.frequency, key),
  fallbacksList(c.fallbacks));
}

function clockTable(c) {
  const columns = [
    'Clock',
    'Available',
    { label: 'Nominal resolution', class: 'num', title: 'What the platform claims (clock_getres, 1 / counter frequency)' },
    { label: 'Observed tick', class: 'num', title: 'Smallest non-zero step between consecutive reads' },
    { label: 'Modal step', class: 'num', title: 'Most frequent non-zero step between consecutive reads' },
    { label: 'Read cost, median', class: 'num', title: 'Median cost of one read' },
    { label: 'Read cost, p99', class: 'num', title: '99th percentile of the cost of one read' },
    { label: 'Violations', class: 'num', title: 'Consecutive reads that went backwards' },
  ];
  const rows = c.clocks.map((r) => {
    const name = h('th', { scope: 'row', class: 'clock-name' },
      h('code', {}, r.name),
      r.scan_reads
        ? h('span', { class: 'sub', 'data-testid': 'scan-facts', dataset: { stoppedBy: r.scan_stopped_by } },
          `scan: ${fmtCount(r.scan_reads)} reads in ${fmtNs(r.scan_duration_ns)}`,
          r.scan_stopped_by ? `, ${STOP_REASONS[r.scan_stopped_by] ?? `stopped by ${r.scan_stopped_by}`}` : '')
        : null,
      r.read_cost_batch != null && !uniformBatch(c)
        ? h('span', { class: 'sub' }, `read cost: batches of ${fmtCount(r.read_cost_batch)} timed by ${r.read_cost_reference ?? c.reference}`)
        : null);
    if (!r.available) {
      return h('tr', { 'data-testid': 'clock-row', dataset: { clock: r.name, available: 'false' }, class: 'unavailable' },
        name,
        h('td', { colspan: 7, dataset: { stat: 'available', value: 'false' } },
          h('span', { class: 'badge neutral' }, 'unavailable'), ' ', r.unavailable_reason ?? 'no reason recorded'));
    }
    const ns = (stat, v, opts) => numCell(stat, v, fmtNs(v, opts), { unit: 'ns' });
    const bad = r.violations > 0;
    return h('tr', { 'data-testid': 'clock-row', dataset: { clock: r.name, available: 'true' } },
      name,
      h('td', { dataset: { stat: 'available', value: 'true' } }, h('span', { class: 'badge ok' }, 'yes')),
      numCell('nominal_resolution_ns', r.nominal_resolution_ns, fmtNs(r.nominal_resolution_ns, { exact: true }), {
        unit: 'ns',
        title: r.nominal_resolution_ns != null
          ? `${r.nominal_resolution_ns} ns${r.nominal_resolution_source ? ' (' + r.nominal_resolution_source + ')' : ''}`
          : undefined,
      }),
      ns('observed_tick_ns', r.observed_tick_ns, { exact: true }),
      ns('modal_step_ns', r.modal_step_ns, { exact: true }),
      ns('read_cost_median_ns', r.read_cost?.median),
      ns('read_cost_p99_ns', r.read_cost_p99_ns),
      numCell('violations', r.violations, bad
        ? [h('span', { class: 'badge bad' }, fmtCount(r.violations)),
          r.largest_violation_ns != null ? h('span', { class: 'sub' }, `up to ${fmtNs(r.largest_violation_ns, { exact: true })} back`) : null]
        : '0', { className: bad ? 'num bad' : 'num' }),
    );
  });
  return table({ testid: 'clocks-table', columns, rows, caption: `${c.clocks.length} clocks; reference clock ${c.reference}` });
}

const STOP_REASONS = {
  max_steps: 'stopped at its step limit',
  max_duration: 'stopped at its time limit',
};

/** Batch size and batch clock, when every clock with read costs shares them. */
function uniformBatch(c) {
  const rows = c.clocks.filter((r) => r.available && r.read_cost_batch != null);
  if (!rows.length) return null;
  const { read_cost_batch: batch, read_cost_reference: ref } = rows[0];
  return rows.every((r) => r.read_cost_batch === batch && r.read_cost_reference === ref)
    ? { batch, reference: ref ?? c.reference } : null;
}

function batchText(c) {
  const u = uniformBatch(c);
  if (u) {
    return h('span', { 'data-testid': 'batch-facts', dataset: { batch: u.batch, reference: u.reference } },
      `batches of ${fmtCount(u.batch)} reads timed by `, h('code', {}, u.reference));
  }
  return ['batches timed by the reference clock (', h('code', {}, c.reference), '; each clock\u2019s batch size is under its name)'];
}

function crossCpuSection(c) {
  if (!c.cross_cpu?.length) return null;
  const rows = c.cross_cpu.map((x) => h('tr', { 'data-testid': 'cross-cpu-row', dataset: { clock: x.clock } },
    h('th', { scope: 'row' }, h('code', {}, x.clock)),
    h('td', { dataset: { stat: 'cpus', value: x.cpus.join(',') } }, x.cpus.join(', ')),
    numCell('migrations', x.migrations, fmtCount(x.migrations)),
    numCell('not_moved', x.not_moved, fmtCount(x.not_moved), { className: x.not_moved ? 'num warn' : 'num' }),
    numCell('backwards', x.backwards, x.backwards ? h('span', { class: 'badge bad' }, fmtCount(x.backwards)) : '0',
      { className: x.backwards ? 'num bad' : 'num' }),
    numCell('min_step_ns', x.min_step_ns, fmtNs(x.min_step_ns), { unit: 'ns' }),
    numCell('median_step_ns', x.median_step_ns, fmtNs(x.median_step_ns), { unit: 'ns' })));
  return h('div', { class: 'cross-cpu', 'data-testid': 'cross-cpu' },
    h('h3', {}, 'Across CPUs'),
    h('p', { class: 'muted section-note' },
      'The collector read each clock, moved its thread to another CPU, and read the clock again. ',
      'A second reading earlier than the first means the CPUs\u2019 clocks disagree. ',
      'A move takes time, so every step includes it: a skew between CPUs smaller than the smallest step seen could not show up as a backward step.'),
    table({
      testid: 'cross-cpu-table',
      className: 'data compact-table',
      columns: [
        'Clock', 'CPUs',
        { label: 'Moves', class: 'num', title: 'Reads taken across a migration to another CPU' },
        { label: 'Not moved', class: 'num', title: 'Attempts where the thread did not land on another CPU' },
        { label: 'Backwards', class: 'num', title: 'Reads across a move that went backwards' },
        { label: 'Smallest step', class: 'num', title: 'The smallest step across a move: the skew this check could detect' },
        { label: 'Median step', class: 'num', title: 'Median step across a move (roughly the cost of a migration)' },
      ],
      rows,
      caption: 'Smallest step: the resolution of this check — a skew between CPUs below it could go undetected.',
    }));
}

function fallbacksList(fallbacks) {
  return h('div', { class: 'fallbacks', 'data-testid': 'fallbacks' },
    h('h3', {}, 'Fallbacks'),
    fallbacks.length
      ? h('ul', {}, fallbacks.map((f) => h('li', {}, f)))
      : h('p', { class: 'muted' }, 'None: the suite took no fallback.'));
}
