// Benchmark: DTW with its warping path of two 3000-record series in the
// page's analysis worker (wasm), as the Perturbation cell runs it. Serves
// web/dist with `tickbook serve`, loads tests/fixtures/trace-small.json,
// presses the cell's "Time DTW" button (the worker times the wasm call, best
// of 5 after a warm-up) and prints the figure. Goal: under 100 ms.
//
//   node tests/bench/dtw.mjs            (needs scripts/build-web and
//                                        cargo build --release -p tickbook)

import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, checkPrerequisites, tempDir, serve, openBrowser, waitForFiles } from '../e2e/harness.mjs';

await checkPrerequisites();
const tmp = await tempDir('tickbook-bench-');
const results = path.join(tmp, 'results');
await mkdir(results, { recursive: true });
await copyFile(path.join(FIXTURES, 'trace-small.json'), path.join(results, 'trace-small.json'));
const server = await serve(results);
const { page, close } = await openBrowser(server.url);
let failed = false;
try {
  await page.goto(`${server.url}?url=/results/trace-small.json`);
  await waitForFiles(page, 1, 90_000);
  for (const pattern of ['symmetric2', 'symmetric1']) {
    await page.selectOption('[data-testid=trace-step-pattern]', pattern);
    await page.waitForFunction((p) => document.querySelector('.slot')?.dataset.options?.includes(`"${p}"`), pattern);
    await page.waitForSelector('[data-testid=trace-bench]');
    await page.click('[data-testid=trace-bench]');
    await page.waitForFunction(() => document.querySelector('[data-testid=trace-bench-result]')?.dataset.value, null, { timeout: 60_000 });
    const ms = Number(await page.$eval('[data-testid=trace-bench-result]', (e) => e.dataset.value));
    const text = await page.$eval('[data-testid=trace-bench-result]', (e) => e.textContent);
    console.log(`dtw ${pattern} 3000 x 3000 with path, in the page's worker (wasm): ${ms.toFixed(1)} ms  [${text}]  goal < 100 ms: ${ms < 100 ? 'met' : 'NOT met'}`);
    if (!(ms < 100)) failed = true;
  }
} finally {
  await close();
  await server.stop();
  await rm(tmp, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
