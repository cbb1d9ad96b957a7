// The History cell across files: the readable files as one history, a file
// per commit (report::across::history), shown when series are in three of
// them or more. A change clicked (its table row, its button or its band in
// a chart) opens the Comparison cell on the two commits around it.

import { historyCell, historyPending, historyFailed } from './cell.js';
import { commitsAround } from './chart.js';

/**
 * Draw the cell in `slot` for `inputs` (the readable files, as its needs
 * choose them: one list of three files or more, or none). See
 * web/src/app/across.js for `ctx`.
 */
export async function update(slot, inputs, ctx) {
  const [keys] = inputs;
  if (!keys) {
    slot.replaceChildren();
    return;
  }
  // What is on show stays until the new report is in; a first one gets a placeholder.
  if (!slot.firstChild) slot.append(historyPending(keys.length));
  let cell = null;
  try {
    // (Quiet series are counted, not charted: their estimates stay in the worker.)
    const report = await ctx.ask(keys, { order: 'auto', quiet_estimates: false }, { label: `History: finding the changes across ${keys.length} files` });
    if (!ctx.current()) return;
    const keyOf = fileKeys(report.files, keys, ctx);
    if (report.series.length) {
      cell = historyCell(report, (series, change) => openComparison(keyOf, report.files, change, ctx));
    }
  } catch (e) {
    if (e?.cancelled) return;
    cell = historyFailed(e?.message ?? String(e));
  }
  if (!ctx.current()) return;
  slot.replaceChildren(...(cell ? [cell] : []));
}

/**
 * Each of the report's files (in the order used) as the page's file key:
 * by the position it was given in (`input`) where the report says it, else
 * by its name, the first key of that name not yet taken.
 */
function fileKeys(files, keys, ctx) {
  const free = new Map();
  for (const k of keys) {
    const name = ctx.name(k);
    if (!free.has(name)) free.set(name, []);
    free.get(name).push(k);
  }
  return files.map((f) => (Number.isInteger(f.input) && keys[f.input] != null ? keys[f.input] : free.get(f.name)?.shift() ?? null));
}

/** The Comparison cell on the two commits around `change`, scrolled to and focused. */
async function openComparison(keyOf, files, change, ctx) {
  const [a, b] = commitsAround(change);
  const pair = [keyOf[a], keyOf[b]];
  if (pair.some((k) => k == null)) return;
  const label = `${files[a].name} and ${files[b].name}, around the ${change.kind} at ${change.index} (from the History cell)`;
  const slot = await ctx.open('compare', { pair, pairLabel: label, seriesKey: null });
  const cell = slot?.querySelector('[data-testid=compare-cell]');
  if (!cell) return;
  cell.scrollIntoView({ block: 'start' });
  (cell.querySelector('[data-testid=compare-pair]') ?? cell).focus({ preventScroll: true });
}
