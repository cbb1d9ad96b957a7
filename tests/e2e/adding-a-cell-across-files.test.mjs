// docs/adding-a-cell-across-files.md, carried out: its code blocks are
// written into a copy of the repository — the cell's analysis file, its one
// registry line, its page module — and nothing else. The copy's page, built
// with its wasm, then draws the new cell above the files' cells in Chromium
// with the machines the files name (as `tickbook analyze --json` reads
// them), and the files it touched must be exactly the ones the walkthrough
// lists: the page's entry point, worker and binding name no cell across files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, analyzeJson, serve, openBrowser, waitForFiles } from './harness.mjs';
import { buildCopyPage, copyOfRepository, fencedBlocks, root } from './walkthrough.mjs';

test('adding a cell across files as docs/adding-a-cell-across-files.md says touches its files and one line, builds and draws', { timeout: 1_800_000 }, async () => {
  const b = fencedBlocks(readFileSync(join(root, 'docs/adding-a-cell-across-files.md'), 'utf8'));
  const rust = b.filter((x) => x.lang === 'rust').map((x) => x.code);
  const js = b.filter((x) => x.lang === 'js').map((x) => x.code);
  assert.equal(rust.length, 2, 'the walkthrough has its two Rust blocks: the cell and its registry line');
  assert.equal(js.length, 1, 'and its page module');
  const [cell, registry] = rust;
  const [after, line] = registry.trimEnd().split('\n');

  // The committed tree, as a git repository so the change can be counted.
  const copy = copyOfRepository('tickbook-across-');
  const { dir, git } = copy;
  try {
    copy.write('analysis/src/report/across/hosts.rs', cell);
    copy.write('web/src/across/hosts/index.js', js[0]);
    const registryFile = 'analysis/src/report/across/mod.rs';
    copy.edit(registryFile, (text) => {
      const lines = text.split('\n');
      const at = lines.indexOf(after);
      assert.ok(at >= 0, `the registry has the line "${after.trim()}"`);
      lines.splice(at + 1, 0, line);
      return lines.join('\n');
    });
    git('add', '-A');
    const touched = git('diff', '--cached', '--name-status').trim().split('\n').sort();
    assert.deepEqual(touched, [
      'A\tanalysis/src/report/across/hosts.rs',
      'A\tweb/src/across/hosts/index.js',
      'M\tanalysis/src/report/across/mod.rs',
    ], 'the cell touches its analysis file, its page module and one registry line');

    // The copy's page, built with its wasm as scripts/build-web builds it.
    const webRoot = buildCopyPage(dir);

    // Three files from two machines.
    const names = ['run-clocks.json', 'trace-small.json', 'run-bernoulli-stressed.json'];
    const results = join(dir, 'results');
    mkdirSync(results);
    for (const n of names) copyFileSync(join(FIXTURES, n), join(results, n));
    const reports = await analyzeJson(names.map((n) => join(results, n)));
    const want = new Map();
    for (const r of reports) want.set(r.info.host, (want.get(r.info.host) ?? 0) + 1);
    assert.ok(want.size >= 2, `the files come from two machines or more: ${[...want.keys()].join(', ')}`);

    const server = await serve(results, { webRoot });
    const browser = await openBrowser(server.url);
    try {
      const { page, problems } = browser;
      await page.goto(`${server.url}?${names.map((n) => `url=/results/${n}`).join('&')}`);
      await waitForFiles(page, names.length, 120_000);
      const cell = page.locator('[data-testid=hosts-cell]');
      await cell.waitFor({ timeout: 60_000 });
      assert.match(await cell.locator('h2').textContent(), /Hosts/);
      const drawn = await cell.locator('[data-testid=hosts-row]').evaluateAll((lis) => lis.map((li) => [li.dataset.host, Number(li.dataset.files)]));
      assert.deepEqual(drawn, [...want].sort((x, y) => (x[0] < y[0] ? -1 : 1)), 'each machine with its number of files, by name');
      // Above the files' cells, with the other cells across files.
      const above = await page.evaluate(() => {
        const hosts = document.querySelector('[data-testid=hosts-cell]');
        const first = document.querySelector('.slot');
        return Boolean(hosts.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
      assert.ok(above, 'the cell sits above the files\u2019 cells');
      assert.deepEqual(problems, { consoleErrors: [], pageErrors: [], foreignRequests: [], failedRequests: [] });
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
