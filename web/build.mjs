// Builds the page into web/dist: bundles the entry points (page and analysis
// worker) as ES modules, and copies the HTML, the stylesheet and the wasm
// package. Run through `npm run build` (scripts/build-web builds wasm first).

import { build } from 'esbuild';
import { cp, mkdir, readdir, rm, access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const web = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(web, 'dist');
const pkg = path.join(web, 'pkg');

try {
  await access(path.join(pkg, 'tickbook_analysis_wasm.js'));
} catch {
  console.error('web/pkg is missing: run scripts/build-wasm (or scripts/build-web) first');
  process.exit(1);
}

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

await build({
  entryPoints: [path.join(web, 'src/main.js'), path.join(web, 'src/worker.js')],
  outdir: dist,
  bundle: true,
  format: 'esm',
  splitting: false,
  minify: true,
  sourcemap: true,
  target: ['es2022'],
  platform: 'browser',
  legalComments: 'linked',
  logLevel: 'warning',
});

await cp(path.join(web, 'index.html'), path.join(dist, 'index.html'));
await cp(path.join(web, 'style.css'), path.join(dist, 'style.css'));
for (const name of await readdir(pkg)) {
  if (name.endsWith('.d.ts') || name === 'package.json' || name === '.gitignore') continue;
  await cp(path.join(pkg, name), path.join(dist, name));
}
console.log(`built ${path.relative(process.cwd(), dist) || dist}`);
