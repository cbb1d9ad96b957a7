// Malformed files: each gets an error card naming the file and the reason
// (the analysis's ReadError), the other files keep working, and nothing a
// file contains is ever interpreted as markup.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, analyzeJson, serve, openBrowser, waitForFiles, screenshot,
} from './harness.mjs';

const BAD = path.join(FIXTURES, 'bad');
const SAMPLES = path.join(FIXTURES, 'samples-3x5.json');

// What each failure class must say, in words a user can act on.
const REASONS = {
  'garbage.json': { message: /not valid JSON/, path: null },
  'truncated.json': { message: /truncated/i, path: null },
  'version2.json': { message: /format version 2\.0 is not supported/, path: 'format_version' },
  'negative.json': { message: /-12\.28/, path: 'series[0].executions[0][1]' },
  'nan.json': { message: /NaN/, path: null },
};

let tmp, server;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  server = await serve(path.join(tmp, 'results'));
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('each bad fixture gets an error card with a clear message; the good file still renders', { timeout: 120_000 }, async () => {
  const names = (await readdir(BAD)).filter((n) => n.endsWith('.json')).sort();
  assert.deepEqual(names, Object.keys(REASONS).sort(), 'every bad fixture has an expected reason here');
  const files = names.map((n) => path.join(BAD, n));
  const expected = Object.fromEntries((await analyzeJson(files)).map((r) => [path.basename(r.file), r]));

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [...files, SAMPLES]);
    await waitForFiles(page, names.length + 1);

    for (const name of names) {
      const want = expected[name];
      assert.equal(want.ok, false, `${name} is rejected by the CLI`);
      const card = page.locator(`[data-testid=error-card][data-file="${name}"]`);
      assert.equal(await card.count(), 1, `one error card for ${name}`);
      assert.ok((await card.locator('h2').innerText()).includes(name), `${name}: the card names the file`);
      const message = await card.locator('[data-testid=error-message]').innerText();
      assert.equal(message, want.error.message, `${name}: the analysis's message`);
      assert.match(message, REASONS[name].message, `${name}: the message says why`);
      const pathShown = await card.locator('[data-testid=error-path]').count() ? await card.locator('[data-testid=error-path]').innerText() : null;
      assert.equal(pathShown, want.error.path ?? null, `${name}: JSON path`);
      assert.equal(pathShown, REASONS[name].path, `${name}: expected JSON path`);
      const row = page.locator(`[data-testid=file-row][data-file="${name}"]`);
      assert.equal(await row.getAttribute('data-status'), 'error');
    }
    assert.equal(await page.locator('[data-testid=samples-cell][data-file="samples-3x5.json"] [data-testid=series-row]').count(), 2,
      'the good file is analysed next to the bad ones');
    await screenshot(page, 'bad-files');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
    assert.deepEqual(problems.foreignRequests, []);
  } finally {
    await close();
  }
});

test('file contents and names are shown as text, never as markup', { timeout: 120_000 }, async () => {
  const dir = path.join(tmp, 'hostile');
  await mkdir(dir, { recursive: true });
  const payload = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
  const samples = path.join(dir, `${'<img src=y onerror="window.__pwned=2">'}.json`);
  await writeFile(samples, JSON.stringify({
    format: 'tickbook', format_version: '1.0', kind: 'samples',
    source: payload, description: `<script>window.__pwned=3</script>`,
    series: [{ name: payload, unit: '<i>ms</i>', executions: [[1, 2, 3, 4, 50]] }],
  }));
  const broken = path.join(dir, 'broken.json');
  await writeFile(broken, `{"format": "tickbook", "format_version": "1.0", "kind": "<img src=z onerror=\\"window.__pwned=4\\">"}`);

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [samples, broken]);
    await waitForFiles(page, 2);
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script from a file ran');
    assert.equal(await page.locator('main img, main script, main b').count(), 0, 'no element from a file was created');
    const cell = page.locator('[data-testid=samples-cell]');
    assert.ok((await cell.innerText()).includes(payload), 'the payload is shown literally');
    const card = page.locator('[data-testid=error-card][data-file="broken.json"]');
    assert.ok((await card.innerText()).includes('<img src=z'), 'the error message shows the bad kind literally');
    assert.deepEqual(problems.foreignRequests, []);
    assert.deepEqual(problems.pageErrors, []);
  } finally {
    await close();
  }
});
