// A report is the page's own document carrying its result files in a data
// block (web/build.mjs leaves it empty in the plain page). This module reads
// the block this document arrived with and writes the one of an exported
// report. (The worker's code and the wasm, also in the document, are
// worker/boot.js's.)
//
// Data block (<script type="application/json" id="tickbook-data">), written
// by the page's Export report and by `tickbook report` (collector/src/report.rs):
//   {"tickbook": "report", "version": 1, "generator": "...", "created": "ISO time",
//    "files": [{"name", "encoding": "gzip+base64", "data"} | {"name", "error"}],
//    "state": {o: options, v: [view per file]} (app/state.js)}
// Every `<` in it is written \u003c, so the block cannot end early.

import { base64ToBytes, gunzip } from '../ui/bytes.js';

const DATA_ID = 'tickbook-data';

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
function dataBlockText(data) {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A Content-Security-Policy with its connect-src set to 'none'. */
function reportPolicy(policy) {
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
