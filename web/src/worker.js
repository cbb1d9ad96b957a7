// The analysis worker: owns the WebAssembly module (initialised once) and the
// bytes of every file, so the main thread never parses JSON or computes
// statistics. Requests are handled one at a time, in order.
//
// in:  {type: 'analyze', id, name, buffer?, options?}  (buffer transferred;
//      without it the bytes kept from an earlier request are re-analysed)
//      {type: 'forget', id}
//      {type: 'plan', id, args: {event_ns, tick_ns, overhead_ns, epsilon, confidence}}
//      {type: 'call', id, fn: 'exportFit', args: [report, form]}
//      {type: 'call', id, fn: 'applyCalibration', args: [ops, fitName, fitBuffer]}
// out: {type: 'ready', version, defaultOptions} | {type: 'fatal', message}
//      {type: 'started', id} | {type: 'result', id, report} | {type: 'failed', id, message}
//      {type: 'planned', id, plan} (plan: {p, trials, wall_time} or null) | {type: 'plan-failed', id, message}
//      {type: 'called', id, value} | {type: 'call-failed', id, message}

import init, { analyze, applyCalibration, defaultOptions, exportFit, plan, version } from '../pkg/tickbook_analysis_wasm.js';
// The wasm comes embedded in the page, as the page's first message (embed.js).
import { embeddedWasm } from './embed.js';

// The only functions a 'call' may name: calibration fits, computed in Rust.
const CALLS = {
  exportFit: (report, form) => exportFit(report, form),
  applyCalibration: (ops, fitName, fitBuffer) => applyCalibration(ops, fitName, new Uint8Array(fitBuffer)),
  // A loaded file's bytes, for Export report (export.js).
  fileBytes: (id) => files.get(id)?.bytes ?? null,
};

const files = new Map(); // id -> {name, bytes}

const ready = embeddedWasm().then((bytes) => init({ module_or_path: bytes }))
  .then(() => {
    postMessage({ type: 'ready', version: version(), defaultOptions: defaultOptions() });
    return true;
  })
  .catch((e) => {
    postMessage({ type: 'fatal', message: `could not start the analysis (WebAssembly): ${e?.message ?? e}` });
    return false;
  });

let chain = Promise.resolve();
self.onmessage = (event) => {
  const msg = event.data;
  chain = chain.then(() => handle(msg)).catch((e) => {
    const type = msg?.type === 'plan' ? 'plan-failed' : msg?.type === 'call' ? 'call-failed' : 'failed';
    postMessage({ type, id: msg?.id, message: String(e?.message ?? e) });
  });
};

async function handle(msg) {
  if (msg.type === 'forget') {
    files.delete(msg.id);
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
    postMessage({ type: 'called', id: msg.id, value: fn(...msg.args) });
    return;
  }
  if (msg.type !== 'analyze') return;
  if (msg.buffer) files.set(msg.id, { name: msg.name, bytes: new Uint8Array(msg.buffer) });
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
    const report = analyze(file.name, file.bytes, msg.options ?? undefined);
    postMessage({ type: 'result', id: msg.id, report });
  } catch (e) {
    postMessage({ type: 'failed', id: msg.id, message: String(e?.message ?? e) });
  }
}
