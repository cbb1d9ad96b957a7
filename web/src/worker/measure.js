// The measurement worker of Measure this browser: a dedicated worker (not
// the analysis worker) that runs the browser-measure wasm. The measurement
// is one synchronous call that blocks this worker only; it posts
// {type: 'progress', done, total, label} as it goes, then {type: 'done',
// text} (the run file as JSON text) or {type: 'error', message}. The page
// cancels by terminating the worker.
//
// Messages in: {type: 'measure', quick}.

import init, { measure } from '../../pkg/tickbook_browser_measure.js';
import { embeddedWasm } from './boot.js';

const ready = embeddedWasm().then((bytes) => init({ module_or_path: bytes }));

self.onmessage = async (event) => {
  if (event.data?.type !== 'measure') return;
  try {
    await ready;
    const text = measure(Boolean(event.data.quick), (done, total, label) => {
      postMessage({ type: 'progress', done, total, label: String(label) });
    });
    postMessage({ type: 'done', text });
  } catch (e) {
    postMessage({ type: 'error', message: String(e?.message ?? e) });
  }
};
