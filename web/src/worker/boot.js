// Starting the analysis worker. The page is one self-contained HTML file
// (web/build.mjs): the worker's code and the wasm sit in the document as
// text. The main thread starts the worker from that code and sends it the
// wasm as its first message; the worker takes the message before its own
// handler (worker.js) can see it.

import { base64ToBytes, gunzip } from '../ui/bytes.js';

const WASM_MESSAGE = 'tickbook-wasm';

/**
 * Start an analysis worker (`index` in the pool, analyzer.js: its name) from
 * the worker code embedded in the page and hand it the embedded wasm (its
 * first message). A page missing either gets
 * a worker that reports why, through the normal 'fatal' message.
 */
export function createWorker(index = 0) {
  const code = document.getElementById('tickbook-worker')?.textContent ?? '';
  const wasm = document.getElementById('tickbook-wasm')?.textContent ?? '';
  const missing = !code.trim() || !wasm.trim();
  const source = missing
    ? `postMessage({type: 'fatal', message: 'this page is incomplete: the analysis worker or its WebAssembly is not embedded (build the page with scripts/build-web)'});`
    : code;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url, { name: `tickbook-analysis-${index}` }); // classic: see web/build.mjs
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
  return wasmMessage ?? Promise.reject(new Error('not in the analysis worker'));
}
