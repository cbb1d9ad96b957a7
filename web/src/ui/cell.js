// Pieces every notebook cell shares: its section, the header naming the file
// and where it came from, and the file's warnings; and the cards a file gets
// instead of cells (it could not be read, it has nothing to show).

import { h } from './dom.js';

/**
 * A suite cell's section: `ctx.cell` is the cell's entry in the analysis'
 * list (wasm `cells()`: name, title), which names its id, test id, class and
 * header; `children` follow the header.
 */
export function cellSection(ctx, report, key, ...children) {
  const { name, title } = ctx.cell;
  return h('section', {
    class: `cell ${name}`, id: `cell-${key}-${name}`, 'data-testid': `${name}-cell`,
    dataset: { file: report.file }, 'aria-label': `${title}: ${report.file}`,
  },
  cellHeader(title, report),
  children);
}

export function cellHeader(title, report) {
  const i = report.info ?? {};
  const facts = [
    ['host', i.host], ['CPU', i.cpu], ['arch', i.arch], ['kernel', i.kernel],
    ['hypervisor', i.hypervisor], ['clocksource', i.clocksource],
    ['started', i.started_at], ['run', i.status], ['tickbook', i.tool_version],
  ].filter(([, v]) => v != null && v !== '');
  return h('header', { class: 'cell-head' },
    h('h2', {}, h('span', { class: 'kind' }, title), ' ', h('span', { class: 'file' }, report.file)),
    facts.length
      ? h('dl', { class: 'facts' }, facts.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))))
      : null);
}

/** One fact of a cell's headline list (<dl>): its label and value. */
export function fact(label, value) {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value));
}

export function warningsList(warnings) {
  if (!warnings?.length) return null;
  return h('div', { class: 'warnings', role: 'note', 'data-testid': 'warnings' },
    h('strong', {}, warnings.length === 1 ? 'Warning' : `${warnings.length} warnings`),
    h('ul', {}, warnings.map((w) => h('li', {}, w))));
}

export function errorCard(report, key) {
  const e = report.error ?? { file: report.file, path: null, message: 'unknown error' };
  return h('section', {
    class: 'cell error-card', id: `cell-${key}-error`, role: 'alert',
    'data-testid': 'error-card', dataset: { file: report.file },
  },
  h('h2', {}, h('span', { class: 'kind' }, report.loadError ? 'Could not load' : 'Could not read'), ' ', h('span', { class: 'file' }, e.file)),
  h('p', { class: 'message', 'data-testid': 'error-message' }, e.message),
  e.path ? h('p', { class: 'where' }, 'at ', h('code', { 'data-testid': 'error-path' }, e.path)) : null,
  h('p', { class: 'muted' }, report.loadError
    ? 'The other files are not affected.'
    : 'This file was not analysed; the other files are not affected. Its bytes were read by the analysis and rejected for the reason above.'));
}
