// What the walkthrough tests share (adding-a-suite, adding-a-format): a
// doc's fenced blocks, and a copy of the committed repository, itself a git
// repository so that the files a walkthrough changes can be counted.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
