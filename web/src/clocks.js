// The Clocks cell: what each clock costs to read, how fine it ticks, whether
// it ever went backwards, and how well the TSC frequency sources agree.
// Every number is a field of the report's `clocks` (ClocksReport).

import { h, table, numCell } from './dom.js';
import { fmtNs, fmtCount, fmtMHz } from './units.js';
import { cellHeader, warningsList } from './cell.js';
import { readCostChart, stepHistograms } from './clockcharts.js';
import { frequencySection } from './frequency.js';

export function clocksCell(report, key) {
  const c = report.clocks;
  const available = c.clocks.filter((r) => r.available);
  return h('section', {
    class: 'cell clocks', id: `cell-${key}-clocks`, 'data-testid': 'clocks-cell',
    dataset: { file: report.file }, 'aria-label': `Clocks: ${report.file}`,
  },
  cellHeader('Clocks', report),
  warningsList(report.warnings),
  h('div', { class: 'explain' },
    h('p', {},
      'How much each clock costs to read, how finely it ticks, and whether it ever ran backwards, ',
      'measured on this machine. ',
      h('strong', {}, 'Read cost'), ': the collector reads the clock back to back in batches, times each batch with the reference clock (',
      h('code', {}, c.reference), ') and divides by the batch size — one sample per batch, the reference clock\u2019s own overhead amortised over the batch. ',
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
        ? h('span', { class: 'sub' }, `scan: ${fmtCount(r.scan_reads)} reads in ${fmtNs(r.scan_duration_ns)}`)
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

function fallbacksList(fallbacks) {
  return h('div', { class: 'fallbacks', 'data-testid': 'fallbacks' },
    h('h3', {}, 'Fallbacks'),
    fallbacks.length
      ? h('ul', {}, fallbacks.map((f) => h('li', {}, f)))
      : h('p', { class: 'muted' }, 'None: the suite took no fallback.'));
}
