// Layout of the whole notebook as a reader sees it: every cell of every
// suite and every importer (whole-notebook.mjs), every row shown, at 1024
// and 1400 px wide, light and dark.
//  - Nothing sticks out of its card: every element inside a card ends on
//    the right inside the card's content box (on the left, inside the card:
//    an axis label may use the card's padding), unless it is inside a scroll
//    container; a
//    container whose content is wider than itself scrolls (overflow-x auto
//    or scroll) and shows that it does (scrollcue.js: data-overflow, the
//    faded edge and the "scroll" hint).
//  - No text is cut off by overflow: hidden.
//  - A jump to any cell (its fragment, the file list's link) leaves the
//    cell's title below the sticky top bar and inside the window.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { ARTIFACTS, openBrowser, waitForFiles } from './harness.mjs';
import { wholeNotebookServer, openWholeNotebook, settle } from './whole-notebook.mjs';

const WIDTHS = [1400, 1024];
const HEIGHT = 900;
let server;

before(async () => {
  server = await wholeNotebookServer();
  await mkdir(ARTIFACTS, { recursive: true });
});

after(async () => {
  await server?.stop();
});

/**
 * In the page: what in `card` ends outside its content box (outside any
 * scroll container), which scroll containers show no cue, and which text an
 * overflow: hidden box cuts. Each problem is one line naming the element.
 */
function cardProblems(card) {
  const problems = [];
  const where = (el) => {
    const t = el.closest('[data-testid]')?.dataset.testid ?? '';
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `${card.id} <${el.tagName.toLowerCase()}${el.getAttribute('class') ? ` class="${el.getAttribute('class')}"` : ''}> in [${t}] "${text}"`;
  };
  const cs = getComputedStyle(card);
  const box = card.getBoundingClientRect();
  const left = box.left + parseFloat(cs.borderLeftWidth);
  const right = box.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight);
  const clips = (el) => getComputedStyle(el).overflowX !== 'visible';
  const insideClip = (el) => {
    for (let p = el.parentElement; p && p !== card; p = p.parentElement) if (clips(p)) return true;
    return false;
  };
  let elements = 0;
  let scrollers = 0;
  for (const el of card.querySelectorAll('*')) {
    if (el.closest('.sr-only')) continue;
    // SVG shapes clipped to the plot area (Plot's clip-path) are drawn only inside it.
    if (el instanceof SVGElement && el.closest('[clip-path]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    elements += 1;
    const ecs = getComputedStyle(el);
    if (ecs.visibility === 'hidden') continue;
    if ((r.right > right + 1 || r.left < left - 1) && !insideClip(el)) {
      problems.push(`${where(el)} ends ${Math.round(Math.max(r.right - right, left - r.left))} px outside the card`);
    }
    if (el instanceof SVGElement) continue;
    const ox = ecs.overflowX;
    const oy = ecs.overflowY;
    const wide = el.scrollWidth > el.clientWidth + 1;
    if ((ox === 'auto' || ox === 'scroll') && wide) {
      scrollers += 1;
      const hint = getComputedStyle(el, '::before');
      const cue = el.dataset.overflow && hint.content !== 'none' && hint.display !== 'none' && ecs.maskImage !== 'none';
      if (!cue) problems.push(`${where(el)} scrolls ${el.scrollWidth - el.clientWidth} px sideways with no cue`);
    }
    const hides = (o) => o === 'hidden' || o === 'clip';
    const tall = el.scrollHeight > el.clientHeight + 1;
    if (((hides(ox) && wide) || (hides(oy) && tall)) && el.textContent.trim() && !['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) {
      problems.push(`${where(el)} cuts its text (${el.scrollWidth}×${el.scrollHeight} in ${el.clientWidth}×${el.clientHeight})`);
    }
    if (ecs.textOverflow === 'ellipsis' && wide) problems.push(`${where(el)} ends its text with an ellipsis`);
  }
  return { problems, elements, scrollers };
}

/** Where a cell's title is against the sticky bar and the window, after the page settles. */
function titlePlace(id) {
  const cell = document.getElementById(id);
  const title = cell?.querySelector('h2');
  if (!title) return { missing: true };
  const bar = document.querySelector('header.top').getBoundingClientRect();
  const t = title.getBoundingClientRect();
  return { top: t.top, bottom: t.bottom, bar: bar.bottom, height: innerHeight, ok: t.top >= bar.bottom - 0.5 && t.bottom <= innerHeight + 0.5 };
}

async function checkLayout(scheme) {
  const { page, problems: pageProblems, close } = await openWholeNotebook(server, { colorScheme: scheme, viewport: { width: WIDTHS[0], height: HEIGHT } });
  const found = [];
  try {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHT });
      await settle(page);
      const cards = await page.$$eval('#files, #cells section.cell', (cs) => cs.map((c) => c.id));
      assert.ok(cards.length >= 17, `every cell of every suite and importer is on the page (${cards.length})`);
      let elements = 0;
      let scrollers = 0;
      for (const id of cards) {
        // Charts draw when they come near the window (many files: content-visibility).
        await page.$eval(`#${id}`, (c) => c.scrollIntoView({ block: 'start' }));
        await settle(page, 5_000);
        const r = await page.$eval(`#${id}`, cardProblems);
        elements += r.elements;
        scrollers += r.scrollers;
        for (const p of r.problems) found.push(`${scheme} ${width} px: ${p}`);
      }
      console.log(`# ${scheme} ${width} px: ${cards.length} cards, ${elements} elements, ${scrollers} scroll containers checked`);

      // Jumps: to each cell by its fragment, from the top of the page; to
      // each file's first cell by the file list's link.
      const jump = async (id, how) => {
        await settle(page, 5_000);
        const place = await page.evaluate(titlePlace, id);
        if (place.missing) found.push(`${scheme} ${width} px: ${how} #${id}: no such cell`);
        else if (!place.ok) {
          found.push(`${scheme} ${width} px: ${how} #${id}: title at ${Math.round(place.top)}–${Math.round(place.bottom)} px, ` +
            `sticky bar ends at ${Math.round(place.bar)} px, window ${place.height} px`);
        }
      };
      for (const id of cards) {
        await page.evaluate((target) => {
          window.scrollTo(0, 0);
          history.replaceState(history.state, '', `${location.pathname}${location.search}`);
          location.hash = target;
        }, id);
        await jump(id, 'fragment');
      }
      const links = await page.$$eval('[data-testid=file-row] th a[href^="#"]', (as) => as.map((a) => a.getAttribute('href').slice(1)));
      assert.equal(links.length, server.count, 'every file links to its first cell');
      for (const id of links) {
        await page.evaluate(() => document.getElementById('files').scrollIntoView());
        await page.click(`[data-testid=file-row] th a[href="#${id}"]`);
        await jump(id, 'file-list link');
      }
      console.log(`# ${scheme} ${width} px: ${cards.length} fragment jumps, ${links.length} file-list links checked`);
      await page.screenshot({ path: path.join(ARTIFACTS, `layout-${scheme}-${width}.png`) });
    }
    assert.deepEqual(pageProblems.pageErrors, [], 'page errors');
    assert.deepEqual(pageProblems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
  await writeFile(path.join(ARTIFACTS, `layout-problems-${scheme}.txt`), found.join('\n') + '\n');
  const shown = found.slice(0, 40).join('\n');
  assert.equal(found.length, 0, `${found.length} layout problems:\n${shown}${found.length > 40 ? '\n…' : ''}`);
}

test('a jump to a cell not built yet, or a page opened at a cell, shows the cell\u2019s title below the sticky bar', { timeout: 600_000 }, async () => {
  const found = [];
  const { page, problems, close } = await openWholeNotebook(server, { viewport: { width: 1024, height: HEIGHT } }, { buildAll: false });
  try {
    // Past a dozen cells, a cell is a placeholder until it is near the
    // window; building it and its neighbours changes the heights above it.
    const waiting = await page.$$eval('#cells [data-testid=cell-placeholder]', (cs) => cs.map((c) => c.id));
    assert.ok(waiting.length >= 3, `some cells wait to be built (${waiting.length})`);
    const linked = await page.$$eval('[data-testid=file-row] th a[href^="#"]', (as) => as.map((a) => a.getAttribute('href').slice(1)));
    for (const id of waiting.filter((w) => linked.includes(w)).reverse()) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.click(`[data-testid=file-row] th a[href="#${id}"]`);
      await settle(page, 10_000);
      const place = await page.evaluate(titlePlace, id);
      if (!place.ok) found.push(`file-list link to the waiting #${id}: title at ${Math.round(place.top)} px (bar ends at ${Math.round(place.bar)}, window ${place.height})`);
    }
    console.log(`# ${waiting.length} cells waiting to be built; jumps to those the file list links to checked`);
    assert.deepEqual(problems.pageErrors, []);
  } finally {
    await close();
  }
  // A link to a cell: the page opens there once the files are in.
  const b = await openBrowser(server.url, { viewport: { width: 1400, height: HEIGHT } });
  try {
    for (const id of ['cell-f1-trace', 'cell-f2-alloc']) {
      await b.page.goto(`${server.url}?url=/results/run.json&url=/results/alloc.json#${id}`);
      await waitForFiles(b.page, 2, 120_000);
      await settle(b.page, 10_000);
      const place = await b.page.evaluate(titlePlace, id);
      if (!place.ok) found.push(`page opened at #${id}: title at ${Math.round(place.top)} px (bar ends at ${Math.round(place.bar)}, window ${place.height})`);
    }
    assert.deepEqual(b.problems.pageErrors, []);
  } finally {
    await b.close();
  }
  assert.deepEqual(found, []);
});

for (const scheme of ['light', 'dark']) {
  test(`${scheme}: every card holds its content at ${WIDTHS.join(' and ')} px, and a jump shows the cell's title`, { timeout: 900_000 }, () => checkLayout(scheme));
}
