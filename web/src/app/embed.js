// The page is one self-contained HTML file (web/build.mjs): the worker's
// code and the wasm sit in the document as text, and a report carries its
// result files in a data block. This module reads those pieces on both sides
// of the worker and writes the data block of an exported report.
//
// Data block (<script type="application/json" id="tickbook-data">), written
// by the page's Export report and by `tickbook report` (collector/src/report.rs):
//   {"tickbook": "report", "version": 1, "generator": "...", "created": "ISO time",
//    "files": [{"name", "encoding": "gzip+base64", "data"} | {"name", "error"}],
//    "state": {o: options, v: [view per file]} (web/src/state.js)}
// Every `<` in it is written \u003c, so the block cannot end early.

export const DATA_ID = 'tickbook-data';
const WASM_MESSAGE = 'tickbook-wasm';

/* ------------------------------------------------------------ bytes */

export function base64ToBytes(text) {
  const clean = text.replace(/\s+/g, '');
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(clean);
  const bin = atob(clean);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function bytesToBase64(bytes) {
  if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

async function through(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

export const gunzip = (bytes) => through(bytes, new DecompressionStream('gzip'));
export const gzip = (bytes) => through(bytes, new CompressionStream('gzip'));

/* ------------------------------------------------------------ worker */

/**
 * Start the analysis worker from the worker code embedded in the page and
 * hand it the embedded wasm (its first message). A page missing either gets
 * a worker that reports why, through the normal 'fatal' message.
 */
export function createWorker() {
  const code = document.getElementById('tickbook-worker')?.textContent ?? '';
  const wasm = document.getElementById('tickbook-wasm')?.textContent ?? '';
  const missing = !code.trim() || !wasm.trim();
  const source = missing
    ? `postMessage({type: 'fatal', message: 'this page is incomplete: the analysis worker or its WebAssembly is not embedded (build the page with scripts/build-web)'});`
    : code;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url, { name: 'tickbook-analysis' }); // classic: see web/build.mjs
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

/* ------------------------------------------------------------ data block */

// The document as it arrived, before the page changed it, without the data
// block's contents (kept once, in `dataText`, not twice): the template of
// every report this page exports (same scripts, so the CSP hash holds).
let dataText = '';
let pristine = '';
if (typeof document !== 'undefined') {
  const block = document.getElementById(DATA_ID);
  if (block) {
    dataText = block.textContent;
    block.textContent = '';
  }
  pristine = document.documentElement.outerHTML;
}

/** The data block this document arrived with, parsed, or null (an empty block: the plain page). */
export function embeddedData() {
  const text = dataText;
  if (!text.trim()) return null;
  try {
    const data = JSON.parse(text);
    return data && typeof data === 'object' && Array.isArray(data.files) ? data : null;
  } catch {
    return null;
  }
}

/** The files of a data block as intake items ({name, load}); the tab is titled after them. */
export function embeddedItems(data) {
  const names = (data?.files ?? []).map((f) => (typeof f?.name === 'string' ? f.name.split(/[\\/]/).pop() : '')).filter(Boolean);
  if (names.length) document.title = `tickbook report: ${names.join(', ')}`; // text, never markup
  return (data?.files ?? []).map((f, i) => {
    const name = typeof f?.name === 'string' ? f.name : `file ${i + 1}`;
    return {
      name,
      load: async () => {
        if (typeof f.error === 'string') throw new Error(f.error);
        if (f.encoding !== 'gzip+base64' || typeof f.data !== 'string') throw new Error('the report holds this file in an unknown encoding');
        const bytes = await gunzip(base64ToBytes(f.data));
        return bytes.buffer;
      },
    };
  });
}

/** JSON for a data block: `<` escaped so no text inside can close the element. */
export function dataBlockText(data) {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A Content-Security-Policy with its connect-src set to 'none'. */
export function reportPolicy(policy) {
  const rest = policy.split(';').map((d) => d.trim()).filter((d) => d && !/^connect-src\b/i.test(d));
  return [...rest, "connect-src 'none'"].join('; ');
}

/** A complete report document: this page's own markup with `data` in its data block. */
export function reportDocument(data) {
  const doc = new DOMParser().parseFromString(pristine, 'text/html');
  let block = doc.getElementById(DATA_ID);
  if (!block) {
    block = doc.createElement('script');
    block.type = 'application/json';
    block.id = DATA_ID;
    doc.body.append(block);
  }
  block.textContent = dataBlockText(data);
  // A report's data are inside it: it connects nowhere, whatever the page
  // that exported it was allowed (tickbook serve widens the page's policy).
  const csp = doc.querySelector('meta[http-equiv="Content-Security-Policy"]');
  if (csp) csp.content = reportPolicy(csp.content);
  return `<!doctype html>\n${doc.documentElement.outerHTML}\n`;
}
