// The Commands cell: a file made by `tickbook run` — each command's wall
// time (hyperfine's mean ± σ, median, range), CPU time, maximum RSS and
// drift over the run, every run in time order (chart.js), then each command
// against the fastest paired by round and unpaired. Every number is a field of the report's `commands`
// (CommandsReport).

import { h, table, numCell } from '../../ui/dom.js';
import { fmtNs, fmtNum, fmtCount, fmtBytes, fmtProb, fmtSignedPercent, fmtPercent } from '../../ui/units.js';
import { cellSection, warningsList, fact } from '../../ui/cell.js';
import { ciCell } from '../../ui/ci.js';
import { runsChart } from './chart.js';

const ratio = (x) => x.toFixed(4);

function verdictText(v, rel, ci) {
  const word = ci && ci.estimate < 1 ? 'faster' : 'slower';
  const by = rel != null ? `${word} by ${fmtPercent(rel)}` : word;
  switch (v) {
    case 'different': return by;
    case 'within_threshold': return `within threshold: ${by}`;
    case 'same': return 'same';
    case 'unclear': return 'unclear: the test and the ratio CI disagree';
    default: return 'no estimate';
  }
}

const COUNTS = [
  ['task_clock_mean_ns', 'Task-clock', 'Mean perf task-clock of the runs: time on a CPU from exec, children included (a check on user + system)'],
  ['instructions_mean', 'Instructions', 'Mean instructions retired per run (perf event, from exec, children included)'],
  ['cycles_mean', 'Cycles', 'Mean CPU cycles per run (perf event, from exec, children included)'],
];

/** Why perf events are missing from the runs, from the report's `counters`. */
function countersNote(k) {
  if (!k) return null;
  const missing = Object.entries(k.unavailable ?? {});
  if (!missing.length && k.kernel) return null;
  return h('div', { class: 'fallbacks', role: 'note', 'data-testid': 'commands-counters' },
    h('strong', {}, 'Perf events'),
    h('ul', {},
      missing.map(([event, why]) => h('li', { dataset: { event } }, `${event} not counted: ${why}`)),
      k.kernel ? null : h('li', {}, 'user mode only: kernel mode is not permitted (kernel.perf_event_paranoid)')));
}

export function build(report, key, ctx) {
  const r = report.commands;
  const ns = (stat, v) => numCell(stat, v, v == null ? '\u2014' : fmtNs(v), { unit: 'ns' });
  // The perf event columns some command has a count of.
  const counted = COUNTS.filter(([key]) => r.commands.some((c) => c[key] != null));
  return cellSection(ctx, report, key,
    warningsList(report.warnings),
    h('dl', { class: 'facts', 'data-testid': 'commands-facts' },
      fact('rounds', fmtCount(r.rounds)),
      fact('order', r.order),
      fact('seed', String(r.seed)),
      fact('shell', r.shell == null ? 'none (-N)' : `${r.shell}${r.shell_spawn_ns != null ? ` (start-up ${fmtNs(r.shell_spawn_ns)} subtracted)` : ''}`)),
    table({
      testid: 'commands-table',
      caption: 'Commands: wall time of each run, each its own process',
      columns: ['Command', { label: 'Runs', class: 'num' }, { label: 'Failed', class: 'num' },
        { label: 'Mean', class: 'num' }, { label: '\u03c3', class: 'num' }, { label: 'Median', class: 'num' },
        { label: 'Min', class: 'num' }, { label: 'Max', class: 'num' }, { label: 'User', class: 'num' },
        { label: 'System', class: 'num' }, { label: 'Max RSS', class: 'num' },
        { label: 'Drift over run', class: 'num', title: 'Least-squares slope of time on round times the rounds, over the mean, with its CI' },
        ...counted.map(([, label, title]) => ({ label, class: 'num', title }))],
      rows: r.commands.map((c) => h('tr', { 'data-testid': 'commands-row', dataset: { command: c.name } },
        h('th', { scope: 'row', title: c.command }, c.name),
        numCell('runs', c.runs, fmtCount(c.runs)),
        numCell('failed_runs', c.failed_runs, fmtCount(c.failed_runs)),
        ns('mean_ns', c.mean_ns), ns('sd_ns', c.sd_ns), ns('median_ns', c.median_ns),
        ns('min_ns', c.min_ns), ns('max_ns', c.max_ns), ns('user_mean_ns', c.user_mean_ns),
        ns('sys_mean_ns', c.sys_mean_ns),
        numCell('max_rss_kib', c.max_rss_kib, fmtBytes(c.max_rss_kib * 1024)),
        c.drift
          ? numCell('drift', c.drift.over_run, `${fmtSignedPercent(c.drift.over_run)} [${fmtSignedPercent(c.drift.over_run_ci[0])}, ${fmtSignedPercent(c.drift.over_run_ci[1])}]`)
          : h('td', { class: 'num' }, '\u2014'),
        counted.map(([key]) => (key === 'task_clock_mean_ns' ? ns(key, c[key]) : numCell(key, c[key], c[key] == null ? '\u2014' : fmtNum(c[key])))))),
    }),
    countersNote(r.counters),
    runsChart(r),
    r.comparisons.length
      ? table({
        testid: 'commands-comparisons',
        caption: `Against ${r.commands[r.reference].name} (the fastest): paired by round and unpaired`,
        columns: ['Command', { label: 'Pairs', class: 'num' },
          {
            label: 'Paired ratio',
            class: 'num',
            title: r.comparisons.some((c) => c.paired.sequential)
              ? 'Geometric mean of the rounds\u2019 ratios; the confidence sequence --precision stopped on (valid at any stopping round), which decides the verdict'
              : 'Geometric mean of the rounds\u2019 ratios; CI over rounds resampled',
          },
          { label: 'Signed-rank p', class: 'num' }, 'Paired verdict',
          { label: 'Unpaired ratio', class: 'num', title: 'Ratio of means; bootstrap CI' },
          { label: 'U test p', class: 'num' }, 'Unpaired verdict',
          { label: 'CPU time, paired ratio', class: 'num', title: 'User + system time paired by round: what waiting for a CPU does not add to' },
          'CPU time verdict',
          { label: 'hyperfine', class: 'num', title: 'Ratio of means \u00b1 the error propagated from both standard deviations' }],
        rows: r.comparisons.map((c) => h('tr', { 'data-testid': 'commands-comparison', dataset: { command: r.commands[c.command].name } },
          h('th', { scope: 'row' }, r.commands[c.command].name),
          numCell('pairs', c.paired.rounds, fmtCount(c.paired.rounds)),
          ciCell('paired-ratio', c.paired.ratio, ratio),
          numCell('paired-p', c.paired.test?.p_value, c.paired.test ? fmtProb(c.paired.test.p_value) : '\u2014'),
          h('td', { 'data-testid': 'paired-verdict', dataset: { value: c.paired.verdict, measure: c.measure?.time }, title: c.measure ? `Paired by ${c.measure.why}` : undefined }, verdictText(c.paired.verdict, c.paired.relative_difference, c.paired.ratio)),
          ciCell('unpaired-ratio', c.unpaired.ratio, ratio),
          numCell('unpaired-p', c.unpaired.test?.p_value, c.unpaired.test ? fmtProb(c.unpaired.test.p_value) : '\u2014'),
          h('td', { 'data-testid': 'unpaired-verdict', dataset: { value: c.unpaired.verdict } }, verdictText(c.unpaired.verdict, c.unpaired.relative_difference, c.unpaired.ratio)),
          ciCell('cpu-ratio', c.paired_cpu.ratio, ratio),
          h('td', { 'data-testid': 'cpu-verdict', dataset: { value: c.paired_cpu.verdict } }, verdictText(c.paired_cpu.verdict, c.paired_cpu.relative_difference, c.paired_cpu.ratio)),
          numCell('relative-speed', c.relative_speed, c.relative_speed_error != null
            ? `${c.relative_speed.toFixed(3)} \u00b1 ${c.relative_speed_error.toFixed(3)}` : c.relative_speed.toFixed(3)))),
      })
      : null);
}
