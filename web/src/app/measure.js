// Measure this browser: runs the measurement in its own dedicated worker
// (worker/measure.js, not the analysis worker), shows its progress with a
// Cancel (the worker is terminated), and hands the result file to the
// notebook like any opened file, with a Save button to keep it. The main
// thread only receives messages: nothing here blocks it.

import { createMeasureWorker } from '../worker/boot.js';
import { h, download } from '../ui/dom.js';

/**
 * `button` starts a measurement, `quick` (a checkbox) makes it short, `box`
 * holds its status; `onFile(item)` gets the result as an item of
 * main.js's `add` ({name, size, load}).
 */
export function setupMeasure(button, quick, box, onFile) {
  const bar = h('progress', { max: 1, 'data-testid': 'measure-progress' });
  const text = h('span', { 'data-testid': 'measure-text' });
  const cancel = h('button', { type: 'button', class: 'button small', 'data-testid': 'measure-cancel' }, 'Cancel');
  const save = h('button', { type: 'button', class: 'button small', 'data-testid': 'measure-save', hidden: true }, 'Save result file');
  box.append(bar, text, cancel, save);
  let worker = null;
  let saved = null;

  const stop = (message) => {
    worker?.terminate();
    worker = null;
    button.disabled = false;
    cancel.hidden = true;
    bar.hidden = true;
    text.textContent = message;
  };

  cancel.addEventListener('click', () => stop('Measurement cancelled.'));
  save.addEventListener('click', () => {
    if (saved) download(saved.name, new Blob([saved.bytes], { type: 'application/json' }));
  });

  button.addEventListener('click', () => {
    if (worker) return;
    button.disabled = true;
    box.hidden = false;
    bar.hidden = false;
    cancel.hidden = false;
    save.hidden = true;
    bar.removeAttribute('value');
    text.textContent = 'Starting the measurement…';
    worker = createMeasureWorker();
    worker.onmessage = (event) => {
      const m = event.data ?? {};
      if (m.type === 'progress') {
        bar.max = m.total;
        bar.value = m.done;
        text.textContent = `Measuring ${m.done + 1 > m.total ? m.total : m.done + 1} of ${m.total}: ${m.label}`;
      } else if (m.type === 'done') {
        const bytes = new TextEncoder().encode(m.text);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        saved = { name: `browser-${stamp}.json`, bytes };
        stop(`Measured: ${saved.name}`);
        save.hidden = false;
        onFile({ name: saved.name, size: bytes.length, load: async () => bytes.slice().buffer });
      } else if (m.type === 'error' || m.type === 'fatal') {
        stop(`The measurement failed: ${m.message}`);
      }
    };
    worker.onerror = (e) => stop(`The measurement failed: ${e.message ?? 'the worker stopped'}`);
    worker.postMessage({ type: 'measure', quick: quick.checked });
  });
}
