// Many files: past a dozen cells the notebook builds a cell only when it comes
// near the viewport (notebook.js, EAGER_CELLS); until then it is a
// placeholder with the cell's header. Fifteen copies of a clocks run: the
// first twelve cells are built, the last three wait; a file-list link
// and printing build them, with the same numbers as `tickbook analyze`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, analyzeJson, serve, openBrowser,
  waitForFiles, readTable, num, sameNumber,
} from './harness.mjs';

const COUNT = 15;
const EAGER = 12;
let tmp, files, server, expected;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const dir = path.join(tmp, 'results');
  await mkdir(dir, { recursive: true });
  files = [];
  for (let i = 0; i < COUNT; i++) {
    const f = path.join(dir, `run-${String(i).padStart(2, '0')}.json`);
    await copyFile(path.join(FIXTURES, 'run-clocks.json'), f);
    files.push(f);
  }
  expected = (await analyzeJson([files[0]]))[0];
  assert.ok(expected.ok && expected.clocks, 'the fixture analyses with a clocks cell');
  server = await serve(dir);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The Clocks cell of `name` is built and shows the CLI's numbers. */
async function checkBuilt(page, name) {
  const sel = `[data-testid=clocks-cell][data-file="${name}"]`;
  await page.waitForSelector(sel, { timeout: 10_000 });
  const table = await readTable(page, `${sel} [data-testid=clock-row]`, 'clock');
  const clocks = expected.clocks.clocks.filter((c) => c.available);
  assert.ok(clocks.length >= 2);
  for (const c of clocks) {
    assert.ok(sameNumber(num(table[c.name]?.nominal_resolution_ns), c.nominal_resolution_ns ?? null), `${name} ${c.name} resolution`);
  }
}

test('past a dozen cells, cells are built when scrolled to', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files);
    await waitForFiles(page, COUNT, 60_000);
    await page.waitForFunction(() => [...document.querySelectorAll('.slot')].every((s) => s.dataset.options), null, { timeout: 60_000 });

    // The first twelve files' cells are built, the rest are placeholders
    // that name their suite and file.
    const state = () => page.$$eval('#cells .slot > section.cell', (cells) => cells.map((c) => [c.dataset.file, c.dataset.testid]));
    const cells = await state();
    assert.equal(cells.length, COUNT);
    const names = files.map((f) => path.basename(f));
    assert.deepEqual(cells.map(([f]) => f), names, 'one cell per file, in file order');
    assert.deepEqual(cells.slice(0, EAGER).map(([, t]) => t), Array(EAGER).fill('clocks-cell'));
    assert.deepEqual(cells.slice(EAGER).map(([, t]) => t), Array(COUNT - EAGER).fill('cell-placeholder'));
    const header = await page.locator(`[data-testid=cell-placeholder][data-file="${names[COUNT - 1]}"] h2`).textContent();
    assert.match(header, /^Clocks/);
    assert.ok(header.includes(names[COUNT - 1]));
    await checkBuilt(page, names[0]);

    // The file list's link to a waiting cell builds it where it lands.
    await page.click(`[data-testid=file-row][data-file="${names[COUNT - 1]}"] a`);
    await checkBuilt(page, names[COUNT - 1]);
    assert.equal(await page.locator(`#${await page.$eval(`[data-testid=clocks-cell][data-file="${names[COUNT - 1]}"]`, (c) => c.id)}`).count(), 1);

    // Printing builds every cell still waiting (those near the link's
    // target may have been built with it).
    const waiting = names.slice(EAGER);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    assert.deepEqual((await state()).map(([, t]) => t), Array(COUNT).fill('clocks-cell'));
    for (const f of waiting) await checkBuilt(page, f);

    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
});
