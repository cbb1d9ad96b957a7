// Huge inputs dropped on the page: a file over a limit of
// analysis/src/limits.rs gets an error card with the command line's
// message (the limit, and how to go on), a file over the size limit is
// never read into the tab, a good file dropped with them still renders, and
// the main thread stays free.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURES, checkPrerequisites, tempDir, analyzeJson, serve, openBrowser, waitForFiles, screenshot,
} from './harness.mjs';

const GOOD = path.join(FIXTURES, 'samples-3x5.json');
const HUGE_BYTES = 1_181_116_006; // 1.1 GB

let tmp, server, files;

/** A samples file of `series` series of one execution of `per` samples. */
function samplesText(series, per) {
  const samples = new Array(per).fill('1').join(',');
  const parts = [];
  for (let i = 0; i < series; i++) parts.push(`{"name":"s${i}","unit":"ns","executions":[[${samples}]]}`);
  return `{"format":"tickbook","format_version":"1.0","kind":"samples","series":[${parts.join(',')}]}`;
}

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  files = {
    huge: path.join(tmp, 'huge.json'),
    numbers: path.join(tmp, 'numbers.json'),
    series: path.join(tmp, 'series.json'),
  };
  // Sparse: 1.1 GB to the page, nothing on disk.
  const fh = await open(files.huge, 'w');
  await fh.truncate(HUGE_BYTES);
  await fh.close();
  // 20 000 010 numbers (~40 MB): over the count, under the size.
  await writeFile(files.numbers, samplesText(10, 2_000_001));
  // 10 001 series.
  await writeFile(files.series, samplesText(10_001, 3));
  server = await serve(path.join(tmp, 'results'));
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

// Before the page's scripts: which files are read (Blob reads), and the
// main thread's long tasks.
function instrument() {
  window.__limits = { read: [], longtasks: [] };
  for (const m of ['arrayBuffer', 'text', 'stream']) {
    const orig = Blob.prototype[m];
    Blob.prototype[m] = function (...args) {
      if (this instanceof File) window.__limits.read.push(this.name);
      return orig.apply(this, args);
    };
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__limits.longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
}

test('a file over a limit dropped on the page gets its card and is not read; the good file beside it renders', { timeout: 180_000 }, async () => {
  const names = { huge: 'huge.json', numbers: 'numbers.json', series: 'series.json' };
  const cli = Object.fromEntries((await analyzeJson([files.huge, files.numbers, files.series, GOOD]))
    .map((r) => [path.basename(r.file), r]));
  for (const n of Object.values(names)) {
    assert.equal(cli[n].ok, false, `${n}: the CLI refuses it`);
    assert.match(cli[n].error.message, /^too big to analyse: /, n);
  }
  assert.equal(cli['samples-3x5.json'].ok, true);

  const { page, problems, close } = await openBrowser(server.url);
  try {
    await page.addInitScript(instrument);
    await page.goto(server.url);
    // The files as a drop gives them: File objects of files on disk (a
    // probe input holds them, so the huge one is never built in memory).
    await page.evaluate(() => {
      const probe = Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'probe', hidden: true });
      document.body.append(probe);
    });
    await page.setInputFiles('#probe', [files.huge, files.numbers, files.series, GOOD]);
    const droppedAt = await page.evaluate(() => {
      const dt = new DataTransfer();
      for (const f of document.getElementById('probe').files) dt.items.add(f);
      const t = performance.now();
      document.querySelector('main').dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
      return t;
    });
    await waitForFiles(page, 4, 60_000);

    for (const [kind, n] of Object.entries(names)) {
      const card = page.locator(`[data-testid=error-card][data-file="${n}"]`);
      assert.equal(await card.count(), 1, `one error card for ${n}`);
      assert.ok((await card.locator('h2').innerText()).includes(n), `${n}: the card names the file`);
      const message = await card.locator('[data-testid=error-message]').innerText();
      assert.equal(message, cli[n].error.message, `${n}: the command line's message`);
      const want = {
        huge: ['1.1 GiB (1181116006 bytes)', 'the 256 MiB a file may have', 'TICKBOOK_MAX_FILE_BYTES'],
        numbers: ['more than 20000000 numbers', 'TICKBOOK_MAX_NUMBERS'],
        series: ['holds 10001 series', 'TICKBOOK_MAX_SERIES'],
      }[kind];
      for (const w of want) assert.ok(message.includes(w), `${n}: ${w} in ${message}`);
      assert.equal(await page.locator(`[data-testid=file-row][data-file="${n}"]`).getAttribute('data-status'), 'error');
    }
    assert.equal(await page.locator('[data-testid=samples-cell][data-file="samples-3x5.json"] [data-testid=series-row]').count(), 2,
      'the good file renders beside the refused ones');

    const probe = await page.evaluate(() => window.__limits);
    assert.ok(!probe.read.includes('huge.json'), `the huge file was read: ${probe.read}`);
    assert.ok(probe.read.includes('samples-3x5.json'), `the good file was read: ${probe.read}`);
    const longest = Math.max(0, ...probe.longtasks.filter((t) => t.start >= droppedAt).map((t) => t.duration));
    console.log(`read: ${probe.read.join(", ")}; main-thread tasks over 50 ms after the drop: ${JSON.stringify(probe.longtasks.filter((t) => t.start >= droppedAt).map((t) => [Math.round(t.start - droppedAt), Math.round(t.duration)]))}`);
    assert.ok(longest < 200, `a main-thread task of ${longest} ms`);
    await screenshot(page, 'limits');
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.consoleErrors, []);
  } finally {
    await close();
  }
});
