// Starting the page's workers: the analysis worker, and the measurement
// worker of Measure this browser (measure.js). The page is one
// self-contained HTML file (web/build.mjs): each worker's code and its wasm
// sit in the document as text. The main thread starts a worker from that
// code and sends it the wasm as its first message; the worker takes the
// message before its own handler can see it.

import { base64ToBytes, gunzip } from '../ui/bytes.js';

const WASM_MESSAGE = 'tickbook-wasm';

/**
 * Start an analysis worker (`index` in the pool, analyzer.js: its name) from
 * the worker code embedded in the page and hand it the embedded wasm (its
 * first message). A page missing either gets
 * a worker that reports why, through the normal 'fatal' message.
 */
export function createWorker(index = 0) {
  return startWorker('tickbook-worker', 'tickbook-wasm', `tickbook-analysis-${index}`, 'the analysis worker');
}

/** The same for the measurement worker of Measure this browser (measure.js). */
export function createMeasureWorker() {
  return startWorker('tickbook-measure-worker', 'tickbook-measure-wasm', 'tickbook-measure', 'the measurement worker');
}

function startWorker(codeId, wasmId, name, what) {
  const code = document.getElementById(codeId)?.textContent ?? '';
  const wasm = document.getElementById(wasmId)?.textContent ?? '';
  const missing = !code.trim() || !wasm.trim();
  const source = missing
    ? `postMessage({type: 'fatal', message: 'this page is incomplete: ${what} or its WebAssembly is not embedded (build the page with scripts/build-web)'});`
    : code;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url, { name }); // classic: see web/build.mjs
  if (!missing) worker.postMessage({ type: WASM_MESSAGE, text: wasm });
  return worker;
}

/**
 * Worker side: the wasm bytes, from the page's first message. Registered
 * when this module is evaluated, before worker.js sets its own onmessage, so
 * that handler never sees this message.
 */
let wasmMessage = null;
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  wasmMessage = new Promise((resolve, reject) => {
    const take = (event) => {
      if (event.data?.type !== WASM_MESSAGE) return;
      event.stopImmediatePropagation();
      self.removeEventListener('message', take);
      gunzip(base64ToBytes(String(event.data.text))).then(resolve, reject);
    };
    self.addEventListener('message', take);
  });
}

/** In the worker: a promise of the wasm module's bytes. */
export function embeddedWasm() {
  return wasmMessage ?? Promise.reject(new Error('not in a worker of the page'));
}
