// The file's fitness card: whether the machine was fit to measure on while
// the run collected (the analysis' `fitness`: findings fine, disturbed,
// unfit or unknown, each with its figure and evidence), shown above the
// file's cells. Numbers come from the report; this only formats them, and
// each figure keeps the report's value in data-value for the tests; what a
// finding was measured from is its tooltip.

import { h, table, numCell } from '../ui/dom.js';
import { fmtNum } from '../ui/units.js';
import { cellHeader } from '../ui/cell.js';

const SIGNAL_TITLES = {
  steal: 'steal',
  cpu_taken: 'CPU taken by others',
  core_clock: 'core clock change',
  involuntary_switches: 'involuntary switches',
  interrupts: 'interrupts',
  other_cpus: 'other CPUs busy',
};

function findingRow(f) {
  const text = f.worst
    ? `${f.text}; worst ${f.worst.interval} (${fmtNum(f.worst.figure, { digits: 3 })} ${f.unit})`
    : f.text;
  return h('tr', { dataset: { signal: f.signal, level: f.level } },
    h('th', { scope: 'row' }, SIGNAL_TITLES[f.signal] ?? f.signal),
    h('td', { class: ['level', f.level === 'unfit' && 'bad'] }, f.level),
    numCell('figure', f.figure, f.figure == null ? '—' : `${fmtNum(f.figure, { digits: 3 })} ${f.unit}`,
      { unit: f.unit, title: `thresholds: disturbed ≥ ${f.thresholds.disturbed} ${f.unit}${f.thresholds.unfit == null ? ', never unfit' : `, unfit ≥ ${f.thresholds.unfit} ${f.unit}`}` }),
    h('td', { title: f.evidence ? `measured from ${f.evidence}` : null },
      f.figure == null ? `not measured: ${f.reason ?? 'no reason recorded'}` : text,
      f.advice ? h('div', { class: 'muted' }, f.advice) : null));
}

export function fitnessCard(report, key) {
  const f = report.fitness;
  const clock = f.core_clock_ghz.filter(([, g]) => g != null);
  return h('section', {
    class: 'cell fitness', id: `cell-${key}-fitness`, 'data-testid': 'fitness-cell',
    dataset: { file: report.file, verdict: f.verdict }, 'aria-label': `Fitness: ${report.file}`,
  },
  cellHeader('Fitness', report),
  h('p', { class: ['verdict', f.verdict === 'unfit' && 'bad'], 'data-testid': 'fitness-verdict' },
    h('strong', {}, f.verdict), ` over ${fmtNum(f.span_s, { digits: 3 })} s`,
    f.measuring_cpu != null ? `, measuring CPU ${f.measuring_cpu}` : ''),
  table({
    testid: 'fitness-findings',
    caption: 'What disturbed the machine while it measured',
    columns: ['signal', 'level', 'figure', 'finding'],
    rows: f.findings.map(findingRow),
  }),
  clock.length
    ? h('p', { 'data-testid': 'fitness-clock' }, 'Core clock: ',
      clock.map(([at, g]) => `${at} ${fmtNum(g, { digits: 4 })} GHz`).join(' | '))
    : null,
  f.configuration.length
    ? h('details', { 'data-testid': 'fitness-configuration' },
      h('summary', {}, `Configuration that may disturb timing (${f.configuration.length})`),
      h('ul', {}, f.configuration.map((c) => h('li', {}, h('strong', {}, c.name), ': ',
        c.value != null ? c.meaning : `not readable: ${c.not_readable}`,
        c.change ? [' — change: ', h('code', {}, c.change)] : null))))
    : null);
}
