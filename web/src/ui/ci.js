// Estimates with their intervals, as every cell shows them: a table cell with
// the estimate and, in small print under it, "lo to hi"; or one line of text,
// "estimate [lo, hi]". `ci` is {estimate, lo, hi} (a BootstrapCi or any
// interval of the report; its confidence, resamples and seed go into the
// tooltip when it has them), `fmt(x)` formats one value.

import { h, numCell } from './dom.js';
import { fmtLevel } from './units.js';

/**
 * A table cell holding an estimate and, under it, its interval. The raw
 * numbers are in data-value, data-lo and data-hi (tests compare them with
 * `tickbook analyze --json`), and the ends again in spans of their own with
 * data-stat `<stat>_lo` and `<stat>_hi`, so a CSV of the table has a column
 * for each (export.js). A missing interval is a dash.
 * `after`: nodes after the estimate (a badge); `unit`: for the tooltip.
 */
export function ciCell(stat, ci, fmt, { title, unit, after } = {}) {
  if (!ci) return numCell(stat, null, '—');
  const { estimate, lo, hi } = ci;
  const u = unit ? ` ${unit}` : '';
  const level = ci.confidence != null ? `${fmtLevel(ci.confidence)} CI ` : '';
  const how = ci.resamples != null ? `; ${ci.resamples} resamples, seed ${ci.seed}` : '';
  return h('td', {
    class: 'num interval', dataset: { stat, value: estimate, lo, hi },
    title: title ?? `${estimate}${u} (${level}${lo} to ${hi}${how})`,
  },
  fmt(estimate), after ?? null,
  h('span', { class: 'sub ci', dataset: { stat: `${stat}_lo`, value: lo } }, `${fmt(lo)} to `,
    h('span', { dataset: { stat: `${stat}_hi`, value: hi } }, fmt(hi))));
}

/** "estimate [lo, hi]", each value formatted with `fmt`; a dash without an interval. */
export function ciText(ci, fmt) {
  if (!ci) return '—';
  return `${fmt(ci.estimate)} [${fmt(ci.lo)}, ${fmt(ci.hi)}]`;
}
