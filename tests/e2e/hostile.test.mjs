// A result file whose texts are markup and script (series names, unit,
// source, description, host, metadata) is shown as text and runs nothing:
// in the live page, in a CSV download, in an exported report and in a
// `tickbook report`. Every payload would set window.__pwned or open a dialog.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import {
  FIXTURES, WEB_DIST, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles,
} from './harness.mjs';

const HOSTILE = 'hostile-names.json';
let tmp, results, server, fixture;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, HOSTILE), path.join(results, HOSTILE));
  fixture = JSON.parse(await readFile(path.join(FIXTURES, HOSTILE), 'utf8'));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The page showed every hostile text as text, and nothing ran. */
async function assertInert(page, dialogs, where) {
  assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined', `${where}: no payload ran`);
  assert.deepEqual(dialogs, [], `${where}: no dialog`);
  // Only the page's own script elements exist (web/build.mjs: the app, each
  // worker's code and wasm, the data block); the cells hold no element a
  // payload would create.
  assert.deepEqual(
    await page.evaluate(() => [...document.scripts].map((e) => e.id).sort()),
    ['', 'tickbook-data', 'tickbook-measure-wasm', 'tickbook-measure-worker', 'tickbook-wasm', 'tickbook-worker'],
    `${where}: script elements`,
  );
  assert.equal(await page.locator('#cells img, #cells iframe, #cells script, #cells svg[onload], #cells b').count(), 0, `${where}: injected elements`);
  const series = await page.$$eval('[data-testid=series-row]', (rows) => rows.map((r) => [r.dataset.series, r.querySelector('th code').textContent]));
  assert.deepEqual(series, fixture.series.map((s) => [s.name, s.name]), `${where}: names shown verbatim`);
  const cell = page.locator('[data-testid=samples-cell]');
  const text = await cell.innerText();
  assert.ok(text.includes(fixture.source), `${where}: source as text`);
  assert.ok(text.includes(fixture.description), `${where}: description as text`);
  assert.ok(text.includes('unit: <b>ns</b>'), `${where}: unit as text`);
  const host = await cell.locator('.cell-head').innerText();
  assert.ok(host.includes(fixture.host.hostname), `${where}: host as text: ${host}`);
}

function watch(page) {
  const dialogs = [];
  const errors = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { dialogs, errors };
}

test('hostile names: the live page, its CSV and its exported report show them as text and run nothing', { timeout: 180_000 }, async () => {
  const { page, problems, close } = await openBrowser(server.url);
  const seen = watch(page);
  let reportFile;
  try {
    await page.goto(`${server.url}?url=/results/${HOSTILE}`);
    await waitForFiles(page, 1);
    // Hover and focus everything a payload could hook.
    for (const el of await page.locator('#cells code, #cells th').all()) await el.hover({ trial: false }).catch(() => {});
    await assertInert(page, seen.dialogs, 'live page');

    // CSV: names stay text; a formula is neutralised with a leading apostrophe.
    const table = page.locator('.table-wrap:has([data-testid=samples-summary]) + [data-testid=table-export] [data-testid=export-csv]');
    const [d] = await Promise.all([page.waitForEvent('download'), table.click()]);
    const csvFile = path.join(tmp, 'summary.csv');
    await d.saveAs(csvFile);
    const csv = await readFile(csvFile, 'utf8');
    assert.ok(csv.includes(`"'=HYPERLINK(""http://example.invalid"",""click"")`), `formula neutralised: ${csv}`);
    assert.ok(csv.includes('"<img src=x onerror=""window.__pwned=\'name\'"">'), 'name kept verbatim, quoted');

    const [r] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-report]')]);
    reportFile = path.join(tmp, 'hostile-report.html');
    await r.saveAs(reportFile);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }

  const cli = path.join(tmp, 'hostile-cli.html');
  await tickbook(['report', path.join(results, HOSTILE), '-o', cli, '--web-root', WEB_DIST]);
  for (const [file, where] of [[reportFile, 'exported report'], [cli, 'tickbook report']]) {
    const b = await openBrowser('file:///');
    const s = watch(b.page);
    try {
      await b.page.goto(pathToFileURL(file).href);
      await waitForFiles(b.page, 1);
      await assertInert(b.page, s.dialogs, where);
      assert.deepEqual(s.errors, [], `${where}: page errors`);
      assert.deepEqual(b.problems.consoleErrors, [], `${where}: console errors`);
    } finally {
      await b.close();
    }
  }
});
