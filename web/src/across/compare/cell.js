// The Comparison cell: several files side by side (machine A against machine
// B, before against after). Everything shown comes from report::compare
// (the cell across files `compare`, `tickbook analyze --compare --json`): each
// file's estimate with its CI, each file against the first (baseline) as a
// ratio with its CI, and the verdict of the comparison rule. Optionally, the
// executions of one configuration from several files pooled; warm-up series
// compared only when asked (the CLI's --warm-ups). `seriesCell`: one file's
// series against a reference series (report::compare_series, `analyze
// --compare-series --json`), with hyperfine's relative speed.
//
// Many files make wide tables (24 files: 71 columns): each suite is built in
// a task of its own (dom.js later), shows its first rows (fewer the wider the
// table) and a Show all button that builds the rest in chunks, so the main
// thread never holds a long task. 'Show only those' builds every row. Past
// 25 files compared with the baseline, a suite shows them 25 at a time.

import { h, later, laterDone, showMore } from '../../ui/dom.js';
import { fmtNum, fmtPercent, fmtCount, fmtFactor, scaleOf, ciDecimals } from '../../ui/units.js';
import { ciText } from '../../ui/ci.js';

// Table cells a suite shows at first (rows × columns), and the rows' bounds.
const FIRST_CELLS = 3000;
const FIRST_ROWS = [20, 100];
// Files compared with the baseline in one table; more go on further pages.
const FILES_PER_PAGE = 25;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const letter = (i) => (i < 26 ? LETTERS[i] : `F${i + 1}`);

/** An estimate scaled to a unit (times and bytes) and, muted, its interval to the digits it needs. */
function fmtEst(est, item) {
  if (!est) return h('span', { class: 'muted' }, '—');
  const [s, unit] = scaleOf(est.estimate, item);
  const [x, lo, hi] = [est.estimate / s, est.lo / s, est.hi / s];
  const d = ciDecimals(x, lo, hi);
  return [
    h('span', { class: 'value' }, `${x.toFixed(d)}\u202f${unit}`),
    h('span', { class: 'ci' }, ` [${lo.toFixed(d)}, ${hi.toFixed(d)}]`),
  ];
}

/** A ratio and, muted, its interval, to four significant digits and the digits the interval needs. */
function fmtRatioCi(r) {
  if (!r) return h('span', { class: 'muted' }, '\u2014');
  if (r.hi >= 1e300) return [h('span', { class: 'value' }, fmtRatio(r.estimate)), h('span', { class: 'ci' }, ` [${fmtRatio(r.lo)}, \u221e]`)];
  const d = ciDecimals(r.estimate, r.lo, r.hi);
  return [h('span', { class: 'value' }, `${r.estimate.toFixed(d)}\u00d7`), h('span', { class: 'ci' }, ` [${r.lo.toFixed(d)}, ${r.hi.toFixed(d)}]`)];
}

// Ratios near 1 are what a comparison is about: four significant digits.
const fmtRatio = (x) => fmtFactor(x, { digits: 4 });

/** The rank test's p as compare.py prints it (four decimals), small ones in exponent form. */
function fmtP(p) {
  const v = p?.test?.p_value;
  if (v == null) return '\u2014';
  return v < 1e-4 ? v.toExponential(1) : v.toFixed(4);
}

/** Words for a lower and a higher value: time is faster or slower, bytes smaller or larger. */
const WORDS = { time: ['faster', 'slower'], memory: ['smaller', 'larger'], other: ['less', 'more'] };

/** The warm-up toggle both comparisons have: equal to the CLI's --warm-ups. */
function warmUpsToggle(on, set) {
  const box = h('input', {
    type: 'checkbox', 'data-testid': 'warmups-toggle', checked: Boolean(on),
    onchange: (e) => set(e.target.checked),
  });
  return h('label', { class: 'toggle' }, box, ' Compare warm-up series too (pyperf\u2019s; left out by default)');
}

/**
 * The cell for a ComparisonReport. `ctx`: {threshold: current share,
 * pool: bool, setPool(bool), setWarmUps(bool), names: [label per compared
 * file], only: Set of suites showing only the items that differ (kept in
 * the link, state.js; this cell adds and removes suites), seriesFiles:
 * [{key, name}] of files with series, showSeries(key): compare one's series
 * instead, pair: null, or {label, back()} for two files opened from another
 * cell (the History cell's commits around a change)}.
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
    'aria-labelledby': 'compare-title', dataset: { pooling: String(report.pooling), warmUps: String(report.warm_ups), threshold },
  },
  h('header', { class: 'cell-head' },
    h('h2', { id: 'compare-title' }, h('span', { class: 'kind' }, 'Comparison'), ' ',
      h('span', { class: 'file' }, `${files.length} files`)),
    h('p', { class: 'lede' },
      'The same suite from several files, item by item: each file\u2019s estimate with its ',
      `${fmtPercent(conf)} CI, and each file against the baseline (`, h('strong', {}, 'A'),
      ') as a ratio with a bootstrap CI (both sides resampled; by execution where there are executions). ',
      'A difference is shown by disjoint CIs where there are executions (Hocko and Kalibera, 2010), and by a two-sided Mann\u2013Whitney U test (p below ',
      `${fmtPercent(1 - conf)}) where each side is one process; two results are `, h('strong', {}, 'different'), ' only when it is shown, the ratio CI excludes 1 ',
      h('em', {}, 'and'), ' they differ by more than the threshold, now ',
      h('strong', { 'data-testid': 'compare-threshold', dataset: { value: threshold } }, fmtPercent(threshold)),
      ' (the Threshold control above); shown but smaller is \u201cwithin threshold\u201d, and a rule that disagrees with the ratio CI is \u201cunclear\u201d. Method: docs/methods.md, \u201cComparing two results\u201d.'),
    h('label', { class: 'toggle' }, pool, ' Pool executions of the same configuration on the same host (samples series, alloc configurations)'),
    ' ', warmUpsToggle(report.warm_ups, ctx.setWarmUps ?? (() => {})),
    ctx.seriesFiles?.length ? [' ', h('label', { class: 'toggle inline-control' }, 'Compare the series of one file instead: ',
      h('select', { 'data-testid': 'series-file', onchange: (e) => { if (e.target.value) ctx.showSeries(e.target.value); } },
        h('option', { value: '' }, '\u2014'),
        ctx.seriesFiles.map((f) => h('option', { value: f.key }, f.name))))] : null,
    ctx.pair ? h('p', { class: 'summary-line', 'data-testid': 'compare-pair', tabindex: '-1' },
      `Two files: ${ctx.pair.label}. `,
      h('button', { type: 'button', class: 'button small', 'data-testid': 'compare-pair-back', onclick: () => ctx.pair.back() }, 'Compare every file again')) : null),
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
  const onlyDiff = h('input', { type: 'checkbox', 'data-testid': 'compare-only-different', checked: only.has(suite.suite) });
  const geomeans = new Map((suite.geomean ?? []).map((g) => [g.file, g]));
  const part = h('div', { class: 'compare-page' });
  const block = h('div', { class: 'compare-suite', 'data-testid': 'compare-suite', dataset: { suite: suite.suite, different: suite.different, items: suite.items.length } },
    h('h3', {}, `${suite.suite}: `, h('span', { class: 'muted' }, suite.statistic)),
    h('p', { class: 'summary-line' },
      h('strong', { 'data-testid': 'compare-different-count', dataset: { value: suite.different } }, fmtCount(suite.different)),
      ` of ${fmtCount(suite.items.length)} items differ from the baseline ${letter(cols[0])} by the rule${cols.length - 1 > FILES_PER_PAGE ? ' (in any compared file, on this page or another)' : ''}. `,
      suite.warm_ups_left_out ? h('span', { class: 'muted', 'data-testid': 'compare-warm-ups', dataset: { value: suite.warm_ups_left_out } },
        `${fmtCount(suite.warm_ups_left_out)} warm-up series left out. `) : null,
      h('label', { class: 'toggle' }, onlyDiff, ' Show only those')),
    part);
  let more = null;
  const showOnly = (on) => {
    block.classList.toggle('only-different', on);
    // Every differing item, not only those among the first rows (after the
    // block is attached: the button builds only into a table in the page).
    if (on && more) setTimeout(() => { if (more.isConnected && !more.disabled) more.click(); }, 0);
  };
  // Hundreds of files would make one table of thousands of columns, built
  // in one long task and read by nobody: the baseline and a page of files
  // at a time, with buttons to the next.
  const pages = Math.max(1, Math.ceil((cols.length - 1) / FILES_PER_PAGE));
  const show = (pageNo, focus = null) => {
    const ks = [0];
    for (let k = 1 + pageNo * FILES_PER_PAGE; k < Math.min(cols.length, 1 + (pageNo + 1) * FILES_PER_PAGE); k++) ks.push(k);
    const built = pageTable(suite, files, cols, ks, geomeans);
    more = built.more;
    part.replaceChildren(pages > 1 ? filePager(cols, ks, pageNo, pages, show) : '', ...built.nodes);
    showOnly(onlyDiff.checked);
    // Keep the keyboard where it was: the same button of the new pager, or
    // at the first or last page the one still enabled.
    if (focus) (part.querySelector(`[data-testid=${focus}]:not([disabled])`) ?? part.querySelector('[data-testid=compare-file-page] button:not([disabled])'))?.focus();
  };
  show(0);
  onlyDiff.addEventListener('change', () => {
    showOnly(onlyDiff.checked);
    if (onlyDiff.checked) only.add(suite.suite);
    else only.delete(suite.suite);
  });
  return block;
}

/** "Files B–Z of 999 compared with A", with buttons to the pages before and after. */
function filePager(cols, ks, pageNo, pages, show) {
  const range = `${letter(cols[ks[1]])}–${letter(cols[ks[ks.length - 1]])}`;
  const go = (n) => h('button', {
    type: 'button', class: 'button small', 'data-testid': n < pageNo ? 'compare-page-previous' : 'compare-page-next',
    disabled: n < 0 || n >= pages,
    onclick: () => show(n, n < pageNo ? 'compare-page-previous' : 'compare-page-next'),
  }, n < pageNo ? '← Previous files' : 'Next files →');
  return h('p', { class: 'summary-line', 'data-testid': 'compare-file-page', dataset: { page: pageNo, pages, first: ks[1], last: ks[ks.length - 1] } },
    `Files ${range} (${fmtCount(ks[1])}–${fmtCount(ks[ks.length - 1])} of ${fmtCount(cols.length - 1)} compared with ${letter(cols[0])}), ${FILES_PER_PAGE} at a time: page ${pageNo + 1} of ${pages}. `,
    go(pageNo - 1), ' ', go(pageNo + 1));
}

/** The geometric means and the table of the compared files `ks` (indices into `cols`, the baseline first). */
function pageTable(suite, files, cols, ks, geomeans) {
  const head = h('tr', {},
    h('th', { scope: 'col' }, 'Item'),
    ks.map((k) => [
      h('th', { scope: 'col', class: 'num', title: files[cols[k]].name }, `${letter(cols[k])}${k === 0 ? ' (baseline)' : ''}`),
      k > 0 ? [h('th', { scope: 'col', class: 'num' }, `${letter(cols[k])} / ${letter(cols[0])}`),
        h('th', { scope: 'col', class: 'num', title: 'two-sided Mann\u2013Whitney U test' }, 'p'), h('th', { scope: 'col' }, 'Verdict')] : null,
    ]));
  const tbody = h('tbody', {});
  const geo = ks.slice(1).map((k) => geomeans.get(cols[k])).filter(Boolean).map((g) => h('p', { class: 'summary-line', 'data-testid': 'compare-geomean', dataset: { file: g.file, items: g.items, value: g.ratio?.estimate, lo: g.ratio?.lo, hi: g.ratio?.hi } },
    `Geometric mean of ${letter(g.file)} / ${letter(g.baseline)} over ${fmtCount(g.items)} time-like items: `,
    g.ratio ? fmtRatioCi(g.ratio) : h('span', { class: 'muted' }, 'no time-like item in both')));
  // A region the keyboard can scroll from the start: with many files the
  // table is wider than its card, and it is rebuilt whenever the
  // comparison is (scrollcue.js would make it one a frame later).
  const wrap = h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': `${suite.suite}: the files compared` }, h('table', { class: 'data compare-table' },
    h('caption', { class: 'sr-only' }, `${suite.suite}: each file's ${suite.statistic}, and each against ${letter(cols[0])}`),
    h('thead', {}, head), tbody));
  const columns = 1 + 4 * ks.length - 3;
  const first = Math.max(FIRST_ROWS[0], Math.min(FIRST_ROWS[1], Math.floor(FIRST_CELLS / columns)));
  const more = fill(tbody, suite.items, (item) => itemRow(item, cols, ks, suite.suite), first, 'items');
  return { nodes: [...geo, wrap, more].filter(Boolean), more };
}

function itemRow(item, cols, ks, suite) {
  const anyDiff = item.against_baseline.some((p) => p.verdict === 'different');
  return h('tr', { 'data-testid': 'compare-row', class: anyDiff ? 'different' : null, dataset: { suite, key: item.key } },
    h('th', { scope: 'row', class: 'wrap' }, item.key),
    ks.map((k) => {
      const v = item.values[k];
      const cell = h('td', { class: 'num', 'data-testid': 'compare-value', dataset: { file: cols[k], value: v?.estimate } }, fmtEst(v, item));
      if (k === 0) return cell;
      const p = item.against_baseline[k - 1];
      const r = p?.ratio;
      return [cell,
        h('td', { class: 'num', 'data-testid': 'compare-ratio', dataset: { file: cols[k], value: r?.estimate, lo: r?.lo, hi: r?.hi } }, fmtRatioCi(r)),
        h('td', { class: 'num', 'data-testid': 'compare-p', dataset: { file: cols[k], value: p?.test?.p_value } }, fmtP(p)),
        h('td', { 'data-testid': 'verdict', dataset: { file: cols[k], value: p?.verdict, faster: p?.faster, lower: p?.lower } }, verdict(p, item))];
    }));
}

/** The verdict in words from the compared side, as the terminal words it; `name` names a side (a file's letter, a series). */
function verdict(p, item, name = letter) {
  if (!p || p.verdict === 'no_estimate') return h('span', { class: 'badge neutral' }, 'no estimate');
  if (p.verdict === 'missing') {
    const has = p.missing_from === p.file ? p.baseline : p.file;
    return h('span', { class: 'badge neutral' }, `only in ${name(has)}`);
  }
  if (p.verdict === 'same') return h('span', { class: 'badge ok' }, 'same');
  if (p.verdict === 'unclear') {
    return h('span', { class: 'badge neutral', title: p.rule === 'rank_test' ? 'the rank test and the ratio CI disagree' : 'the CIs and the ratio CI disagree' }, 'unclear');
  }
  const [low, high] = WORDS[item.quantity] ?? WORDS.other;
  const word = p.lower === p.file ? low : high;
  const d = p.relative_difference;
  // From twice on as a factor: `B 32.0× faster`, as the terminal says it.
  const [body, by] = d != null && d >= 1 ? [`${name(p.file)} ${fmtFactor(1 + d)} ${word}`, ''] : [`${name(p.file)} ${word}`, ` by ${fmtPercent(d)}`];
  if (p.verdict === 'within_threshold') {
    return h('span', { class: 'badge ok', title: 'shown, but no larger than the threshold' },
      'within threshold', h('span', { class: 'sub' }, ` · ${body}${by}`));
  }
  return h('span', { class: 'badge warn', title: `relative difference ${fmtPercent(d)}` },
    `different · ${body}`, h('span', { class: 'sub' }, by));
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

/** hyperfine's figure as it prints it: `1.38 ± 0.33` (two decimals). */
function fmtSpeed(s) {
  if (!s) return '\u2014';
  return s.factor_error != null ? `${s.factor.toFixed(2)} \u00b1 ${s.factor_error.toFixed(2)}` : s.factor.toFixed(2);
}

/**
 * The cell for a SeriesComparisonReport: one file's series, per unit, each
 * against the unit's reference series. `ctx`: {threshold, reference: the
 * name asked for or null, setReference(name|null), setWarmUps(bool), back:
 * null, or with several files a function that goes back to comparing them}.
 */
export function seriesCell(report, ctx) {
  const threshold = report.options?.threshold ?? ctx.threshold;
  const conf = report.options?.bootstrap?.confidence ?? report.options?.confidence;
  const names = [...report.groups.flatMap((g) => g.series), ...report.alone];
  const select = h('select', {
    'data-testid': 'series-reference', 'aria-label': 'Reference series',
    onchange: (e) => ctx.setReference(e.target.value || null),
  },
  h('option', { value: '' }, 'the lowest of each unit'),
  names.map((n) => h('option', { value: n, selected: n === report.reference_asked }, n)));
  const section = h('section', {
    class: 'cell compare', id: 'cell-compare', 'data-testid': 'compare-cell',
    'aria-labelledby': 'compare-title', dataset: { series: 'true', warmUps: String(report.warm_ups), threshold, reference: report.reference_asked ?? '' },
  },
  h('header', { class: 'cell-head' },
    h('h2', { id: 'compare-title' }, h('span', { class: 'kind' }, 'Comparison'), ' ',
      h('span', { class: 'file' }, `series of ${report.file.name}`)),
    h('p', { class: 'lede' },
      'The series of one file, per unit, each against a reference series: its estimate with its ',
      `${fmtPercent(conf)} CI, its ratio to the reference with a bootstrap CI, and the verdict by the rule files are compared by (a two-sided Mann\u2013Whitney U test, p below ${fmtPercent(1 - conf)}, for one process or one run per process; disjoint CIs for executions); `,
      h('strong', {}, 'different'), ` when shown, the ratio CI agreeing, and above ${fmtPercent(threshold)}. `,
      'The last column is hyperfine\u2019s relative speed: the ratio of the means \u00b1 the error propagated from the standard deviations, as its summary prints it. Method: docs/methods.md, \u201cComparing two results\u201d.'),
    h('label', { class: 'toggle inline-control' }, 'Reference: ', select),
    ' ', warmUpsToggle(report.warm_ups, ctx.setWarmUps ?? (() => {})),
    ctx.back ? [' ', h('button', { type: 'button', 'data-testid': 'series-back', onclick: () => ctx.back() }, 'Compare the files instead')] : null),
  );
  section.dataset.byGroup = String(report.by_group);
  if (report.alternatives === 'groups') section.append(scopeNote(report, ctx));
  if (report.warm_ups_left_out) {
    section.append(h('p', { class: 'muted', 'data-testid': 'compare-warm-ups', dataset: { value: report.warm_ups_left_out } },
      `${fmtCount(report.warm_ups_left_out)} warm-up series left out.`));
  }
  for (const g of report.groups) section.append(seriesGroup(g));
  if (report.alone.length) {
    const what = report.by_group ? 'Not compared (no other series of their benchmark and unit)' : 'Alone in their unit, not compared';
    section.append(h('p', { class: 'muted', 'data-testid': 'series-alone', dataset: { count: report.alone.length } },
      `${what}: ${report.alone.join(', ')}.`));
  }
  section.dataset.built = 'true';
  return section;
}

/**
 * Which series were compared: a file of unrelated benchmarks (its tool never
 * compares them) compares only one benchmark's configurations or parameters,
 * with a button to compare every series anyway, and back.
 */
function scopeNote(report, ctx) {
  const setEvery = ctx.setEvery ?? (() => {});
  if (!report.by_group) {
    return h('p', { class: 'muted', 'data-testid': 'series-scope', dataset: { scope: 'every' } },
      report.reference_asked != null
        ? 'Every series of the reference\u2019s unit is compared with it, although the file\u2019s tool holds its benchmarks unrelated. '
        : 'Every series is compared with the others of its unit, although the file\u2019s tool holds its benchmarks unrelated. ',
      h('button', { type: 'button', class: 'button small', 'data-testid': 'series-every', onclick: () => setEvery(false) },
        'Compare only within each benchmark'));
  }
  const compared = report.groups.reduce((n, g) => n + g.series.length, 0);
  return h('p', { class: 'muted', 'data-testid': 'series-scope', dataset: { scope: 'groups', compared } },
    report.groups.length
      ? `Only the series of one benchmark (its configurations, parameters or group) are compared with each other: ${fmtCount(report.groups.length)} such groups. The file\u2019s tool holds its other benchmarks unrelated. `
      : `The ${fmtCount(report.alone.length)} series are separate benchmarks, which the file\u2019s tool never compares with each other: none is compared here. `,
    h('button', { type: 'button', class: 'button small', 'data-testid': 'series-every', onclick: () => setEvery(true) },
      'Compare every series with the others of its unit'));
}

function seriesGroup(g) {
  const name = (i) => g.series[i];
  const rows = g.series.map((s, i) => {
    const v = g.values[i];
    if (i === 0) {
      return h('tr', { 'data-testid': 'series-compare-row', dataset: { series: s, reference: 'true', value: v?.estimate } },
        h('th', { scope: 'row', class: 'wrap' }, s, h('span', { class: 'sub' }, ' (reference)')),
        h('td', { class: 'num' }, fmtEst(v, g)), h('td', {}), h('td', {}), h('td', {}), h('td', {}));
    }
    const p = g.against_reference[i - 1];
    const sp = g.relative_speed[i - 1];
    const r = p?.ratio;
    return h('tr', {
      'data-testid': 'series-compare-row', class: p?.verdict === 'different' ? 'different' : null,
      dataset: { series: s, value: v?.estimate, ratio: r?.estimate, lo: r?.lo, hi: r?.hi, p: p?.test?.p_value, verdict: p?.verdict, lower: p?.lower, speed: sp?.factor, speedError: sp?.factor_error },
    },
    h('th', { scope: 'row', class: 'wrap' }, s),
    h('td', { class: 'num' }, fmtEst(v, g)),
    h('td', { class: 'num' }, fmtRatioCi(r)),
    h('td', { class: 'num' }, fmtP(p)),
    h('td', {}, verdict(p, g, name)),
    h('td', { class: 'num', 'data-testid': 'series-speed' }, fmtSpeed(sp)));
  });
  const summary = [`'${g.series[0]}' ran`, ...g.relative_speed.map((sp, k) => sp
    ? `    ${fmtSpeed(sp)} times ${sp.reference_lower ? 'faster' : 'slower'} than '${g.series[k + 1]}'` : null).filter(Boolean)];
  return h('div', { class: 'compare-suite', 'data-testid': 'series-group', dataset: { unit: g.unit, group: g.group ?? '', different: g.different } },
    h('h3', {}, g.group ? `${g.group} · ` : '', `${g.unit}: `, h('span', { class: 'muted' }, `reference ${g.series[0]} (${g.reference === 'named' ? 'named' : 'the lowest'})`)),
    h('p', { class: 'summary-line' }, h('strong', {}, fmtCount(g.different)), ` of ${fmtCount(g.series.length - 1)} series differ from the reference.`),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data compare-table' },
      h('caption', { class: 'sr-only' }, `${g.unit}: each series against ${g.series[0]}`),
      h('thead', {}, h('tr', {}, ['Series', 'Estimate', 'Ratio to reference', 'p', 'Verdict', 'hyperfine'].map((t, k) => h('th', { scope: 'col', class: k && k !== 4 ? 'num' : null }, t)))),
      h('tbody', {}, rows))),
    h('pre', { class: 'summary', 'data-testid': 'series-summary' }, summary.join('\n')));
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

