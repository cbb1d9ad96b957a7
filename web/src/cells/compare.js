// The Comparison cell: several files side by side (machine A against machine
// B, before against after). Everything shown comes from report::compare
// (the worker's `compare` call, `tickbook analyze --compare --json`): each
// file's estimate with its CI, each file against the first (baseline) as a
// ratio with its CI, and the verdict of the comparison rule. Optionally, the
// executions of one configuration from several files pooled.
//
// Many files make wide tables (24 files: 71 columns): each suite is built in
// a task of its own (dom.js later), shows its first rows (fewer the wider the
// table) and a Show all button that builds the rest in chunks, so the main
// thread never holds a long task. 'Show only those' builds every row.

import { h, later, laterDone, showMore } from '../ui/dom.js';
import { fmtNum, fmtPercent, fmtCount, fmtSeriesValue, fmtFactor } from '../ui/units.js';
import { ciText } from '../ui/ci.js';

// Table cells a suite shows at first (rows × columns), and the rows' bounds.
const FIRST_CELLS = 3000;
const FIRST_ROWS = [20, 100];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const letter = (i) => (i < 26 ? LETTERS[i] : `F${i + 1}`);

/** An estimate in the item's unit (time units scaled) and, muted, its interval. */
function fmtEst(est, item) {
  if (!est) return h('span', { class: 'muted' }, '—');
  const fmt = (x) => fmtSeriesValue(x, item);
  return [
    h('span', { class: 'value' }, fmt(est.estimate)),
    h('span', { class: 'ci' }, ` [${fmt(est.lo)}, ${fmt(est.hi)}]`),
  ];
}

// Ratios near 1 are what a comparison is about: four significant digits.
const fmtRatio = (x) => fmtFactor(x, { digits: 4 });

/**
 * The cell for a ComparisonReport. `ctx`: {threshold: current share,
 * pool: bool, setPool(bool), names: [label per compared file], only: Set of
 * suites showing only the items that differ (kept in the link, state.js;
 * this cell adds and removes suites)}.
 */
export function compareCell(report, ctx) {
  const files = report.files;
  const threshold = report.options?.threshold ?? ctx.threshold;
  const conf = report.options?.bootstrap?.confidence ?? report.options?.confidence;
  const pool = h('input', {
    type: 'checkbox', 'data-testid': 'pool-toggle', checked: report.pooling,
    onchange: (e) => ctx.setPool(e.target.checked),
  });
  const section = h('section', {
    class: 'cell compare', id: 'cell-compare', 'data-testid': 'compare-cell',
    'aria-labelledby': 'compare-title', dataset: { pooling: String(report.pooling), threshold },
  },
  h('header', { class: 'cell-head' },
    h('h2', { id: 'compare-title' }, h('span', { class: 'kind' }, 'Comparison'), ' ',
      h('span', { class: 'file' }, `${files.length} files`)),
    h('p', { class: 'lede' },
      'The same suite from several files, item by item: each file\u2019s estimate with its ',
      `${fmtPercent(conf)} CI, and each file against the baseline (`, h('strong', {}, 'A'),
      ') as a ratio with a bootstrap CI (both sides resampled; by execution where there are executions). ',
      'Two results are ', h('strong', {}, 'different'), ' only when their CIs do not overlap ',
      h('em', {}, 'and'), ' they differ by more than the threshold, now ',
      h('strong', { 'data-testid': 'compare-threshold', dataset: { value: threshold } }, fmtPercent(threshold)),
      ' (the Threshold control above). Method: docs/cli.md, \u201canalyze --compare\u201d; METHODS.md \u00a7002.'),
    h('label', { class: 'toggle' }, pool, ' Pool executions of the same configuration on the same host (samples series, alloc configurations)')),
  fileLegend(files),
  );
  for (const suite of report.suites) section.append(later(() => suiteBlock(suite, files, ctx.only)));
  if (!report.suites.length) {
    section.append(h('p', { class: 'muted' }, 'No suite is in two or more readable files.'));
  }
  if (report.pooling) section.append(later(() => pooledBlock(report.pooled, files)));
  // Tests and scripts/bench-page wait on data-built: every suite's block is in.
  laterDone().then(() => { section.dataset.built = 'true'; });
  return section;
}

function fileLegend(files) {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data compact', 'data-testid': 'compare-files' },
    h('caption', {}, 'Files compared (A is the baseline of every suite it holds)'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Letter')),
      ['File', 'Host', 'Started', 'Suites'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, files.map((f, i) => h('tr', { dataset: { index: i } },
      h('th', { scope: 'row' }, letter(i)),
      h('td', { class: 'wrap' }, f.name, f.ok ? null : h('span', { class: 'sub error-text' }, f.error)),
      h('td', {}, f.host ?? '—'),
      h('td', {}, f.started_at ?? '—'),
      h('td', {}, f.suites.join(', ') || '—'))))));
}

function suiteBlock(suite, files, only = new Set()) {
  const cols = suite.files; // indices into files; cols[0] is the baseline
  const head = h('tr', {},
    h('th', { scope: 'col' }, 'Item'),
    cols.map((f, k) => [
      h('th', { scope: 'col', class: 'num', title: files[f].name }, `${letter(f)}${k === 0 ? ' (baseline)' : ''}`),
      k > 0 ? [h('th', { scope: 'col', class: 'num' }, `${letter(f)} / ${letter(cols[0])}`), h('th', { scope: 'col' }, 'Verdict')] : null,
    ]));
  const tbody = h('tbody', {});
  const onlyDiff = h('input', { type: 'checkbox', 'data-testid': 'compare-only-different', checked: only.has(suite.suite) });
  const block = h('div', { class: 'compare-suite', 'data-testid': 'compare-suite', dataset: { suite: suite.suite, different: suite.different, items: suite.items.length } },
    h('h3', {}, `${suite.suite}: `, h('span', { class: 'muted' }, suite.statistic)),
    h('p', { class: 'summary-line' },
      h('strong', { 'data-testid': 'compare-different-count', dataset: { value: suite.different } }, fmtCount(suite.different)),
      ` of ${fmtCount(suite.items.length)} items differ from the baseline ${letter(cols[0])} by the rule. `,
      h('label', { class: 'toggle' }, onlyDiff, ' Show only those')),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data compare-table' },
      h('caption', { class: 'sr-only' }, `${suite.suite}: each file's ${suite.statistic}, and each against ${letter(cols[0])}`),
      h('thead', {}, head), tbody)));
  const columns = 1 + 3 * cols.length - 2;
  const first = Math.max(FIRST_ROWS[0], Math.min(FIRST_ROWS[1], Math.floor(FIRST_CELLS / columns)));
  const more = fill(tbody, suite.items, (item) => itemRow(item, cols, files, suite.suite), first, 'items');
  if (more) block.append(more);
  const showOnly = (on) => {
    block.classList.toggle('only-different', on);
    // Every differing item, not only those among the first rows (after the
    // block is attached: the button builds only into a table in the page).
    if (on && more) setTimeout(() => { if (more.isConnected && !more.disabled) more.click(); }, 0);
  };
  showOnly(onlyDiff.checked);
  onlyDiff.addEventListener('change', () => {
    showOnly(onlyDiff.checked);
    if (onlyDiff.checked) only.add(suite.suite);
    else only.delete(suite.suite);
  });
  return block;
}

function itemRow(item, cols, files, suite) {
  const anyDiff = item.against_baseline.some((p) => p.verdict === 'different');
  return h('tr', { 'data-testid': 'compare-row', class: anyDiff ? 'different' : null, dataset: { suite, key: item.key } },
    h('th', { scope: 'row', class: 'wrap' }, item.key),
    item.values.map((v, k) => {
      const cell = h('td', { class: 'num', 'data-testid': 'compare-value', dataset: { file: cols[k], value: v?.estimate } }, fmtEst(v, item));
      if (k === 0) return cell;
      const p = item.against_baseline[k - 1];
      const r = p?.ratio;
      return [cell,
        h('td', { class: 'num', 'data-testid': 'compare-ratio', dataset: { file: cols[k], value: r?.estimate, lo: r?.lo, hi: r?.hi } },
          r ? [h('span', { class: 'value' }, fmtRatio(r.estimate)), h('span', { class: 'ci' }, ` [${fmtRatio(r.lo)}, ${fmtRatio(r.hi)}]`)] : h('span', { class: 'muted' }, '—')),
        h('td', { 'data-testid': 'verdict', dataset: { file: cols[k], value: p?.verdict, faster: p?.faster } }, verdict(p, files))];
    }));
}

function verdict(p, files) {
  if (!p || p.verdict === 'missing') return h('span', { class: 'badge neutral' }, 'no estimate');
  if (p.verdict === 'same') return h('span', { class: 'badge ok' }, 'same');
  const who = p.faster != null ? `${letter(p.faster)} faster` : '';
  return h('span', { class: 'badge warn', title: `relative difference ${fmtPercent(p.relative_difference)}` },
    `different · ${who}`, h('span', { class: 'sub' }, ` by ${fmtPercent(p.relative_difference)}`));
}

function pooledBlock(pooled, files) {
  const block = h('div', { class: 'compare-pooled', 'data-testid': 'compare-pooled' },
    h('h3', {}, 'Pooled executions'),
    h('p', { class: 'muted' }, 'Executions of the same configuration on the same host, concatenated across files and analysed as one set: random-effects mean with its CI, the CV within executions and the impact factor (1 = executions add no noise).'));
  if (!pooled.length) {
    block.append(h('p', { class: 'muted', 'data-testid': 'compare-pooled-none' }, 'No configuration appears in two or more files of the same host.'));
    return block;
  }
  const tbody = h('tbody', {});
  block.append(h('div', { class: 'table-wrap' }, h('table', { class: 'data' },
    h('thead', {}, h('tr', {}, ['Suite', 'Item', 'Host', 'Files pooled', 'Executions', 'Mean [CI]', 'CV within', 'Impact factor']
      .map((t) => h('th', { scope: 'col' }, t)))),
    tbody)));
  const more = fill(tbody, pooled, (p) => {
    const s = p.stats;
    const re = s?.random_effects;
    const item = { unit: p.unit, unit_ns: p.unit_ns };
    const mean = re?.ci ? { estimate: re.mean, lo: re.ci[0], hi: re.ci[1] }
      : s?.mean_bootstrap ?? null;
    return h('tr', { 'data-testid': 'pooled-row', dataset: { suite: p.suite, key: p.key, executions: s?.executions, mean: mean?.estimate } },
      h('td', {}, p.suite),
      h('th', { scope: 'row', class: 'wrap' }, p.key),
      h('td', {}, p.host ?? '—'),
      h('td', { class: 'wrap' }, p.files.map((f, k) => `${letter(f)} (${p.executions_per_file[k]})`).join(', ')),
      h('td', { class: 'num' }, fmtCount(s?.executions)),
      h('td', { class: 'num' }, fmtEst(mean, item)),
      h('td', { class: 'num' }, ciText(s?.cv_within, fmtPercent)),
      h('td', { class: 'num' }, ciText(s?.impact_factor, (x) => fmtNum(x, { digits: 3 }))));
  }, 100, 'pooled configurations');
  if (more) block.append(more);
  return block;
}

/**
 * The first `first` rows of `items` now, the rest behind a Show all button
 * (dom.js showMore); data-complete says the rows due without a click are in.
 */
function fill(tbody, items, row, first, noun) {
  const more = showMore(tbody, items.length, (i) => row(items[i]), { first, noun });
  tbody.dataset.complete = 'true';
  return more;
}

/** An empty placeholder while the comparison is computed. */
export function comparePending(n) {
  return h('section', { class: 'cell compare', id: 'cell-compare', 'data-testid': 'compare-cell', dataset: { pending: 'true' } },
    h('h2', {}, h('span', { class: 'kind' }, 'Comparison'), ' ', h('span', { class: 'file' }, `${n} files`)),
    h('p', { class: 'muted' }, 'Comparing in the background…'));
}

export function compareFailed(message) {
  return h('section', { class: 'cell compare', id: 'cell-compare', 'data-testid': 'compare-cell', dataset: { failed: 'true' } },
    h('h2', {}, h('span', { class: 'kind' }, 'Comparison')),
    h('p', { class: 'error-text', role: 'alert' }, `The comparison could not be computed: ${message}`));
}

