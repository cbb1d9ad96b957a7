// The notebook's cells come from the analysis: the wasm `cells()` lists each
// suite cell (name, title as the page shows it, cost: the order the worker
// analyses a run in) in display order, and the page builds a cell with
// web/src/cells/<name>/index.js `build`, found by that name; likewise
// `acrossCells()` lists the cells across files, each drawn by
// web/src/across/<name>/index.js `update`. Needs web/pkg (scripts/build-web).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import init, { cells, acrossCells } from '../../web/pkg/tickbook_analysis_wasm.js';
import { selectInputs } from '../../web/src/app/across.js';

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
    { name: 'commands', title: 'Commands', cost: 9 },
  ]);
});

test('every cell cells() lists has a module that builds it, found by its name', async () => {
  for (const { name } of cells()) {
    const mod = await import(`../../web/src/cells/${name}/index.js`);
    assert.equal(typeof mod.build, 'function', `web/src/cells/${name}/index.js exports build(report, key, ctx)`);
  }
});

test('acrossCells() lists the cells across files, each with the module that draws it, found by its name', async () => {
  const list = acrossCells();
  assert.deepEqual(list, [
    { name: 'compare', title: 'Comparison', needs: { kind: 'sharing', min: 2, series: 'samples' }, cost: 3 },
    { name: 'history', title: 'History', needs: { kind: 'all', min: 3 }, cost: 1 },
    { name: 'campaign', title: 'Campaign', needs: { kind: 'all', min: 3 }, cost: 2 },
    { name: 'native', title: 'WebAssembly against native', needs: { kind: 'pairs', first: 'browser', second: 'ops' }, cost: 0 },
  ]);
  for (const { name } of list) {
    const mod = await import(`../../web/src/across/${name}/index.js`);
    assert.equal(typeof mod.update, 'function', `web/src/across/${name}/index.js exports update(slot, inputs, ctx)`);
  }
  // And no folder draws a cell the analysis does not list.
  const folders = readdirSync(path.join(ROOT, 'web/src/across'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.sort(), list.map((c) => c.name).sort());
});

test('a cell across files is asked for with the loaded files its needs choose', () => {
  const file = (key, suites, ok = true) => ({ key, name: `${key}.json`, report: { ok, info: { suites } } });
  const files = [file('a', ['clocks', 'ops']), file('b', ['ops']), file('c', ['samples']), file('d', ['browser'])];
  assert.deepEqual(selectInputs({ kind: 'all', min: 3 }, files), [['a', 'b', 'c', 'd']]);
  assert.deepEqual(selectInputs({ kind: 'all', min: 5 }, files), []);
  // Sharing: only the files with a suite another file has.
  assert.deepEqual(selectInputs({ kind: 'sharing', min: 2 }, files), [['a', 'b']]);
  assert.deepEqual(selectInputs({ kind: 'sharing', min: 2 }, files.slice(1)), []);
  // Pairs: one request per pair, in load order.
  const e = file('e', ['browser']);
  assert.deepEqual(selectInputs({ kind: 'pairs', first: 'browser', second: 'ops' }, [...files, e]), [['d', 'a'], ['d', 'b'], ['e', 'a'], ['e', 'b']]);
  assert.deepEqual(selectInputs({ kind: 'pairs', first: 'browser', second: 'ops' }, files.slice(0, 3)), []);
  assert.deepEqual(selectInputs({ kind: 'no such kind' }, files), []);
});
