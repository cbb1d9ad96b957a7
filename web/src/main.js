// Entry point: wires the file sources, the analysis worker, the file list and
// the notebook together.

import { Analyzer, failure } from './analyzer.js';
import { watchPicker, watchDrops, urlsFromQuery, fromUrls } from './intake.js';
import { FileList } from './filelist.js';
import { Notebook } from './notebook.js';
import { Progress } from './progress.js';
import { QUANTILE_TYPES } from './quantiles.js';
import { h } from './dom.js';

const $ = (id) => document.getElementById(id);

const progress = new Progress($('progress'), $('progress-bar'), $('progress-text'));
const notebook = new Notebook($('cells'));
const files = new Map(); // key -> {name, loaded: boolean}
let counter = 0;
let options;

const fileList = new FileList($('files'), $('file-rows'), { onRemove: remove });

const analyzer = new Analyzer({
  onProgress: (p) => progress.analysis(p),
  onFatal: (message) => {
    const box = $('fatal');
    box.textContent = message;
    box.hidden = false;
    document.body.dataset.state = 'error';
  },
});

analyzer.ready.then(({ version, defaultOptions }) => {
  $('version').textContent = version;
  options = defaultOptions;
  setupQuantiles(defaultOptions.quantile_type);
}, () => { /* shown by onFatal */ });

function setupQuantiles(current) {
  const select = $('quantile-type');
  select.replaceChildren(...QUANTILE_TYPES.map(([n, name]) =>
    h('option', { value: n, selected: n === current }, `type ${n} · ${name}`)));
  select.disabled = false;
  select.addEventListener('change', () => {
    options = { ...options, quantile_type: Number(select.value) };
    for (const [key, f] of files) if (f.loaded) analyzeAndShow(key, f.name, null);
  });
}

/** Add files: `items` are {name, load() -> Promise<ArrayBuffer>}. */
function add(items) {
  $('intro').hidden = true;
  $('clear').disabled = false;
  for (const item of items) {
    const key = `f${++counter}`;
    files.set(key, { name: item.name, loaded: false });
    fileList.add(key, item.name);
    notebook.add(key);
    load(key, item);
  }
}

async function load(key, item) {
  let buffer;
  progress.fetchStarted(item.name);
  try {
    buffer = await item.load();
  } catch (e) {
    show(key, failure(item.name, e.message));
    return;
  } finally {
    progress.fetchEnded(item.name);
  }
  const f = files.get(key);
  if (!f) return; // removed while loading
  f.loaded = true;
  await analyzer.ready.catch(() => {});
  analyzeAndShow(key, item.name, buffer);
}

async function analyzeAndShow(key, name, buffer) {
  const report = await analyzer.analyze(key, name, buffer, options);
  show(key, report);
}

function show(key, report) {
  if (!files.has(key)) return;
  const anchor = notebook.render(key, report);
  fileList.fill(key, files.get(key).name, report, anchor);
}

function remove(key) {
  if (!files.has(key)) return;
  files.delete(key);
  analyzer.forget(key);
  fileList.remove(key);
  notebook.remove(key);
  if (files.size === 0) {
    $('intro').hidden = false;
    $('clear').disabled = true;
  }
}

$('clear').addEventListener('click', () => {
  for (const key of [...files.keys()]) remove(key);
  $('file-input').focus();
});

watchPicker($('file-input'), add);
watchDrops(document, $('drop-overlay'), add);

const urls = urlsFromQuery();
if (urls.length) add(fromUrls(urls));
progress.show();
