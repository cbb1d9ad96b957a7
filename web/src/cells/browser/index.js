// The Browser cell: a file made by Measure this browser — the browser as a
// host (user agent, platform, cross-origin isolation), its clocks (tick,
// modal and mean step, jitter, read cost, backward steps) and the cost of
// WebAssembly operations by long runs and by Bernoulli trials of the coarse
// clock. Every number is a field of the report's `browser` (BrowserReport).

import { h, table, numCell } from '../../ui/dom.js';
import { fmtNs, fmtCount, fmtPercent, fmtProb } from '../../ui/units.js';
import { cellSection, warningsList, fact } from '../../ui/cell.js';
import { ciCell } from '../../ui/ci.js';

export function build(report, key, ctx) {
  const b = report.browser;
  return cellSection(ctx, report, key,
    warningsList(report.warnings),
    h('dl', { class: 'facts', 'data-testid': 'browser-facts' },
      fact('user agent', h('span', { 'data-testid': 'browser-user-agent' }, b.user_agent)),
      b.platform ? fact('platform', b.platform) : null,
      b.brands.length ? fact('brands', b.brands.join(', ')) : null,
      b.hardware_concurrency != null ? fact('logical CPUs', String(b.hardware_concurrency)) : null,
      fact('cross-origin isolated', h('span', {
        'data-testid': 'browser-isolated', dataset: { value: String(b.cross_origin_isolated) },
      }, b.cross_origin_isolated ? 'yes' : 'no')),
      b.quick ? fact('run', 'quick') : null),
    h('div', { class: 'explain' },
      h('p', {},
        'This browser\u2019s clocks as a worker reads them, and the cost of WebAssembly instructions emitted at run time as exact modules: ',
        `${fmtCount(b.copies)} and ${fmtCount(2 * b.copies)} copies of one instruction in a loop, as a dependency chain (latency) or spread over independent accumulators (throughput). `,
        h('strong', {}, 'Long runs'), ': many iterations timed by ', h('code', {}, b.wasm_clock),
        '; one copy costs (t(2n) \u2212 t(n)) / n per iteration. ',
        h('strong', {}, 'Bernoulli'), ': the clock read before and after one pass of the sequence; p, the share of passes in which it changed, times the tick (the clock\u2019s modal step',
        b.tick_ns != null ? [', ', h('span', { 'data-testid': 'browser-tick', dataset: { value: b.tick_ns } }, fmtNs(b.tick_ns))] : null,
        ') is the pass\u2019s duration (eq. 1); the difference of the two lengths over n is one copy. ',
        'The trials are held to their own wall time: each chunk of trials is a long run of exactly the passes counted, the clock read around each, ',
        'and reading the clock between passes can change what an operation costs (calls, in Chromium), so the untimed long runs time other events.')),
    clockTable(b),
    opsTable(b),
    b.coverage
      ? h('p', {
        'data-testid': 'browser-coverage',
        dataset: { covered: b.coverage.covered, ops: b.coverage.ops, value: b.coverage.share, untimed: b.coverage.covered_untimed },
      },
      `Bernoulli intervals holding the long-run cost${b.coverage.wall_reference ? ' of the same passes (the trials\u2019 wall time)' : ''}, for sequences of ${fmtNs(b.coverage.min_sequence_ns)} or more: `,
      `${b.coverage.covered} of ${b.coverage.ops} (${fmtPercent(b.coverage.share)}).`,
      b.coverage.wall_reference
        ? ` Held to the untimed long runs instead: ${b.coverage.covered_untimed} of ${b.coverage.ops}.`
        : ' This file does not record the trials\u2019 wall time: the intervals are held to the untimed long runs.')
      : null,
    b.fallbacks.length
      ? h('div', { class: 'fallbacks' }, h('strong', {}, 'Fallbacks'), h('ul', {}, b.fallbacks.map((f) => h('li', {}, f))))
      : null);
}

function clockTable(b) {
  const ns = (stat, v) => numCell(stat, v, fmtNs(v), { unit: 'ns' });
  return table({
    testid: 'browser-clocks',
    caption: 'Clocks',
    columns: [
      'Clock',
      { label: 'Observed tick', class: 'num', title: 'Smallest non-zero step between consecutive reads' },
      { label: 'Modal step', class: 'num', title: 'Most frequent single-tick step' },
      { label: 'Mean step', class: 'num', title: 'Mean non-zero step: the tick of a clock whose tick edges are jittered' },
      { label: 'Jitter', class: 'num', title: 'Standard deviation of the non-zero steps' },
      { label: 'Read cost, median', class: 'num' },
      { label: 'Backward steps', class: 'num', title: 'Consecutive reads that went backwards' },
    ],
    rows: b.clocks.map((c) => h('tr', { 'data-testid': 'browser-clock-row', dataset: { clock: c.name } },
      h('th', { scope: 'row' }, h('code', {}, c.name)),
      ...(c.available
        ? [
          ns('observed_tick_ns', c.observed_tick_ns),
          ns('modal_step_ns', c.modal_step_ns),
          ns('mean_step_ns', c.mean_step_ns),
          ns('jitter_ns', c.jitter_ns),
          ns('read_cost_median_ns', c.read_cost_median_ns),
          numCell('backward_steps', c.backward_steps, fmtCount(c.backward_steps)),
        ]
        : [h('td', { colspan: 6 }, `unavailable: ${c.unavailable_reason ?? 'no reason recorded'}`)]))),
  });
}

function opsTable(b) {
  const ns = (v) => fmtNs(v);
  return table({
    testid: 'browser-ops',
    caption: 'WebAssembly operations',
    columns: [
      'Operation', 'Form', 'Native',
      { label: 'Per op, long runs', class: 'num', title: 'Median over repetitions of (t(2n) − t(n)) / n per iteration, bootstrap CI' },
      { label: 'Sequence', class: 'num', title: 'One pass of n copies' },
      { label: 'Per op, trials\u2019 wall time', class: 'num', title: 'From the wall time of the chunks of trials counted: (W(2n) − W(n)) / n, W the time per trial (a trimmed mean over the chunks)' },
      { label: 'Per op, Bernoulli', class: 'num', title: '(p(2n) − p(n)) · tick / n with its normal interval' },
      { label: 'p(n)', class: 'num' },
      { label: 'Set aside', class: 'num', title: 'Trials in disturbed chunks (over 1.5× the median time per trial), left out' },
      { label: 'Holds', title: 'Whether the Bernoulli interval holds the trials\u2019 wall-time cost (the untimed long runs\u2019 in a file without it)' },
    ],
    lazy: {
      count: b.ops.length,
      first: 80,
      noun: 'operations',
      build: (i) => {
        const o = b.ops[i];
        const t = o.bernoulli;
        return h('tr', { 'data-testid': 'browser-op-row', dataset: { op: o.name, form: o.form } },
          h('th', { scope: 'row' }, h('code', {}, o.name)),
          h('td', {}, o.form),
          h('td', {}, o.native ? h('code', {}, o.native) : '—'),
          ciCell('per_op_ns', o.per_op_ns, ns, { unit: 'ns' }),
          numCell('sequence_ns', o.sequence_ns, fmtNs(o.sequence_ns), { unit: 'ns' }),
          numCell('wall_per_op_ns', t?.wall_per_op_ns ?? null, t?.wall_per_op_ns != null ? fmtNs(t.wall_per_op_ns) : '—', { unit: 'ns' }),
          t ? ciCell('bernoulli_ns', { estimate: t.per_op_ns, lo: t.lo, hi: t.hi }, ns, { unit: 'ns' }) : numCell('bernoulli_ns', null, '—'),
          t ? numCell('p_n', t.p_n, fmtProb(t.p_n)) : numCell('p_n', null, '—'),
          numCell('set_aside', t ? t.set_aside_n + t.set_aside_2n : null, t ? fmtCount(t.set_aside_n + t.set_aside_2n) : '—'),
          h('td', { dataset: { stat: 'covers', value: String(t?.covers_reference ?? '') } },
            t?.covers_reference == null ? '—' : t.covers_reference ? 'yes' : 'no'));
      },
    },
  });
}
