// Charts and labels read back from the drawn SVG and checked against
// `tickbook analyze --json` of the same file and against properties that must
// hold: a bar's length is its share, tick labels are exact sizes and do not
// overlap, nothing is drawn for a correlation the analysis does not have,
// no text falls outside its SVG (which the SVG and PNG exports cut off).
// Data: the cached fresh collection of every suite (harness
// `everySuiteCollection`) and a synthetic trace with a constant metric.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import {
  FIXTURES, WEB_DIST, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles, analyzeJson, everySuiteCollection, screenshot,
} from './harness.mjs';

let tmp, results, server, run, runFile;
const CONSTANT = 'trace-constant.json';
const COPY_EDGES = 'copy-legend-edges.json';

before(async () => {
  await checkPrerequisites();
  const files = await everySuiteCollection();
  runFile = files.run;
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await symlink(files.run, path.join(results, 'run.json'));
  // The trace fixture with context_switches constant in every run: its
  // correlations, and its own diagonal, are undefined.
  const doc = JSON.parse(await readFile(path.join(FIXTURES, 'trace-small.json'), 'utf8'));
  const trace = doc.suites.find((s) => s.suite === 'trace');
  for (const w of trace.data.workloads) {
    for (const r of w.runs) {
      const c = r.columns.indexOf('context_switches');
      for (const rec of r.records) rec[c] = 3;
    }
  }
  await writeFile(path.join(results, CONSTANT), JSON.stringify(doc));
  // The copy suite of the collection with every implementation × length
  // spanning 0.0095 to 0.0115 ns per byte: the colour legend's round ticks
  // then fall on both ends of its ramp, with 6-character labels.
  const full = JSON.parse(await readFile(files.run, 'utf8'));
  const copy = full.suites.find((x) => x.suite === 'copy');
  const groups = new Map();
  for (const c of copy.data.cases.filter((x) => x.available)) {
    const k = `${c.implementation} ${c.length - (c.length % 64)}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(c);
  }
  for (const cases of groups.values()) {
    cases.forEach((c, i) => {
      const perByte = 0.0095 + (0.002 * i) / Math.max(1, cases.length - 1);
      c.samples_ns = c.samples_ns.map(() => perByte * c.length);
    });
  }
  full.suites = [copy];
  await writeFile(path.join(results, COPY_EDGES), JSON.stringify(full));
  [run] = await analyzeJson([files.run]);
  assert.ok(run.ok, 'the collection reads');
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const S = '\u202f';
const plain = (s) => s.replaceAll(S, ' ').trim();
const UNIT = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };
/** "1 014 KiB" → 1038336; null when the text is not a size. */
function parseBytes(s) {
  const m = /^(\d[\d ]*(?:\.\d+)?) (B|KiB|MiB|GiB)$/.exec(plain(s));
  return m ? Number(m[1].replaceAll(' ', '')) * UNIT[m[2]] : null;
}
/** "+0.3", "−0.1", "0", "−1.0" → number. */
const parseSigned = (s) => Number(plain(s).replace('−', '-').replace('+', '').replaceAll(' ', ''));

async function openPage(file, opts) {
  const b = await openBrowser(server.url, opts);
  await b.page.goto(`${server.url}?url=/results/${file}`);
  await waitForFiles(b.page, 1, 120_000);
  return b;
}

async function waitChart(page, testid, timeout = 60_000) {
  await page.waitForSelector(`figure[data-testid="${testid}"] .chart-body svg`, { timeout });
}

const clean = (problems) => {
  assert.deepEqual(problems.consoleErrors, []);
  assert.deepEqual(problems.pageErrors, []);
};

/**
 * Every non-empty <text> of a figure's SVGs: its text, the aria-label of its
 * mark group, whether it is in a legend, and its box relative to its SVG.
 */
function figureTexts(page, selector) {
  return page.$eval(selector, (fig) => {
    const out = [];
    for (const svg of fig.querySelectorAll('svg')) {
      const sr = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll('text')) {
        const text = t.textContent.replace(t.querySelector('title')?.textContent ?? '', '');
        if (!text.trim()) continue;
        const r = t.getBoundingClientRect();
        out.push({
          text, group: t.closest('g[aria-label]')?.getAttribute('aria-label') ?? '',
          legend: [...svg.classList].some((c) => c.endsWith('-ramp')) || svg.closest('[class*="-swatches"]') != null,
          x: r.x - sr.x, y: r.y - sr.y, w: r.width, h: r.height, svgW: sr.width, svgH: sr.height,
        });
      }
    }
    return out;
  });
}

function assertInside(texts, what) {
  for (const t of texts) {
    assert.ok(t.x >= -0.5 && t.y >= -0.5 && t.x + t.w <= t.svgW + 0.5 && t.y + t.h <= t.svgH + 0.5,
      `${what}: "${t.text}" (${t.group}) at x ${t.x.toFixed(1)}…${(t.x + t.w).toFixed(1)}, y ${t.y.toFixed(1)}…${(t.y + t.h).toFixed(1)} lies outside its ${t.svgW.toFixed(0)} × ${t.svgH.toFixed(0)} SVG`);
  }
}

const overlap = (a, b) => Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

function assertNoOverlap(texts, what) {
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      assert.ok(overlap(texts[i], texts[j]) <= 1, `${what}: "${texts[i].text}" and "${texts[j].text}" overlap`);
    }
  }
}

// ---------------------------------------------------------------- Bottlenecks

/** The bars of "Share of each region's measured time" against the CLI. */
async function checkBars(page, b) {
  const sel = 'figure[data-testid="bottleneck-bars"]';
  const got = await page.$eval(sel, (fig) => {
    const plot = fig.querySelector('.chart-body > *');
    const svg = [...fig.querySelectorAll('svg')].find((s) => s.querySelector('g[aria-label=bar]'));
    const x = plot.scale('x');
    const rects = [...svg.querySelectorAll('g[aria-label=bar] rect')].map((r) => ({
      x: Number(r.getAttribute('x')), y: Number(r.getAttribute('y')), w: Number(r.getAttribute('width')), h: Number(r.getAttribute('height')),
    }));
    const ticks = [...svg.querySelectorAll('g[aria-label="x-axis tick label"] text')].map((t) => {
      const r = t.getBoundingClientRect();
      const s = svg.getBoundingClientRect();
      return { text: t.textContent, cx: r.x - s.x + r.width / 2 };
    });
    const rows = [...svg.querySelectorAll('g[aria-label="y-axis tick label"] text')].map((t) => t.textContent);
    return { range: x.range, rects, ticks, rows };
  });
  const rows = b.by_overhead.map((i) => b.cases[i]);
  const [x0, x1] = got.range;
  const frame = x1 - x0;
  // One row of rects per region, in the order of by_overhead, top to bottom.
  const byY = new Map();
  for (const r of got.rects) {
    const k = Math.round(r.y);
    if (!byY.has(k)) byY.set(k, []);
    byY.get(k).push(r);
  }
  const ys = [...byY.keys()].sort((a, c) => a - c);
  assert.equal(ys.length, rows.length, 'one bar per ranked region');
  assert.equal(got.rows.length, rows.length);
  ys.forEach((y, i) => {
    const c = rows[i];
    const share = Math.min(1, c.predicted_ns / c.measured_ns.estimate);
    const parts = byY.get(y).sort((a, d) => a.x - d.x);
    const blue = parts[0];
    // Bars are drawn with an inset of 0.5 px on each side of each part.
    const total = parts.reduce((s, r) => s + r.w + 1, 0);
    const what = `${c.kernel} ${c.working_set_bytes} B: predicted ${c.predicted_ns} of ${c.measured_ns.estimate} ns`;
    assert.ok(Math.abs(blue.x - 0.5 - x0) <= 1, `${what}: the bar starts at 0 %`);
    assert.ok(Math.abs(blue.w + 1 - share * frame) <= 1, `${what}: blue ${blue.w.toFixed(1)} px, expected ${(share * frame).toFixed(1)} px (share ${share})`);
    assert.ok(Math.abs(total - frame) <= 1, `${what}: the whole bar is the measured time (${total.toFixed(1)} of ${frame.toFixed(1)} px)`);
  });
  // The x axis is labelled in percent: 0 % at the left end, 100 % at the right.
  const pct = got.ticks.map((t) => ({ ...t, v: /%$/.test(plain(t.text)) ? parseSigned(plain(t.text).replace(/ ?%$/, '')) / 100 : NaN }));
  assert.ok(pct.length >= 3 && pct.every((t) => Number.isFinite(t.v)), `x tick labels are percentages: ${got.ticks.map((t) => t.text).join(', ')}`);
  for (const t of pct) assert.ok(Math.abs(t.cx - (x0 + t.v * frame)) <= 1.5, `tick "${t.text}" at ${t.cx.toFixed(1)} px, expected ${(x0 + t.v * frame).toFixed(1)}`);
  assert.ok(pct.some((t) => t.v === 1), 'a 100 % tick');
  // The overhead labels and every other text stay inside the SVG.
  const texts = await figureTexts(page, sel);
  assertInside(texts, 'bottleneck bars');
  const labels = texts.filter((t) => t.group === 'text').map((t) => plain(t.text));
  assert.equal(labels.length, rows.length, 'one overhead label per bar');
  // Each label is its region's overhead (three significant digits, at most
  // to a thousandth), in the bars' order.
  rows.forEach((c, i) => {
    const o = c.overhead.estimate;
    const shown = parseSigned(labels[i]);
    assert.ok(Math.abs(shown - o) <= Math.max(5e-4, 5e-3 * Math.abs(o)) + 1e-12, `label "${labels[i]}" is the overhead ${o} of ${c.kernel} ${c.working_set_bytes} B`);
  });
}

test('Bottlenecks: each bar is its predicted share of the measured time, labels inside the chart (page)', { timeout: 300_000 }, async () => {
  const b = run.bottleneck;
  assert.ok(b?.by_overhead.length > 0, 'ranked regions');
  const { page, problems, close } = await openPage('run.json');
  try {
    await waitChart(page, 'bottleneck-bars');
    await checkBars(page, b);
    clean(problems);
  } finally {
    await close();
  }
});

test('Bottlenecks: the exported report draws the same bars', { timeout: 300_000 }, async () => {
  const b = run.bottleneck;
  const report = path.join(tmp, 'report.html');
  await tickbook(['report', '--web-root', WEB_DIST, '--out', report, runFile], { timeout: 120_000 });
  const { page, problems, close } = await openBrowser(pathToFileURL(report).href);
  try {
    await page.goto(pathToFileURL(report).href);
    await page.waitForSelector('[data-testid=bottleneck-cell]', { timeout: 120_000 });
    await page.locator('figure[data-testid="bottleneck-bars"]').scrollIntoViewIfNeeded();
    await waitChart(page, 'bottleneck-bars');
    await checkBars(page, b);
    clean(problems);
  } finally {
    await close();
  }
});

test('Bottlenecks: overhead against working set has readable axes and every point on them', { timeout: 300_000 }, async () => {
  const b = run.bottleneck;
  const pts = b.cases.filter((c) => c.timable && c.overhead != null);
  for (const width of [1400, 1024]) {
    const { page, problems, close } = await openPage('run.json', { viewport: { width, height: 900 } });
    try {
      const sel = 'figure[data-testid="bottleneck-curves"]';
      await waitChart(page, 'bottleneck-curves');
      const texts = (await figureTexts(page, sel)).filter((t) => !t.legend);
      assertInside(texts, `curves at ${width} px`);
      const xt = texts.filter((t) => t.group === 'x-axis tick label');
      const yt = texts.filter((t) => t.group === 'y-axis tick label');
      assertNoOverlap(xt, `x tick labels at ${width} px`);
      assertNoOverlap(yt, `y tick labels at ${width} px`);
      assertNoOverlap(texts, `every label at ${width} px`);
      // x: exact binary sizes, powers of two, placed on a log2 axis.
      const xs = xt.map((t) => ({ v: parseBytes(t.text), px: t.x + t.w / 2, text: t.text }));
      assert.ok(xs.length >= 4, `${xs.length} x tick labels`);
      for (const t of xs) {
        assert.ok(t.v != null && Number.isInteger(Math.log2(t.v)), `x tick "${t.text}" is an exact power-of-two size`);
      }
      const fx = (v) => xs[0].px + (Math.log2(v) - Math.log2(xs[0].v)) / (Math.log2(xs.at(-1).v) - Math.log2(xs[0].v)) * (xs.at(-1).px - xs[0].px);
      for (const t of xs) assert.ok(Math.abs(fx(t.v) - t.px) <= 1.5, `x tick "${t.text}" on a log axis`);
      // y: the labelled ticks are where the data are.
      const ys = yt.map((t) => ({ v: parseSigned(t.text), py: t.y + t.h / 2, text: t.text })).sort((a, c) => a.v - c.v);
      assert.ok(ys.every((t) => Number.isFinite(t.v)), `y tick labels are overheads: ${yt.map((t) => t.text).join(', ')}`);
      const sorted = pts.map((c) => c.overhead.estimate).sort((a, c) => a - c);
      const [p10, p90] = [sorted[Math.floor(0.1 * sorted.length)], sorted[Math.floor(0.9 * sorted.length)]];
      const inside = ys.filter((t) => t.v >= p10 && t.v <= p90);
      assert.ok(inside.length >= 3, `${inside.length} y ticks (${inside.map((t) => t.text).join(', ')}) between the 10th and 90th percentiles of the overheads, ${p10} and ${p90}`);
      // Every point: inside the frame, between the ticks that bracket its value, and at its size on the x axis.
      const dots = await page.$eval(sel, (fig) => {
        const plot = fig.querySelector('.chart-body > *');
        const svg = [...fig.querySelectorAll('svg')].find((s) => s.querySelector('g[aria-label=dot]'));
        const s = svg.getBoundingClientRect();
        return {
          yRange: plot.scale('y').range,
          circles: [...svg.querySelectorAll('g[aria-label=dot] circle')].map((c) => {
            const r = c.getBoundingClientRect();
            return { cx: r.x - s.x + r.width / 2, cy: r.y - s.y + r.height / 2 };
          }),
        };
      });
      assert.equal(dots.circles.length, pts.length, 'one dot per timable region');
      const [yBottom, yTop] = dots.yRange;
      pts.forEach((c, i) => {
        const { cx, cy } = dots.circles[i];
        const v = c.overhead.estimate;
        const what = `${c.kernel} ${c.working_set_bytes} B (overhead ${v})`;
        assert.ok(cy <= yBottom + 0.5 && cy >= yTop - 0.5, `${what}: y ${cy} inside the frame ${yTop}…${yBottom}`);
        const below = ys.filter((t) => t.v <= v).at(-1);
        const above = ys.find((t) => t.v >= v);
        if (below) assert.ok(cy <= below.py + 1, `${what}: above the tick "${below.text}"`);
        if (above) assert.ok(cy >= above.py - 1, `${what}: below the tick "${above.text}"`);
        assert.ok(Math.abs(cx - fx(c.working_set_bytes)) <= 1.5, `${what}: x ${cx.toFixed(1)} px, its size on the labelled axis is at ${fx(c.working_set_bytes).toFixed(1)}`);
      });
      clean(problems);
      await screenshot(page, `chart-defects-bottleneck-${width}`);
    } finally {
      await close();
    }
  }
});

test('Working sets and lengths print exactly (tables, bar labels, copy lengths)', { timeout: 300_000 }, async () => {
  const b = run.bottleneck;
  const { page, problems, close } = await openPage('run.json');
  try {
    await waitChart(page, 'bottleneck-bars');
    const cells = await page.$$eval('[data-testid=bottleneck-row] [data-stat=working-set]', (tds) => tds.map((td) => [td.textContent, Number(td.dataset.value)]));
    assert.equal(cells.length, b.cases.length);
    for (const [text, value] of cells) assert.equal(parseBytes(text), value, `"${text}" reads back as ${value} B`);
    const crossing = await page.$$eval('[data-testid=bottleneck-crossing] [data-stat$=-bytes]', (tds) => tds.map((td) => [td.textContent, Number(td.dataset.value)]));
    for (const [text, value] of crossing) assert.equal(parseBytes(text), value, `crossing "${text}"`);
    // The bar labels name each region's exact size.
    const labels = await page.$$eval('figure[data-testid="bottleneck-bars"] g[aria-label="y-axis tick label"] text', (ts) => ts.map((t) => t.textContent));
    const rows = b.by_overhead.map((i) => b.cases[i]);
    labels.forEach((l, i) => {
      const [kernel, ...size] = plain(l).split(' ');
      assert.equal(kernel, rows[i].kernel);
      assert.equal(parseBytes(size.join(' ')), rows[i].working_set_bytes, `bar label "${l}"`);
    });
    // Copy lengths in the selector.
    const options = await page.$$eval('[data-testid=copy-length] option', (os) => os.map((o) => [o.textContent, Number(o.value)]));
    assert.deepEqual(options.map(([, v]) => v), run.copy.lengths);
    for (const [text, value] of options) assert.equal(parseBytes(text.replace(/ \(.*\)$/, '')), value, `copy length "${text}"`);
    clean(problems);
  } finally {
    await close();
  }
});

// ---------------------------------------------------------------- Perturbation

test('Perturbation matrices draw nothing for an undefined correlation; its verdict says so', { timeout: 300_000 }, async () => {
  const [r] = await analyzeJson([path.join(results, CONSTANT)]);
  const w = r.trace.workloads[0];
  const ci = w.metrics.indexOf('context_switches');
  assert.ok(ci >= 0, 'context_switches is analysed');
  const undefinedPairs = w.pairs.map((p, i) => [p, i]).filter(([p]) => p.a === ci || p.b === ci);
  for (const l of w.levels) for (const [, i] of undefinedPairs) assert.equal(l.inner[i].correlation, null, 'the CLI has null for a constant metric');
  for (const run of w.runs) assert.equal(run.matrix[ci][ci], null, 'and null on its diagonal');
  const { page, problems, close } = await openPage(CONSTANT);
  try {
    const sel = 'figure[data-testid="trace-matrices"]';
    await waitChart(page, 'trace-matrices');
    const drawn = await page.$eval(sel, (fig) => {
      const svg = [...fig.querySelectorAll('svg')].find((s) => s.querySelector('.trace-matrix-cell'));
      const box = (e) => { const r = e.getBoundingClientRect(); const s = svg.getBoundingClientRect(); return { x: r.x - s.x, y: r.y - s.y, w: r.width, h: r.height }; };
      // Cells by what they show: an outline (no fill), a value (its tooltip
      // gives ρ) or none.
      const cells = [...svg.querySelectorAll('g[aria-label=cell] rect')].map((rect) => ({
        title: rect.querySelector('title')?.textContent ?? '', ...box(rect),
        outline: rect.closest('g').getAttribute('fill') === 'none', sw: Number(rect.closest('g').getAttribute('stroke-width') ?? 0),
      }));
      return {
        defined: cells.filter((c) => !c.outline && /ρ =/.test(c.title)),
        undef: cells.filter((c) => !c.outline && !/ρ =/.test(c.title)),
        flagged: cells.filter((c) => c.outline),
        labels: [...svg.querySelectorAll('g[aria-label=text] text')].map((t) => ({ text: t.textContent.replace(t.querySelector('title')?.textContent ?? '', ''), ...box(t) })),
        svgW: svg.getBoundingClientRect().width, svgH: svg.getBoundingClientRect().height,
      };
    });
    // Expected cells from the CLI: a pair's mean correlation, the diagonal 1 unless constant in every run of the level.
    const expect = new Map();
    for (const l of w.levels) {
      const name = l.level === 0 ? 'baseline (level 0)' : `level ${l.level}`;
      const runs = w.runs.filter((x) => x.level === l.level);
      w.metrics.forEach((m, i) => expect.set(`${name}: ${m} × ${m}`, runs.some((x) => x.matrix[i][i] != null) ? 1 : null));
      w.pairs.forEach((p, i) => {
        expect.set(`${name}: ${w.metrics[p.a]} × ${w.metrics[p.b]}`, l.inner[i].correlation);
        expect.set(`${name}: ${w.metrics[p.b]} × ${w.metrics[p.a]}`, l.inner[i].correlation);
      });
    }
    const key = (c) => c.title.split('\n')[0];
    assert.equal(drawn.defined.length + drawn.undef.length, expect.size, 'one cell per matrix entry');
    for (const c of drawn.defined) {
      assert.ok(expect.has(key(c)), key(c));
      assert.notEqual(expect.get(key(c)), null, `${key(c)} is coloured but the analysis has no correlation`);
    }
    for (const c of drawn.undef) {
      assert.equal(expect.get(key(c)), null, `${key(c)} drawn as undefined`);
      assert.match(c.title, /undefined/, `${key(c)}: its tooltip says undefined`);
    }
    assert.equal(drawn.undef.length, [...expect.values()].filter((v) => v == null).length);
    // A label is a defined cell's value, inside that cell; none on an undefined cell.
    for (const t of drawn.labels) {
      const cx = t.x + t.w / 2;
      const cy = t.y + t.h / 2;
      const at = (c) => cx >= c.x && cx <= c.x + c.w && cy >= c.y && cy <= c.y + c.h;
      assert.ok(!drawn.undef.some(at), `label "${t.text}" on an undefined cell`);
      const cell = drawn.defined.find(at);
      assert.ok(cell, `label "${t.text}" is on a cell`);
      assert.equal(t.text, expect.get(key(cell)).toFixed(2).replace('-', '−'), `label of ${key(cell)}`);
      assert.ok(t.x >= cell.x - 0.5 && t.x + t.w <= cell.x + cell.w + 0.5 && t.y >= cell.y - 0.5 && t.y + t.h <= cell.y + cell.h + 0.5,
        `label "${t.text}" (${t.w.toFixed(1)} px wide) fits its ${cell.w.toFixed(1)} px cell ${key(cell)}`);
    }
    // Flagged outlines, stroke included, stay inside their cell (and so inside the plot).
    for (const f of drawn.flagged) {
      const cell = drawn.defined.find((c) => key(c) === key(f));
      const half = f.sw / 2;
      assert.ok(f.x - half >= cell.x - 1 - 0.01 && f.x + f.w + half <= cell.x + cell.w + 1 + 0.01 &&
        f.y - half >= cell.y - 1 - 0.01 && f.y + f.h + half <= cell.y + cell.h + 1 + 0.01, `outline of ${key(f)} inside its cell`);
      assert.ok(f.x - half >= 0 && f.y - half >= 0 && f.x + f.w + half <= drawn.svgW && f.y + f.h + half <= drawn.svgH, `outline of ${key(f)} inside the SVG`);
    }
    // The legend: one tick format, every label inside its SVG; metric names apart.
    const texts = await figureTexts(page, sel);
    assertNoOverlap(texts.filter((t) => t.group === 'x-axis tick label' || t.group === 'fx-axis tick label').filter((t, i, all) => all.findIndex((u) => u.x === t.x && u.y === t.y) === i), 'matrix metric names');
    const legend = texts.filter((t) => t.legend && /^[−-]?\d/.test(plain(t.text)));
    assert.ok(legend.length >= 3, 'legend tick labels');
    assertInside(legend, 'correlation legend');
    const decimals = new Set(legend.map((t) => (plain(t.text).split('.')[1] ?? '').length));
    assert.equal(decimals.size, 1, `one tick format in the legend: ${legend.map((t) => t.text).join(', ')}`);
    assert.deepEqual(legend.map((t) => parseSigned(t.text)).sort((a, c) => a - c)[0], -1, 'the legend starts at −1');
    // Verdicts of undefined pairs.
    const verdicts = await page.$$eval('[data-testid=trace-inner-row]', (rs) => rs.map((row) => ({
      level: Number(row.dataset.level), index: Number(row.dataset.index), verdict: row.querySelector('[data-stat=flagged]').textContent,
    })));
    for (const v of verdicts) {
      const c = w.levels.find((l) => l.level === v.level).inner[v.index];
      if (c.correlation == null) assert.match(v.verdict, /^undefined/, `pair ${w.pairs[v.index].label} at level ${v.level}: "${v.verdict}"`);
      else if (!c.flagged) assert.equal(v.verdict, 'within spread');
    }
    clean(problems);
    await screenshot(page, 'chart-defects-trace-constant');
  } finally {
    await close();
  }
});

test('Perturbation: signals in scaled units, labels inside, notes separated, counts exact', { timeout: 300_000 }, async () => {
  const tr = run.trace;
  const { page, problems, close } = await openPage('run.json');
  try {
    await waitChart(page, 'trace-signals');
    const w = tr.workloads[0];
    for (const metric of w.metrics) {
      await page.selectOption('[data-testid=trace-example-metric]', metric);
      await page.waitForFunction((m) => document.querySelector('figure[data-testid="trace-signals"] figcaption')?.textContent.startsWith(`${m}:`) &&
        document.querySelector('figure[data-testid="trace-signals"] .chart-body svg'), metric);
      const texts = await figureTexts(page, 'figure[data-testid="trace-signals"]');
      assertInside(texts.filter((t) => !t.legend), `signals of ${metric}`);
      const yt = texts.filter((t) => t.group === 'y-axis tick label');
      for (const t of yt) {
        const digits = plain(t.text).replace(/[^0-9]/g, '').replace(/^0+/, '');
        assert.ok(!t.text.includes(',') && digits.length <= 4, `${metric}: y tick "${t.text}" in a scaled unit`);
      }
      const unit = tr.metrics.find((m) => m.name === metric)?.unit;
      const label = texts.find((t) => t.group === 'y-axis label')?.text ?? '';
      assert.ok(label.includes('(') && (unit !== 'ns' || /\((s|ms|µs|ns)\)/.test(label)), `${metric}: the y label names the unit: "${label}"`);
    }
    // The warping path: the x label clear of the tick labels.
    const path = (await figureTexts(page, 'figure[data-testid="trace-path"]'));
    assertInside(path, 'warping path');
    assertNoOverlap(path.filter((t) => /x-axis/.test(t.group)), 'warping path x axis');
    for (const id of ['trace-inner-overhead', 'trace-outer-overhead']) {
      const t = await figureTexts(page, `figure[data-testid="${id}"]`);
      assertNoOverlap(t.filter((x) => /x-axis/.test(x.group)), `${id} x axis`);
    }
    // Every run's notes, one per item, separated.
    await page.click('details.trace-runs summary');
    const notes = await page.$$eval('[data-testid=trace-run-row]', (rs) => rs.map((row) => ({
      level: Number(row.dataset.level), repetition: Number(row.dataset.repetition), text: row.querySelector('[data-testid=trace-run-notes]')?.textContent ?? null,
    })));
    for (const n of notes) {
      const r = w.runs.find((x) => x.level === n.level && x.repetition === n.repetition);
      const want = [r.alignment_error ?? (r.outer ? null : 'the reference'), ...r.undefined].filter(Boolean);
      assert.deepEqual(n.text ? n.text.split('; ') : [], want, `notes of level ${n.level} run ${n.repetition}`);
    }
    // Counts print exactly.
    const counts = await page.$$eval('[data-testid=trace-run-row] [data-stat=instrumentation-count]', (tds) => tds.map((td) => [td.textContent, Number(td.dataset.value)]));
    for (const [text, value] of counts) assert.equal(Number(plain(text).replaceAll(' ', '')), value, `count "${text}"`);
    clean(problems);
  } finally {
    await close();
  }
});

// ---------------------------------------------------------------- Clocks, Copy

test('Clocks and Copy: step histograms and legends keep their labels inside, readable and apart', { timeout: 300_000 }, async () => {
  for (const width of [1400, 1024]) {
    const { page, problems, close } = await openPage('run.json', { viewport: { width, height: 900 } });
    try {
      await waitChart(page, 'step-histogram');
      await page.waitForFunction(() => [...document.querySelectorAll('figure[data-testid="step-histogram"]')].every((f) => f.querySelector('.chart-body svg')));
      const n = await page.locator('figure[data-testid="step-histogram"]').count();
      const clocks = run.clocks.clocks.filter((c) => c.available && c.step_histogram.length);
      assert.equal(n, clocks.length);
      for (let i = 0; i < n; i++) {
        const all = await page.evaluate((k) => {
          const fig = document.querySelectorAll('figure[data-testid="step-histogram"]')[k];
          const svg = fig.querySelector('.chart-body svg');
          const s = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
            const r = t.getBoundingClientRect();
            return { text: t.textContent, group: t.closest('g[aria-label]')?.getAttribute('aria-label') ?? '', x: r.x - s.x, y: r.y - s.y, w: r.width, h: r.height, svgW: s.width, svgH: s.height };
          });
        }, i);
        const what = `${clocks[i].name} at ${width} px`;
        assertInside(all, what);
        const xAxis = all.filter((t) => /x-axis/.test(t.group));
        assertNoOverlap(xAxis, `${what} x axis`);
        for (const t of all.filter((x) => x.group === 'x-axis tick label')) {
          const digits = plain(t.text).replace(/[^0-9]/g, '').replace(/^0+/, '');
          assert.ok(digits.length <= 4, `${what}: x tick "${t.text}" has at most 4 significant digits`);
        }
      }
      // The copy heat map's legend.
      const copy = await figureTexts(page, 'figure[data-testid="copy-heatmap"]');
      assertInside(copy, `copy heat map at ${width} px`);
      clean(problems);
    } finally {
      await close();
    }
  }
});

test('Copy: the colour legend keeps labels on both ends of its ramp inside its SVG, in both metrics', { timeout: 300_000 }, async () => {
  const [r] = await analyzeJson([path.join(results, COPY_EDGES)]);
  const impl = r.copy.implementations[0];
  const len = r.copy.lengths[0];
  const shown = r.copy.cells.filter((c) => c.implementation === impl && c.nominal_length === len && c.ns_per_byte != null).map((c) => c.ns_per_byte);
  assert.ok(Math.abs(Math.min(...shown) - 0.0095) < 1e-9 && Math.abs(Math.max(...shown) - 0.0115) < 1e-9, `the first map spans 0.0095…0.0115 ns/B (${Math.min(...shown)}…${Math.max(...shown)})`);
  for (const width of [1400, 1024]) {
    const { page, problems, close } = await openPage(COPY_EDGES, { viewport: { width, height: 900 } });
    try {
      for (const metric of ['ns_per_byte', 'gb_per_s']) {
        await page.check(`[data-testid=copy-metric] input[value="${metric}"]`);
        await waitChart(page, 'copy-heatmap');
        const legend = (await figureTexts(page, 'figure[data-testid="copy-heatmap"]')).filter((t) => t.legend);
        assert.ok(legend.length >= 3, `${metric}: legend labels (${legend.map((t) => t.text).join(', ')})`);
        if (metric === 'ns_per_byte') {
          for (const end of ['0.0095', '0.0115']) assert.ok(legend.some((t) => plain(t.text) === end), `${metric}: a legend tick "${end}" at an end of the ramp (${legend.map((t) => t.text).join(' | ')})`);
        }
        assertInside(legend, `copy legend (${metric}) at ${width} px`);
        assertNoOverlap(legend.filter((t) => /^[−-]?\d/.test(plain(t.text))), `copy legend (${metric}) at ${width} px`);
      }
      clean(problems);
      await screenshot(page, `chart-defects-copy-legend-${width}`);
    } finally {
      await close();
    }
  }
});
