// Small static legends ("keys") for charts whose marks are not a colour
// scale: each item is a tiny SVG glyph and a label.

import { h, svgEl } from './dom.js';

/** items: [[glyph elements], label] */
export function plotKey(label, items) {
  return h('ul', { class: 'plot-key', 'aria-label': label },
    items.map(([glyph, text]) => h('li', {}, svgEl('svg', { viewBox: '0 0 22 14', 'aria-hidden': 'true' }, ...glyph), text)));
}

export const glyph = {
  dot: (fill) => [svgEl('circle', { cx: 11, cy: 7, r: 3.5, fill })],
  ring: (stroke) => [svgEl('circle', { cx: 11, cy: 7, r: 4, fill: 'none', stroke, 'stroke-width': 1.5 })],
  cross: (stroke) => [svgEl('path', { d: 'M7.5 3.5L14.5 10.5M14.5 3.5L7.5 10.5', stroke, 'stroke-width': 1.8 })],
  vbar: (stroke) => [svgEl('path', { d: 'M11 1V13M8 1H14M8 13H14', fill: 'none', stroke, 'stroke-width': 1.5 })],
  line: (stroke, dash) => [svgEl('line', { x1: 1, x2: 21, y1: 7, y2: 7, stroke, 'stroke-width': 1.5, ...(dash ? { 'stroke-dasharray': dash } : {}) })],
  box: (color) => [svgEl('rect', { x: 2, y: 2, width: 18, height: 10, fill: color, 'fill-opacity': 0.25, stroke: color })],
  tick: (stroke, width = 3) => [svgEl('line', { x1: 11, x2: 11, y1: 0, y2: 14, stroke, 'stroke-width': width })],
  diamond: (stroke) => [svgEl('path', { d: 'M11 2.5L15.5 7L11 11.5L6.5 7Z', fill: 'none', stroke, 'stroke-width': 1.5 })],
  whiskers: (stroke) => [svgEl('path', { d: 'M1 7H21M1 3V11M21 3V11', fill: 'none', stroke, 'stroke-width': 1.5 })],
};
