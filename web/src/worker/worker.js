// The analysis worker: owns the WebAssembly module (initialised once), the
// bytes of every file and, in the module, each file's document read once
// (wasm `keep`, report::kept): analyses, a samples file's batches and the
// cells across files start from the kept document, never from the bytes
// again. The main thread never parses JSON or computes statistics.
// Requests are handled one at a time: calls and file headers first, then
// the files' analyses, each queue in order (pump).
//
// in:  {type: 'analyze', id, name, buffer?, options?}  (buffer transferred;
//      without it the bytes kept from an earlier request are re-analysed)
//      {type: 'forget', id}
//      {type: 'plan', id, args: {event_ns, tick_ns, overhead_ns, epsilon, confidence}}
//      {type: 'call', id, fn: 'exportFit', args: [report, form]}
//      {type: 'call', id, fn: 'applyCalibration', args: [ops, fitName, fitBuffer]}
//      {type: 'call', id, fn: 'across', args: [name, ids, options, params]}  (the cell
//      across files `name` of the files `ids`, report::across; its params as the
//      cell takes them, e.g. a comparison's `suites`: analyzer.js spreads a
//      comparison's suites over its workers; app/across.js)
//      {type: 'call', id, fn: 'fileBytes', args: [id]}  (a loaded file's bytes, export.js)
//      {type: 'call', id, fn: 'dtwBench', args: [n, stepPattern, band]}  (trace.js)
//      {type: 'call', id, fn: 'checkOptions', args: [options]}  (a link's options, state.js)
//      {type: 'call', id, fn: 'checkSize', args: [name, size]}  (before a file is read, main.js)
//      {type: 'call', id, fn: 'intakePlan', args: [entries]}  (a folder's inputs, intake.js)
//      {type: 'analyze', id, name, buffer, store: true, keep?, options?}  (keep the
//      bytes only: a restarted worker gets the files back this way, see
//      Analyzer.cancel; with `keep`, read them now within `options`' limits: the
//      other workers of the pool get a copy of each file this way, analyzer.js)
// out: {type: 'ready', version, defaultOptions, maxFileBytes, cells, across, intake} | {type: 'fatal', message}
//      (cells: the analysis' suite cells, wasm `cells()`: [{name, title, cost}] in display order;
//      across: its cells across files, wasm `acrossCells()`: [{name, title, needs, cost}];
//      intake: the rules of a folder's walk, wasm `intakeRules()`, for intake.js)
//      {type: 'read', id, report}  (the owner, as soon as a file is read: its
//      report's header, wasm keptHeader: ok, kind, info, no cell; the page
//      asks for the cells across files by it, main.js)
//      {type: 'started', id} | {type: 'result', id, report} | {type: 'failed', id, message}
//      (a report's suite cells are JSON text: packCells)
//      {type: 'result', id, report, partial: true, cells, growing?}  (with
//      `progressive`: `cells` names the suites' cells in `report` new since the
//      last message; the final {type: 'result', id, report, merged} names in
//      `merged` the cells sent earlier that the page adds back; see
//      analyzeProgressively. `growing: {[cell]: {done, total}}`: that cell
//      comes in parts, `report[cell]` holding only this part's rows (a samples
//      file's series, a batch at a time: analyzeSamples); the page appends
//      them to the cell. The final result names it in `grown`: there
//      `report[cell]` is the cell without its rows, which the parts had)
//      {type: 'planned', id, plan} (plan: {p, trials, wall_time} or null) | {type: 'plan-failed', id, message}
//      {type: 'called', id, value} | {type: 'call-failed', id, message}
//      {type: 'call-part', id, suite, head?, items} (a report of suites: postInParts)

import init, { applyCalibration, defaultOptions, exportFit, plan, version } from '../../pkg/tickbook_analysis_wasm.js';
// Each file's document, read once and kept in the module under the file's id (report::kept).
import { keep, forget, isKept, keptHeader, keptReport, keptSuites, samplesBatch, acrossKept } from '../../pkg/tickbook_analysis_wasm.js';
// The suite cells: their names, titles, display and analysis order; the cells across files.
import { cells as cellList, acrossCells } from '../../pkg/tickbook_analysis_wasm.js';
// Which files of a folder are read, and as what (analysis/src/intake.rs; intake.js).
import { intakePlan, intakeRules } from '../../pkg/tickbook_analysis_wasm.js';
// How big a file may be (analysis/src/limits.rs): checked before a file is read (main.js).
import { checkSize, maxFileBytes } from '../../pkg/tickbook_analysis_wasm.js';
// Options restored from a link, checked field by field (state.js).
import { checkOptions } from '../../pkg/tickbook_analysis_wasm.js';
// The wasm comes embedded in the page, as the page's first message (boot.js).
import { embeddedWasm } from './boot.js';
// DTW for the Perturbation cell's benchmark (trace.js).
import { dtw } from '../../pkg/tickbook_analysis_wasm.js';

// The only functions a 'call' may name: calibration fits, computed in Rust.
const CALLS = {
  exportFit: (report, form) => exportFit(report, form),
  applyCalibration: (ops, fitName, fitBuffer) => applyCalibration(ops, fitName, new Uint8Array(fitBuffer)),
  // A loaded file's bytes, for Export report (export.js).
  fileBytes: (id) => files.get(id)?.bytes ?? null,
  // Time DTW with its path on two n-record series, here in the worker (trace.js).
  dtwBench: (n, stepPattern, band) => dtwBench(n, stepPattern, band),
  // A cell across files of the loaded files `ids` (report::across), by its name.
  across: (name, ids, options, params) => acrossKept(name, ids.filter((id) => kept(id, options)), options, params ?? null),
  // A folder's inputs from the files its walk kept (analysis intake::plan, intake.js).
  intakePlan: (entries) => intakePlan(entries),
  // Why the analysis would refuse these options, or null (a link's options, state.js).
  checkOptions: (options) => checkOptions(options) ?? null,
  // Why a file of this size is too big to read, or null (main.js).
  checkSize: (name, size) => checkSize(name, size) ?? null,
};

const files = new Map(); // id -> {name, bytes}

/**
 * Whether file `id` is loaded; its document is then kept in the module, read
 * within `options`' limits (read now from its bytes when it is not yet, or
 * was read within other limits).
 */
function kept(id, options) {
  const f = files.get(id);
  if (!f) return false;
  // New bytes: the document kept for this id (if any) is of the old ones.
  if (f.fresh) {
    f.fresh = false;
    forget(id);
  }
  if (!isKept(id, options ?? undefined)) keep(id, f.name, f.bytes, options ?? undefined);
  return true;
}

// Items of a compared suite per message, at most; fewer with many files,
// each item holding every file's comparison (PART_ENTRIES per message):
// a hundred items of a thousand files were one message of ~40 MB.
const PART_ITEMS = 100;
const PART_ENTRIES = 2400;

/**
 * Post a report of suites (a comparison, a campaign) in parts: each suite's items a hundred at a time (fewer with many files)
 * ({type: 'call-part', id, suite, head?, items}), then the rest of the report
 * with `parts: true` (analyzer.js puts the suites back). Posted whole, the
 * comparison of 24 files was read (structured clone) on the main thread in
 * one long task; each part is read in a task of its own.
 */
function postInParts(id, report) {
  const per = Math.max(1, Math.min(PART_ITEMS, Math.floor(PART_ENTRIES / Math.max(1, report.files?.length ?? 1))));
  report.suites.forEach((suite, k) => {
    const { items, ...head } = suite;
    for (let i = 0; i === 0 || i < items.length; i += per) {
      postMessage({ type: 'call-part', id, suite: k, head: i === 0 ? head : undefined, items: items.slice(i, i + per) });
    }
  });
  postMessage({ type: 'called', id, value: { ...report, suites: [] }, parts: true });
}

/**
 * DTW of two deterministic n-record series (a noisy wave and a time-shifted,
 * stretched copy) with the warping path, timed around the wasm call (the
 * result's conversion to JS included). Best of 5 after one warm-up.
 */
function dtwBench(n, stepPattern = 'symmetric2', band = undefined) {
  let s = 12345;
  const noise = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296 - 0.5;
  const x = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 40) + 0.1 * noise());
  const y = Float64Array.from({ length: n }, (_, i) => Math.sin((i * 0.97 + 25) / 40) + 0.1 * noise());
  const times = [];
  let r;
  for (let k = 0; k < 6; k++) {
    const t0 = performance.now();
    r = dtw(x, y, stepPattern, band ?? undefined);
    const t = performance.now() - t0;
    if (k > 0) times.push(t);
  }
  return { n, step_pattern: stepPattern, band: band ?? null, ms_best: Math.min(...times), ms_all: times, distance: r.distance, path_steps: r.index1.length };
}

// The suite cells' names: in display order (CELLS) and from the cheapest to
// analyse to the dearest (BY_COST; alloc's bootstraps take seconds). Set once
// the wasm is up.
let CELLS = [];
let BY_COST = [];

const ready = embeddedWasm().then((bytes) => init({ module_or_path: bytes }))
  .then(() => {
    const raw = cellList();
    const list = typeof raw === 'string' ? JSON.parse(raw) : raw;
    CELLS = list.map((c) => c.name);
    BY_COST = [...list].sort((a, b) => a.cost - b.cost).map((c) => c.name);
    postMessage({ type: 'ready', version: version(), defaultOptions: defaultOptions(), maxFileBytes: maxFileBytes(), cells: list, across: acrossCells(), intake: intakeRules() });
    return true;
  })
  .catch((e) => {
    postMessage({ type: 'fatal', message: `could not start the analysis (WebAssembly): ${e?.message ?? e}` });
    return false;
  });

// Two queues, each in order: calls (the cells across files, plans) and
// files' headers first, then the files' own analyses. With a thousand
// files loaded at once, the History asked once they are read would
// otherwise wait behind every file's analysis (tens of seconds); a call
// waits at most for the analysis under way. A file's bytes are taken at
// once, so a call that jumps the queue finds every file sent before it.
const urgent = [];
const queue = [];
let pumping = false;
self.onmessage = (event) => {
  const msg = event.data;
  if (msg?.type === 'analyze' && msg.buffer) {
    files.set(msg.id, { name: msg.name, bytes: new Uint8Array(msg.buffer), fresh: true });
    // The owner tells the page what the file is as soon as it is read.
    if (!msg.store) urgent.push({ type: 'header', id: msg.id, options: msg.options });
  }
  // (A file forgotten is gone at once too: an analysis still queued finds it no longer loaded.)
  if (msg?.type === 'forget') files.delete(msg.id);
  (msg?.type === 'call' || msg?.type === 'plan' || msg?.type === 'forget' ? urgent : queue).push(msg);
  pump();
};

async function pump() {
  if (pumping) return;
  pumping = true;
  while (urgent.length || queue.length) {
    // Before an analysis, the messages posted meanwhile are taken in
    // (a call among them goes first).
    if (!urgent.length) await nextTask();
    const msg = urgent.length ? urgent.shift() : queue.shift();
    if (!msg) continue;
    try {
      await handle(msg);
    } catch (e) {
      const type = msg?.type === 'plan' ? 'plan-failed' : msg?.type === 'call' ? 'call-failed' : 'failed';
      postMessage({ type, id: msg?.id, message: String(e?.message ?? e) });
    }
  }
  pumping = false;
}

// A timer's turn: the messages posted to the worker meanwhile are dispatched before it.
function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function handle(msg) {
  if (msg.type === 'header') {
    // (A failure here is the analysis' to report.)
    if (!(await ready) || !files.has(msg.id)) return;
    try {
      kept(msg.id, msg.options ?? undefined);
      postMessage({ type: 'read', id: msg.id, report: keptHeader(msg.id, msg.options ?? undefined) });
    } catch { /* the analysis says why */ }
    return;
  }
  if (msg.type === 'forget') {
    if ((await ready) && !files.has(msg.id)) forget(msg.id);
    return;
  }
  if (msg.type === 'plan') {
    if (!(await ready)) {
      postMessage({ type: 'plan-failed', id: msg.id, message: 'the analysis module did not start' });
      return;
    }
    try {
      const a = msg.args;
      postMessage({ type: 'planned', id: msg.id, plan: plan(a.event_ns, a.tick_ns, a.overhead_ns, a.epsilon, a.confidence) ?? null });
    } catch (e) {
      postMessage({ type: 'plan-failed', id: msg.id, message: String(e?.message ?? e) });
    }
    return;
  }
  if (msg.type === 'call') {
    const fn = Object.hasOwn(CALLS, msg.fn) ? CALLS[msg.fn] : null;
    if (!fn) throw new Error(`unknown call ${String(msg.fn)}`);
    if (!(await ready)) throw new Error('the analysis module did not start');
    const value = fn(...msg.args);
    if (msg.fn === 'across' && Array.isArray(value?.suites)) postInParts(msg.id, value);
    else postMessage({ type: 'called', id: msg.id, value });
    return;
  }
  if (msg.type !== 'analyze') return;
  if (msg.store) {
    // (A copy for comparisons: a failure here is the owner's to report, when it analyses the file.)
    try {
      if (msg.keep && (await ready)) kept(msg.id, msg.options);
    } catch { /* read again when a comparison needs it */ }
    return;
  }
  const file = files.get(msg.id);
  if (!(await ready)) {
    postMessage({ type: 'failed', id: msg.id, message: 'the analysis module did not start' });
    return;
  }
  if (!file) {
    postMessage({ type: 'failed', id: msg.id, message: 'the file is no longer loaded' });
    return;
  }
  postMessage({ type: 'started', id: msg.id });
  try {
    const options = msg.options ?? undefined;
    kept(msg.id, options);
    const { report, merged, grown } = msg.progressive
      ? analyzeProgressively(msg.id, options)
      : { report: keptReport(msg.id, options), merged: [] };
    postMessage({ type: 'result', id: msg.id, report: packCells(report), merged, grown });
  } catch (e) {
    postMessage({ type: 'failed', id: msg.id, message: String(e?.message ?? e) });
  }
}

/**
 * The report with each suite's cell as JSON text (notebook.js parses a cell
 * when it builds it). Read on the main thread, a 250-series Samples cell was
 * a graph of ~100,000 objects to copy in and then keep: every garbage
 * collection traced it again, cells not yet built included. Text is one
 * copy and one untraced string. (JSON as `tickbook analyze --json` writes
 * it: a non-finite number is null there too.)
 */
function packCells(report) {
  if (!report?.ok) return report;
  const packed = { ...report };
  for (const s of CELLS) if (packed[s] != null && typeof packed[s] !== 'string') packed[s] = JSON.stringify(packed[s]);
  return packed;
}

// The cheapest cells, analysed together in the first call: each is quick.
const FIRST_CALL = 3;

// A samples file's series per batch: the first batch small, so the first
// rows show within a second or so (~15 ms a series of 5 × 200 measurements
// in wasm), the next ones bigger, so a big file is not hundreds of messages.
// Fixed counts, not timed: the messages a file makes are the same on every
// machine (the page's test counts them). Results never depend on them
// (analysis/tests/kept.rs: batches of any size equal the whole file).
const FIRST_BATCH = 20;
const BATCH = 80;

/**
 * A samples file's report, its series a batch at a time (wasm samplesBatch):
 * each batch's rows posted as a growing Samples cell, then the whole report
 * (wasm keptReport: the batches' series and the clustering, which needs them
 * all), equal to `analyze`'s, less the rows the page has: its cell with no
 * series, named in `grown` (the page puts the parts' rows back: sent again,
 * a big cell's rows would be read on the main thread a second time, in one
 * long task). Null for any other file.
 */
function analyzeSamples(id, options) {
  let batch = samplesBatch(id, options, FIRST_BATCH);
  if (batch == null) return null;
  for (;;) {
    // The cell's shape with only this batch's series (the page appends them).
    const report = { ...batch.report, [batch.name]: JSON.stringify(batch.cell) };
    postMessage({ type: 'result', id, partial: true, report, cells: [batch.name], growing: { [batch.name]: { done: batch.done, total: batch.total } } });
    if (batch.done >= batch.total) break;
    batch = samplesBatch(id, options, BATCH);
  }
  const report = keptReport(id, options);
  if (report[batch.name]) report[batch.name] = { ...report[batch.name], series: [] };
  return { report, merged: [], grown: [batch.name] };
}

/**
 * The file's report, built suite by suite (report::kept, only some suites'
 * cells) from the cheapest to analyse to the dearest (BY_COST), each cell
 * posted as a partial result as soon as it is ready, so that the first shows
 * early; a samples file's series a batch at a time (analyzeSamples). Each
 * cell is computed from its own suite alone, so the final report equals
 * `analyze`'s: it is the last call's (header, info and every warning, the
 * last suite's included) with the earlier calls' cells.
 */
function analyzeProgressively(id, options) {
  const samples = analyzeSamples(id, options);
  if (samples) return samples;
  const first = keptSuites(id, options, BY_COST.slice(0, FIRST_CALL));
  const rest = first.ok ? BY_COST.slice(FIRST_CALL).filter((s) => first.info?.suites?.includes(s)) : [];
  if (!rest.length) return { report: first, merged: [] };
  const cells = {};
  // A partial result carries only the cells new since the last one (the
  // page merges them): re-sending every earlier cell made each message, and
  // its decoding on the main thread, grow with the file.
  const post = (r) => {
    const fresh = {};
    for (const s of CELLS) {
      if (r[s] != null) {
        cells[s] = r[s];
        fresh[s] = r[s];
      }
    }
    if (Object.keys(fresh).length) postMessage({ type: 'result', id, partial: true, report: packCells(r), cells: Object.keys(fresh) });
  };
  post(first);
  for (const suite of rest.slice(0, -1)) post(keptSuites(id, options, [suite]));
  // The final message, too, carries only its own cell; `merged` names the
  // earlier ones the page adds back (Analyzer).
  const last = keptSuites(id, options, rest.slice(-1));
  return { report: last, merged: Object.keys(cells) };
}
