// Getting things out of the page, all computed here from what is shown:
// every chart as SVG or PNG, every data table as CSV, and the whole notebook
// as one self-contained report (.html) that recomputes itself when opened.
// Downloads are Blob URLs clicked through <a download>; nothing is sent
// anywhere.

import { h, svgEl, download } from '../ui/dom.js';
import { gzip, bytesToBase64 } from '../ui/bytes.js';
import { reportDocument } from './embed.js';

/* ------------------------------------------------------------ file names */

/** A file name from shown text (a caption): letters, digits, dashes. */
function fileName(text, ext) {
  const base = String(text ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `${base || 'tickbook'}.${ext}`;
}

/* ------------------------------------------------------------ CSV */

/** One CSV field (RFC 4180), with spreadsheet formulas neutralised in text. */
export function csvField(value) {
  let s = String(value ?? '');
  // Text a spreadsheet would run as a formula (=, +, -, @, tab, CR first)
  // gets a leading apostrophe; numbers (-1.5, 2e-9) stay numbers.
  if (/^[=+\-@\t\r]/.test(s) && !Number.isFinite(Number(s))) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A table as CSV: the last header row, then each shown body row. A cell
 * holding a number gives its raw value (data-value), not the rounded text;
 * numbers nested in a cell (an interval's ends, data-stat) get columns of
 * their own after it. Column spans are expanded, so columns line up.
 */
function tableCsv(table) {
  const text = (el) => el.innerText.replace(/\s+/g, ' ').trim();
  const headRow = table.tHead?.rows[table.tHead.rows.length - 1];
  const labels = headRow ? [...headRow.cells].flatMap((c) => [text(c), ...Array(Math.max(0, c.colSpan - 1)).fill('')]) : [];
  const rows = [...table.tBodies].flatMap((tb) => [...tb.rows]).filter((tr) => !tr.hidden);
  const grid = rows.map((tr) => [...tr.cells].flatMap((c) => [c, ...Array(Math.max(0, c.colSpan - 1)).fill(null)]));
  const columns = Math.max(labels.length, ...grid.map((r) => r.length));
  const nested = (c) => (c ? [...c.querySelectorAll('[data-stat][data-value]')] : []);
  const extra = Array.from({ length: columns }, () => []);
  for (const r of grid) {
    r.forEach((c, i) => {
      for (const n of nested(c)) if (!extra[i].includes(n.dataset.stat)) extra[i].push(n.dataset.stat);
    });
  }
  const main = (c) => (c == null ? '' : c.dataset.stat && c.dataset.value != null ? c.dataset.value : text(c));
  const header = [];
  const lines = [];
  for (let i = 0; i < columns; i++) header.push(labels[i] ?? '', ...extra[i].map((st) => `${labels[i] ?? ''} (${st})`.trim()));
  if (labels.length) lines.push(header);
  for (const r of grid) {
    const line = [];
    for (let i = 0; i < columns; i++) {
      const c = r[i] ?? null;
      const ns = nested(c);
      line.push(main(c), ...extra[i].map((st) => ns.find((n) => n.dataset.stat === st)?.dataset.value ?? ''));
    }
    lines.push(line);
  }
  return lines.map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/* ------------------------------------------------------------ SVG, PNG */

// Inherited paint and font properties, written where they differ from the
// parent's; opacity (not inherited) where it is not 1.
const STYLE_PROPS = [
  'fill', 'fill-opacity', 'stroke', 'stroke-opacity', 'stroke-width', 'stroke-dasharray', 'stroke-linecap',
  'stroke-linejoin', 'color', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor',
  'dominant-baseline', 'paint-order',
];

/** Inline `el`'s computed style into `copy` and drop what refers to the page's CSS variables. */
function inlineStyle(el, copy, parentStyle) {
  const cs = getComputedStyle(el);
  const decls = (copy.getAttribute('style') ?? '').split(';').filter((d) => d.trim() && !d.includes('var(') && !d.includes('inherit'));
  for (const p of STYLE_PROPS) {
    const v = cs.getPropertyValue(p);
    if (!parentStyle || parentStyle.getPropertyValue(p) !== v) decls.push(`${p}:${v}`);
  }
  if (cs.opacity !== '1') decls.push(`opacity:${cs.opacity}`);
  for (const a of [...copy.attributes]) if (a.value.includes('var(')) copy.removeAttribute(a.name);
  if (decls.length) copy.setAttribute('style', decls.join(';'));
  else copy.removeAttribute('style');
  return cs;
}

/** The charts' SVGs in a figure (legends and keys drawn as SVG are left out). */
function chartSvgs(figure) {
  return [...figure.querySelectorAll('.chart-body svg')].filter((s) =>
    !s.parentElement?.closest('svg') && !s.closest('[class*="-swatches"]') && !s.classList.contains('legend'));
}


/**
 * Plot's categorical legends are HTML (a swatch and a label per series):
 * redrawn as SVG where they sit on screen, so an exported chart keeps its key.
 */
function swatchesSvg(figure) {
  const out = [];
  for (const box of figure.querySelectorAll('.chart-body [class*="-swatches"]')) {
    const origin = box.getBoundingClientRect();
    const g = svgEl('g', {});
    for (const sw of box.querySelectorAll('[class$="-swatch"]')) {
      const mark = sw.querySelector('svg');
      const label = sw.textContent.trim();
      const cs = getComputedStyle(sw);
      if (mark) {
        const r = mark.getBoundingClientRect();
        const inner = mark.cloneNode(true);
        inner.setAttribute('x', r.left - origin.left);
        inner.setAttribute('y', r.top - origin.top);
        inner.setAttribute('fill', getComputedStyle(mark).fill);
        g.append(inner);
      }
      const range = document.createRange();
      range.selectNodeContents(sw);
      const rects = [...range.getClientRects()];
      const text = rects[rects.length - 1] ?? sw.getBoundingClientRect();
      g.append(svgEl('text', {
        x: (mark ? mark.getBoundingClientRect().right + 4 : text.left) - origin.left,
        y: text.top - origin.top + text.height / 2,
        'dominant-baseline': 'central',
        style: `fill:${cs.color};font-family:${cs.fontFamily};font-size:${cs.fontSize}`,
      }, label)); // a text node: labels come from files, never markup
    }
    out.push({ g, width: origin.width, height: origin.height });
  }
  return out;
}

/**
 * A standalone SVG document of the figure's charts: every element's computed
 * paint and font inlined (the page's colours are CSS variables), the
 * legends and charts stacked, on the page's card background.
 */
function figureSvg(figure) {
  const svgs = chartSvgs(figure);
  if (!svgs.length) return null;
  const keys = swatchesSvg(figure);
  const boxes = svgs.map((s) => s.getBoundingClientRect());
  const top = Math.ceil(keys.reduce((a, k) => a + k.height, 0));
  const width = Math.ceil(Math.max(...boxes.map((b) => b.width), ...keys.map((k) => k.width)));
  const height = top + Math.ceil(boxes.reduce((a, b) => a + b.height, 0));
  const bg = getComputedStyle(figure.closest('.cell') ?? document.body).backgroundColor;
  const out = svgEl('svg', { xmlns: 'http://www.w3.org/2000/svg', width, height, viewBox: `0 0 ${width} ${height}` },
    svgEl('rect', { width, height, fill: bg && bg !== 'rgba(0, 0, 0, 0)' ? bg : getComputedStyle(document.body).backgroundColor }));
  let y = 0;
  for (const k of keys) {
    k.g.setAttribute('transform', `translate(0,${y})`);
    out.append(k.g);
    y += k.height;
  }
  svgs.forEach((svg, i) => {
    const clone = svg.cloneNode(true);
    const walk = (el, copy, parentStyle) => {
      const cs = inlineStyle(el, copy, parentStyle);
      for (let k = 0; k < el.children.length; k++) walk(el.children[k], copy.children[k], cs);
    };
    walk(svg, clone, null);
    clone.querySelectorAll('style').forEach((s) => s.remove()); // inlined above
    clone.setAttribute('x', 0);
    clone.setAttribute('y', y);
    clone.setAttribute('width', Math.ceil(boxes[i].width));
    clone.setAttribute('height', Math.ceil(boxes[i].height));
    y += boxes[i].height;
    out.append(clone);
  });
  return { text: new XMLSerializer().serializeToString(out), width, height };
}

/** The figure as PNG at twice its size (an SVG image drawn on a canvas). */
async function figurePng(figure, scale = 2) {
  const svg = figureSvg(figure);
  if (!svg) return null;
  const url = URL.createObjectURL(new Blob([svg.text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(svg.width * scale);
    canvas.height = Math.ceil(svg.height * scale);
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, svg.width, svg.height);
    return await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas gave no PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/* ------------------------------------------------------------ buttons */

function captionOf(el) {
  return el.querySelector('figcaption .caption, caption')?.textContent
    ?? el.closest('section')?.querySelector('h2 .kind')?.textContent ?? 'tickbook';
}

function toolButton(label, title, testid, onclick, what) {
  return h('button', { type: 'button', class: 'export-button', title, 'aria-label': `${title}: ${what}`, 'data-testid': testid, onclick }, label);
}

const done = new WeakSet();

function decorateFigure(figure) {
  if (done.has(figure)) return;
  done.add(figure);
  const name = () => captionOf(figure);
  const bar = h('div', { class: 'export-tools', 'data-testid': 'chart-export' },
    toolButton('SVG', 'Download this chart as SVG', 'export-svg', () => {
      const svg = figureSvg(figure);
      if (svg) download(fileName(name(), 'svg'), new Blob([svg.text], { type: 'image/svg+xml' }));
    }, name()),
    toolButton('PNG', 'Download this chart as PNG (twice its size on screen)', 'export-png', async () => {
      const png = await figurePng(figure);
      if (png) download(fileName(name(), 'png'), png);
    }, name()));
  figure.append(bar);
}

function decorateTable(table) {
  if (done.has(table) || !table.tBodies[0]?.rows.length) return;
  done.add(table);
  const bar = h('div', { class: 'export-tools', 'data-testid': 'table-export' },
    toolButton('CSV', 'Download this table as CSV (raw numbers, not rounded)', 'export-csv', () => {
      const kind = table.closest('section')?.querySelector('h2 .kind')?.textContent ?? 'tickbook';
      table.tBodies[0]?.showAll?.(); // every row, not only those shown (dom.js showMore)
      download(fileName(`${kind}-${table.dataset.testid ?? 'table'}`, 'csv'),
        new Blob([tableCsv(table)], { type: 'text/csv' }));
    }, table.caption?.textContent || table.dataset.testid || 'table'));
  const wrap = table.closest('.table-wrap') ?? table;
  wrap.after(bar);
}

/** Give every chart and data table in `container`, now and later, its export buttons. */
export function watchExports(container) {
  const scan = () => {
    for (const f of container.querySelectorAll('figure.chart')) decorateFigure(f);
    for (const t of container.querySelectorAll('table.data')) decorateTable(t);
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => { queued = false; scan(); });
  }).observe(container, { childList: true, subtree: true });
  scan();
}

/* ------------------------------------------------------------ report */

/**
 * The data block of a report of what the page shows: every file in the
 * list (its bytes, from the worker, gzipped; or the reason it could not be
 * loaded) and the shared state.
 *   bytesOf(key) -> Promise<Uint8Array|null>, state() -> object, version() -> string
 */
async function reportData({ bytesOf, state, version }) {
  const files = [];
  for (const row of document.querySelectorAll('[data-testid=file-row]')) {
    const { key, file: name } = row.dataset;
    const bytes = await bytesOf(key).catch(() => null);
    if (bytes) {
      files.push({ name, encoding: 'gzip+base64', data: bytesToBase64(await gzip(bytes)) });
    } else {
      const message = document.querySelector(`.slot[data-key="${key}"] [data-testid=error-message]`)?.textContent;
      files.push({ name, error: message ?? 'the file was still loading when the report was exported' });
    }
  }
  return { tickbook: 'report', version: 1, generator: `tickbook page ${version?.() ?? ''}`.trim(), created: new Date().toISOString(), files, state: state() };
}

/** Wire the Export report button: enabled while files are listed. */
export function setupReportExport(button, rows, opts) {
  const sync = () => { button.disabled = rows.children.length === 0 || button.dataset.busy === 'true'; };
  new MutationObserver(sync).observe(rows, { childList: true });
  sync();
  button.addEventListener('click', async () => {
    button.dataset.busy = 'true';
    sync();
    try {
      const data = await reportData(opts);
      const html = reportDocument(data);
      download('tickbook-report.html', new Blob([html], { type: 'text/html' }));
    } finally {
      delete button.dataset.busy;
      sync();
    }
  });
}
