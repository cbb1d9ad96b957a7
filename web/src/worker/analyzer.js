// Main-thread side of the analysis workers: one promise per request, and
// progress events (`i of n`, current name) for the status line.
//
// A pool of workers, one per core the browser reports (at most POOL_MAX),
// each with its own wasm: a file is analysed by one of them (its owner, the
// least loaded by bytes when it comes), and every worker keeps a copy of
// every file, read as it comes (worker.js `store` with `keep`), so that a
// comparison's suites can be spread over them (`across` with `spread`: a
// part each, put back in order) and any cell across files run on any. Why: the comparison of
// many files is dominated by a few dear suites (the samples suite's
// hierarchical bootstraps above all), which one worker computes one after
// another while the others wait; with a worker per core, those suites run
// side by side and the files are analysed several at a time
// (scripts/bench-page prints the times). Results never depend on the number of workers:
// a file's report is computed by one worker whole, and each compared suite
// is computed alone (analysis/tests/kept.rs: the parts equal the whole).

import { createWorker } from './boot.js';

// Workers at most: each holds every file and its document (memory grows
// with the pool), and beyond a few the comparison has no more suites to spread.
const POOL_MAX = 4;

/** How many workers the page starts: one per core, 1 to POOL_MAX. */
function poolSize() {
  const cores = Number(globalThis.navigator?.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(POOL_MAX, cores));
}

export class Analyzer {
  constructor({ onProgress, onFatal }) {
    this.onProgress = onProgress;
    this.onFatal = onFatal;
    this.pending = new Map(); // id -> {name, resolve}
    this.plans = new Map(); // plan id -> {resolve, reject}
    this.planCounter = 0;
    this.batchTotal = 0;
    this.batchDone = 0;
    this.size = poolSize();
    this.owner = new Map(); // file id -> index of the worker that analyses it
    this.bytes = new Map(); // file id -> its size in bytes (how a comparison is spread)
    this.suitesOf = new Map(); // file id -> its suites, from its last report
    this.cellOrder = []; // the cells' names in display order (a comparison's suites are put back in it)
    this.start();
  }

  /** Start the workers (again, after `cancel`); `ready` resolves when their wasm is up. */
  start() {
    this.workers = Array.from({ length: this.size }, (_, i) => createWorker(i)); // from the code embedded in the page (boot.js)
    this.load = this.workers.map(() => 0); // bytes each worker owns
    this.owner.clear();
    const readies = this.workers.map(() => {
      const d = {};
      d.promise = new Promise((resolve, reject) => Object.assign(d, { resolve, reject }));
      return d;
    });
    this.readies = readies;
    // Worker 0's answer: version, default options, size limit, cells.
    this.ready = Promise.all(readies.map((d) => d.promise)).then(([first]) => {
      this.cellOrder = (first.cells ?? []).map((c) => c.name);
      return first;
    });
    this.ready.catch(() => {}); // failures reach the page through onFatal
    this.workers.forEach((w, i) => {
      w.onmessage = (e) => this.receive(e.data, i);
      w.onerror = (e) => {
        e.preventDefault?.();
        this.fail(`the analysis worker failed to load: ${e.message || 'unknown error'}`);
      };
    });
  }

  /** The worker that analyses file `id`: its owner, else the least loaded (by bytes) from now on. */
  ownerOf(id, bytes = 0) {
    if (!this.owner.has(id)) {
      const w = this.load.indexOf(Math.min(...this.load));
      this.owner.set(id, w);
      this.load[w] += bytes;
    }
    return this.workers[this.owner.get(id)];
  }

  /**
   * Give every worker file `id`'s bytes: its owner `buffer` itself
   * (transferred, with `msg`), the others a copy each, which they read and
   * keep at once (for comparisons and campaigns).
   */
  send(id, buffer, msg, options) {
    this.bytes.set(id, buffer.byteLength);
    const owner = this.ownerOf(id, buffer.byteLength);
    for (const w of this.workers) {
      if (w === owner) continue;
      const copy = buffer.slice(0);
      w.postMessage({ type: 'analyze', id, name: msg.name, buffer: copy, store: true, keep: true, options }, [copy]);
    }
    owner.postMessage({ ...msg, buffer }, [buffer]);
  }

  /** Whether file analyses are waiting for the worker. */
  get analyzing() {
    return this.pending.size > 0;
  }

  /** Whether analyses or calls are waiting for the worker. */
  get busy() {
    return this.pending.size > 0 || this.plans.size > 0;
  }

  /**
   * Stop whatever the worker is doing: terminate it and start a new one.
   * Pending analyses resolve with a `cancelled` failure, pending calls
   * reject; the new worker holds no file until the caller re-sends them
   * (`store`).
   */
  cancel() {
    for (const w of this.workers) {
      w.onmessage = null;
      w.onerror = null;
      w.terminate();
    }
    for (const p of this.pending.values()) p.resolve({ ...failure(p.name, 'analysis cancelled'), cancelled: true });
    this.pending.clear();
    for (const p of this.plans.values()) p.reject(Object.assign(new Error('cancelled'), { cancelled: true }));
    this.plans.clear();
    this.batchTotal = this.batchDone = 0;
    this.progress(null);
    this.start();
  }

  /** Give the workers a file's bytes (transferred to its owner, copied to the others) without analysing them. */
  store(id, name, buffer) {
    this.send(id, buffer, { type: 'analyze', id, name, store: true });
  }

  /**
   * The cell across files `name` of the kept files `ids` (worker.js
   * `across`, report::across), `params` as the cell takes them. `how.label`:
   * the status line while it runs; `how.spread`: a report of suites,
   * computed a part per worker (`spread`). A one-file cell runs in the
   * file's owner, any other in the worker with the least to compare.
   */
  across(name, ids, options, params, { label, spread } = {}) {
    if (label) this.onProgress?.({ label });
    const worker = ids.length === 1 && this.owner.has(ids[0]) ? this.owner.get(ids[0]) : this.spare ?? 0;
    const p = spread && this.size > 1
      ? this.spread(name, ids, options, params)
      : this.callOn(worker, 'across', name, ids, options, params);
    if (label) {
      const done = () => { if (this.pending.size === 0) this.progress(null); };
      p.then(done, done);
    }
    return p;
  }

  /**
   * A cell across files whose report is a list of suites (the comparison),
   * spread over the workers (each keeps every file): the suites by weight
   * (the bytes of the files holding them, a file's shared by its suites),
   * dearest first, each to the worker with the least so far, asked for with
   * `params.suites`; worker 0 also lists the files and adds what is not per
   * suite (`params.pooled`). The parts' suites are put back in the cells'
   * order: the whole report.
   */
  async spread(name, ids, options, params) {
    const weight = new Map();
    for (const id of ids) {
      const suites = this.suitesOf.get(id) ?? [];
      for (const s of suites) weight.set(s, (weight.get(s) ?? 0) + (this.bytes.get(id) ?? 1) / suites.length);
    }
    const parts = this.workers.map(() => []);
    const total = this.workers.map(() => 0);
    for (const [s, w] of [...weight].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
      const k = total.indexOf(Math.min(...total));
      parts[k].push(s);
      total[k] += w;
    }
    // The cells asked for next go to the worker with the least to compare
    // (set before any await: the page asks for them right after).
    this.spare = total.indexOf(Math.min(...total));
    const reports = await Promise.all(parts.map((suites, k) => (k === 0 || suites.length
      ? this.callOn(k, 'across', name, ids, options, { ...params, suites, pooled: k === 0 })
      : null)));
    const order = (s) => this.cellOrder.indexOf(s.suite);
    return { ...reports[0], suites: reports.flatMap((r) => r?.suites ?? []).sort((a, b) => order(a) - order(b)) };
  }

  fail(message) {
    for (const d of this.readies) d.reject(new Error(message));
    this.onFatal?.(message);
    for (const [id, p] of this.pending) p.resolve(failure(p.name, message));
    this.pending.clear();
    for (const p of this.plans.values()) p.reject(new Error(message));
    this.plans.clear();
    this.batchTotal = this.batchDone = 0;
    this.progress(null);
  }

  receive(msg, from = 0) {
    switch (msg.type) {
      case 'ready':
        this.readies[from]?.resolve({ version: msg.version, defaultOptions: msg.defaultOptions, maxFileBytes: msg.maxFileBytes, cells: msg.cells, across: msg.across, intake: msg.intake });
        break;
      case 'fatal':
        this.fail(msg.message);
        break;
      case 'call-part': {
        // A comparison's suites come in parts (worker.js postInParts).
        const p = this.plans.get(msg.id);
        if (!p) break;
        p.suites ??= [];
        if (msg.head) p.suites[msg.suite] = { ...msg.head, items: [] };
        for (const item of msg.items) p.suites[msg.suite]?.items.push(item);
        break;
      }
      case 'called':
      case 'call-failed': {
        const p = this.plans.get(msg.id);
        if (!p) break;
        this.plans.delete(msg.id);
        if (msg.type === 'called' && msg.parts) msg.value.suites = p.suites ?? [];
        if (msg.type === 'called') p.resolve(msg.value);
        else p.reject(new Error(msg.message));
        break;
      }
      case 'planned':
      case 'plan-failed': {
        const p = this.plans.get(msg.id);
        if (!p) break;
        this.plans.delete(msg.id);
        if (msg.type === 'planned') p.resolve(msg.plan);
        else p.reject(new Error(msg.message));
        break;
      }
      case 'read': {
        // A file read, before its analysis: its report's header (worker.js);
        // its suites spread a comparison asked for before the analysis ends.
        if (msg.report?.ok) this.suitesOf.set(msg.id, msg.report.info?.suites ?? []);
        this.pending.get(msg.id)?.onRead?.(msg.report);
        break;
      }
      case 'started': {
        const p = this.pending.get(msg.id);
        if (p) this.progress(p.name);
        break;
      }
      case 'result':
      case 'failed': {
        const p = this.pending.get(msg.id);
        if (!p) break;
        // A progressive analysis sends each cell once: keep them, and give
        // the page every cell so far with each message. A growing cell
        // comes in parts (worker.js `growing`): the page gets the list of
        // its parts so far (JSON texts, in order) and `growing[cell]`
        // ({done, total}), and appends the parts it has not seen.
        if (msg.partial) {
          p.cells ??= {};
          p.growing ??= {};
          for (const s of msg.cells ?? []) {
            if (msg.growing?.[s]) {
              p.cells[s] = [...(Array.isArray(p.cells[s]) ? p.cells[s] : []), msg.report[s]];
              p.growing[s] = msg.growing[s];
            } else p.cells[s] = msg.report[s];
          }
          p.onPartial?.({ ...msg.report, ...p.cells, growing: { ...p.growing } });
          if (msg.growing) {
            // The status line says how far a growing cell has come.
            const g = Object.values(msg.growing)[0];
            if (g) this.onProgress?.({ index: this.batchDone + 1, total: this.batchTotal, name: p.name, done: g.done, of: g.total });
          }
          break;
        }
        this.pending.delete(msg.id);
        this.batchDone += 1;
        if (msg.type === 'result' && msg.report?.ok) this.suitesOf.set(msg.id, msg.report.info?.suites ?? []);
        let report = msg.report;
        // A grown cell: its parts (the rows) and the final cell without them,
        // {parts, whole} (notebook.js builds or completes the cell from them).
        if (msg.type === 'result' && msg.grown?.length) {
          report = { ...report, growing: { ...p.growing } };
          for (const s of msg.grown) report[s] = { parts: Array.isArray(p.cells?.[s]) ? p.cells[s] : [], whole: report[s] };
        }
        if (msg.type === 'result' && msg.merged?.length) {
          report = { ...report };
          for (const s of msg.merged) if (p.cells?.[s] != null) report[s] = p.cells[s];
        }
        p.resolve(msg.type === 'result' ? report : failure(p.name, msg.message));
        if (this.pending.size === 0) {
          this.batchTotal = this.batchDone = 0;
          this.progress(null);
        }
        break;
      }
    }
  }

  progress(name) {
    this.onProgress?.(name == null ? null : { index: this.batchDone + 1, total: this.batchTotal, name });
  }

  /**
   * Analyse bytes (an ArrayBuffer, transferred) or, without them, re-analyse
   * the bytes kept for `id`; `onPartial(report)` gets partial reports and,
   * with bytes, `onRead(header)` the report's header once the file is read
   * (ok, kind, info; no cell), before its analysis.
   */
  analyze(id, name, buffer, options, onPartial, onRead) {
    return new Promise((resolve) => {
      this.pending.set(id, { name, resolve, onPartial, onRead });
      this.batchTotal += 1;
      // With `onPartial`, the worker posts the cells ready so far before the final report.
      const msg = { type: 'analyze', id, name, options, progressive: Boolean(onPartial) };
      if (buffer) this.send(id, buffer, msg, options);
      else this.ownerOf(id).postMessage(msg);
    });
  }

  /**
   * The trial planner (eq. 5) in the worker: resolves with {p, trials,
   * wall_time} (wall time in ns), or null when the inputs admit no plan.
   */
  plan(args) {
    return new Promise((resolve, reject) => {
      const id = `plan${++this.planCounter}`;
      this.plans.set(id, { resolve, reject });
      this.workers[0].postMessage({ type: 'plan', id, args });
    });
  }

  /**
   * A function of the wasm module in a worker (see worker.js `CALLS`): a
   * file's own (fileBytes) in its owner, the rest in worker 0.
   */
  call(fn, ...args) {
    const own = fn === 'fileBytes' && this.owner.has(args[0]);
    return this.callOn(own ? this.owner.get(args[0]) : 0, fn, ...args);
  }

  callOn(k, fn, ...args) {
    return new Promise((resolve, reject) => {
      const id = `call${++this.planCounter}`;
      this.plans.set(id, { resolve, reject });
      this.workers[k].postMessage({ type: 'call', id, fn, args });
    });
  }

  forget(id) {
    for (const w of this.workers) w.postMessage({ type: 'forget', id });
    if (this.owner.has(id)) this.load[this.owner.get(id)] -= this.bytes.get(id) ?? 0;
    this.owner.delete(id);
    this.bytes.delete(id);
    this.suitesOf.delete(id);
  }
}

/** A FileReport-shaped failure for errors outside the analysis (fetch, worker). */
export function failure(file, message) {
  return { file, ok: false, error: { file, path: null, message }, warnings: [], loadError: true };
}
