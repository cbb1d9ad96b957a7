// The page's test of a folder's files (analysis/src/intake.rs through the
// wasm `intakePlan`, which intake.js asks the worker for) against every
// fixture: two copies of a file in one directory are one input of runs
// exactly for perf's -x, -j and printed (perf stat report) files, as `tickbook analyze DIR` groups
// them (the same Rust; analysis/tests/import.rs reads the same files), from
// the head the page reads (`intakeRules().head_bytes`). Needs web/pkg
// (scripts/build-web).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { intakePlan, intakeRules } from '../../web/pkg/tickbook_analysis_wasm.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'tests/fixtures');

before(async () => {
  await init({ module_or_path: await readFile(path.join(ROOT, 'web/pkg/tickbook_analysis_wasm_bg.wasm')) });
});

async function* files(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/** Whether two files with this head in one directory are one input of runs, as intake.js plans a folder. */
function runs(head) {
  const plan = intakePlan([{ path: 'd/a.txt', head }, { path: 'd/b.txt', head }]);
  if (plan.length === 0) return false; // text that is not perf's is not read
  assert.deepEqual(plan, [{ kind: 'runs', dir: 'd', paths: ['d/a.txt', 'd/b.txt'] }]);
  return true;
}

test('perf stat output is told from every other fixture by its head', async () => {
  const { head_bytes: headBytes } = intakeRules();
  let perf = 0;
  let other = 0;
  for (const dir of ['import', 'compare']) {
    for await (const f of files(path.join(FIXTURES, dir))) {
      const rel = path.relative(FIXTURES, f).split(path.sep).join('/');
      if (/\.(gz|data)$/.test(rel)) continue;
      const head = (await readFile(f)).subarray(0, headBytes).toString('utf8');
      const want = (rel.startsWith('import/perf/') && /\.(csv|json|report\.txt)$/.test(rel))
        || (rel.startsWith('import/real/perf-text/') && /\.(txt|log)$/.test(rel));
      assert.equal(runs(head), want, rel);
      if (want) perf += 1;
      else other += 1;
    }
  }
  assert.ok(perf >= 9 && other >= 30, `${perf} perf files, ${other} others`);
  // Interval and per-CPU rows are perf's too (the analysis refuses them with the reason).
  assert.ok(runs('CPU0,1.17,msec,task-clock,1171277,100.00,1.011,CPUs utilized\n'));
  assert.ok(runs('# started on Wed\n\n<not supported>,,cycles,0,100.00,,\n'));
  assert.ok(!runs('a,b,c\n'));
  assert.ok(!runs('{"counter-value": "1"}\n'));
});

test('a folder\'s walk keeps results and text, skips Criterion\'s other runs, and plans a Criterion tree as one input', () => {
  const rules = intakeRules();
  for (const e of ['.json', '.ndjson', '.jsonl', '.json.gz', '.csv', '.txt']) {
    assert.ok([...rules.result_endings, ...rules.text_endings].includes(e), e);
  }
  assert.deepEqual([...rules.skip_dirs].sort(), ['base', 'change', 'report']);
  assert.equal(rules.max_folder_files, 100000);
  const plan = intakePlan([
    { path: 'g/b/new/sample.json', head: '{}' },
    { path: 'g/b/new/benchmark.json', head: '{}' },
    { path: 'other.json.gz', head: null },
  ]);
  assert.deepEqual(plan, [{ kind: 'criterion', paths: ['g/b/new/benchmark.json', 'g/b/new/sample.json'] }]);
});
