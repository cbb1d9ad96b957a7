// The file list: one row per file, filled in when its analysis arrives.

import { h, clear } from '../ui/dom.js';

// Past this many rows the rest are hidden until asked for: with 1,000 files,
// every arriving result re-laid out all the rows, blocking the page for
// seconds. Hidden rows are still filled, so their status stays readable.
const SHOWN_FILES = 100;

export class FileList {
  constructor(section, tbody, { onRemove }) {
    this.section = section;
    this.tbody = tbody;
    this.onRemove = onRemove;
    this.rows = new Map();
    this.showAll = false;
    this.more = h('button', {
      type: 'button', class: 'button small show-all-files', 'data-testid': 'show-all-files', hidden: true,
      onclick: () => { this.showAll = true; this.update(); },
    });
    const wrap = tbody.closest('.table-wrap');
    if (wrap) wrap.after(this.more);
    else section.append(this.more);
  }

  /** Hide rows past the first SHOWN_FILES unless all were asked for. */
  update() {
    let n = 0;
    for (const tr of this.rows.values()) tr.hidden = !this.showAll && n++ >= SHOWN_FILES;
    this.more.hidden = this.showAll || this.rows.size <= SHOWN_FILES;
    this.more.textContent = `Show all ${this.rows.size.toLocaleString('en')} files`;
  }

  /** A row for a file that is still loading or being analysed. */
  add(key, name) {
    const tr = h('tr', { 'data-testid': 'file-row', dataset: { key, file: name, status: 'pending' } });
    tr.hidden = !this.showAll && this.rows.size >= SHOWN_FILES;
    this.rows.set(key, tr);
    this.tbody.append(tr);
    this.section.hidden = false;
    if (this.rows.size > SHOWN_FILES) this.update();
    this.fill(key, name, null);
  }

  remove(key) {
    this.rows.get(key)?.remove();
    this.rows.delete(key);
    this.section.hidden = this.rows.size === 0;
    this.update();
  }

  /** Fill the row from a FileReport (or mark it pending when `report` is null). */
  fill(key, name, report, anchor) {
    const tr = this.rows.get(key);
    if (!tr) return;
    const i = report?.info ?? {};
    const status = report == null ? 'pending' : report.ok ? 'ok' : 'error';
    tr.dataset.status = status;
    const none = () => h('span', { class: 'muted' }, '—');
    // The machine in one column (host, then CPU and system below it), so
    // that the table fits a 1024 px window: a run's kernel, or what an
    // imported file's tool says of the system.
    const system = i.kernel ?? i.platform;
    const machine = [
      i.host ? h('span', { dataset: { field: 'host' } }, i.host) : null,
      i.cpu ? h('span', { class: 'sub', dataset: { field: 'cpu' } }, i.cpu) : null,
      system ? h('span', { class: 'sub', dataset: { field: 'system' } }, system) : null,
    ].filter(Boolean);
    // An ISO time may break after its date.
    const [day, time] = (i.started_at ?? '').split(/(?<=\d)(?=T)/);
    clear(tr).append(
      h('th', { scope: 'row', dataset: { field: 'file' } },
        anchor ? h('a', { href: `#${anchor}` }, name) : name,
        report?.kind ? h('span', { class: 'sub' }, report.kind === 'run' ? 'run file' : `${report.kind} file`,
          report.kind === 'run' && i.suites?.length ? [': ', h('span', { dataset: { field: 'suites' } }, i.suites.join(', '))] : null) : null,
        // Where an imported file came from (pyperf, JMH, …: docs/importers.md).
        i.source ? h('span', { class: 'sub', dataset: { field: 'source' }, 'data-testid': 'file-source' }, `from ${i.source}`) : null),
      h('td', { class: 'machine' }, machine.length ? machine : none()),
      h('td', { dataset: { field: 'date' } }, i.started_at ? h('time', { datetime: i.started_at }, day, time ? [h('wbr'), time] : null) : none()),
      h('td', { dataset: { field: 'status' } }, statusBadge(status, i.status),
        report && !report.ok ? h('span', { class: 'sub error-text' }, report.error?.message) : null),
      h('td', { dataset: { field: 'warnings', count: report?.warnings?.length ?? 0 }, class: 'wrap' },
        report?.warnings?.length
          ? h('ul', { class: 'compact' }, report.warnings.map((w) => h('li', {}, w)))
          : h('span', { class: 'muted' }, report ? 'none' : '')),
      h('td', {}, h('button', {
        type: 'button', class: 'icon', title: `Remove ${name}`, 'aria-label': `Remove ${name}`,
        'data-testid': 'remove-file', onclick: () => this.onRemove(key),
      }, '×')),
    );
  }
}

function statusBadge(status, runStatus) {
  if (status === 'pending') return h('span', { class: 'badge neutral' }, 'analysing…');
  if (status === 'error') return h('span', { class: 'badge bad' }, 'error');
  const extra = runStatus && runStatus !== 'complete' ? ` · ${runStatus}` : '';
  return h('span', { class: ['badge', extra ? 'warn' : 'ok'] }, `ok${extra}`);
}
