// The WebAssembly-against-native cell: a browser measurement and a native
// `ops` run loaded together (the worker's `nativeComparison` call,
// `tickbook analyze BROWSER --native OPS --json`). Each wasm operation beside
// its native counterpart of the same form, the ratio (what the engine's code
// costs over the native instruction), the regression of wasm costs on native
// ones across the boundary (Pearson r, slope with its interval) and the
// operations the engine does badly. Formatting only: every number is a
// field of the report (NativeComparison).

import { h, table, numCell } from '../../ui/dom.js';
import { fmtNs, fmtNum, fmtFactor } from '../../ui/units.js';

function nsCell(stat, v) {
  return numCell(stat, v, fmtNs(v, { digits: 4 }), { unit: 'ns' });
}

/** The cell for a NativeComparison of `browser` (a file name) against `native`. */
export function nativeCell(c, browser, native) {
  const rows = c.pairs.map((p) => h('tr', { 'data-testid': 'native-pair', dataset: { wasm: p.wasm, native: p.native, form: p.form } },
    h('th', { scope: 'row' }, p.wasm),
    h('td', {}, p.native),
    h('td', {}, p.form),
    nsCell('wasm_ns', p.wasm_ns),
    nsCell('native_ns', p.native_ns),
    numCell('ratio', p.ratio, fmtFactor(p.ratio), { className: ['num', c.slow.includes(p.wasm) && 'slow'].filter(Boolean).join(' ') })));
  const f = c.fit;
  const g = c.geometric_mean_ratio;
  return h('section', { class: 'cell native-comparison', 'data-testid': 'native-cell', dataset: { browser, native } },
    h('h2', {}, 'WebAssembly against native'),
    h('p', { class: 'muted', 'data-testid': 'native-summary', dataset: { pairs: String(c.pairs.length), clock: c.native_clock } },
      `${browser}\u2019s WebAssembly operations beside ${native}\u2019s native ones of the same form, ${c.pairs.length} pairs; native costs by the ${c.native_clock} clock. `,
      'The ratio is what the engine\u2019s code for one wasm instruction costs over the native instruction.'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'geometric mean ratio'),
      h('dd', { 'data-testid': 'native-geomean', dataset: { value: g == null ? '' : String(g) } }, fmtFactor(g)),
      h('dt', {}, 'wasm on native (OLS)'),
      f
        ? h('dd', { 'data-testid': 'native-fit', dataset: { r: String(f.r), slope: String(f.slope), lo: String(f.slope_ci[0]), hi: String(f.slope_ci[1]), intercept: String(f.intercept) } },
          `r = ${fmtNum(f.r, { digits: 4 })}, slope ${fmtNum(f.slope, { digits: 4 })} [${fmtNum(f.slope_ci[0], { digits: 4 })}, ${fmtNum(f.slope_ci[1], { digits: 4 })}], intercept ${fmtNs(f.intercept)}`)
        : h('dd', { 'data-testid': 'native-fit', dataset: { r: '' } }, 'fewer than three pairs: no fit'),
      h('dt', {}, `slower than ${fmtNum(c.slow_factor, { digits: 2 })}\u00d7 the mean ratio`),
      h('dd', { 'data-testid': 'native-slow', dataset: { ops: c.slow.join(' ') } }, c.slow.length ? c.slow.join(', ') : 'none')),
    table({
      testid: 'native-pairs',
      caption: 'each wasm operation and its native counterpart: cost of one copy, and their ratio',
      columns: ['wasm', 'native', 'form', 'wasm', 'native', 'ratio'],
      rows,
    }));
}
