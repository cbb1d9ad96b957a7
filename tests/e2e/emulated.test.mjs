// The aarch64 collection scripts/test makes under qemu-user
// ($TICKBOOK_COLLECTED_EMULATED): the page loads it, every suite's cell is
// there, the clocks cell's fallbacks name the emulation as the file does,
// and the Operations cell says there are no published figures for aarch64
// (as `tickbook analyze --json` does) instead of comparing with x86 cores.
// Skipped when the variable is not set (scripts/test sets it).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdir, rm, copyFile } from 'node:fs/promises';
import path from 'node:path';
import {
  checkPrerequisites, tempDir, serve, openBrowser, waitForFiles, analyzeJson, assertClean, screenshot,
} from './harness.mjs';

const SOURCE = process.env.TICKBOOK_COLLECTED_EMULATED;
let tmp, server, file;

before(async () => {
  if (!SOURCE) return;
  await checkPrerequisites();
  tmp = await tempDir();
  const results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  file = path.join(results, 'aarch64-qemu.json');
  await copyFile(SOURCE, file);
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('an emulated aarch64 collection loads, names the emulation and has no published comparison', {
  skip: SOURCE ? false : 'TICKBOOK_COLLECTED_EMULATED is not set',
  timeout: 120_000,
}, async () => {
  const run = JSON.parse(await readFile(file, 'utf8'));
  const clocks = run.suites.find((s) => s.suite === 'clocks');
  const emulation = clocks.fallbacks[0];
  assert.match(emulation, /^emulated: this aarch64 program runs on a x86_64 kernel/);
  const [cli] = await analyzeJson([file]);
  assert.equal(cli.ops.published, undefined, 'no comparison with x86 cores');
  assert.match(cli.ops.published_absent, /^no published figures for aarch64/);

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.setInputFiles('[data-testid=file-input]', [file]);
    await waitForFiles(page, 1);
    const row = page.locator('[data-testid=file-row]');
    assert.equal(await row.getAttribute('data-status'), 'ok', await row.innerText());
    const f = path.basename(file);
    const fallbacks = page.locator(`[data-testid=clocks-cell][data-file="${f}"] [data-testid=fallbacks] li`);
    await fallbacks.first().waitFor();
    const shown = await fallbacks.allInnerTexts();
    assert.deepEqual(shown, clocks.fallbacks, 'the clocks cell lists the file\u2019s fallbacks, the emulation first');
    const ops = `[data-testid=ops-cell][data-file="${f}"]`;
    const absent = page.locator(`${ops} [data-testid=published-absent]`);
    await absent.waitFor();
    assert.equal((await absent.innerText()).trim(), `${cli.ops.published_absent}.`);
    assert.equal(await page.locator(`${ops} [data-testid=core-match]`).count(), 0, 'no core match');
    assert.equal(await page.locator(`${ops} [data-testid=published-scores]`).count(), 0, 'no scores against x86 cores');
    await screenshot(page, 'emulated-aarch64');
    assertClean(problems);
  } finally {
    await close();
  }
});
