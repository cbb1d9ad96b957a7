// The page's test of perf stat output (intake.js looksLikePerfStat), which
// groups a folder's runs before the analysis reads them, against every
// fixture: true exactly for perf's -x, -j and printed (perf stat report) files, as the analysis's
// perf_stat::recognises (analysis/tests/import.rs reads the same files).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { looksLikePerfStat } from '../../web/src/app/intake.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

async function* files(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

test('perf stat output is told from every other fixture by its head', async () => {
  let perf = 0;
  let other = 0;
  for (const dir of ['import', 'compare']) {
    for await (const f of files(path.join(FIXTURES, dir))) {
      const rel = path.relative(FIXTURES, f).split(path.sep).join('/');
      if (/\.(gz|data)$/.test(rel)) continue;
      const head = (await readFile(f)).subarray(0, 4096).toString('utf8');
      const want = (rel.startsWith('import/perf/') && /\.(csv|json|report\.txt)$/.test(rel))
        || (rel.startsWith('import/real/perf-text/') && /\.(txt|log)$/.test(rel));
      assert.equal(looksLikePerfStat(head), want, rel);
      if (want) perf += 1;
      else other += 1;
    }
  }
  assert.ok(perf >= 9 && other >= 30, `${perf} perf files, ${other} others`);
  // Interval and per-CPU rows are perf's too (the analysis refuses them with the reason).
  assert.ok(looksLikePerfStat('CPU0,1.17,msec,task-clock,1171277,100.00,1.011,CPUs utilized\n'));
  assert.ok(looksLikePerfStat('# started on Wed\n\n<not supported>,,cycles,0,100.00,,\n'));
  assert.ok(!looksLikePerfStat('a,b,c\n'));
  assert.ok(!looksLikePerfStat('{"counter-value": "1"}\n'));
});
