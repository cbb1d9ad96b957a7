// Accessibility of the whole notebook (whole-notebook.mjs: every cell of
// every suite and every importer, every row shown), light and dark:
//  - axe-core over the page: no serious or critical violation (colour
//    contrast of HTML text included);
//  - the text inside charts, which axe does not judge: every SVG <text> at
//    least 4.5:1 (3:1 when large) against what is painted under it — the
//    card, or the chart's own shapes (a heat-map cell), or its halo — by the
//    WCAG 2 formula, with the text's and the shapes' opacity applied.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { ROOT, ARTIFACTS } from './harness.mjs';
import { wholeNotebookServer, openWholeNotebook, settle } from './whole-notebook.mjs';

let server;
let axeSource;

before(async () => {
  server = await wholeNotebookServer();
  axeSource = await readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
  await mkdir(ARTIFACTS, { recursive: true });
});

after(async () => {
  await server?.stop();
});

/**
 * In the page: the contrast of every SVG <text> in `figure` against what
 * lies under its centre. Returns {checked, failures: [line]}.
 */
function chartTextContrast(figure) {
  const canvas = document.createElement('canvas').getContext('2d');
  // Any CSS colour to [r, g, b, a] (0–255, alpha 0–1), through the canvas' own parser.
  const rgba = (css) => {
    canvas.fillStyle = '#000';
    canvas.fillStyle = css;
    const v = canvas.fillStyle;
    if (v.startsWith('#')) return [1, 3, 5].map((i) => parseInt(v.slice(i, i + 2), 16)).concat(1);
    const m = v.match(/rgba?\(([^)]+)\)/);
    const p = m[1].split(',').map(Number);
    return [p[0], p[1], p[2], p[3] ?? 1];
  };
  const over = ([r, g, b, a], [R, G, B]) => [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a)];
  const luminance = (c) => {
    const [r, g, b] = c.map((v) => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  // Opacity of an element and its ancestors.
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const SHAPES = new Set(['rect', 'circle', 'ellipse', 'path', 'polygon', 'image']);
  /**
   * The colour painted under the point, from the layers below `text` down
   * to the first opaque one; for text the window cannot show (drawn far
   * outside its chart), the backgrounds of the boxes it sits in.
   */
  const under = (text, x, y) => {
    const stack = document.elementsFromPoint(x, y);
    const at = stack.indexOf(text);
    const layers = [];
    const below = [];
    if (at >= 0) below.push(...stack.slice(at + 1));
    else for (let e = text.closest('svg'); e; e = e.parentElement) below.push(e);
    for (const el of below) {
      if (el.closest('header.top')) continue;
      let c = null;
      if (el instanceof SVGElement && SHAPES.has(el.tagName)) {
        const cs = getComputedStyle(el);
        if (cs.fill === 'none' || cs.fill.startsWith('url(')) continue;
        c = rgba(cs.fill);
        c[3] *= Number(cs.fillOpacity) * opacity(el);
      } else if (!(el instanceof SVGElement) || el.tagName === 'svg') {
        c = rgba(getComputedStyle(el).backgroundColor);
        c[3] *= opacity(el);
      }
      if (!c || c[3] === 0) continue;
      layers.push(c);
      if (c[3] >= 0.999) break;
    }
    let bg = [255, 255, 255];
    for (const c of layers.reverse()) bg = over(c, bg);
    return { bg, found: at >= 0 };
  };
  const failures = [];
  let checked = 0;
  for (const text of figure.querySelectorAll('svg text')) {
    const content = text.textContent.trim();
    if (!content) continue;
    const cs = getComputedStyle(text);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    let r = text.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const bar = document.querySelector('header.top').getBoundingClientRect().bottom;
    const visible = () => r.top >= bar && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
    if (!visible()) {
      text.scrollIntoView({ block: 'center', inline: 'center' });
      r = text.getBoundingClientRect();
    }
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    let { bg, found } = under(text, x, y);
    // A halo (a wide stroke painted first) is the text's background.
    if (cs.stroke !== 'none' && cs.paintOrder.startsWith('stroke') && parseFloat(cs.strokeWidth) >= 2) {
      const halo = rgba(cs.stroke);
      halo[3] *= Number(cs.strokeOpacity);
      bg = over(halo, bg);
    }
    const fill = rgba(cs.fill);
    fill[3] *= Number(cs.fillOpacity) * opacity(text);
    const fg = over(fill, bg);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    const got = ratio(fg, bg);
    checked += 1;
    if (got < need) {
      const hex = (c) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
      failures.push(`${figure.closest('section.cell')?.id} [${figure.dataset.testid}] "${content.slice(0, 40)}": ` +
        `${got.toFixed(2)}:1 (${hex(fg)} on ${hex(bg)}${found ? '' : ', off screen: against its boxes'}; needs ${need}:1)`);
    }
  }
  return { checked, failures };
}

async function audit(scheme) {
  const { page, problems, close } = await openWholeNotebook(server, { colorScheme: scheme, viewport: { width: 1400, height: 900 } });
  const found = [];
  try {
    // Every chart drawn (they draw when scrolled near: many files).
    const cards = await page.$$eval('#files, #cells section.cell', (cs) => cs.map((c) => c.id));
    for (const id of cards) {
      await page.$eval(`#${id}`, (c) => c.scrollIntoView({ block: 'start' }));
      await settle(page, 5_000);
    }

    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const r = await globalThis.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`) }));
    });
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    console.log(`# ${scheme}: axe found ${violations.length} rules violated (${serious.length} serious or critical): ` +
      `${violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`).join(', ') || 'none'}`);
    for (const v of serious) for (const n of v.nodes) found.push(`${scheme} axe ${v.id} (${v.impact}): ${n.replace(/\s+/g, ' ').slice(0, 300)}`);

    let texts = 0;
    let figures = 0;
    for (const id of cards) {
      const count = await page.$$eval(`#${id} figure.chart`, (fs) => fs.length);
      for (let i = 0; i < count; i++) {
        const fig = page.locator(`#${id} figure.chart`).nth(i);
        await fig.evaluate((f) => f.scrollIntoView({ block: 'center' }));
        await settle(page, 3_000);
        const r = await fig.evaluate(chartTextContrast);
        figures += 1;
        texts += r.checked;
        for (const f of r.failures) found.push(`${scheme} chart text ${f}`);
      }
    }
    console.log(`# ${scheme}: ${texts} SVG text elements in ${figures} charts of ${cards.length} cards checked for contrast`);
    assert.ok(figures > 30 && texts > 1000, 'the charts were drawn');
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
  await writeFile(path.join(ARTIFACTS, `a11y-problems-${scheme}.txt`), found.join('\n') + '\n');
  assert.equal(found.length, 0, `${found.length} accessibility problems:\n${found.slice(0, 40).join('\n')}${found.length > 40 ? '\n…' : ''}`);
}

for (const scheme of ['light', 'dark']) {
  test(`${scheme}: no serious accessibility violation, and chart text readable against what lies under it`, { timeout: 900_000 }, () => audit(scheme));
}
