// The notebook's cells come from the analysis: the wasm `cells()` lists each
// suite cell (name, title as the page shows it, cost: the order the worker
// analyses a run in) in display order, and the page builds a cell with
// web/src/cells/<name>/index.js `build`, found by that name. Needs web/pkg
// (scripts/build-web).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { cells } from '../../web/pkg/tickbook_analysis_wasm.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

before(async () => {
  await init({ module_or_path: await readFile(path.join(ROOT, 'web/pkg/tickbook_analysis_wasm_bg.wasm')) });
});

test('cells() lists the suite cells in display order, with their titles and analysis order', () => {
  assert.deepEqual(cells(), [
    { name: 'clocks', title: 'Clocks', cost: 0 },
    { name: 'bernoulli', title: 'Bernoulli timing', cost: 1 },
    { name: 'ops', title: 'Operations', cost: 3 },
    { name: 'copy', title: 'Copy', cost: 4 },
    { name: 'alloc', title: 'Allocation and page placement', cost: 7 },
    { name: 'trace', title: 'Perturbation', cost: 5 },
    { name: 'bottleneck', title: 'Bottlenecks', cost: 6 },
    { name: 'samples', title: 'Samples', cost: 2 },
    { name: 'browser', title: 'Browser', cost: 8 },
  ]);
});

test('every cell cells() lists has a module that builds it, found by its name', async () => {
  for (const { name } of cells()) {
    const mod = await import(`../../web/src/cells/${name}/index.js`);
    assert.equal(typeof mod.build, 'function', `web/src/cells/${name}/index.js exports build(report, key, ctx)`);
  }
});
