// Seeds of each fuzz target from the repository's fixtures, written by
// scripts/fuzz before a run: node fuzz/seeds.mjs TARGET OUT_DIR MAX_LEN.
//
// A fixture longer than MAX_LEN (libFuzzer would cut it into invalid JSON)
// is shrunk instead: its longest array is halved until it fits, so the seed
// keeps its structure.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [target, out, maxLenArg] = process.argv.slice(2);
const maxLen = Number(maxLenArg);
const root = new URL('..', import.meta.url).pathname;
const fixtures = join(root, 'tests/fixtures');
const imp = join(fixtures, 'import');

const json = (dir) => readdirSync(dir)
  .filter((n) => /\.(json|ndjson)$/.test(n))
  .map((n) => join(dir, n))
  .filter((p) => statSync(p).isFile());

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

const criterionTree = join(imp, 'criterion/target-criterion');
// The page's bundle of a folder (web/src/app/intake.js `fromFolder`): paths
// relative to the folder picked.
function bundle(dir) {
  const entries = walk(dir)
    .filter((p) => p.endsWith('.json'))
    .sort()
    .map((p) => ({ path: relative(dir, p), text: readFileSync(p, 'utf8') }));
  return JSON.stringify({ tickbook_folder: 1, entries });
}

const native = [...json(fixtures), ...json(join(fixtures, 'bad'))];
const byTarget = {
  read_native: native,
  import_pyperf: json(join(imp, 'pyperf')).filter((p) => !p.endsWith('expected.json')),
  import_jmh: json(join(imp, 'jmh')),
  import_google_benchmark: json(join(imp, 'googlebench')),
  import_hyperfine: json(join(imp, 'hyperfine')),
  import_criterion: walk(criterionTree).filter((p) => p.endsWith('.json')),
  import_cargo_criterion: json(join(imp, 'criterion')),
  import_pytest_benchmark: json(join(imp, 'pytest-benchmark')),
  import_go_bench: [join(imp, 'gobench/go-bench.txt')],
  import_go_test_json: [join(imp, 'gobench/go-bench.json')],
  import_perf_stat_csv: walk(join(imp, 'perf')).filter((p) => p.endsWith('.csv')),
  import_perf_stat_json: walk(join(imp, 'perf')).filter((p) => p.endsWith('.json')),
  import_perf_stat_text: walk(join(imp, 'real/perf-text')).filter((p) => !p.endsWith('.json') && !p.endsWith('.md')),
};
byTarget.analyze = Object.values(byTarget).flat();

let seeds; // [name, text]
if (target === 'folder') {
  const benches = readdirSync(join(criterionTree, 'tiny')).map((b) => join(criterionTree, 'tiny', b));
  seeds = [criterionTree, join(criterionTree, 'tiny'), ...benches]
    .map((d, i) => [`bundle-${i}.json`, bundle(d)]);
} else if (byTarget[target]) {
  seeds = byTarget[target].map((p) => [relative(fixtures, p).replace(/[/ ]/g, '_'), readFileSync(p, 'utf8')]);
} else {
  console.error(`seeds.mjs: no seeds for target ${target}`);
  process.exit(1);
}

function shrink(text) {
  if (Buffer.byteLength(text) <= maxLen) return text;
  let v;
  try { v = JSON.parse(text); } catch { return text.slice(0, maxLen); }
  for (let i = 0; i < 64 && Buffer.byteLength(JSON.stringify(v)) > maxLen; i++) {
    let longest = null;
    (function find(x) {
      if (Array.isArray(x)) {
        if (!longest || x.length > longest.length) longest = x;
        x.forEach(find);
      } else if (x && typeof x === 'object') Object.values(x).forEach(find);
    })(v);
    if (!longest || longest.length < 2) break;
    longest.length = Math.ceil(longest.length / 2);
  }
  return JSON.stringify(v);
}

mkdirSync(out, { recursive: true });
for (const [name, text] of seeds) writeFileSync(join(out, name), shrink(text));
console.log(seeds.length);
