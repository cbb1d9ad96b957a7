// Tidy: the repository's own rules, checked on its tracked files, so that
// ARCHITECTURE.md and the docs stay true as code moves.
//  - every source file is named in ARCHITECTURE.md's code map, under the
//    section of its top-level folder;
//  - no link or pointer leads outside the repository, and every relative
//    Markdown link resolves to a tracked file;
//  - no comment cites an issue number;
//  - no import cycle between the top-level modules of a Rust crate (the
//    analysis crate's layers are checked in detail by
//    analysis/tests/module_graph.rs, the page's by tests/unit/modules.test.mjs).
// The schema and the format types are checked against each other by
// analysis/tests/schema.rs (both ways, on fully populated files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0').filter(Boolean);
const trackedSet = new Set(tracked);
const read = (p) => readFileSync(join(root, p), 'utf8');

const SOURCE = /\.(rs|js|mjs|py)$/;
const isScript = (p) => /^scripts\/[^/]+$/.test(p);
// Generated or data-like files that are not code a reader navigates by.
const notCode = (p) => p.startsWith('tests/fixtures/') || p.startsWith('web/pkg/') || p.startsWith('web/dist/');
const sources = tracked.filter((p) => (SOURCE.test(p) || isScript(p)) && !notCode(p) && !p.includes('/'.concat('node_modules/')));

/** The code map's sections: top-level folder -> set of backticked words. */
function codeMap() {
  const text = read('ARCHITECTURE.md');
  const start = text.indexOf('\n## Code map');
  assert.ok(start >= 0, 'ARCHITECTURE.md has a "## Code map" section');
  const end = text.indexOf('\n## ', start + 1);
  const map = text.slice(start, end < 0 ? undefined : end);
  const sections = new Map();
  let current = null;
  for (const line of map.split('\n')) {
    const heading = line.match(/^###\s+`([^`/]+)\/`/);
    if (heading) {
      current = heading[1];
      if (!sections.has(current)) sections.set(current, new Set());
      continue;
    }
    if (!current) continue;
    for (const [, inside] of line.matchAll(/`([^`]+)`/g)) {
      for (const word of inside.split(/[\s,;()[\]{}:=<>→|+]+/)) if (word) sections.get(current).add(word);
    }
  }
  return sections;
}

/** Whether `name` matches `pattern`, whose `*` stands for any characters. */
function globMatch(pattern, name) {
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(name);
}

/** The words that name a source file in its section. */
function namesOf(path) {
  const parts = path.split('/');
  const top = parts[0];
  const rest = parts.slice(1);
  const base = rest[rest.length - 1];
  const stem = base.replace(/\.[^.]+$/, '');
  const names = new Set([path, base, stem]);
  // Any tail of the path at a folder boundary: `ops/calibration.rs`.
  for (let i = 0; i < parts.length; i++) names.add(parts.slice(i).join('/'));
  // Paths below a crate's src/ (or the page's src/) as the map writes them.
  const srcAt = rest.indexOf('src');
  if (srcAt >= 0) {
    const below = rest.slice(srcAt + 1).join('/');
    names.add(below);
    names.add(below.replace(/\.[^.]+$/, ''));
  }
  // A folder module is named by its folder.
  if (/^(mod\.rs|lib\.rs|main\.rs|index\.js)$/.test(base) && rest.length >= 2) {
    const folder = rest[rest.length - 2];
    names.add(`${folder}/`);
    names.add(folder);
    if (srcAt >= 0) names.add(`${rest.slice(srcAt + 1, -1).join('/')}/`);
  }
  return { top, names, base, stem };
}

test('every source file is named in the code map under its top-level folder', () => {
  const sections = codeMap();
  const missing = [];
  for (const path of sources) {
    const { top, names, base, stem } = namesOf(path);
    // A crate's integration tests may be described with the other tests.
    const places = [sections.get(top), /^[^/]+\/tests\//.test(path) ? sections.get('tests') : undefined].filter(Boolean);
    const named = places.some((words) => [...names].some((n) => words.has(n))
      // A family named by a pattern: `collect_*.rs`, `import_*`.
      || [...words].some((w) => w.includes('*') && [base, stem].some((n) => globMatch(w, n))));
    if (!named) missing.push(path);
  }
  assert.deepEqual(missing, [], `ARCHITECTURE.md's code map does not name ${missing.length} source file(s):\n  ${missing.join('\n  ')}\n(name each under its "### \`folder/\`" heading, in backticks)`);
  // And the rule can fail: a file that does not exist is not named.
  assert.ok(![...sections.values()].some((w) => w.has('no-such-module-xyz.rs')));
});

const TEXT = /\.(md|rs|js|mjs|py|toml|html|css|json|sh|yml|yaml)$/;
const textFiles = tracked.filter((p) => (TEXT.test(p) || isScript(p) || p === '.ci/run') && !p.startsWith('tests/fixtures/') && !p.startsWith('web/pkg/'));

test('nothing in the repository points outside it', () => {
  const outside = [];
  for (const path of textFiles.filter((p) => p !== 'tests/unit/tidy.test.mjs')) {
    const text = read(path);
    text.split('\n').forEach((line, i) => {
      if (/\.\.\/shared\b|METHODS\.md|REFERENCE_VECTORS\.md|\/work\/\.library|§00\d|the seed(’|')s (?!stream|jumped|own)|of the seed\b|as in the seed\b/.test(line)) outside.push(`${path}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(outside, [], `pointers outside the repository:\n  ${outside.join('\n  ')}`);
});

test('every relative link in the Markdown docs resolves to a tracked file', () => {
  const broken = [];
  for (const path of tracked.filter((p) => p.endsWith('.md') && !p.startsWith('tests/fixtures/'))) {
    const text = read(path).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const file = decodeURIComponent(target.split('#')[0]);
      const resolved = normalize(posix.join(posix.dirname(path), file)).replace(/\\/g, '/').replace(/\/$/, '');
      const inside = !resolved.startsWith('..');
      const exists = trackedSet.has(resolved) || tracked.some((t) => t.startsWith(`${resolved}/`));
      if (!inside || !exists) broken.push(`${path}: (${target})${inside ? ' not a tracked file' : ' leads outside the repository'}`);
    }
  }
  assert.deepEqual(broken, [], `broken or outside links:\n  ${broken.join('\n  ')}`);
});

test('no comment cites an issue number', () => {
  const cites = [];
  for (const path of textFiles.filter((p) => !p.endsWith('.md') && !p.endsWith('.json'))) {
    read(path).split('\n').forEach((line, i) => {
      if (/\bissues?\s+#?\d+\b/i.test(line) || /\(#\d+\)/.test(line)) cites.push(`${path}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(cites, [], `comments citing issue numbers mean nothing to a reader; say what is meant:\n  ${cites.join('\n  ')}`);
});

/** Cycles of a directed graph (Map node -> Set of nodes), each as a path. */
export function cycles(graph) {
  const found = [];
  const state = new Map(); // 1 = on the stack, 2 = done
  const stack = [];
  const visit = (n) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 1) found.push([...stack.slice(stack.indexOf(m)), m].join(' → '));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return found;
}

test('the cycle finder finds a cycle and passes a tree', () => {
  assert.deepEqual(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]])), ['a → b → c → a']);
  assert.deepEqual(cycles(new Map([['a', new Set(['b', 'c'])], ['b', new Set(['c'])], ['c', new Set()]])), []);
});

/** Each Rust crate's top-level modules and which of them each uses. */
function rustGraphs() {
  const crates = tracked.filter((p) => /(^|\/)src\/(lib|main)\.rs$/.test(p)).map((p) => p.replace(/(lib|main)\.rs$/, ''));
  const graphs = new Map();
  for (const src of new Set(crates)) {
    const files = tracked.filter((p) => p.startsWith(src) && p.endsWith('.rs'));
    const graph = new Map();
    const topOf = (p) => {
      const rest = p.slice(src.length);
      const first = rest.split('/')[0];
      return first.replace(/\.rs$/, '');
    };
    for (const f of files) {
      const from = topOf(f);
      if (from === 'lib' || from === 'main') continue;
      if (!graph.has(from)) graph.set(from, new Set());
    }
    for (const f of files) {
      const from = topOf(f);
      if (from === 'lib' || from === 'main') continue;
      const text = read(f).replace(/\/\/.*$/gm, '');
      // `crate::x` anywhere, and `crate::{x, y::…}` groups.
      for (const [, name] of text.matchAll(/\bcrate::(\w+)/g)) if (name !== from && graph.has(name)) graph.get(from).add(name);
      for (const [, group] of text.matchAll(/\bcrate::\{([^}]*)\}/g)) {
        for (const [, name] of group.matchAll(/(?:^|[,{\s])(\w+)/g)) if (name !== from && graph.has(name)) graph.get(from).add(name);
      }
    }
    graphs.set(src, graph);
  }
  return graphs;
}

test('no Rust crate has a cycle between its top-level modules', () => {
  const graphs = rustGraphs();
  assert.ok(graphs.size >= 3, `found the crates: ${[...graphs.keys()].join(', ')}`);
  const found = [];
  for (const [src, graph] of graphs) for (const c of cycles(graph)) found.push(`${src}: ${c}`);
  assert.deepEqual(found, [], `module cycles (a module that uses one that uses it back):\n  ${found.join('\n  ')}`);
});

/** The registry's lines: `name Variant run|file|page;` in analysis/src/suites/mod.rs. */
function registeredSuites() {
  const text = read('analysis/src/suites/mod.rs');
  return [...text.matchAll(/^\s+([a-z_]+)\s+([A-Z]\w*)\s+(run|file|page);\s*$/gm)].map((m) => m[1]);
}

// Adding a suite touches its collector module, its analysis folder, one
// registry line, its cell folder, its terminal file, its docs and its tests;
// nothing else may list suite names. A quoted name (a string the code
// dispatches on) outside those places is such a list.
test('a suite is named, as a string, only in its own places', () => {
  const suites = registeredSuites();
  assert.ok(suites.length >= 8, `the registry lists the suites (found: ${suites.join(', ')})`);
  // Rust only: the page's own rule is tests/unit/modules.test.mjs. Tests,
  // examples and fuzz targets may name the suites they exercise.
  const code = tracked.filter((p) => p.endsWith('.rs') && !/(^|\/)(tests|examples)\//.test(p) && !p.startsWith('fuzz/'));
  const own = (path, name) => path.startsWith(`analysis/src/suites/${name}/`) || path === `analysis/src/suites/${name}.rs`
    || path.startsWith(`measure/src/${name}/`) || path === `measure/src/${name}.rs`
    || path === `collector/src/terminal/${name}.rs`
    || path.startsWith(`web/src/cells/${name}/`);
  const elsewhere = [];
  for (const path of code) {
    // A file's unit tests (from `#[cfg(test)]` on) may name suites too.
    const lines = read(path).split('#[cfg(test)]')[0].split('\n');
    lines.forEach((line, i) => {
      // Comments, and the file kind `samples` (a kind of file, not the cell).
      if (/^\s*(\/\/|\*|\/\*)/.test(line) || /\bKIND_[A-Z]+: &str =/.test(line)) return;
      for (const name of suites) {
        if (new RegExp(`["'\`]${name}["'\`]`).test(line) && !own(path, name)) elsewhere.push(`${path}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(elsewhere, [], `suite names as strings outside their suite's own files (derive them from the registry instead):\n  ${elsewhere.join('\n  ')}`);
});

test('every repository path a comment or doc names exists', () => {
  const stale = [];
  // The walkthroughs of adding a suite, a format and a cell across files, and
  // their tests, name the files they add.
  const example = new Set(['tests/unit/tidy.test.mjs', 'docs/adding-a-suite.md', 'tests/e2e/adding-a-suite.test.mjs', 'tests/e2e/adding-a-format.test.mjs',
    'docs/adding-a-cell-across-files.md', 'tests/e2e/adding-a-cell-across-files.test.mjs']);
  for (const path of textFiles.filter((p) => !example.has(p))) {
    read(path).split('\n').forEach((line, i) => {
      for (const [named] of line.matchAll(/\b(?:web\/src|analysis\/src|collector\/src|measure\/src)\/[\w/.-]*\w\.(?:js|rs)\b/g)) {
        if (!trackedSet.has(named)) stale.push(`${path}:${i + 1}: ${named}`);
      }
    });
  }
  assert.deepEqual(stale, [], `paths that do not exist (moved or renamed?):\n  ${stale.join('\n  ')}`);
});

// A table of the suites kept by hand (one suite a line: `("clocks", …)`,
// `{ name: 'clocks', … }`) must grow with every suite added, so the
// walkthrough of adding one names it. Tests keep such tables (a check per
// cell, the expected registry); the code keeps none (the test above).
test('every table of suites is named in docs/adding-a-suite.md', () => {
  const suites = registeredSuites();
  const walkthrough = read('docs/adding-a-suite.md');
  const row = new RegExp(`^\\s*[({[]\\s*(?:name:\\s*)?["'\`](${suites.join('|')})["'\`]`, 'gm');
  const tables = [];
  for (const path of tracked.filter((p) => /\.(rs|js|mjs)$/.test(p) && !notCode(p))) {
    const listed = new Set([...read(path).matchAll(row)].map((m) => m[1]));
    if (listed.size >= suites.length / 2) tables.push(path);
  }
  assert.ok(tables.includes('collector/tests/common/mod.rs'), `the check finds the terminal test's table (found: ${tables.join(', ')})`);
  const unnamed = tables.filter((p) => !walkthrough.includes(`\`${p}\``));
  assert.deepEqual(unnamed, [], `tables of suites the walkthrough does not name (a suite added must be added to them):\n  ${unnamed.join('\n  ')}`);
});
