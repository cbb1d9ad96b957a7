// Main-thread side of the analysis worker: one promise per request, and
// progress events (`i of n`, current name) for the status line.

import { createWorker } from './boot.js';

export class Analyzer {
  constructor({ onProgress, onFatal }) {
    this.onProgress = onProgress;
    this.onFatal = onFatal;
    this.pending = new Map(); // id -> {name, resolve}
    this.plans = new Map(); // plan id -> {resolve, reject}
    this.planCounter = 0;
    this.batchTotal = 0;
    this.batchDone = 0;
    this.start();
  }

  /** Start a worker (again, after `cancel`); `ready` resolves when its wasm is up. */
  start() {
    this.worker = createWorker(); // from the code embedded in the page (boot.js)
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {}); // failures reach the page through onFatal
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.fail(`the analysis worker failed to load: ${e.message || 'unknown error'}`);
    };
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
    this.worker.onmessage = null;
    this.worker.onerror = null;
    this.worker.terminate();
    for (const p of this.pending.values()) p.resolve({ ...failure(p.name, 'analysis cancelled'), cancelled: true });
    this.pending.clear();
    for (const p of this.plans.values()) p.reject(Object.assign(new Error('cancelled'), { cancelled: true }));
    this.plans.clear();
    this.batchTotal = this.batchDone = 0;
    this.progress(null);
    this.start();
  }

  /** Give the worker a file's bytes (transferred) without analysing them. */
  store(id, name, buffer) {
    this.worker.postMessage({ type: 'analyze', id, name, buffer, store: true }, [buffer]);
  }

  /** Several kept files side by side (report::compare_files), with progress. */
  compare(ids, options, pool, warmUps = false) {
    this.onProgress?.({ label: `Comparing ${ids.length} files` });
    const done = () => { if (this.pending.size === 0) this.progress(null); };
    const p = this.call('compare', ids, options, pool, warmUps);
    p.then(done, done);
    return p;
  }

  /** One kept file's series against a reference series (report::compare_series). */
  compareSeries(id, options, reference, warmUps = false) {
    return this.call('compareSeries', id, options, reference ?? null, warmUps);
  }

  /** The kept files as one campaign (report::campaign::campaign_files). */
  campaign(ids, options) {
    this.onProgress?.({ label: `Analysing a campaign of ${ids.length} files` });
    const done = () => { if (this.pending.size === 0) this.progress(null); };
    const p = this.call('campaign', ids, options);
    p.then(done, done);
    return p;
  }

  fail(message) {
    this.rejectReady(new Error(message));
    this.onFatal?.(message);
    for (const [id, p] of this.pending) p.resolve(failure(p.name, message));
    this.pending.clear();
    for (const p of this.plans.values()) p.reject(new Error(message));
    this.plans.clear();
    this.batchTotal = this.batchDone = 0;
    this.progress(null);
  }

  receive(msg) {
    switch (msg.type) {
      case 'ready':
        this.resolveReady({ version: msg.version, defaultOptions: msg.defaultOptions, maxFileBytes: msg.maxFileBytes, cells: msg.cells });
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
        let report = msg.report;
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
   * the bytes kept for `id`; `onPartial(report)` gets partial reports.
   */
  analyze(id, name, buffer, options, onPartial) {
    return new Promise((resolve) => {
      this.pending.set(id, { name, resolve, onPartial });
      this.batchTotal += 1;
      // With `onPartial`, the worker posts the cells ready so far before the final report.
      const msg = { type: 'analyze', id, name, options, progressive: Boolean(onPartial) };
      if (buffer) {
        msg.buffer = buffer;
        this.worker.postMessage(msg, [buffer]);
      } else {
        this.worker.postMessage(msg);
      }
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
      this.worker.postMessage({ type: 'plan', id, args });
    });
  }

  /** A calibration function of the wasm module in the worker (see worker.js `CALLS`). */
  call(fn, ...args) {
    return new Promise((resolve, reject) => {
      const id = `call${++this.planCounter}`;
      this.plans.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'call', id, fn, args });
    });
  }

  forget(id) {
    this.worker.postMessage({ type: 'forget', id });
  }
}

/** A FileReport-shaped failure for errors outside the analysis (fetch, worker). */
export function failure(file, message) {
  return { file, ok: false, error: { file, path: null, message }, warnings: [], loadError: true };
}
