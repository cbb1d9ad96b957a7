// Shared pieces of the end-to-end tests: the real `tickbook` binary (serve,
// collect, analyze), a headless Chromium through playwright-core, and the
// checks every test makes (no console errors, no request off the server).

import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, mkdir, access, stat, rename, readdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const run = promisify(execFile);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'tests/fixtures');
export const WEB_DIST = path.join(ROOT, 'web/dist');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function tickbookBin() {
  return process.env.TICKBOOK_BIN ?? path.join(ROOT, 'target/release/tickbook');
}

async function mustExist(file, hint) {
  try {
    await access(file);
  } catch {
    throw new Error(`${file} is missing: ${hint}`);
  }
}

/** Fail early, with the fix, when the page or the binary is not built. */
/**
 * Each cell's `viewFields` by its folder's name, read from the same files the
 * build bundles as `tickbook:cells`: for tests that use app/state.js without
 * the build (web/src/app/main.js passes the bundled ones).
 */
export async function cellViewFields() {
  const dir = path.join(ROOT, 'web/src/cells');
  const out = {};
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    out[e.name] = (await import(pathToFileURL(path.join(dir, e.name, 'index.js')).href)).viewFields;
  }
  return out;
}

export async function checkPrerequisites() {
  await mustExist(path.join(WEB_DIST, 'index.html'), 'build the page first (scripts/build-web, or npm run build)');
  await mustExist(tickbookBin(), 'build it with `cargo build --release -p tickbook` (or set TICKBOOK_BIN)');
  await mustExist(CHROMIUM, 'install Debian chromium (or set CHROMIUM_PATH)');
}

export async function tempDir(prefix = 'tickbook-e2e-') {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * Run `tickbook args…`; resolves with stdout. Exit codes in `okCodes` count
 * as success; anything else rejects with stderr.
 */
export async function tickbook(args, { timeout = 120_000, okCodes = [0] } = {}) {
  try {
    const { stdout } = await run(tickbookBin(), args, { cwd: ROOT, timeout, maxBuffer: 256 << 20 });
    return stdout;
  } catch (e) {
    if (typeof e.code === 'number' && okCodes.includes(e.code) && e.stdout) return e.stdout;
    throw new Error(`tickbook ${args.join(' ')} failed (${e.code ?? e.signal}): ${e.stderr || e.message}`);
  }
}

/**
 * `tickbook analyze --json files…` parsed: an array of FileReport. Exit
 * status 1 means "some file was not read" (docs/cli.md); the JSON is still printed.
 */
export async function analyzeJson(files) {
  return JSON.parse(await tickbook(['analyze', '--json', ...files], { okCodes: [0, 1] }));
}

/**
 * `tickbook serve <dir> --web-root web/dist --port 0 --no-open` (another
 * binary or page: `bin`, `webRoot`; more flags: `args`, e.g. `--isolated`);
 * resolves with {url, stop} once it prints `serving http://127.0.0.1:PORT/`.
 */
export async function serve(resultsDir, { bin = tickbookBin(), webRoot = WEB_DIST, args = [] } = {}) {
  const child = spawn(bin, ['serve', resultsDir, '--web-root', webRoot, '--port', '0', '--no-open', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tickbook serve printed no URL in 20 s; stderr: ${stderr}`)), 20_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`tickbook serve exited (${code}): ${stderr}`)); });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const m = /^serving (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(line.trim());
      if (m) resolve(m[1]);
      else reject(new Error(`unexpected first line from tickbook serve: ${JSON.stringify(line)}`));
    });
  });
  lines.on('line', () => {}); // keep draining stdout
  const stop = async () => {
    if (child.exitCode != null || child.signalCode != null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (child.exitCode == null && child.signalCode == null) child.kill('SIGKILL');
  };
  return { url, stop };
}

/**
 * The page ran clean: no page or console errors, no request off the local
 * server and (unless `failed` is false) none that failed.
 */
export function assertClean(problems, { failed = true } = {}) {
  assert.deepEqual(problems.pageErrors, [], 'page errors');
  assert.deepEqual(problems.consoleErrors, [], 'console errors');
  assert.deepEqual(problems.foreignRequests, [], 'requests that did not go to the local server');
  if (failed) assert.deepEqual(problems.failedRequests, [], 'failed requests');
}

/**
 * A fresh headless Chromium with one page that records console errors, page
 * errors and every request that does not go to `origin`.
 */
export async function openBrowser(origin, { colorScheme = 'light', viewport = { width: 1440, height: 900 } } = {}) {
  const profile = await tempDir('tickbook-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
    viewport,
    colorScheme,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = { consoleErrors: [], pageErrors: [], foreignRequests: [], failedRequests: [] };
  const base = new URL(origin).origin;
  page.on('console', (m) => { if (m.type() === 'error') problems.consoleErrors.push(`${m.text()} @ ${m.location()?.url ?? ''}`); });
  page.on('pageerror', (e) => problems.pageErrors.push(String(e?.stack ?? e)));
  context.on('request', (r) => {
    const u = r.url();
    if (u.startsWith('data:') || u.startsWith('blob:')) return;
    if (new URL(u).origin !== base) problems.foreignRequests.push(u);
  });
  context.on('requestfailed', (r) => problems.failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
  const close = async () => {
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true }).catch(() => {});
  };
  return { context, page, problems, close };
}

/** Wait until `count` file rows exist and none is still being analysed. */
export async function waitForFiles(page, count, timeout = 30_000) {
  await page.waitForFunction((n) => {
    const rows = document.querySelectorAll('[data-testid=file-row]');
    return rows.length === n && [...rows].every((r) => r.dataset.status !== 'pending');
  }, count, { timeout });
}

export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Numbers in the page must equal the CLI's: same Rust code, native and wasm. */
export function sameNumber(actual, expected) {
  if (expected == null) return actual == null;
  if (actual == null || !Number.isFinite(actual)) return false;
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= 1e-12 * Math.max(Math.abs(expected), 1e-300);
}

/** The data-value of every [data-stat] cell in rows matching `rowSelector`, keyed by `keyAttr`. */
export async function readTable(page, rowSelector, keyAttr) {
  return page.$$eval(rowSelector, (rows, key) => Object.fromEntries(rows.map((r) => [
    r.dataset[key],
    Object.fromEntries([...r.querySelectorAll('[data-stat]')].map((c) => [c.dataset.stat, c.dataset.value])),
  ])), keyAttr);
}

export const num = (s) => (s === '' || s == null ? null : Number(s));

/**
 * Fresh collections of every suite, made once per build of the binary and
 * shared by the tests that check the whole notebook (charts read back,
 * layout, accessibility): `run.json` (clocks bernoulli ops copy bottleneck
 * trace, --quick) and `alloc.json` (alloc, --quick, 12 configurations ×
 * 4 executions × 6 measurements). Kept in target/tickbook-test/every-suite;
 * collected again when the binary is newer than the files. Resolves with
 * the two paths.
 */
export async function everySuiteCollection() {
  const dir = process.env.TICKBOOK_EVERY_SUITE_DIR ?? path.join(ROOT, 'target/tickbook-test/every-suite');
  const files = { run: path.join(dir, 'run.json'), alloc: path.join(dir, 'alloc.json') };
  const binTime = (await stat(tickbookBin())).mtimeMs;
  const fresh = async (f) => { try { return (await stat(f)).mtimeMs > binTime; } catch { return false; } };
  await mkdir(dir, { recursive: true });
  if (!(await fresh(files.run))) {
    // The collector rewrites its --out after every suite: collect beside the
    // cache and move the whole file in, so an interrupted run is never taken
    // for a finished one.
    await tickbook(['collect', 'clocks', 'bernoulli', 'ops', 'copy', 'bottleneck', 'trace', '--quick', '--out', `${files.run}.part`],
      { timeout: 900_000 });
    await rename(`${files.run}.part`, files.run);
  }
  if (!(await fresh(files.alloc))) {
    await run(tickbookBin(), ['collect', 'alloc', '--quick', '--executions', '4', '--measurements', '6', '--out', `${files.alloc}.part`],
      { cwd: ROOT, timeout: 600_000, env: { ...process.env, TICKBOOK_ALLOC_CONFIG_LIMIT: '12' } });
    await rename(`${files.alloc}.part`, files.alloc);
  }
  return files;
}

/** Every importer fixture: the files, and the Criterion.rs folder (loaded through the folder picker). */
export const IMPORT_FIXTURES = {
  files: [
    'pyperf/timeit.json', 'pyperf/suite.json', 'jmh/result.json', 'googlebench/repetitions.json',
    'hyperfine/sleep.json', 'hyperfine/param.json', 'criterion/cargo-criterion.ndjson',
    'pytest-benchmark/pytest.json', 'gobench/go-bench.txt', 'gobench/go-bench.json',
    'perf/perf-stat.csv', 'perf/perf-stat.json',
  ].map((f) => path.join(FIXTURES, 'import', f)),
  folder: path.join(FIXTURES, 'import/criterion/target-criterion'),
  // Inputs that were refused or lost data before: gzip, aggregates only,
  // counters and BigO, failed runs, a Criterion folder with Flat sampling.
  more: {
    files: [
      'pyperf/gz/timeit.json.gz', 'googlebench/aggregates.json', 'googlebench/complexity.json', 'hyperfine/exit-codes.json',
    ].map((f) => path.join(FIXTURES, 'import', f)),
    folder: path.join(FIXTURES, 'import/criterion/target-criterion-flat'),
  },
};
