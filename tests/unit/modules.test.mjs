// The page's modules (web/src) read as text: how they depend on each other
// and what they export. The layout this checks is ARCHITECTURE.md's: ui/
// (shared helpers) depends on nothing else of the page, a cell on ui/ and
// other cells, a cell across files on ui/ and its own folder, the worker on
// ui/ and the wasm glue, app/ on everything; no
// import cycles; no export that nothing imports; and no module but a suite's
// own cell folder names suites (the notebook finds a cell by its name).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = path.join(ROOT, 'web/src');
const TESTS = [path.join(ROOT, 'tests/unit'), path.join(ROOT, 'tests/e2e')];

// The suites with a cell (a folder of web/src/cells, as the build's
// `tickbook:cells` finds them): only their own folders may name them.
const SUITES = readdirSync(path.join(SRC, 'cells'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

function filesUnder(dir, ext) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}

const sources = filesUnder(SRC, /\.js$/);
const testFiles = TESTS.flatMap((d) => filesUnder(d, /\.mjs$/));
const rel = (f) => path.relative(SRC, f).split(path.sep).join('/');

/** Comments out: a file's code, with string and template contents kept. */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/[^\n]*/g, '$1');
}

/** Static imports of a file: [{from: absolute path or bare name, names: [imported names] | '*'}]. */
function importsOf(file) {
  const text = code(readFileSync(file, 'utf8'));
  const out = [];
  const re = /(?:^|\n)\s*(?:import|export)\s+([\s\S]*?)\s+from\s+'([^']+)'/g;
  for (const m of text.matchAll(re)) {
    const [, clause, spec] = m;
    const names = [];
    let star = false;
    for (const part of clause.replace(/^type\s+/, '').split(/,(?![^{]*\})/)) {
      const p = part.trim();
      if (!p) continue;
      if (p.startsWith('*')) star = true;
      else if (p.startsWith('{')) {
        for (const n of p.slice(1, p.lastIndexOf('}')).split(',')) {
          const name = n.trim().split(/\s+as\s+/)[0];
          if (name) names.push(name);
        }
      } else names.push('default');
    }
    const from = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : spec;
    out.push({ from, names: star ? '*' : names });
  }
  return out;
}

/** Names a module exports. */
function exportsOf(file) {
  const text = code(readFileSync(file, 'utf8'));
  const names = [...text.matchAll(/(?:^|\n)export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]);
  for (const m of text.matchAll(/(?:^|\n)export\s*\{([^}]*)\}/g)) {
    for (const n of m[1].split(',')) if (n.trim()) names.push(n.trim().split(/\s+as\s+/).pop());
  }
  if (/(?:^|\n)export\s+default\b/.test(text)) names.push('default');
  return names;
}

const graph = new Map(sources.map((f) => [f, importsOf(f)]));

test('every module of the page is where its layer allows it to import from', () => {
  // layer -> the layers (top folders of web/src) it may import from; '../pkg' is the wasm glue.
  const allowed = {
    ui: ['ui'],
    cells: ['ui', 'cells'],
    across: ['ui', 'across'],
    worker: ['ui', 'worker', 'pkg'],
    app: ['ui', 'cells', 'across', 'worker', 'app'],
  };
  const problems = [];
  for (const [file, imports] of graph) {
    const layer = rel(file).split('/')[0];
    assert.ok(allowed[layer], `${rel(file)}: web/src/${layer}/ is no layer of the page (app, worker, ui, cells, across)`);
    for (const { from } of imports) {
      if (!path.isAbsolute(from)) continue; // a package (Observable Plot)
      const target = path.relative(SRC, from).split(path.sep);
      const to = target[0] === '..' ? target[1] : target[0];
      if (!allowed[layer].includes(to)) problems.push(`${rel(file)} imports ${path.relative(ROOT, from)}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the page\u2019s modules import each other without cycles', () => {
  const state = new Map(); // file -> 'open' | 'done'
  const cycles = [];
  const visit = (file, trail) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].map(rel).join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const { from } of graph.get(file) ?? []) if (graph.has(from)) visit(from, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test('every export of the page is imported somewhere (the page, or a test)', () => {
  const used = new Map(); // file -> Set of names imported from it
  for (const file of [...sources, ...testFiles]) {
    for (const { from, names } of importsOf(file)) {
      if (!used.has(from)) used.set(from, new Set());
      for (const n of names === '*' ? ['*'] : names) used.get(from).add(n);
    }
  }
  const unused = [];
  for (const file of sources) {
    const r = rel(file);
    // A suite's cell is found by its name (the build's `tickbook:cells`): its
    // `build` and `viewFields` are what the page takes from it.
    // A cell across files likewise (`tickbook:across`): its `update` and `link`.
    const registry = /^cells\/[^/]+\/index\.js$/.test(r) ? ['build', 'viewFields']
      : /^across\/[^/]+\/index\.js$/.test(r) ? ['update', 'link'] : [];
    const names = used.get(file) ?? new Set();
    for (const name of exportsOf(file)) {
      if (!names.has(name) && !names.has('*') && !registry.includes(name)) unused.push(`${r}: ${name}`);
    }
  }
  assert.deepEqual(unused, []);
});

test('only a suite\u2019s own cell folder names suites', () => {
  const quoted = new RegExp(`(['"\`])(${SUITES.join('|')})\\1`, 'g');
  const problems = [];
  for (const file of sources) {
    const r = rel(file);
    const own = r.match(/^cells\/([^/]+)\//)?.[1];
    const named = new Set([...code(readFileSync(file, 'utf8')).matchAll(quoted)].map((m) => m[2]).filter((s) => s !== own));
    // One word can be something else ('copy' is also a drop effect); two or more are a list of suites.
    if (named.size >= 2) problems.push(`${r}: ${[...named].join(', ')}`);
  }
  assert.deepEqual(problems, []);
});

test('the worker\u2019s header lists exactly the calls its CALLS allows', () => {
  const text = readFileSync(path.join(SRC, 'worker/worker.js'), 'utf8');
  const header = text.slice(0, text.search(/^import /m));
  const listed = [...header.matchAll(/fn: '(\w+)'/g)].map((m) => m[1]);
  const body = text.match(/^const CALLS = \{\n([\s\S]*?)\n\};$/m)?.[1];
  assert.ok(body, 'worker.js has `const CALLS = { … };`');
  const calls = [...body.matchAll(/^ {2}(\w+):/gm)].map((m) => m[1]);
  assert.ok(calls.length >= 5, `found the calls: ${calls.join(', ')}`);
  assert.deepEqual([...new Set(listed)].sort(), [...new Set(calls)].sort(), 'the `in:` lines at the top of worker.js name each call of CALLS once');
});
