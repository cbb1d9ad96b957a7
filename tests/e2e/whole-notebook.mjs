// The whole notebook, every cell built and every row shown, for the tests
// that check the page as a reader sees it (layout.test.mjs, a11y.test.mjs):
// a fresh collection of every suite (harness everySuiteCollection) and every
// importer fixture, loaded through the file and folder pickers as a reader
// would; placeholders built as printing builds them, every "Show all" list
// opened, every <details> opened.

import { rm, copyFile } from 'node:fs/promises';
import path from 'node:path';
import {
  checkPrerequisites, tempDir, serve, openBrowser, waitForFiles, everySuiteCollection, IMPORT_FIXTURES,
} from './harness.mjs';

/**
 * {url, files: [paths], folder, count, stop}: a server and the files to
 * load; it also serves the collection at /results/run.json and
 * /results/alloc.json (for ?url= links).
 */
export async function wholeNotebookServer() {
  await checkPrerequisites();
  const collected = await everySuiteCollection();
  const dir = await tempDir();
  await copyFile(collected.run, path.join(dir, 'run.json'));
  await copyFile(collected.alloc, path.join(dir, 'alloc.json'));
  const server = await serve(dir);
  return {
    url: server.url,
    files: [collected.run, collected.alloc, ...IMPORT_FIXTURES.files],
    folder: IMPORT_FIXTURES.folder,
    count: 2 + IMPORT_FIXTURES.files.length + 1,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves once the page stops changing: no placeholder or "Show all" left
 * and the number of elements the same over four frames 50 ms apart (charts
 * drawn, later parts built); or after `timeout` ms.
 */
export async function settle(page, timeout = 30_000) {
  await page.evaluate((limit) => new Promise((resolve) => {
    const end = performance.now() + limit;
    let quiet = 0;
    let last = -1;
    const tick = () => {
      const now = document.getElementsByTagName('*').length;
      const busy = document.querySelector('#cells .cell-placeholder, #cells .show-more');
      quiet = now === last && !busy ? quiet + 1 : 0;
      last = now;
      if (quiet >= 4 || performance.now() > end) resolve();
      else setTimeout(() => requestAnimationFrame(tick), 50);
    };
    requestAnimationFrame(tick);
  }), timeout);
}

/**
 * A browser on the server's page with every file loaded and everything
 * built: {page, problems, close}. `options` go to openBrowser (colorScheme,
 * viewport); `buildAll: false` leaves the cells past the first dozen as
 * placeholders (notebook.js) and the long lists short.
 */
export async function openWholeNotebook(server, options, { buildAll = true } = {}) {
  const b = await openBrowser(server.url, options);
  try {
    const { page } = b;
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', server.files);
    await page.setInputFiles('[data-testid=folder-input]', server.folder);
    await waitForFiles(page, server.count, 240_000);
    await page.waitForFunction(() => [...document.querySelectorAll('#cells .slot')].every((s) => s.dataset.options), null, { timeout: 120_000 });
    if (!buildAll) return b;
    // Every cell built (as printing builds them), every list shown in full,
    // every <details> open: the widest the notebook gets.
    for (let round = 0; round < 5; round++) {
      const left = await page.evaluate(() => {
        window.dispatchEvent(new Event('beforeprint'));
        for (const b of document.querySelectorAll('#cells .show-more:not(:disabled)')) b.click();
        for (const d of document.querySelectorAll('#cells details:not([open])')) d.open = true;
        for (const t of document.querySelectorAll('#cells input[type=checkbox][data-testid$="-all"]:not(:checked)')) t.click();
        return document.querySelectorAll('#cells .cell-placeholder, #cells .show-more, #cells details:not([open])').length;
      });
      await settle(page);
      if (!left) break;
    }
    return b;
  } catch (e) {
    await b.close();
    throw e;
  }
}
