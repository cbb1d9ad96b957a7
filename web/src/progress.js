// The status line: what is being fetched or analysed ("Analysing 2 of 3: name").

export class Progress {
  constructor(box, bar, text) {
    Object.assign(this, { box, bar, text });
    this.fetching = new Set();
    this.analysing = null;
  }

  fetchStarted(name) {
    this.fetching.add(name);
    this.show();
  }

  fetchEnded(name) {
    this.fetching.delete(name);
    this.show();
  }

  /** `p` is {index, total, name} from the Analyzer, or null when it is idle. */
  analysis(p) {
    this.analysing = p;
    this.show();
  }

  get busy() {
    return this.fetching.size > 0 || this.analysing != null;
  }

  show() {
    const p = this.analysing;
    const parts = [];
    if (p) parts.push(`Analysing ${p.index} of ${p.total}: ${p.name}`);
    if (this.fetching.size) parts.push(`Loading ${[...this.fetching].join(', ')}`);
    this.box.hidden = parts.length === 0;
    this.text.textContent = parts.join(' · ');
    if (p) {
      this.bar.max = p.total;
      this.bar.value = p.index - 1;
    } else {
      this.bar.removeAttribute('value'); // indeterminate while only loading
    }
    document.body.dataset.state = this.busy ? 'busy' : 'idle';
  }
}
