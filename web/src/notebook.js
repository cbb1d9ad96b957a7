// The notebook: one slot per file, in the order the files were added, holding
// that file's cells (error card, Clocks, Samples).

import { h, clear } from './dom.js';
import { errorCard } from './cell.js';
import { clocksCell } from './clocks.js';
import { samplesCell } from './samples.js';
import { quantileName } from './quantiles.js';

export class Notebook {
  constructor(container) {
    this.container = container;
    this.slots = new Map();
  }

  add(key) {
    const slot = h('div', { class: 'slot', dataset: { key } });
    this.slots.set(key, slot);
    this.container.append(slot);
  }

  remove(key) {
    const slot = this.slots.get(key);
    if (!slot) return;
    dispose(slot);
    slot.remove();
    this.slots.delete(key);
  }

  /** Render a FileReport into its slot; returns the id of its first cell (for the file list's link). */
  render(key, report) {
    const slot = this.slots.get(key);
    if (!slot) return null;
    dispose(slot);
    clear(slot);
    const cells = [];
    if (!report.ok) cells.push(errorCard(report, key));
    else {
      if (report.clocks) cells.push(clocksCell(report, key));
      if (report.samples) cells.push(samplesCell(report, key, quantileName));
      if (!cells.length) {
        cells.push(h('section', { class: 'cell', id: `cell-${key}-empty`, 'data-testid': 'empty-cell', dataset: { file: report.file } },
          h('h2', {}, h('span', { class: 'kind' }, 'Nothing to show'), ' ', h('span', { class: 'file' }, report.file)),
          h('p', {}, 'The file was read, but it has no suite this page can show (suites: ',
            (report.info?.suites ?? []).join(', ') || 'none', ').')));
      }
    }
    slot.append(...cells);
    return cells[0]?.id ?? null;
  }
}

function dispose(slot) {
  for (const fig of slot.querySelectorAll('figure.chart')) fig.dispose?.();
}
