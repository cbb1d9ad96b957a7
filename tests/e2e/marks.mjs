// Charts read back: what a reader of a drawn chart sees, checked against
// the numbers it was drawn from. `snapshotCharts(page)` reads every
// `figure.chart` in the page (Observable Plot's scales through the `.scale()`
// method of the element Plot returned, each mark's geometry in the SVG's
// user space, every text's box on screen); the functions after it check a
// snapshot without the browser:
//
// - `mapScale` places a value on a scale from its type, domain and range
//   alone (linear, log, symlog with its constant, pow/sqrt, band, point):
//   the same job as Plot's own math, written independently of it;
// - `readAxis` parses an axis's tick labels into numbers in the data's unit
//   (ns, bytes, shares, …) and fits label → pixel, so a mark can be checked
//   against what the axis *says*, not only against the scale Plot used;
// - `checkTextsInside`, `checkTickOverlap`, `checkLegends`, `checkContrast`:
//   layout checks for any chart.
//
// Each check returns a list of problems (strings); the tests assert it is
// empty and print what they measured.

/* ------------------------------------------------------------ in the page */

/**
 * Every `figure.chart` under `root` (a CSS selector; the whole page by
 * default), read back. Runs in the page: self-contained.
 */
export async function snapshotCharts(page, { root = 'body', view = '', onlyNew = false } = {}) {
  // One string crosses the protocol much faster than thousands of small objects.
  return JSON.parse(await page.evaluate(readChartsInPage, { root, view, onlyNew }));
}

/**
 * Build everything and wait until every chart is drawn: placeholders built
 * (as printing does), every "Show all" clicked, every part of a cell built
 * in a later task in, every `figure.chart` with its SVG (charts draw from a
 * queue, a few per frame), and nothing redrawn for two polls in a row.
 */
export async function settleCharts(page, { timeout = 90_000 } = {}) {
  const deadline = Date.now() + timeout;
  let last = null;
  for (;;) {
    const state = await page.evaluate(() => {
      if (document.querySelector('[data-testid=cell-placeholder]')) window.dispatchEvent(new Event('beforeprint'));
      for (const b of document.querySelectorAll('[data-testid=show-more]:not([disabled])')) b.click();
      const figs = [...document.querySelectorAll('figure.chart')];
      const outs = figs.map((f) => f.querySelector(':scope > .chart-body > *'));
      window.__chartSeq ??= 0;
      for (const o of outs) if (o && !o.__chartId) o.__chartId = ++window.__chartSeq;
      return {
        figures: figs.length,
        undrawn: outs.filter((o) => !o).length,
        // (Parts of cells still to be built: dom.js later.)
        waiting: document.querySelectorAll('[data-testid=cell-placeholder], [data-testid=show-more], [data-testid=file-row][data-status=pending], .later[aria-busy=true]').length,
        sig: outs.map((o) => o?.__chartId ?? 0).join(','),
      };
    });
    const ready = state.undrawn === 0 && state.waiting === 0;
    if (ready && last === state.sig) return state;
    last = ready ? state.sig : null;
    if (Date.now() > deadline) throw new Error(`charts not drawn in ${timeout} ms: ${JSON.stringify({ ...state, sig: undefined })}`);
    await page.waitForTimeout(120);
  }
}

/* eslint-disable no-undef -- runs in the browser */
function readChartsInPage({ root, view, onlyNew }) {
  const num = (v) => (v == null || v === '' || Number.isNaN(Number(v)) ? null : Number(v));
  const round = (v) => (v == null ? v : Math.round(v * 1000) / 1000);
  const boxOf = (el) => {
    const r = el.getBoundingClientRect();
    return { left: round(r.left), top: round(r.top), right: round(r.right), bottom: round(r.bottom) };
  };
  // A path's points: the end point of every command (enough for lines,
  // links, areas and the bars of a hand-drawn sparkline).
  const pathPoints = (d) => {
    const out = [];
    const tokens = (d ?? '').match(/[a-zA-Z]|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/g) ?? [];
    let i = 0; let cmd = 'M'; let x = 0; let y = 0; let sx = 0; let sy = 0;
    const n = () => Number(tokens[i++]);
    const arity = { M: 2, L: 2, H: 1, V: 1, C: 6, S: 4, Q: 4, T: 2, A: 7, Z: 0 };
    while (i < tokens.length) {
      if (/[a-zA-Z]/.test(tokens[i])) cmd = tokens[i++];
      const up = cmd.toUpperCase();
      const rel = cmd !== up;
      if (up === 'Z') { x = sx; y = sy; out.push({ x, y, cmd: 'Z' }); continue; }
      const args = [];
      for (let k = 0; k < arity[up]; k++) args.push(n());
      if (args.some((a) => Number.isNaN(a))) break;
      if (up === 'H') x = rel ? x + args[0] : args[0];
      else if (up === 'V') y = rel ? y + args[0] : args[0];
      else {
        const ex = args[args.length - 2];
        const ey = args[args.length - 1];
        x = rel ? x + ex : ex;
        y = rel ? y + ey : ey;
      }
      if (up === 'M') { sx = x; sy = y; if (cmd === 'm') cmd = 'l'; else cmd = 'L'; }
      out.push({ x, y, cmd: up === 'M' ? 'M' : up });
    }
    return out;
  };
  const dataOf = (el) => {
    const d = el.__data__;
    if (typeof d === 'number') return d;
    if (Array.isArray(d) || ArrayBuffer.isView(d)) return Array.from(d);
    return d === undefined ? null : (typeof d === 'string' ? d : null);
  };
  const isLegendSvg = (svg) => /-ramp\b|\blegend\b/.test(svg.getAttribute('class') ?? '') || !!svg.closest('[class*="-swatches"]');

  function readSvg(svg) {
    const inv = svg.getScreenCTM()?.inverse();
    const toSvg = (el) => (inv && el.getScreenCTM() ? inv.multiply(el.getScreenCTM()) : null);
    const groups = [];
    for (const g of svg.querySelectorAll(':scope > g')) {
      const label = g.getAttribute('aria-label') ?? '';
      const els = [];
      for (const el of g.querySelectorAll('rect, circle, ellipse, line, path, polyline, polygon, text, image')) {
        if (el.closest('title, marker, defs, pattern, clipPath')) continue;
        if (el.parentElement?.closest('text')) continue;
        const m = toSvg(el);
        const pt = (x, y) => (m ? { x: round(m.a * x + m.c * y + m.e), y: round(m.b * x + m.d * y + m.f) } : { x, y });
        const tag = el.tagName.toLowerCase();
        const a = (k) => num(el.getAttribute(k)) ?? 0;
        const e = {
          tag, index: dataOf(el), key: el.dataset?.key ?? null,
          fill: el.getAttribute('fill') ?? el.closest('[fill]')?.getAttribute('fill') ?? null,
          stroke: el.getAttribute('stroke') ?? el.closest('[stroke]')?.getAttribute('stroke') ?? null,
          className: el.closest('g[class]')?.getAttribute('class') ?? null,
          title: el.querySelector(':scope > title')?.textContent ?? null,
        };
        if (tag === 'rect') {
          const w = el.getAttribute('width');
          const ht = el.getAttribute('height');
          if (String(w).endsWith('%') || String(ht).endsWith('%')) continue;
          const p0 = pt(a('x'), a('y'));
          const p1 = pt(a('x') + a('width'), a('y') + a('height'));
          Object.assign(e, { x1: Math.min(p0.x, p1.x), x2: Math.max(p0.x, p1.x), y1: Math.min(p0.y, p1.y), y2: Math.max(p0.y, p1.y) });
        } else if (tag === 'circle' || tag === 'ellipse') {
          Object.assign(e, pt(a('cx'), a('cy')), { r: a('r') });
        } else if (tag === 'line') {
          const p1 = pt(a('x1'), a('y1'));
          const p2 = pt(a('x2'), a('y2'));
          Object.assign(e, { x1: p1.x, y1: p1.y, x2: p2.x, y2: p2.y });
        } else if (tag === 'path') {
          const origin = pt(0, 0);
          Object.assign(e, origin, { points: pathPoints(el.getAttribute('d')).map((p) => ({ ...pt(p.x, p.y), cmd: p.cmd })) });
        } else if (tag === 'text') {
          // Plot places a text by a translate; x/y attributes in em only shift the baseline.
          Object.assign(e, pt(num(el.getAttribute('x')) ?? 0, num(el.getAttribute('y')) ?? 0), {
            text: ownText(el), box: boxOf(el), rotated: !!(m && Math.abs(m.b) > 1e-6),
            anchor: getComputedStyle(el).textAnchor,
          });
        }
        els.push(e);
      }
      groups.push({ label, className: g.getAttribute('class'), transform: g.getAttribute('transform'), elements: els });
    }
    return {
      legend: isLegendSvg(svg),
      className: svg.getAttribute('class'),
      width: num(svg.getAttribute('width')), height: num(svg.getAttribute('height')),
      viewBox: svg.getAttribute('viewBox'),
      box: boxOf(svg), groups,
    };
  }

  // Every text of every svg of the chart, with what it is painted over,
  // for the layout and contrast checks.
  const rgba = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c ?? '');
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const pageBackground = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const ownText = (t) => [...t.childNodes].filter((n) => n.nodeName !== 'title').map((n) => n.textContent).join('');
  // The ink of a text, glyph by glyph (an em box is taller than the glyphs,
  // and a whole string's box says "s" collides with what only its "(" is
  // near): each character's cell from the SVG text layout, cut to the
  // glyph's measured ink in the text's font, carried to the screen by the
  // text's transform (a rotated label gives rotated quads).
  const ctx2d = document.createElement('canvas').getContext('2d');
  const measured = new Map();
  const measure = (font, ch) => {
    const k = `${font}\u0000${ch}`;
    let m = measured.get(k);
    if (!m) {
      if (ctx2d.font !== font) ctx2d.font = font;
      const t = ctx2d.measureText(ch);
      m = {
        fontBoundingBoxAscent: t.fontBoundingBoxAscent, fontBoundingBoxDescent: t.fontBoundingBoxDescent,
        actualBoundingBoxAscent: t.actualBoundingBoxAscent, actualBoundingBoxDescent: t.actualBoundingBoxDescent,
        actualBoundingBoxLeft: t.actualBoundingBoxLeft, actualBoundingBoxRight: t.actualBoundingBoxRight,
      };
      measured.set(k, m);
    }
    return m;
  };
  function glyphQuads(t) {
    const M = t.getScreenCTM();
    const pt = (x, y) => ({ x: round(M.a * x + M.c * y + M.e), y: round(M.b * x + M.d * y + M.f) });
    const quad = (x0, x1, y0, y1) => [pt(x0, y0), pt(x1, y0), pt(x1, y1), pt(x0, y1)];
    const str = ownText(t);
    const n = t.getNumberOfChars();
    if (n !== str.length) {
      const bb = t.getBBox();
      return [quad(bb.x, bb.x + bb.width, bb.y, bb.y + bb.height)];
    }
    const cs = getComputedStyle(t);
    const font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const out = [];
    for (let i = 0; i < n; i++) {
      const ch = str[i];
      if (/\s/.test(ch)) continue;
      const ext = t.getExtentOfChar(i);
      const m = measure(font, ch);
      const base = ext.y + ext.height * (m.fontBoundingBoxAscent / (m.fontBoundingBoxAscent + m.fontBoundingBoxDescent));
      const x0 = ext.x + Math.max(0, -m.actualBoundingBoxLeft);
      const x1 = ext.x + Math.min(ext.width, m.actualBoundingBoxRight);
      if (x1 <= x0) continue;
      out.push(quad(x0, x1, base - m.actualBoundingBoxAscent, base + m.actualBoundingBoxDescent));
    }
    return out;
  }
  const quadBox = (q) => ({
    left: Math.min(...q.map((p) => p.x)), right: Math.max(...q.map((p) => p.x)),
    top: Math.min(...q.map((p) => p.y)), bottom: Math.max(...q.map((p) => p.y)),
  });
  function textPaint(t, svg, shapes) {
    const cs = getComputedStyle(t);
    const fill = rgba(cs.fill);
    const halo = cs.paintOrder.startsWith('stroke') && Number.parseFloat(cs.strokeWidth) >= 2 && cs.stroke !== 'none' ? rgba(cs.stroke) : null;
    // What is under the text's centre: the last shape painted before it
    // that covers it (a heat-map cell, a bar), else the page.
    const r = t.getBoundingClientRect();
    const cx = r.left + r.width / 2;
    const cy = r.top + r.height / 2;
    let under = null;
    for (const s of shapes) {
      if (cx < s.box.left || cx > s.box.right || cy < s.box.top || cy > s.box.bottom) continue;
      if (!(s.el.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      if (s.fill && s.fill.a * s.opacity > 0.5) under = s.fill;
    }
    return {
      fill, fillOpacity: Number(cs.fillOpacity), halo, under, page: pageBackground(svg),
      fontSize: Number.parseFloat(cs.fontSize), fontWeight: Number(cs.fontWeight) || 400,
    };
  }

  const figures = [...document.querySelectorAll(`${root} figure.chart`)].filter((f) => !onlyNew || !f.querySelector(':scope > .chart-body > *')?.__chartRead);
  return JSON.stringify(figures.map((fig, i) => {
    const body = fig.querySelector(':scope > .chart-body');
    const out = body?.firstElementChild ?? null;
    if (out) out.__chartRead = true;
    const svgs = out ? (out.tagName.toLowerCase() === 'svg' ? [out] : [...out.querySelectorAll('svg')]) : [];
    const scales = {};
    if (out && typeof out.scale === 'function') {
      for (const k of ['x', 'y', 'fx', 'fy', 'color', 'r', 'symbol', 'opacity']) {
        let s;
        try { s = out.scale(k); } catch { s = undefined; }
        if (!s) continue;
        const copy = {};
        for (const [key, v] of Object.entries(s)) {
          if (typeof v === 'function') { if (key === 'transform') copy.transform = true; continue; }
          copy[key] = v;
        }
        scales[k] = copy;
      }
    }
    const texts = [];
    for (const svg of svgs) {
      if (svg.closest('[class*="-swatches"]')) continue;
      const shapes = [...svg.querySelectorAll('rect')].filter((s) => !s.closest('defs, pattern, marker, [aria-label$="-grid"], [aria-label$="-axis tick"]'))
        .map((el) => {
          const cs = getComputedStyle(el);
          return { el, box: el.getBoundingClientRect(), fill: rgba(cs.fill), opacity: Number(cs.fillOpacity) };
        });
      for (const t of svg.querySelectorAll('text')) {
        if (!ownText(t).trim() || t.closest('title, marker, defs')) continue;
        const g = t.closest('svg > g');
        const glyphs = glyphQuads(t);
        if (!glyphs.length) continue;
        texts.push({
          text: ownText(t), box: quadBox(glyphs.flat()), glyphs, svgBox: boxOf(svg), legend: isLegendSvg(svg),
          group: g?.getAttribute('aria-label') ?? '', paint: textPaint(t, svg, shapes),
        });
      }
    }
    const swatches = out ? [...out.querySelectorAll('[class*="-swatch"]:not([class*="-swatches"])')].map((s) => ({
      text: s.textContent, box: boxOf(s), scrollWidth: s.scrollWidth, clientWidth: s.clientWidth,
    })) : [];
    const cell = fig.closest('section.cell');
    // What the cell's controls show (form, cut, workload, …): which part of
    // the report this chart is of.
    const pick = (sel) => cell?.querySelector(sel)?.value ?? null;
    const ctx = {
      form: fig.closest('[data-form]')?.dataset.form ?? null,
      statistic: fig.closest('.clustering')?.querySelector('[data-testid=granularity-statistic]')?.value ?? null,
      workload: pick('[data-testid=trace-workload]') ?? cell?.querySelector('.trace-workload h3')?.textContent.replace(/^Workload /, '') ?? null,
      level: pick('[data-testid=trace-example-level]'),
      metric: pick('[data-testid=trace-example-metric]'),
      copyMetric: pick('[data-testid=copy-metric] input:checked'),
    };
    return {
      i, view, ctx,
      testid: fig.dataset.testid, dataset: { ...fig.dataset },
      file: cell?.dataset.file ?? null, cell: cell?.dataset.testid ?? null,
      caption: fig.querySelector('figcaption .caption')?.textContent ?? '',
      drawn: svgs.length > 0,
      error: fig.querySelector('.chart-error')?.textContent ?? null,
      figureBox: boxOf(fig), bodyBox: body ? boxOf(body) : null,
      scales,
      plot: svgs.filter((s) => !isLegendSvg(s)).map(readSvg)[0] ?? null,
      legends: svgs.filter(isLegendSvg).filter((s) => !s.closest('[class*="-swatches"]')).map(readSvg),
      texts, swatches,
      offset: window.devicePixelRatio > 1 ? 0 : 0.5,
    };
  }));
}
/* eslint-enable no-undef */

/* ------------------------------------------------------------ scales */

const symlog = (v, c) => Math.sign(v) * Math.log1p(Math.abs(v / c));
const pow = (v, e) => Math.sign(v) * Math.abs(v) ** e;

/** The transform of a continuous scale's type (the axis is linear in it). */
export function scaleTransform(scale) {
  switch (scale.type) {
    case 'linear': case 'utc': case 'time': case 'sequential': case 'diverging': return (v) => v;
    case 'log': case 'sequential-log': case 'diverging-log': return (v) => Math.log(v);
    case 'symlog': case 'sequential-symlog': case 'diverging-symlog': return (v) => symlog(v, scale.constant ?? 1);
    case 'sqrt': return (v) => pow(v, 0.5);
    case 'pow': case 'sequential-pow': case 'sequential-sqrt': case 'diverging-pow': case 'diverging-sqrt': return (v) => pow(v, scale.exponent ?? 1);
    default: return null;
  }
}

/** A value as the scale receives it: Plot's `percent` option multiplies by 100 first. */
export function scaleInput(scale, v) {
  return scale.percent ? v * 100 : v;
}

/**
 * The pixel of `v` on a position scale, from its type, domain and range
 * alone. Band scales give the band's start (use `bandCentre` for its
 * middle); returns null for a value not in an ordinal domain.
 */
export function mapScale(scale, v) {
  if (scale.type === 'band' || scale.type === 'point') {
    const k = scale.domain.indexOf(v);
    if (k < 0) return null;
    const { start, step } = bandLayout(scale);
    return start + step * k;
  }
  const f = scaleTransform(scale);
  if (!f) throw new Error(`no mapping for scale type ${scale.type}`);
  const [d0, d1] = scale.domain;
  const [r0, r1] = scale.range;
  const x = scaleInput(scale, v);
  return r0 + ((f(x) - f(d0)) / (f(d1) - f(d0))) * (r1 - r0);
}

/** d3's band and point layout (paddingInner, paddingOuter, align, round) from the exposed scale. */
export function bandLayout(scale) {
  const n = scale.domain.length;
  let [r0, r1] = scale.range;
  const reverse = r1 < r0;
  if (reverse) [r0, r1] = [r1, r0];
  const inner = scale.type === 'point' ? 1 : (scale.paddingInner ?? scale.padding ?? 0);
  const outer = scale.type === 'point' ? (scale.padding ?? 0) : (scale.paddingOuter ?? scale.padding ?? 0);
  let step = (r1 - r0) / Math.max(1, n - inner + outer * 2);
  if (scale.round) step = Math.floor(step);
  let start = r0 + (r1 - r0 - step * (n - inner)) * (scale.align ?? 0.5);
  let bandwidth = step * (1 - inner);
  if (scale.round) { start = Math.round(start); bandwidth = Math.round(bandwidth); }
  if (reverse) return { start: start + step * (n - 1), step: -step, bandwidth };
  return { start, step, bandwidth };
}

/** The category whose band (or point, ± half a step) holds pixel `px`, or null. */
export function bandAt(scale, px) {
  const { start, step, bandwidth } = bandLayout(scale);
  const w = scale.type === 'point' ? Math.abs(step) : bandwidth;
  for (let k = 0; k < scale.domain.length; k++) {
    const a = start + step * k - (scale.type === 'point' ? w / 2 : 0);
    if (px >= a - 0.5 && px <= a + w + 0.5) return scale.domain[k];
  }
  return null;
}

export function bandCentre(scale, v) {
  const p = mapScale(scale, v);
  return p == null ? null : p + bandLayout(scale).bandwidth / 2;
}

/** Whether `v` lies in a continuous scale's domain (relative slack for rounding). */
export function inDomain(scale, v, slack = 1e-9) {
  const x = scaleInput(scale, v);
  const [a, b] = [Math.min(...scale.domain), Math.max(...scale.domain)];
  const tol = slack * Math.max(Math.abs(a), Math.abs(b), 1e-300);
  return x >= a - tol && x <= b + tol;
}

/* ------------------------------------------------------------ axes */

const NB = /[\u202f\u2009\u00a0 ]/g;
const TIME_NS = { ps: 1e-3, ns: 1, 'µs': 1e3, 'μs': 1e3, us: 1e3, ms: 1e6, s: 1e9, min: 60e9, h: 3600e9 };
const BYTES = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, kB: 1e3, KB: 1e3, MB: 1e6, GB: 1e9 };

/**
 * A tick label as a number in the base unit of `kind`:
 * time → ns, bytes → B, share → 0–1 (a "%" or an axis label in % means
 * percent), count → plain with k/M suffixes, plain → the number.
 * `axisLabel` supplies the unit when the ticks carry none ("step (ms)").
 * Returns {value, digits} (significant digits shown) or null when the
 * label is not a number (e.g. left empty).
 */
export function parseTick(text, kind, axisLabel = '') {
  const s = String(text).replace(NB, '').replace(/[\u2212\u2013]/g, '-').trim();
  if (s === '') return null;
  const m = /^([-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)([a-zA-Zµμ%×]*)$/.exec(s);
  if (!m) return { value: NaN, digits: 0, unit: null, bad: true };
  const mant = m[1].replace(/,/g, '');
  let value = Number(mant);
  const unit = m[2];
  const digits = significantDigits(mant);
  const labelUnit = (re) => (re.exec(axisLabel) ?? [])[1];
  switch (kind) {
    case 'time': {
      const u = unit || labelUnit(/\((ps|ns|µs|μs|us|ms|s)\b/) || labelUnit(/\b(ps|ns|µs|μs|us|ms|s)\b/);
      if (!u || !(u in TIME_NS)) return { value: NaN, digits, unit: u ?? null, bad: true };
      value *= TIME_NS[u];
      return { value, digits, unit: u };
    }
    case 'bytes': {
      const u = unit || labelUnit(/\((B|KiB|MiB|GiB|kB|MB|GB)\b/) || labelUnit(/\b(bytes)\b/);
      const f = u === 'bytes' ? 1 : BYTES[u];
      if (!f) return { value: NaN, digits, unit: u ?? null, bad: true };
      return { value: value * f, digits, unit: u };
    }
    case 'share': {
      if (unit === '%' || (!unit && /%/.test(axisLabel))) return { value: value / 100, digits, unit: '%' };
      if (unit) return { value: NaN, digits, unit, bad: true };
      return { value, digits, unit: '' };
    }
    case 'count': {
      const f = { '': 1, k: 1e3, M: 1e6, G: 1e9 }[unit];
      if (f == null) return { value: NaN, digits, unit, bad: true };
      return { value: value * f, digits, unit };
    }
    case 'ppm': {
      if (unit && unit !== 'ppm') return { value: NaN, digits, unit, bad: true };
      return { value, digits, unit: 'ppm' };
    }
    default: {
      if (unit && unit !== '×') return { value: NaN, digits, unit, bad: true };
      // An axis "in millions" etc. says so in its label.
      const f = { thousand: 1e3, million: 1e6, billion: 1e9 }[labelUnit(/\((thousand|million|billion)\b/)] ?? 1;
      return { value: value * f, digits, unit };
    }
  }
}

/** The number a label shows, in its own unit ("9.77 KiB" → 9.77). */
function numberOf(text) {
  const m = /[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?/.exec(String(text).replace(NB, '').replace(/\u2212/g, '-'));
  return m ? Number(m[0].replace(/,/g, '')) : NaN;
}

export function significantDigits(mant) {
  const t = mant.replace(/^[-+]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '');
  return Math.max(1, t.replace(/0+$/, '').length || 1);
}

/** The tick labels of one axis (`x`, `y`, `fx`, `fy`) of a snapshot's plot, in svg order. */
export function tickLabels(plot, axis) {
  const g = plot?.groups.filter((x) => x.label === `${axis}-axis tick label`) ?? [];
  return g.flatMap((x) => x.elements.filter((e) => e.tag === 'text'));
}

/** The axis label's text ("step (ms) →"), or ''. */
export function axisLabel(plot, axis) {
  const g = plot?.groups.find((x) => x.label === `${axis}-axis label`);
  return g?.elements.map((e) => e.text).join(' ') ?? '';
}

/**
 * Read a continuous axis as a reader does: parse every non-empty tick label
 * into the data's unit and fit pixel = a + b·f(toScale(value)) by least
 * squares, f being the scale type's transform (the only thing taken from
 * Plot) and `toScale` the spec's own statement of what the chart hands Plot
 * for a value (a unit, a difference, a hand-made symmetric log; identity by
 * default). The fit is what the axis says; `residual` is how far the worst
 * label sits from it (labels at the wrong place, or rounded too much to be
 * read). Returns {at(v) → px, residual, labels, problems}.
 */
export function readAxis(snapshot, axis, kind, { toScale = (v) => v } = {}) {
  const scale = snapshot.scales[axis];
  const plot = snapshot.plot;
  const label = axisLabel(plot, axis);
  const problems = [];
  let els = tickLabels(plot, axis);
  if (!scale) return { problems: [`no ${axis} scale`], labels: [] };
  const ft = scaleTransform(scale);
  if (!ft) return { problems: [`${axis}: not a continuous scale (${scale.type})`], labels: [] };
  const f = (v) => ft(toScale(v));
  const coord = axis.startsWith('x') ? 'x' : 'y';
  // With facets, an axis repeats per facet: read the first facet's copy.
  const facet = snapshot.scales[coord === 'x' ? 'fx' : 'fy'];
  if (facet && els.length) {
    const { start, step, bandwidth } = bandLayout(facet);
    const [a, b] = [start, start + bandwidth].sort((p, q) => p - q);
    void step;
    els = els.filter((e) => e[coord] >= a - 1 && e[coord] <= b + 1);
  }
  const labels = [];
  for (const e of els) {
    const p = parseTick(e.text, kind, label);
    if (p == null) continue;
    if (p.bad || !Number.isFinite(p.value)) {
      problems.push(`${axis} tick "${e.text}" is not a ${kind} value${p.unit ? ` (unit "${p.unit}")` : ''}`);
      continue;
    }
    labels.push({ text: e.text, value: p.value, digits: p.digits, unit: p.unit, px: e[coord] });
  }
  if (scale.percent && labels.length && !labels.some((l) => l.unit === '%')) {
    problems.push(`${axis}: a percent scale whose labels (${labels.map((l) => l.text).join(', ')}) and title ("${label}") say no %`);
  }
  const usable = labels.filter((l) => Number.isFinite(f(l.value)));
  const xs = usable.map((l) => f(l.value));
  const distinct = new Set(xs.map((v) => v.toPrecision(12))).size;
  if (distinct < 2) {
    return { problems: [...problems, `${axis}: fewer than two labelled ticks (${labels.map((l) => l.text).join(', ')})`], labels, label };
  }
  const n = usable.length;
  const mx = xs.reduce((s, v) => s + v, 0) / n;
  const my = usable.reduce((s, l) => s + l.px, 0) / n;
  let sxy = 0;
  let sxx = 0;
  usable.forEach((l, k) => { sxy += (xs[k] - mx) * (l.px - my); sxx += (xs[k] - mx) ** 2; });
  const b = sxy / sxx;
  const a = my - b * mx;
  const at = (v) => a + b * f(v);
  let residual = 0;
  for (const l of usable) {
    const r = Math.abs(at(l.value) - l.px);
    // A label rounded to its shown digits may sit up to half a digit off.
    const half = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(l.value) || 1)) - l.digits + 1);
    const slack = Math.abs(at(l.value + half) - at(l.value));
    l.error = r;
    if (r > 1 + slack) problems.push(`${axis} tick "${l.text}" is ${r.toFixed(1)} px from where the other labels put ${l.value}`);
    residual = Math.max(residual, r);
  }
  return { at, residual, labels, label, problems, scale };
}

/* ------------------------------------------------------------ layout */

const inside = (b, box, slack = 1) => b.left >= box.left - slack && b.right <= box.right + slack &&
  b.top >= box.top - slack && b.bottom <= box.bottom + slack;

/** No text of the chart extends outside its own SVG's box. */
export function checkTextsInside(snapshot) {
  const problems = [];
  for (const t of snapshot.texts) {
    if (!inside(t.box, t.svgBox)) {
      const over = Math.max(t.svgBox.left - t.box.left, t.box.right - t.svgBox.right, t.svgBox.top - t.box.top, t.box.bottom - t.svgBox.bottom);
      problems.push(`"${t.text}" (${t.group || 'text'}${t.legend ? ', legend' : ''}) extends ${over.toFixed(1)} px outside its SVG`);
    }
  }
  return problems;
}

/**
 * Whether two texts' ink overlaps by more than `slack` px: any glyph of one
 * against any glyph of the other, the separating axis test on their quads
 * (a rotated label's glyphs are rotated quads).
 */
export function inkOverlap(a, b, slack = 0.5) {
  const ba = a.box;
  const bb = b.box;
  if (ba.right < bb.left || bb.right < ba.left || ba.bottom < bb.top || bb.bottom < ba.top) return false;
  return a.glyphs.some((qa) => b.glyphs.some((qb) => quadsOverlap(qa, qb, slack)));
}

function quadsOverlap(qa, qb, slack) {
  for (const q of [qa, qb]) {
    for (let i = 0; i < 4; i++) {
      const p = q[i];
      const r = q[(i + 1) % 4];
      const len = Math.hypot(r.x - p.x, r.y - p.y);
      if (len < 1e-9) continue;
      const nx = -(r.y - p.y) / len;
      const ny = (r.x - p.x) / len;
      const proj = (pts) => pts.map((v) => v.x * nx + v.y * ny);
      const pa = proj(qa);
      const pb = proj(qb);
      const gap = Math.max(Math.min(...pb) - Math.max(...pa), Math.min(...pa) - Math.max(...pb));
      if (gap > -slack) return false;
    }
  }
  return true;
}

/** No two tick labels of one axis (or one legend) overlap on screen. */
export function checkTickOverlap(snapshot) {
  const problems = [];
  const byGroup = new Map();
  for (const t of snapshot.texts) {
    if (!/tick label$/.test(t.group) && !t.legend) continue;
    const k = `${t.legend ? 'legend ' : ''}${t.group}`;
    if (!byGroup.has(k)) byGroup.set(k, []);
    byGroup.get(k).push(t);
  }
  for (const [group, ts] of byGroup) {
    for (let i = 0; i < ts.length; i++) {
      for (let j = i + 1; j < ts.length; j++) {
        if (inkOverlap(ts[i], ts[j])) problems.push(`${group}: "${ts[i].text}" overlaps "${ts[j].text}"`);
      }
    }
  }
  return problems;
}

/**
 * Legends: every swatch label fits its box and the figure, a ramp's labels
 * are whole numbers of their kind (no "1." cut from "1.0").
 */
export function checkLegends(snapshot) {
  const problems = [];
  for (const s of snapshot.swatches) {
    if (s.scrollWidth > s.clientWidth + 1) problems.push(`legend swatch "${s.text}" is cut (${s.scrollWidth} > ${s.clientWidth} px)`);
    if (!inside(s.box, snapshot.figureBox)) problems.push(`legend swatch "${s.text}" lies outside the figure`);
  }
  for (const t of snapshot.texts.filter((x) => x.legend)) {
    if (/[.,]$/.test(t.text.trim())) problems.push(`legend label "${t.text}" ends in a separator`);
  }
  return problems;
}

/** An axis label does not collide with any tick label. */
export function checkLabelCollisions(snapshot) {
  const problems = [];
  const labels = snapshot.texts.filter((t) => /-axis label$/.test(t.group));
  const ticks = snapshot.texts.filter((t) => /-axis tick label$/.test(t.group));
  for (const l of labels) {
    for (const t of ticks) {
      if (inkOverlap(l, t)) problems.push(`axis label "${l.text}" collides with tick label "${t.text}"`);
    }
  }
  return problems;
}

/** "rgb(r, g, b)" or "#rrggbb" as {r, g, b}, or null. */
export function parseColour(c) {
  const m = /rgba?\(([^)]+)\)/.exec(c ?? '');
  if (m) {
    const [r, g, b] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b };
  }
  const h = /^#([0-9a-f]{6})$/i.exec(c ?? '');
  return h ? { r: parseInt(h[1].slice(0, 2), 16), g: parseInt(h[1].slice(2, 4), 16), b: parseInt(h[1].slice(4, 6), 16) } : null;
}

/**
 * Marks coloured on a sequential (light to dark) scheme: the larger the
 * value, the darker (lower luminance) the fill. `items` [{value, fill, what}].
 */
export function checkSequentialFill(items, { slack = 0.002 } = {}) {
  const problems = [];
  const xs = items.map((i) => ({ ...i, lum: luminance(parseColour(i.fill) ?? { r: NaN, g: NaN, b: NaN }) }))
    .sort((a, b) => a.value - b.value);
  for (const x of xs) if (!Number.isFinite(x.lum)) problems.push(`${x.what}: fill "${x.fill}" is not a colour`);
  for (let i = 1; i < xs.length; i++) {
    if (xs[i].value > xs[i - 1].value && xs[i].lum > xs[i - 1].lum + slack) {
      problems.push(`${xs[i].what} (${xs[i].value}) is painted lighter than ${xs[i - 1].what} (${xs[i - 1].value})`);
    }
  }
  return problems;
}

/** WCAG relative luminance and contrast. */
export function luminance({ r, g, b }) {
  const c = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b);
}
export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
const blend = (top, bottom) => (top.a >= 1 ? top : {
  r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1,
});

/**
 * Every text reads against what it is painted on (its halo, the shape
 * under it, or the page): WCAG 1.4.3, 4.5:1 (3:1 for large or bold text).
 */
export function checkContrast(snapshot) {
  const problems = [];
  let worst = Infinity;
  for (const t of snapshot.texts) {
    const p = t.paint;
    if (!p.fill) continue;
    const ground = blend(p.under ?? p.page, p.page);
    const bg = p.halo ? blend(p.halo, ground) : ground;
    const fg = blend({ ...p.fill, a: p.fill.a * (Number.isFinite(p.fillOpacity) ? p.fillOpacity : 1) }, bg);
    const ratio = contrast(fg, bg);
    worst = Math.min(worst, ratio);
    const large = p.fontSize >= 18.66 || (p.fontSize >= 14 && p.fontWeight >= 700);
    const need = large ? 3 : 4.5;
    if (ratio < need - 0.005) problems.push(`"${t.text}" (${t.group || 'text'}) has contrast ${ratio.toFixed(2)}:1 < ${need}:1`);
  }
  return { problems, worst };
}

/* ------------------------------------------------------------ marks */

/** The elements of the plot's mark groups labelled `label` (Plot's aria-label: "bar", "dot", …). */
export function markElements(snapshot, label, pred = () => true) {
  return (snapshot.plot?.groups ?? []).filter((g) => g.label === label).flatMap((g) => g.elements).filter(pred);
}

/**
 * The elements of the `n`th mark group labelled `label` (marks in the order
 * the chart lists them; a mark with no data draws no group) that passes
 * `pred(group)` — e.g. by its class or its elements' colour.
 */
export function group(snapshot, label, n = 0, pred = () => true) {
  return (snapshot.plot?.groups ?? []).filter((g) => g.label === label && pred(g))[n]?.elements ?? [];
}

/** A group predicate: its elements are painted `colour` (fill or stroke). */
export const painted = (colour) => (g) => g.elements.length > 0 && g.elements.every((e) => e.fill === colour || e.stroke === colour);
/**
 * A group predicate: Plot's className, on the mark's group or, in a
 * faceted chart, on each facet's group inside it (every element's).
 */
const hasClass = (c, name) => (c ?? '').split(/\s+/).includes(name);
export const classed = (name) => (g) => hasClass(g.className, name) ||
  (g.elements.length > 0 && g.elements.every((e) => hasClass(e.className, name)));

/** Accumulates pixel errors of one kind of check and the problems past a tolerance. */
export class Errors {
  constructor(tolerance = 1) {
    this.tolerance = tolerance;
    this.max = 0;
    this.count = 0;
    this.problems = [];
  }

  /** Record |actual − expected|; a problem when past the tolerance. */
  px(actual, expected, what, tolerance = this.tolerance) {
    this.count++;
    if (actual == null || expected == null || !Number.isFinite(actual) || !Number.isFinite(expected)) {
      this.problems.push(`${what}: ${actual} vs expected ${expected}`);
      return;
    }
    const e = Math.abs(actual - expected);
    this.max = Math.max(this.max, e);
    if (e > tolerance) this.problems.push(`${what}: at ${actual.toFixed(1)} px, expected ${expected.toFixed(1)} px (off by ${e.toFixed(1)})`);
  }

  fail(what) {
    this.count++;
    this.problems.push(what);
  }
}

/**
 * Short list of problems for an assertion message: problems of each kind
 * in turn (the same message about other marks counts as one kind), so
 * that one kind's many instances do not hide another.
 */
export function listProblems(problems, max = 12) {
  const kinds = new Map();
  for (const p of problems) {
    const k = p.replace(/^[^:]*: /, '').replace(/"[^"]*"/g, '"…"').replace(/[-+−]?[\d.]+(e[-+]?\d+)?/g, '#');
    if (!kinds.has(k)) kinds.set(k, []);
    kinds.get(k).push(p);
  }
  const picked = [];
  for (let round = 0; picked.length < max && picked.length < problems.length; round++) {
    for (const list of kinds.values()) if (list[round] && picked.length < max) picked.push(list[round]);
  }
  const head = picked.map((p) => `  - ${p}`).join('\n');
  return problems.length > max ? `${head}\n  … and ${problems.length - max} more` : head;
}

/* ------------------------------------------------------------ one chart's checks */

/**
 * The checks of one drawn chart against its data. A spec declares what
 * each axis holds (`axes({x: 'time', y: 'share'})`; null for an ordinal
 * axis) and then states, mark by mark, which value of the report it
 * shows; the checker compares each mark's pixel twice:
 *
 * - `scale`: with the pixel `mapScale` gives from Plot's scale (type,
 *   domain, range; Plot's `percent` applied) — the drawing is the scale's;
 * - `axis`: with the pixel the tick labels give (`readAxis`) — the axis
 *   says what is drawn, in the data's unit;
 *
 * and notes every value outside its scale's domain (`domain`).
 */
export class ChartCheck {
  constructor(snapshot, { tolerance = 1 } = {}) {
    this.s = snapshot;
    this.scale = new Errors(tolerance);
    this.axis = new Errors(tolerance);
    this.domain = [];
    this.content = new Errors(0);
    this.axisProblems = [];
    this.read = {};
    this.marks = 0;
    this.notes = [];
  }

  /**
   * Declare what each axis holds: a kind of `parseTick` ('time', 'bytes',
   * 'share', 'count', 'ppm', 'plain'), or {kind, toScale} when the chart
   * hands Plot the value in another unit (a share ×100, ns in µs), or null
   * for an ordinal axis. Reads each continuous axis.
   */
  axes(kinds) {
    this.toScale ??= {};
    for (const [axis, spec] of Object.entries(kinds)) {
      const kind = spec && typeof spec === 'object' ? spec.kind : spec;
      if (spec && typeof spec === 'object' && spec.toScale) this.toScale[axis] = spec.toScale;
      const scale = this.s.scales[axis];
      if (!scale) { this.axisProblems.push(`no ${axis} scale`); continue; }
      if (kind == null) continue;
      const r = readAxis(this.s, axis, kind, { toScale: this.toScale[axis] });
      this.read[axis] = r;
      this.axisProblems.push(...r.problems);
      this.axisProblems.push(...tickSpread(this.s, axis, r));
      for (const l of r.labels ?? []) {
        if (l.digits > 5) this.axisProblems.push(`${axis} tick "${l.text}" shows ${l.digits} significant digits`);
        // A log axis's ticks are round numbers in the unit they are shown
        // in (2, 50, 300; in binary units also 256): "9.77 KiB" is a
        // decimal tick labelled in a binary unit.
        const shown = Math.abs(numberOf(l.text));
        const binary = /i?B$/.test(l.unit ?? '') && Number.isInteger(Math.log2(shown));
        if (/log/.test(scale.type) && l.digits > 2 && !binary) this.axisProblems.push(`${axis} tick "${l.text}" is not a round number on a ${scale.type} axis`);
      }
    }
    return this;
  }

  /** A continuous position: `value` (data unit) drawn at `px` on `axis` (shifted by `shift` px by design). */
  at(axis, value, px, what, { shift = 0, labelShift = shift, scaleOnly = false } = {}) {
    const scale = this.s.scales[axis];
    if (!scale) return;
    if (value == null || !Number.isFinite(value)) { this.scale.fail(`${what}: no value to place (${value})`); return; }
    const sv = this.scaleValue(axis, value);
    if (!inDomain(scale, sv, 1e-6)) this.domain.push(`${what}: ${value}${scale.percent ? ` (×100 = ${sv * 100})` : ''} outside the ${axis} domain [${scale.domain.join(', ')}]`);
    this.scale.px(px, mapScale(scale, sv) + shift, `${what} (${axis} scale)`);
    const r = this.read[axis];
    if (!scaleOnly && r?.at) this.axis.px(px, r.at(value) + labelShift, `${what} (${axis} as labelled)`);
  }

  /** A value in the unit the chart hands Plot. */
  scaleValue(axis, v) {
    const f = this.toScale?.[axis];
    return f ? f(v) : v;
  }

  /**
   * An ordinal position: the band of `category` on `axis` (its start, or
   * `where: 'centre'`), and the tick label nearest the mark must pass
   * `labelSays(text)` when given.
   */
  band(axis, category, px, what, { where = 'centre', shift = 0, labelSays } = {}) {
    const scale = this.s.scales[axis];
    if (!scale) return;
    const p = where === 'centre' ? bandCentre(scale, category) : mapScale(scale, category);
    if (p == null) { this.domain.push(`${what}: "${category}" not in the ${axis} domain`); return; }
    this.scale.px(px, p + shift, `${what} (${axis} band)`);
    if (labelSays) {
      const coord = axis.startsWith('x') ? 'x' : 'y';
      const ticks = tickLabels(this.s.plot, axis);
      let best = null;
      for (const t of ticks) if (!best || Math.abs(t[coord] - px) < Math.abs(best[coord] - px)) best = t;
      if (!best) this.axis.fail(`${what}: no ${axis} tick label`);
      else if (!labelSays(best.text)) this.axis.fail(`${what}: the ${axis} label beside it says "${best.text}"`);
      else this.axis.count++;
    }
  }

  /** Both coordinates of a point mark. */
  point(el, xv, yv, what, opts = {}) {
    this.marks++;
    if (this.s.scales.x?.type === 'band' || this.s.scales.x?.type === 'point') this.band('x', xv, el.x, what, opts.x);
    else this.at('x', xv, el.x, what, opts.x);
    if (this.s.scales.y?.type === 'band' || this.s.scales.y?.type === 'point') this.band('y', yv, el.y, what, opts.y);
    else this.at('y', yv, el.y, what, opts.y);
  }

  /**
   * A polyline (Plot line, link, area edge) through `points` [{x, y}] in
   * data units: every point has a vertex within the tolerance.
   */
  line(el, points, what, { dx = 0, dy = 0, labelDx = dx, labelDy = dy } = {}) {
    this.marks++;
    const verts = el.points ?? [];
    const sx = this.s.scales.x;
    const sy = this.s.scales.y;
    const rx = this.read.x;
    const ry = this.read.y;
    const onScale = (axis, scale) => (v) => mapScale(scale, this.scaleValue(axis, v));
    for (const [name, mx, my, errs, sdx, sdy] of [['scale', onScale('x', sx), onScale('y', sy), this.scale, dx, dy],
      ['as labelled', rx?.at, ry?.at, this.axis, labelDx, labelDy]]) {
      if (!mx || !my) continue;
      let worst = 0;
      let worstAt = null;
      let vi = 0;
      for (const p of points) {
        if (name === 'scale' && (!inDomain(sx, this.scaleValue('x', p.x), 1e-6) || !inDomain(sy, this.scaleValue('y', p.y), 1e-6))) {
          this.domain.push(`${what}: point (${p.x}, ${p.y}) outside the domain`);
        }
        const ex = mx(p.x) + sdx;
        const ey = my(p.y) + sdy;
        // Vertices come in data order: search forward from the last match.
        let best = Infinity;
        let bestK = vi;
        for (let k = vi; k < verts.length; k++) {
          const d = Math.max(Math.abs(verts[k].x - ex), Math.abs(verts[k].y - ey));
          if (d < best) { best = d; bestK = k; }
          if (d <= 0.01) break;
        }
        if (best > errs.tolerance) {
          // Not in order (a sorted or stepped line): any vertex will do.
          for (let k = 0; k < verts.length; k++) {
            const d = Math.max(Math.abs(verts[k].x - ex), Math.abs(verts[k].y - ey));
            if (d < best) { best = d; bestK = k; }
          }
        } else vi = bestK;
        if (best > worst) { worst = best; worstAt = p; }
      }
      errs.count += points.length;
      errs.max = Math.max(errs.max, worst);
      if (worst > errs.tolerance) errs.problems.push(`${what} (${name}): the point (${worstAt.x}, ${worstAt.y}) is ${worst.toFixed(1)} px from the line`);
    }
  }

  /** A drawn text equals what the data say. */
  text(actual, expected, what) {
    this.content.count++;
    if (actual !== expected) this.content.problems.push(`${what}: drawn "${actual}", expected "${expected}"`);
  }

  /** A count of marks. */
  count(actual, expected, what) {
    this.content.count++;
    if (actual !== expected) this.content.problems.push(`${what}: ${actual} drawn, ${expected} in the report`);
  }

  fail(what) { this.content.fail(what); }

  /** One line for the log: marks checked and the largest errors. */
  summary() {
    const ax = Object.entries(this.read).map(([k, r]) => `${k} ${r.labels?.length ?? 0} labels`).join(', ');
    return `${this.marks} marks, max error ${this.scale.max.toFixed(2)} px by the scales, ` +
      `${this.axis.count ? `${this.axis.max.toFixed(2)} px as labelled` : 'no labelled axis'}${ax ? ` (${ax})` : ''}`;
  }
}

/**
 * A log or symlog axis has a labelled tick in every whole decade it spans
 * (a symlog axis given a linear axis's ticks labels only its top decade,
 * leaving most of its points unreadable).
 */
export function tickSpread(snapshot, axis, read) {
  const scale = snapshot.scales[axis];
  if (!read?.labels?.length || !/log/.test(scale?.type ?? '')) return [];
  const [d0, d1] = [Math.min(...scale.domain), Math.max(...scale.domain)];
  const floor = scale.type.includes('symlog') ? (scale.constant ?? 1) : 0;
  const problems = [];
  for (const sign of [1, -1]) {
    const hi = sign > 0 ? d1 : -d0;
    const lo = sign > 0 ? Math.max(d0, floor) : Math.max(-d1, floor);
    if (!(hi > 0) || !(hi > lo)) continue;
    for (let k = Math.ceil(Math.log10(Math.max(lo, 1e-300))); 10 ** (k + 1) <= hi * (1 + 1e-9); k++) {
      const [a, b] = [mapScale(scale, sign * 10 ** k), mapScale(scale, sign * 10 ** (k + 1))].sort((p, q) => p - q);
      if (!read.labels.some((l) => l.px >= a - 1 && l.px <= b + 1)) {
        problems.push(`${axis}: no tick label between ${sign * 10 ** k} and ${sign * 10 ** (k + 1)} (scale units) on the ${scale.type} axis (labels: ${read.labels.map((l) => l.text).join(', ')})`);
      }
    }
  }
  return problems;
}
