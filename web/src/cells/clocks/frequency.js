// TSC frequency sources: every source tried, what it said, and how far the
// readable ones disagree (ppm from their median, spread).

import * as Plot from '@observablehq/plot';
import { h, table, numCell } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtMHz, fmtPpm, fmtPpmAbs } from '../../ui/units.js';

export function frequencySection(f, key) {
  if (!f.sources.length) {
    return h('div', { class: 'frequency', 'data-testid': 'frequency' },
      h('h3', {}, 'TSC frequency'),
      h('p', { class: 'muted' }, 'No frequency source was tried (this machine has no TSC or generic timer the collector knows).'));
  }
  const readable = f.sources.filter((s) => s.hz != null);
  return h('div', { class: 'frequency', 'data-testid': 'frequency' },
    h('h3', {}, 'TSC frequency: do the sources agree?'),
    h('p', { class: 'muted' },
      'Each source the collector asked for the counter frequency (CPUID leaves, the kernel, a calibration against CLOCK_MONOTONIC_RAW, …). ',
      'Disagreement is shown in parts per million from the median of the readable sources; 1 ppm is 1 µs of error per second measured.'),
    h('p', { class: 'headline' },
      h('span', {}, 'Median of ', String(readable.length), ' readable source', readable.length === 1 ? '' : 's', ': ',
        h('strong', { 'data-testid': 'median-hz', dataset: { value: f.median_hz ?? '' } }, fmtMHz(f.median_hz))),
      h('span', {}, 'Spread (max − min): ',
        h('strong', { 'data-testid': 'spread-ppm', dataset: { value: f.spread_ppm ?? '' } },
          f.spread_ppm == null ? 'needs two readable sources' : fmtPpmAbs(f.spread_ppm)))),
    h('div', { class: 'stack' },
      table({
        testid: 'frequency-table',
        columns: ['Source', { label: 'Frequency', class: 'num' }, { label: 'From median', class: 'num' }, 'Error'],
        rows: f.sources.map((s) => h('tr', { 'data-testid': 'frequency-row', dataset: { source: s.name, readable: s.hz != null } },
          h('th', { scope: 'row' }, h('code', {}, s.name)),
          numCell('hz', s.hz, fmtMHz(s.hz), { unit: 'Hz' }),
          numCell('ppm_from_median', s.ppm_from_median, fmtPpm(s.ppm_from_median), { unit: 'ppm' }),
          h('td', { class: s.error ? 'error-text' : 'muted', dataset: { stat: 'error' } }, s.error ?? ''))),
      }),
      readable.length > 1 ? ppmChart(f) : null));
}

function ppmChart(f) {
  const rows = f.sources.filter((s) => s.ppm_from_median != null);
  const summary = `Disagreement of ${rows.length} readable frequency sources with their median (${fmtMHz(f.median_hz)}), in ppm: ` +
    rows.map((s) => `${s.name} ${fmtPpm(s.ppm_from_median)}`).join('; ') +
    `. Spread ${fmtPpmAbs(f.spread_ppm)}.`;
  return chartFigure({
    testid: 'ppm-chart',
    caption: 'Frequency sources, ppm from the median.',
    summary,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: 40 + rows.length * 30,
      marginLeft: Math.min(220, 8 + 7 * Math.max(...rows.map((s) => s.name.length))),
      marginRight: 16,
      x: { label: 'ppm from median →', grid: true, nice: true, insetLeft: 84, insetRight: 84 },
      y: { label: null, domain: rows.map((s) => s.name) },
      marks: [
        Plot.barX(rows, { x: 'ppm_from_median', y: 'name', fill: (s) => (s.ppm_from_median < 0 ? 'below' : 'above'), tip: false }),
        Plot.ruleX([0]),
        Plot.text(rows.filter((s) => s.ppm_from_median >= 0), {
          x: 'ppm_from_median', y: 'name', text: (s) => fmtPpm(s.ppm_from_median),
          textAnchor: 'start', dx: 4, fill: 'currentColor',
        }),
        Plot.text(rows.filter((s) => s.ppm_from_median < 0), {
          x: 'ppm_from_median', y: 'name', text: (s) => fmtPpm(s.ppm_from_median),
          textAnchor: 'end', dx: -4, fill: 'currentColor',
        }),
      ],
      color: { domain: ['below', 'above'], range: ['var(--series-2)', 'var(--accent)'] },
    }),
  });
}
