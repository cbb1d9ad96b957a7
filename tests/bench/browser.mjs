// Benchmark: Measure this browser in headless Chromium against the same
// machine's native `ops` file. Serves web/dist with `tickbook serve`, plain
// and `--isolated`, clicks the page's button (quick unless --full), saves
// each result file, and prints, from the analysis (`tickbook analyze --json`
// and `--native`):
//   - wasm i64.add latency against native add_i64 latency (goal: within 10 %),
//   - r of the wasm-on-native regression over paired ops (goal: ≥ 0.95),
//   - Bernoulli coverage of the long-run reference (the trials' own wall
//     time: long runs of the passes counted; of the untimed long runs beside
//     it) for ops whose sequences
//     last ≥ 100 ns (goal: ≥ 90 %),
//   - the performance.now and Date.now ticks with and without isolation.
//
//   node tests/bench/browser.mjs NATIVE_OPS.json [--full] [--out DIR]
//   (scripts/bench-browser collects NATIVE_OPS.json first)

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  ROOT, checkPrerequisites, serve, openBrowser, waitForFiles, analyzeJson, tickbook,
} from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const native = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--out');
const full = args.includes('--full');
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : path.join(ROOT, 'target/tickbook-test/bench-browser');
if (!native) {
  console.error('usage: node tests/bench/browser.mjs NATIVE_OPS.json [--full] [--out DIR]');
  process.exit(2);
}
await checkPrerequisites();
await mkdir(out, { recursive: true });

async function measure(isolated) {
  const server = await serve(path.join(out, 'results'), { args: isolated ? ['--isolated'] : [] });
  const { page, close } = await openBrowser(server.url);
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => document.getElementById('version').textContent.trim() !== '…');
    if (!full) await page.getByTestId('measure-quick').check();
    const t0 = Date.now();
    await page.getByTestId('measure-browser').click();
    await waitForFiles(page, 1, full ? 900_000 : 300_000);
    const seconds = (Date.now() - t0) / 1000;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('measure-save').click()]);
    const file = path.join(out, `browser-${isolated ? 'isolated' : 'plain'}.json`);
    await download.saveAs(file);
    return { file, seconds };
  } finally {
    await close();
    await server.stop();
  }
}

const pct = (x) => `${(100 * x).toFixed(1)} %`;
const ns = (x) => (x == null ? '—' : x >= 1000 ? `${(x / 1000).toPrecision(4)} µs` : `${x.toPrecision(4)} ns`);
let failed = false;
const goal = (ok) => {
  if (!ok) failed = true;
  return ok ? 'goal met' : 'GOAL MISSED';
};

const runs = {};
for (const isolated of [false, true]) runs[isolated ? 'isolated' : 'plain'] = await measure(isolated);
const reports = {};
for (const [k, r] of Object.entries(runs)) {
  const [rep] = await analyzeJson([r.file]);
  if (!rep.ok) throw new Error(`${r.file}: ${JSON.stringify(rep.error)}`);
  reports[k] = rep.browser;
}

console.log(`native ops file: ${native}`);
console.log(`browser: ${reports.isolated.user_agent}`);
console.log(`measurement (${full ? 'full' : 'quick'}): ${runs.plain.seconds.toFixed(1)} s plain, ${runs.isolated.seconds.toFixed(1)} s isolated; files in ${out}`);
console.log('\nclock ticks (mean step; modal step; observed tick; jitter):');
for (const name of ['performance.now', 'Date.now', 'performance.timeOrigin + now']) {
  for (const k of ['plain', 'isolated']) {
    const c = reports[k].clocks.find((x) => x.name === name);
    console.log(`  ${name.padEnd(28)} ${k.padEnd(8)} ${ns(c?.mean_step_ns).padStart(10)}; ${ns(c?.modal_step_ns)}; ${ns(c?.observed_tick_ns)}; jitter ${ns(c?.jitter_ns)}; read ${ns(c?.read_cost_median_ns)}; backward ${c?.backward_steps}`);
  }
}

for (const k of ['isolated', 'plain']) {
  const cmp = JSON.parse(await tickbook(['analyze', '--json', runs[k].file, '--native', native]));
  const add = cmp.pairs.find((p) => p.wasm === 'i64.add' && p.form === 'latency');
  console.log(`\n${k} page (${cmp.pairs.length} paired ops, native by the ${cmp.native_clock} clock):`);
  if (add) {
    const diff = add.wasm_ns / add.native_ns - 1;
    console.log(`  i64.add latency ${ns(add.wasm_ns)} vs native add_i64 ${ns(add.native_ns)}: ${diff >= 0 ? '+' : ''}${pct(diff)} (goal within 10 %: ${goal(Math.abs(diff) <= 0.1)})`);
  } else {
    console.log(`  i64.add latency: no pair (${goal(false)})`);
  }
  if (cmp.fit) {
    console.log(`  wasm on native over paired ops: r = ${cmp.fit.r.toFixed(4)} (goal ≥ 0.95: ${goal(cmp.fit.r >= 0.95)}), slope ${cmp.fit.slope.toFixed(3)} [${cmp.fit.slope_ci[0].toFixed(3)}, ${cmp.fit.slope_ci[1].toFixed(3)}], intercept ${ns(cmp.fit.intercept)}`);
  } else {
    console.log(`  wasm on native: no fit (${goal(false)})`);
  }
  console.log(`  geometric mean ratio wasm/native: ${cmp.geometric_mean_ratio?.toFixed(3)}; slower than ${cmp.slow_factor}× that: ${cmp.slow.join(', ') || 'none'}`);
  const c = reports[k].coverage;
  console.log(c
    ? `  Bernoulli coverage of the long-run reference${c.wall_reference ? ' (the trials\' wall time)' : ''}, sequences ≥ ${c.min_sequence_ns} ns: ${c.covered} of ${c.ops} = ${pct(c.share)} (goal ≥ 90 %: ${goal(c.share >= 0.9)})` +
      (c.wall_reference ? `\n  of the untimed long runs (the clock not read between passes): ${c.covered_untimed} of ${c.ops} = ${pct(c.covered_untimed / c.ops)}` : '')
    : `  Bernoulli coverage: no op with a sequence ≥ 100 ns (${goal(false)})`);
}
process.exit(failed ? 1 : 0);
