// The Campaign cell across files: the readable files as one campaign, shown
// when they come from two machines or more, one with several executions.

import { h } from '../../ui/dom.js';
import { campaignCell, isCampaign } from './cell.js';

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
  let cell = null;
  try {
    const report = await ctx.ask(keys, {}, { label: `Analysing a campaign of ${keys.length} files` });
    if (isCampaign(report)) cell = campaignCell(report);
  } catch (e) {
    if (e?.cancelled) return;
    cell = h('section', { class: 'cell error', 'data-testid': 'campaign-failed' }, h('h2', {}, 'Campaign'), h('p', {}, e?.message ?? String(e)));
  }
  if (!ctx.current()) return;
  slot.replaceChildren(...(cell ? [cell] : []));
}
