// Chart plumbing: every chart is a <figure> with a text alternative (the
// SVG's aria-label and a visible figcaption), drawn at the width of its
// container and redrawn when that width changes.

import { h, clear } from './dom.js';

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
  const render = () => {
    const width = Math.floor(body.clientWidth);
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
      }
    }
    clear(body).append(out);
  };
  const observer = new ResizeObserver(() => requestAnimationFrame(render));
  observer.observe(body);
  figure.dispose = () => observer.disconnect();
  return figure;
}

/** Common Plot options: transparent background via CSS, readable fonts. */
export function baseOptions(width) {
  return {
    width,
    style: { fontSize: '12px', fontFamily: 'inherit', overflow: 'visible' },
    marginLeft: 48,
  };
}
