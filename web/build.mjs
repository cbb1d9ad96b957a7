// Builds the page into one self-contained file, web/dist/index.html: the
// stylesheet in a <style>, the page bundle in an inline module script, the
// analysis worker's bundle as text (started from a Blob URL), the wasm
// gzipped and base64-encoded, and an empty data block. The same file is what
// `tickbook serve` serves, what opens from file://, and the template of every
// exported report (the page copies its own document; `tickbook report` fills
// the data block of this file). Run through `npm run build` (scripts/build-web
// builds the wasm first).

import { build } from 'esbuild';
import { mkdir, readFile, readdir, rm, writeFile, access } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { gzipSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const web = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(web, 'dist');
const pkg = path.join(web, 'pkg');
const wasmFile = path.join(pkg, 'tickbook_analysis_wasm_bg.wasm');
const measureWasmFile = path.join(pkg, 'tickbook_browser_measure_bg.wasm');

try {
  await access(path.join(pkg, 'tickbook_analysis_wasm.js'));
  await access(wasmFile);
  await access(path.join(pkg, 'tickbook_browser_measure.js'));
  await access(measureWasmFile);
} catch {
  console.error('web/pkg is missing: run scripts/build-wasm (or scripts/build-web) first');
  process.exit(1);
}

/**
 * `import CELL_BUILDERS from 'tickbook:cells'` (app/notebook.js): every
 * web/src/cells/<name>/index.js's `build`, by its folder's name, so that a
 * suite's cell is found by its name and no list of suites is kept by hand;
 * and `CELL_VIEW_FIELDS` (app/state.js): each one's `viewFields` (what a link
 * keeps of its view), undefined where it keeps nothing.
 * Static imports, not a dynamic import with a pattern: esbuild evaluates
 * those lazily, and every module they import, Observable Plot and d3
 * included, is then wrapped whole (37 KiB more in the page and each report).
 */
const cellsPlugin = {
  name: 'tickbook-cells',
  setup(b) {
    const dir = path.join(web, 'src', 'cells');
    b.onResolve({ filter: /^tickbook:cells$/ }, () => ({ path: 'cells', namespace: 'tickbook-cells' }));
    b.onLoad({ filter: /.*/, namespace: 'tickbook-cells' }, async () => {
      const names = await folderModules(dir);
      // `viewFields` is imported only from the cells that export it (esbuild
      // warns of a namespace member that does not exist).
      const hasFields = await Promise.all(names.map(async (n) =>
        /(?:^|\n)export\s+const\s+viewFields\b/.test(await readFile(path.join(dir, n, 'index.js'), 'utf8'))));
      const lines = names.map((n, i) => `import * as cell${i} from ${JSON.stringify(`./${n}/index.js`)};`);
      const builders = names.map((n, i) => `${JSON.stringify(n)}: cell${i}.build`);
      const fields = names.map((n, i) => `${JSON.stringify(n)}: ${hasFields[i] ? `cell${i}.viewFields` : 'undefined'}`);
      const contents = `${lines.join('\n')}\nexport default { ${builders.join(', ')} };\n` +
        `export const CELL_VIEW_FIELDS = { ${fields.join(', ')} };\n`;
      return { contents, resolveDir: dir, watchDirs: [dir] };
    });
  },
};

/**
 * `import ACROSS from 'tickbook:across'` (app/across.js): every
 * web/src/across/<name>/index.js module, by its folder's name, so that a cell
 * across files is found by the name the analysis lists it by
 * (report::across) and the page keeps no list of them.
 */
const acrossPlugin = {
  name: 'tickbook-across',
  setup(b) {
    const dir = path.join(web, 'src', 'across');
    b.onResolve({ filter: /^tickbook:across$/ }, () => ({ path: 'across', namespace: 'tickbook-across' }));
    b.onLoad({ filter: /.*/, namespace: 'tickbook-across' }, async () => {
      const names = await folderModules(dir);
      const lines = names.map((n, i) => `import * as across${i} from ${JSON.stringify(`./${n}/index.js`)};`);
      const modules = names.map((n, i) => `${JSON.stringify(n)}: across${i}`);
      const contents = `${lines.join('\n')}\nexport default { ${modules.join(', ')} };\n`;
      return { contents, resolveDir: dir, watchDirs: [dir] };
    });
  },
};

/** The folders of `dir` that hold an index.js, sorted. */
async function folderModules(dir) {
  const names = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    try {
      await access(path.join(dir, e.name, 'index.js'));
      names.push(e.name);
    } catch { /* a folder without a module (none today) */ }
  }
  return names.sort();
}

/**
 * One bundle as text, no imports left: the page as an ES module, the worker
 * as a classic script (Chromium refuses module workers from a Blob URL on
 * a file:// page). The wasm glue's default path (`import.meta.url`) is never
 * taken: the worker passes it the embedded bytes.
 */
async function bundle(entry, format) {
  const out = await build({
    entryPoints: [path.join(web, entry)],
    write: false,
    bundle: true,
    format,
    define: format === 'iife' ? { 'import.meta.url': 'undefined' } : {},
    minify: true,
    target: ['es2022'],
    platform: 'browser',
    // Pure ASCII output: the CSP hash and the HTML never meet an encoding question.
    charset: 'ascii',
    legalComments: 'eof',
    logLevel: 'warning',
    plugins: [cellsPlugin, acrossPlugin],
  });
  return out.outputFiles[0].text;
}

/**
 * Text that goes inside a <script> element ends at the first `</script`, and
 * `<!--` can make the parser skip it; esbuild escapes both in strings, and
 * this check makes sure nothing else slipped through.
 */
function scriptSafe(name, text) {
  const bad = /<\/script|<!--/i.exec(text);
  if (bad) throw new Error(`${name} contains ${JSON.stringify(bad[0])} at ${bad.index}: it cannot be inlined in a <script> element`);
  return text;
}

/** Replace `from` (which must occur exactly once) in `html`. */
function replaceOnce(html, from, to) {
  const at = html.indexOf(from);
  if (at < 0 || html.indexOf(from, at + 1) >= 0) throw new Error(`web/index.html must contain ${JSON.stringify(from)} exactly once`);
  return html.slice(0, at) + to + html.slice(at + from.length);
}

const [app, worker, measureWorker, css, template, wasm, measureWasm] = await Promise.all([
  bundle('src/app/main.js', 'esm'),
  bundle('src/worker/worker.js', 'iife'),
  bundle('src/worker/measure.js', 'iife'),
  readFile(path.join(web, 'style.css'), 'utf8'),
  readFile(path.join(web, 'index.html'), 'utf8'),
  readFile(wasmFile),
  readFile(measureWasmFile),
]);
scriptSafe('the page bundle', app);
scriptSafe('the worker bundle', worker);
scriptSafe('the measurement worker bundle', measureWorker);
if (/<\/style/i.test(css)) throw new Error('web/style.css contains </style');

// The only script the page may run is its own bundle (CSP hash); the worker
// starts from a Blob URL and compiles the wasm ('wasm-unsafe-eval').
const appHash = createHash('sha256').update(app, 'utf8').digest('base64');
const wasmText = gzipSync(wasm, { level: constants.Z_BEST_COMPRESSION }).toString('base64');
const measureWasmText = gzipSync(measureWasm, { level: constants.Z_BEST_COMPRESSION }).toString('base64');

let html = template;
html = replaceOnce(html, "script-src 'self'", `script-src 'sha256-${appHash}'`);
html = replaceOnce(html, '<link rel="stylesheet" href="./style.css">', `<style>\n${css}</style>`);
html = replaceOnce(html, '<script type="module" src="./src/app/main.js"></script>', `<script type="module">${app}</script>`);
html = replaceOnce(html, '</body>', [
  `<script type="text/plain" id="tickbook-worker">${worker}</script>`,
  `<script type="application/octet-stream" id="tickbook-wasm" data-encoding="gzip+base64">${wasmText}</script>`,
  // Measure this browser: its own worker and wasm (web/src/worker/measure.js).
  `<script type="text/plain" id="tickbook-measure-worker">${measureWorker}</script>`,
  `<script type="application/octet-stream" id="tickbook-measure-wasm" data-encoding="gzip+base64">${measureWasmText}</script>`,
  // Filled by Export report and `tickbook report`: files and view (see web/src/app/embed.js).
  '<script type="application/json" id="tickbook-data"></script>',
  '</body>',
].join('\n'));

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await writeFile(path.join(dist, 'index.html'), html);
const kb = (n) => `${Math.round(n / 1024)} KiB`;
console.log(`built ${path.relative(process.cwd(), path.join(dist, 'index.html'))}: ${kb(html.length)} ` +
  `(page ${kb(app.length)}, worker ${kb(worker.length)}, wasm ${kb(wasm.length)} → ${kb(wasmText.length)} gzip+base64, ` +
  `measurement ${kb(measureWorker.length)} + wasm ${kb(measureWasm.length)} → ${kb(measureWasmText.length)}, style ${kb(css.length)})`);
