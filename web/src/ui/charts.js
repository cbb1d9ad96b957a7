// Chart plumbing: every chart is a <figure> with a text alternative (the
// SVG's aria-label and a visible figcaption), drawn at the width of its
// container and redrawn when that width changes.

import { h, clear, afterFrame } from './dom.js';

/**
 * @param {object} o
 * @param {string} o.testid   data-testid of the figure
 * @param {string} o.caption  visible caption
 * @param {string} o.summary  text alternative: what the chart shows, with its key numbers
 * @param {(width: number) => Element} o.draw  returns Plot's output for a width
 */
export function chartFigure({ testid, caption, summary, draw, className }) {
  const body = h('div', { class: 'chart-body' });
  const figure = h('figure', { class: ['chart', className], 'data-testid': testid },
    body,
    h('figcaption', {}, h('span', { class: 'caption' }, caption), ' ', h('span', { class: 'summary' }, summary)));
  let drawnWidth = 0;
  let observedWidth = 0;
  const render = () => {
    const width = Math.floor(observedWidth);
    if (width < 50 || Math.abs(width - drawnWidth) < 8) return;
    drawnWidth = width;
    let out;
    try {
      out = draw(width);
    } catch (e) {
      out = h('p', { class: 'chart-error' }, `This chart could not be drawn: ${e.message}`);
    }
    for (const svg of out.tagName === 'svg' ? [out] : out.querySelectorAll('svg')) {
      if (!svg.closest('[class*="-swatches"]') && !svg.classList.contains('legend')) {
        svg.setAttribute('role', 'img');
        svg.setAttribute('aria-label', summary);
        // The summary speaks for the image: the marks inside it are hidden
        // from assistive technology (Plot labels its groups with an
        // aria-label that a role-less <g> may not carry; kept for tests).
        for (const g of svg.querySelectorAll('g[aria-label]')) g.setAttribute('aria-hidden', 'true');
      }
    }
    clear(body).append(out);
  };
  // The observer reports the width, so drawing never forces a layout; the
  // drawing itself goes through the queue below.
  const observer = new ResizeObserver((entries) => {
    observedWidth = entries[entries.length - 1].contentRect.width;
    pending.set(figure, render);
    scheduleDrawing();
  });
  observer.observe(body);
  figure.dispose = () => {
    observer.disconnect();
    pending.delete(figure);
  };
  return figure;
}

// Charts waiting to be drawn. A file's cells attach dozens of charts at once;
// drawing them all in the next frame made one main-thread task of 300–500 ms.
// They are drawn a few at a time instead, each batch a task of its own of at
// most ~20 ms (plus the one chart that crosses it), so input and the worker's
// messages are handled in between, and with a frame between batches so each
// batch's charts are laid out on their own.
const pending = new Map(); // figure -> its render function
let draining = false;
const BATCH_MS = 20;

function scheduleDrawing() {
  if (draining) return;
  draining = true;
  afterFrame(drainCharts);
}

function drainCharts() {
  const start = performance.now();
  for (const [figure, render] of pending) {
    pending.delete(figure);
    render();
    if (performance.now() - start > BATCH_MS) break;
  }
  draining = false;
  if (pending.size) scheduleDrawing();
}

/** Common Plot options: transparent background via CSS, readable fonts. */
export function baseOptions(width) {
  return {
    width,
    style: { fontSize: '12px', fontFamily: 'inherit', overflow: 'visible' },
    marginLeft: 48,
    // Plot's default 30 px is for its 10 px font: at 12 px the x axis label
    // (bottom right) touched the last tick label.
    marginBottom: 36,
  };
}

/**
 * A few round values across [lo, hi] for a colour legend: powers of ten
 * (or 1, 2, 5 × them) on a log scale spanning a decade or more, else evenly
 * spaced 1-2-5 steps. Plot's own ticks for a log domain label every
 * 1…9 × 10^k, and the legend's labels overran each other.
 */
export function legendTicks(lo, hi, { log = false, count = 4 } = {}) {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return Number.isFinite(lo) ? [lo] : [];
  const thin = (xs) => xs.filter((_, i) => i % Math.ceil(xs.length / count) === 0);
  if (log && lo > 0 && hi / lo >= 10) {
    const decades = [];
    const mantissas = [];
    for (let e = Math.floor(Math.log10(lo)); 10 ** e <= hi; e++) {
      for (const m of [1, 2, 5]) {
        const v = Number((m * 10 ** e).toPrecision(12));
        if (v >= lo && v <= hi) (m === 1 ? decades : mantissas).push(v);
      }
    }
    return thin(decades.length >= 2 ? decades : [...decades, ...mantissas].sort((a, b) => a - b));
  }
  const raw = (hi - lo) / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  // A span that is a round step × count up to rounding (0.0115 − 0.0095 is
  // 0.0020000000000000018) takes that step, not the next one up, which
  // would drop the ticks at both ends.
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw * (1 - 1e-9));
  const out = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-12); k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}
