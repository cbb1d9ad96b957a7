// The wasm side of scripts/bench-analysis: times the wasm `analyze` (the
// page's worker's call) in Node's V8, one request per line on stdin
// (`analyze FILE`), answering with the seconds it took or `error: …`.
// Needs web/pkg (scripts/build-wasm).
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = path.join(ROOT, 'web/pkg');
const wasm = await import(path.join(pkg, 'tickbook_analysis_wasm.js'));
await wasm.default({ module_or_path: await readFile(path.join(pkg, 'tickbook_analysis_wasm_bg.wasm')) });
const options = wasm.defaultOptions();

for await (const line of createInterface({ input: process.stdin })) {
  const [kernel, file] = line.trim().split(/\s+/);
  if (!file) continue;
  try {
    if (kernel !== 'analyze') throw new Error(`unknown kernel ${kernel}`);
    const bytes = new Uint8Array(await readFile(file));
    const t = performance.now();
    const report = wasm.analyze(path.basename(file), bytes, options);
    const s = (performance.now() - t) / 1000;
    if (report.error) throw new Error(JSON.stringify(report.error));
    process.stdout.write(`${s.toFixed(9)}\n`);
  } catch (e) {
    process.stdout.write(`error: ${String(e.message ?? e).replace(/\n/g, ' ')}\n`);
  }
}
