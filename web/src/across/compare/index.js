// The Comparison cell across files: the readable files that share a suite
// side by side, or, with one file of series (or one chosen), its series
// against a reference series. Its toggles (pooling, warm-ups, the reference
// series, the suites showing only what differs) are kept in links.

import { compareCell, comparePending, compareFailed, seriesCell } from './cell.js';

// Longer strings are no choice the cell offers: dropped from a link.
const MAX_TEXT = 200;

/**
 * What a link keeps of the cell's view, under its key `c` (app/state.js):
 * {pool, warm, ref, only, all}. `restore` takes the link's object (untrusted:
 * only fields of the right type are kept), `save` gives it.
 */
export const link = {
  key: 'c',
  restore(c) {
    const o = c != null && typeof c === 'object' && !Array.isArray(c) ? c : {};
    const only = Array.isArray(o.only)
      ? o.only.filter((s) => typeof s === 'string' && s.length <= MAX_TEXT).slice(0, 100)
      : [];
    const reference = typeof o.ref === 'string' && o.ref.length <= MAX_TEXT ? o.ref : null;
    // (update adds `seriesKey`: with several files, the one whose series
    // are shown; and `pair`, `pairLabel`: two files opened from another
    // cell, ctx.open; neither kept in links.)
    return { pool: o.pool === true, warmUps: o.warm === true, reference, only: new Set(only), every: o.all === true };
  },
  save(view) {
    const c = {};
    if (view.pool) c.pool = true;
    if (view.warmUps) c.warm = true;
    if (typeof view.reference === 'string') c.ref = view.reference;
    if (view.only.size) c.only = [...view.only].sort();
    if (view.every) c.all = true;
    return c;
  },
};

/**
 * Draw the cell in `slot`: `inputs` holds the files that share a suite (two
 * or more) or nothing. See web/src/app/across.js for `ctx`.
 */
export async function update(slot, inputs, ctx) {
  const view = ctx.view;
  const [shared = []] = inputs;
  if (view.seriesKey != null && !ctx.files.some((f) => f.key === view.seriesKey)) view.seriesKey = null;
  // Two files chosen elsewhere (the History cell's commits around a change),
  // while both are still loaded and share a suite.
  if (view.pair && !view.pair.every((k) => shared.includes(k))) view.pair = null;
  const keys = view.pair ?? shared;
  const series = keys.length < 2 || (view.seriesKey != null && !view.pair);
  const file = series ? seriesFile(ctx) : null;
  if (series && !file) {
    slot.replaceChildren();
    return;
  }
  if (!series && !slot.firstChild) slot.append(comparePending(keys.length));
  let cell;
  try {
    cell = series ? await seriesOf(file, ctx) : await filesSideBySide(keys, ctx);
  } catch (e) {
    if (e?.cancelled) return;
    cell = compareFailed(e?.message ?? String(e));
  }
  if (!ctx.current()) return;
  const focused = document.activeElement?.dataset?.testid;
  slot.replaceChildren(...(cell ? [cell] : []));
  // The control that asked for this update keeps the focus.
  const refocus = series || focused === 'pool-toggle' || focused === 'warmups-toggle';
  if (cell && focused && refocus) slot.querySelector(`[data-testid="${focused}"]`)?.focus({ preventScroll: true });
}

/** The Comparison of files side by side, or null when no suite is in two of them. */
async function filesSideBySide(keys, ctx) {
  const view = ctx.view;
  const params = { pool: view.pool, warm_ups: view.warmUps };
  const how = { label: `Comparing ${keys.length} files`, spread: true };
  let report = await ctx.ask(keys, params, how);
  // A file in none of the suites compared is left out (compared again
  // without it), so the comparison lists only the files it compares.
  const used = new Set(report.suites.flatMap((s) => s.files));
  if (used.size >= 2 && used.size < report.files.length && report.files.length === keys.length) {
    report = await ctx.ask(keys.filter((_, i) => used.has(i)), params, how);
  }
  if (!report.suites.length) return null;
  const series = ctx.needs.series;
  return compareCell(report, {
    threshold: ctx.options.threshold,
    only: view.only,
    setPool: (on) => { view.pool = on; ctx.again(); },
    setWarmUps: (on) => { view.warmUps = on; ctx.again(); },
    // Files whose series can be compared with each other instead.
    seriesFiles: ctx.files.filter((f) => (f.report.info?.suites ?? []).includes(series)).map(({ key, name }) => ({ key, name })),
    showSeries: (key) => { view.seriesKey = key; view.pair = null; ctx.again(); },
    pair: view.pair ? { label: view.pairLabel ?? '', back: () => { view.pair = null; ctx.again(); } } : null,
  });
}

/** The one readable file with series, or the one chosen among several; else null. */
function seriesFile(ctx) {
  const ok = ctx.files;
  const f = ok.length === 1 ? ok[0] : ok.find((x) => x.key === ctx.view.seriesKey);
  return f && (f.report.info?.suites ?? []).includes(ctx.needs.series) ? f : null;
}

/**
 * One file's series compared with each other, or null when no two share a
 * unit. A file of unrelated benchmarks (report.by_group with no group of
 * two) gets a short cell offering to compare them anyway.
 */
async function seriesOf(f, ctx) {
  const view = ctx.view;
  const report = await ctx.ask([f.key], { series: true, reference: view.reference, warm_ups: view.warmUps, every: view.every === true });
  if (!report.groups.length && !(report.by_group && report.alone.length >= 2)) return null;
  return seriesCell(report, {
    threshold: ctx.options.threshold,
    every: view.every === true,
    setEvery: (on) => { view.every = on; if (!on) view.reference = null; ctx.again(); },
    setReference: (name) => { view.reference = name; ctx.again(); },
    setWarmUps: (on) => { view.warmUps = on; ctx.again(); },
    back: ctx.files.length > 1 ? () => { view.seriesKey = null; ctx.again(); } : null,
  });
}
