// docs/adding-a-suite.md, carried out: its code blocks are written into a
// copy of the repository, with the one registry line and the two `match`
// arms (and their `mod` lines) it names, and nothing else. The copy must
// build, collect the new suite, and analyze it — the median in
// `analyze --json` equal to the median of the file's own samples, the
// terminal printing the cell — and the files it touched must be exactly
// the ones the walkthrough lists. The copy's page, built with its wasm, then
// draws the new cell in Chromium with the same numbers, and the page keeps
// no list of suites to extend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, openBrowser, waitForFiles } from './harness.mjs';
import { COPY_TARGET, buildCopyPage, copyOfRepository, fencedBlocks, root } from './walkthrough.mjs';

/** The doc's fenced blocks, in order: { lang, code }. */
function blocks() {
  return fencedBlocks(readFileSync(join(root, 'docs/adding-a-suite.md'), 'utf8'));
}

/** `text` with `line` inserted after the first line equal to `after`. */
function insertAfter(text, after, line) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l === after);
  assert.ok(at >= 0, `found the line "${after}"`);
  lines.splice(at + 1, 0, line);
  return lines.join('\n');
}

test('adding a suite as docs/adding-a-suite.md says touches only its places, builds, collects, analyses and draws', { timeout: 1_800_000 }, async () => {
  const b = blocks();
  const rust = b.filter((x) => x.lang === 'rust').map((x) => x.code);
  const js = b.filter((x) => x.lang === 'js').map((x) => x.code);
  // data.rs, report.rs, mod.rs, the registry line, the measurement, its
  // arm, the terminal file, its arm; one cell file.
  assert.equal(rust.length, 8, 'the walkthrough has its eight Rust blocks');
  assert.equal(js.length, 1, 'and its cell');
  const [data, report, suite, registryLine, measurement, measureArm, terminal, terminalArm] = rust;

  // The committed tree, as a git repository so the change can be counted.
  const { dir, git, write, edit } = copyOfRepository('tickbook-adding-');
  try {
    write('analysis/src/suites/yield_now/data.rs', data);
    write('analysis/src/suites/yield_now/report.rs', report);
    write('analysis/src/suites/yield_now/mod.rs', suite);
    write('measure/src/yield_now.rs', measurement);
    write('collector/src/terminal/yield_now.rs', terminal);
    write('web/src/cells/yield_now/index.js', js[0]);
    const [, newLine] = registryLine.trimEnd().split('\n');
    edit('analysis/src/suites/mod.rs', (t) => insertAfter(insertAfter(t, '            trace Trace run;', newLine), 'pub mod trace;', 'pub mod yield_now;'));
    edit('measure/src/lib.rs', (t) => insertAfter(insertAfter(t, '        SuiteId::Trace => trace::run,', measureArm.trimEnd()), 'mod trace;', 'mod yield_now;'));
    edit('collector/src/terminal/mod.rs', (t) => insertAfter(insertAfter(t, '        Cell::Samples(r) => samples::render(out, r),', terminalArm.trimEnd()), 'mod trace;', 'mod yield_now;'));

    git('add', '-A');
    const touched = git('diff', '--cached', '--name-status').trim().split('\n').sort();
    assert.deepEqual(touched, [
      'A\tanalysis/src/suites/yield_now/data.rs',
      'A\tanalysis/src/suites/yield_now/mod.rs',
      'A\tanalysis/src/suites/yield_now/report.rs',
      'A\tcollector/src/terminal/yield_now.rs',
      'A\tmeasure/src/yield_now.rs',
      'A\tweb/src/cells/yield_now/index.js',
      'M\tanalysis/src/suites/mod.rs',
      'M\tcollector/src/terminal/mod.rs',
      'M\tmeasure/src/lib.rs',
    ], 'the suite touches its folder, its collector module, its terminal file, its cell and one line (+ mod and match arm) in each of three registries');

    // Its own target folder beside the repository's, so a second run is warm.
    const target = COPY_TARGET;
    const built = spawnSync('cargo', ['build', '-q', '-p', 'tickbook'], { cwd: dir, env: { ...process.env, CARGO_TARGET_DIR: target }, encoding: 'utf8' });
    assert.equal(built.status, 0, `the copy builds:\n${built.stderr}`);
    const bin = join(target, 'debug', 'tickbook');
    const out = join(dir, 'yield.json');
    execFileSync(bin, ['collect', 'yield_now', '--quick', '--out', out], { stdio: 'pipe' });
    const file = JSON.parse(readFileSync(out, 'utf8'));
    const section = file.suites.find((s) => s.suite === 'yield_now');
    assert.equal(section?.status, 'complete', 'the run file has the new suite, complete');
    const samples = section.data.samples_ns;
    assert.ok(samples.length >= 10 && samples.every((x) => x > 0), 'its samples are positive times');

    const json = JSON.parse(execFileSync(bin, ['analyze', '--json', out], { encoding: 'utf8' }));
    const r = (Array.isArray(json) ? json[0] : json).yield_now;
    const sorted = [...samples].sort((x, y) => x - y);
    const n = sorted.length;
    const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    assert.equal(r.samples, n);
    assert.ok(Math.abs(r.median_ns - median) <= 1e-9 * median, `median ${r.median_ns} = ${median} from the file's samples`);
    assert.ok(r.median_ci.lo <= r.median_ns && r.median_ns <= r.median_ci.hi, 'the estimate lies inside its interval');

    const text = execFileSync(bin, ['analyze', out], { encoding: 'utf8' });
    assert.match(text, /-- Yield cost \(\d+ samples\)/, 'the terminal prints the cell');

    // The copy's page: its wasm (the same target folder) and its bundle, as
    // scripts/build-web makes them; the build finds the new cell folder.
    const webRoot = buildCopyPage(dir);
    const results = join(dir, 'results');
    mkdirSync(results);
    writeFileSync(join(results, 'yield.json'), readFileSync(out));
    const server = await serve(results, { bin, webRoot });
    const browser = await openBrowser(server.url);
    try {
      const { page, problems } = browser;
      await page.goto(`${server.url}?url=/results/yield.json`);
      await waitForFiles(page, 1, 60_000);
      const cell = page.locator('[data-testid=yield_now-cell]');
      assert.equal(await cell.locator('h2, h3').first().textContent().then((t) => t.includes('Yield cost')), true, 'the cell has its title');
      const drawn = await cell.locator('[data-testid=yield-now-table] td[data-stat]').evaluateAll((tds) =>
        Object.fromEntries(tds.map((td) => [td.dataset.stat, Number(td.dataset.value)])));
      assert.equal(drawn.samples, n, 'the page shows the file\'s sample count');
      assert.equal(drawn.median, r.median_ns, 'and the same median as analyze --json');
      assert.deepEqual(problems, { consoleErrors: [], pageErrors: [], foreignRequests: [], failedRequests: [] });
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
