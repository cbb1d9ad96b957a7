// WebAssembly against native, across files: each loaded browser measurement
// against each loaded run with native operations, a cell per pair.

import { h } from '../../ui/dom.js';
import { nativeCell } from './cell.js';

/**
 * Draw a cell per pair in `slot`: `inputs` are [browser, native] file keys,
 * as the cell's needs pair them. See web/src/app/across.js for `ctx`.
 */
export async function update(slot, inputs, ctx) {
  const cells = [];
  for (const [browser, native] of inputs) {
    try {
      cells.push(nativeCell(await ctx.ask([browser, native], {}), ctx.name(browser), ctx.name(native)));
    } catch (e) {
      if (e?.cancelled) return;
      cells.push(h('section', { class: 'cell error', 'data-testid': 'native-failed' }, h('h2', {}, 'WebAssembly against native'), h('p', {}, e?.message ?? String(e))));
    }
    if (!ctx.current()) return;
  }
  slot.replaceChildren(...cells);
}
