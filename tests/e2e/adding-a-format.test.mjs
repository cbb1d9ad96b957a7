// docs/importers.md's "Adding a format", carried out: its code blocks are
// written into a copy of the repository (the importer's file, the one
// registry line, the fixture, the fuzz target with its declaration and
// seeds, a test, the docs' rows) and nothing else. The files it touched
// must be exactly those, the registry line the only change to
// import/mod.rs, and in the copy the registry's checks
// (analysis/tests/importers.rs: fixture, fuzz target, docs) and the new
// test (the fixture's numbers) must pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { copyOfRepository, fencedBlocks, root } from './walkthrough.mjs';

/** The section's fenced blocks, in order: { lang, code }. */
function blocks() {
  const doc = readFileSync(join(root, 'docs/importers.md'), 'utf8');
  const section = doc.split('\n## Adding a format\n')[1];
  assert.ok(section, 'docs/importers.md has "Adding a format"');
  return fencedBlocks(section);
}

/** `text` with `line` inserted before the first line equal to `before` after the line `from`. */
function insertBefore(text, from, before, line) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === from);
  assert.ok(start >= 0, `found the line "${from}"`);
  const at = lines.findIndex((l, i) => i > start && l === before);
  assert.ok(at >= 0, `found the line "${before}" after "${from}"`);
  lines.splice(at, 0, line);
  return lines.join('\n');
}

test('adding a format as docs/importers.md says touches its file, one registry line, its fixture, fuzz target, test and docs', { timeout: 1_800_000 }, () => {
  const b = blocks();
  assert.deepEqual(b.map((x) => x.lang), ['rust', 'rust', 'text', 'rust', 'toml', 'js', 'rust', 'markdown'], 'the walkthrough\'s blocks');
  const [importer, registryLine, fixture, target, bin, seeds, check, row] = b.map((x) => x.code);

  const { dir, git, write, edit } = copyOfRepository('tickbook-adding-format-');
  try {
    write('analysis/src/import/tsv_times.rs', importer);
    edit('analysis/src/import/mod.rs', (t) => insertBefore(t, 'registry! {', '}', registryLine.trimEnd()));
    write('tests/fixtures/import/tsv-times/times.tsv', fixture);
    write('fuzz/fuzz_targets/import_tsv_times.rs', target);
    edit('fuzz/Cargo.toml', (t) => `${t.trimEnd()}\n\n${bin}`);
    edit('fuzz/seeds.mjs', (t) => insertBefore(t, 'const byTarget = {', '};', seeds.trimEnd()));
    edit('analysis/tests/import.rs', (t) => `${t.trimEnd()}\n\n${check}`);
    edit('docs/testing.md', (t) => t.replace('`import_perf_stat_csv` (text)', '`import_perf_stat_csv` (text), `import_tsv_times` (text)'));
    edit('docs/importers.md', (t) => {
      // The new row after the table's last.
      const lines = t.split('\n');
      const start = lines.findIndex((l) => l === '## What maps to what');
      const end = lines.findIndex((l, i) => i > start && l.startsWith('|') && !lines[i + 1].startsWith('|'));
      lines.splice(end + 1, 0, row.trimEnd());
      return lines.join('\n');
    });

    git('add', '-A');
    const touched = git('diff', '--cached', '--name-status').trim().split('\n').sort();
    assert.deepEqual(touched, [
      'A\tanalysis/src/import/tsv_times.rs',
      'A\tfuzz/fuzz_targets/import_tsv_times.rs',
      'A\ttests/fixtures/import/tsv-times/times.tsv',
      'M\tanalysis/src/import/mod.rs',
      'M\tanalysis/tests/import.rs',
      'M\tdocs/importers.md',
      'M\tdocs/testing.md',
      'M\tfuzz/Cargo.toml',
      'M\tfuzz/seeds.mjs',
    ], 'the format touches its file, its fixture, its fuzz target, a test, the docs and the registry');
    const registry = git('diff', '--cached', '--numstat', '--', 'analysis/src/import/mod.rs').trim();
    assert.equal(registry.split('\t').slice(0, 2).join(' '), '1 0', 'one line added to import/mod.rs');

    // The repository's own target folder: its dependencies are built; the
    // copy's crates are its own (another path) and no binary is built.
    const env = { ...process.env, CARGO_TARGET_DIR: join(root, 'target') };
    const run = spawnSync('cargo', ['test', '-p', 'tickbook-analysis', '--test', 'importers', '--test', 'import'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(run.status, 0, `the registry's checks and the format's test pass in the copy:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /test tsv_times_is_read_line_by_line \.\.\. ok/, 'the format\'s test ran');
    assert.match(run.stdout, /test every_format_has_fixtures_it_alone_recognises \.\.\. ok/, 'the registry\'s checks ran');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
