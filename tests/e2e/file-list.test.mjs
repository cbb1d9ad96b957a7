// A long file list: past a hundred files the list shows the first hundred
// rows and a "Show all N files" button, so that every arriving result does
// not re-lay out every row. Hidden rows are filled all the same, and the
// button shows them all, with their names and statuses.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, checkPrerequisites, tempDir, serve, openBrowser, waitForFiles } from './harness.mjs';

const COUNT = 120;
const SHOWN = 100;
let tmp, files, server;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  const dir = path.join(tmp, 'results');
  await mkdir(dir, { recursive: true });
  files = [];
  for (let i = 0; i < COUNT; i++) {
    const f = path.join(dir, `run-${String(i).padStart(3, '0')}.json`);
    await copyFile(path.join(FIXTURES, 'run-clocks.json'), f);
    files.push(f);
  }
  server = await serve(dir);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const visibleRows = (page) => page.$$eval('[data-testid=file-row]', (trs) =>
  trs.filter((t) => t.checkVisibility()).map((t) => [t.dataset.file, t.dataset.status, t.querySelector('[data-field=file]').textContent]));

test('past a hundred files the list shows a hundred rows and a Show all button', { timeout: 240_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', files);
    await waitForFiles(page, COUNT, 180_000);
    const names = files.map((f) => path.basename(f));

    // Every row, shown or not, holds its file's status.
    const all = await page.$$eval('[data-testid=file-row]', (trs) => trs.map((t) => [t.dataset.file, t.dataset.status]));
    assert.deepEqual(all, names.map((n) => [n, 'ok']));

    const shown = await visibleRows(page);
    assert.deepEqual(shown.map(([f]) => f), names.slice(0, SHOWN), 'the first hundred rows, in file order');
    for (const [f, , text] of shown) assert.ok(text.startsWith(f), `${f} row names its file`);
    const button = page.getByRole('button', { name: `Show all ${COUNT} files` });
    assert.equal(await button.count(), 1);

    await button.click();
    const everything = await visibleRows(page);
    assert.deepEqual(everything.map(([f, s]) => [f, s]), names.map((n) => [n, 'ok']), 'all rows shown');
    assert.ok(everything.every(([f, , text]) => text.startsWith(f)));
    assert.equal(await page.locator('[data-testid=show-all-files]').isVisible(), false);

    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
});

test('removing files back to a hundred shows every row without the button', { timeout: 240_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    const some = files.slice(0, SHOWN + 1);
    await page.setInputFiles('[data-testid=file-input]', some);
    await waitForFiles(page, some.length, 180_000);
    assert.equal((await visibleRows(page)).length, SHOWN);
    assert.equal(await page.locator('[data-testid=show-all-files]').textContent(), `Show all ${SHOWN + 1} files`);
    await page.click('[data-testid=file-row] [data-testid=remove-file] >> nth=0');
    await waitForFiles(page, SHOWN, 30_000);
    const shown = await visibleRows(page);
    assert.deepEqual(shown.map(([f]) => f), some.slice(1).map((f) => path.basename(f)));
    assert.equal(await page.locator('[data-testid=show-all-files]').isVisible(), false);
    assert.deepEqual(problems.pageErrors, [], 'page errors');
    assert.deepEqual(problems.consoleErrors, [], 'console errors');
  } finally {
    await close();
  }
});
