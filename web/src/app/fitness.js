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
  shared_core: 'core shared (issue width)',
};

function findingRow(f) {
  const text = f.worst
    ? `${f.text}; worst ${f.worst.interval} (${fmtNum(f.worst.figure, { digits: 3 })} ${f.unit})`
    : f.text;
  return h('tr', { dataset: { signal: f.signal, level: f.level } },
    h('th', { scope: 'row' }, SIGNAL_TITLES[f.signal] ?? f.signal),
    h('td', { class: ['level', f.level === 'unfit' && 'bad'] }, f.level),
    numCell('figure', f.figure, f.figure == null ? '—' : `${fmtNum(f.figure, { digits: 3 })} ${f.unit}`,
      { unit: f.unit, title: f.rule ?? `thresholds: disturbed ≥ ${f.thresholds.disturbed} ${f.unit}${f.thresholds.unfit == null ? ', never unfit' : `, unfit ≥ ${f.thresholds.unfit} ${f.unit}`}` }),
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

/**
 * A cell measured while the machine was disturbed or unfit says so under
 * its header, beside its numbers (the report's `fitness.affects`: each
 * suite judged over its own stretch of the run, and the ops table's
 * throughputs when the core was shared). Returns the cell.
 */
export function withFitnessNote(cell, report, name) {
  const notes = (report.fitness?.affects ?? []).filter((a) => a.cell === name);
  if (!notes.length || !cell?.querySelector) return cell;
  const note = h('div', { class: ['fitness-note', notes.some((a) => a.level === 'unfit') && 'bad'], role: 'note', 'data-testid': 'fitness-note' },
    notes.map((a) => h('p', { dataset: { level: a.level } }, h('strong', {}, 'Fitness: '), a.text)));
  const head = cell.querySelector(':scope > header.cell-head');
  if (head) head.after(note);
  else cell.prepend(note);
  return cell;
}
