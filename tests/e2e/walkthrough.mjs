// What the walkthrough tests share (adding-a-suite, adding-a-format,
// adding-a-cell-across-files): a doc's fenced blocks, a copy of the
// committed repository, itself a git repository so that the files a
// walkthrough changes can be counted, and the copy's page built.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The fenced blocks of `text`, in order: { lang, code }. */
export function fencedBlocks(text) {
  return [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));
}

/**
 * The committed tree (HEAD) in a new folder named with `prefix`, committed
 * there: `{ dir, git(...args), write(rel, text), edit(rel, fn) }`. The
 * caller removes `dir`.
 */
export function copyOfRepository(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = (...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  try {
    execFileSync('bash', ['-c', `git -C "${root}" archive HEAD | tar -x -C "${dir}"`]);
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const write = (rel, text) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const edit = (rel, fn) => write(rel, fn(readFileSync(join(dir, rel), 'utf8')));
  return { dir, git, write, edit };
}

// The copies' target folder, beside the repository's: shared by the
// walkthroughs, so their dependencies are built once and a second run is warm.
export const COPY_TARGET = join(root, 'target', 'adding-a-suite');

/**
 * The page of the copy in `dir`, as scripts/build-web builds it: its wasm
 * (in COPY_TARGET) and its bundle. Returns its web root (`dir`/web/dist).
 */
export function buildCopyPage(dir) {
  const env = { ...process.env, CARGO_TARGET_DIR: COPY_TARGET };
  const wasm = spawnSync('cargo', ['build', '-q', '-p', 'tickbook-analysis-wasm', '-p', 'tickbook-browser-measure', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm'], { cwd: dir, env, encoding: 'utf8' });
  assert.equal(wasm.status, 0, `the copy's wasm builds:\n${wasm.stderr}`);
  for (const crate of ['tickbook_analysis_wasm', 'tickbook_browser_measure']) {
    execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', join(dir, 'web/pkg'), '--no-typescript',
      join(COPY_TARGET, `wasm32-unknown-unknown/wasm/${crate}.wasm`)], { stdio: 'pipe' });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  execFileSync('node', [join(dir, 'web/build.mjs')], { cwd: dir, stdio: 'pipe' });
  return join(dir, 'web/dist');
}
