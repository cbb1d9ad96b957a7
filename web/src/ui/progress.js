// The status line: what is being fetched or analysed ("Analysing 2 of 3:
// name"), with a Cancel button once the work has taken longer than a moment.

import { h } from './dom.js';

// Work shorter than this never shows Cancel (it would only flicker).
const CANCEL_AFTER_MS = 300;
// Files being loaded that the line names; more are counted.
const FETCH_NAMES = 3;

export class Progress {
  /** `onCancel`: stop the analysis (Analyzer.cancel and what follows). */
  constructor(box, bar, text, { onCancel } = {}) {
    Object.assign(this, { box, bar, text });
    this.fetching = new Set();
    this.analysing = null;
    this.since = 0;
    this.timer = 0;
    this.cancel = h('button', {
      type: 'button', class: 'button small', 'data-testid': 'cancel', hidden: true,
      title: 'Stop the analysis that is running; the page keeps what it showed before',
      onclick: () => onCancel?.(),
    }, 'Cancel');
    box.append(this.cancel);
  }

  fetchStarted(name) {
    this.fetching.add(name);
    this.show();
  }

  fetchEnded(name) {
    this.fetching.delete(name);
    this.show();
  }

  /**
   * `p` is {index, total, name, done?, of?} (file `index` of `total`; of
   * a file analysed in parts, `done` of `of` so far), {label} (other work)
   * from the Analyzer, or null when it is idle.
   */
  analysis(p) {
    const was = this.analysing;
    this.analysing = p;
    if (p && !was) {
      this.since = performance.now();
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.show(), CANCEL_AFTER_MS);
    }
    if (!p) clearTimeout(this.timer);
    this.show();
  }

  get busy() {
    return this.fetching.size > 0 || this.analysing != null;
  }

  show() {
    const p = this.analysing;
    const parts = [];
    if (p?.label) parts.push(p.label);
    else if (p) parts.push(`Analysing ${p.index} of ${p.total}: ${p.name}${p.of ? ` (${p.done} of ${p.of} done)` : ''}`);
    // (Named up to a few: a thousand names, joined on every file's start and end, was seconds of work.)
    if (this.fetching.size) parts.push(`Loading ${this.fetching.size > FETCH_NAMES ? `${this.fetching.size.toLocaleString('en-US')} files` : [...this.fetching].join(', ')}`);
    this.box.hidden = parts.length === 0;
    this.text.textContent = parts.join(' · ');
    if (p && !p.label) {
      this.bar.max = p.total;
      this.bar.value = p.index - 1 + (p.of ? p.done / p.of : 0);
    } else {
      this.bar.removeAttribute('value'); // indeterminate while only loading or comparing
    }
    const hadFocus = document.activeElement === this.cancel;
    this.cancel.hidden = !(p && performance.now() - this.since >= CANCEL_AFTER_MS - 1);
    if (hadFocus && this.cancel.hidden) document.getElementById('notebook')?.focus({ preventScroll: true });
    document.body.dataset.state = this.busy ? 'busy' : 'idle';
  }
}
