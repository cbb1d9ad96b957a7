// Entry point: wires the file sources, the analysis worker, the file list,
// the notebook and the cells across files together.

import { Analyzer, failure } from '../worker/analyzer.js';
import { watchPicker, watchDrops, urlsFromQuery, fromUrls } from './intake.js';
import { FileList } from './filelist.js';
import { Notebook } from './notebook.js';
import { Progress } from '../ui/progress.js';
import { QUANTILE_TYPES } from '../ui/quantiles.js';
import { h, yieldToPage } from '../ui/dom.js';
import { AcrossCells } from './across.js';
import { embeddedData, embeddedItems } from './embed.js';
import {
  initialState, restoreOptions, restoreViews, trackState, currentState, checkOptions, linkNotice, declareViewFields,
} from './state.js';
import { CELL_VIEW_FIELDS } from 'tickbook:cells';
import ACROSS from 'tickbook:across';
import { watchExports, setupReportExport } from './export.js';
import { setupMeasure } from './measure.js';
import { watchScrollers } from '../ui/scrollcue.js';

// What a link may keep of each cell's view, as the cells declare it.
declareViewFields(CELL_VIEW_FIELDS);

const $ = (id) => document.getElementById(id);

const progress = new Progress($('progress'), $('progress-bar'), $('progress-text'), { onCancel: () => cancelWork() });
const notebook = new Notebook($('cells'), {
  options: () => options,
  setOptions: (patch) => setOptions(patch),
  plan: (args) => analyzer.plan(args),
  call: (fn, ...args) => analyzer.call(fn, ...args),
});
const files = new Map(); // key -> {name, loaded: boolean, item (to re-read after Cancel), report (last shown)}
const embedded = embeddedData(); // a report's files and state (embed.js), or null
const shared = initialState(embedded); // from #s= or the report (state.js)
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

// The cells across files sit above the per-file cells (across.js).
const across = new AcrossCells($('cells'), {
  modules: ACROSS, // each cell across files' module, by its name (web/build.mjs)
  // A file's report, else its header while it is analysed (what the cells across files are chosen by).
  readable: () => [...files].filter(([, f]) => (f.report ?? f.header)?.ok).map(([key, f]) => ({ key, name: f.name, report: f.report ?? f.header })),
  options: () => options,
  ask: (name, keys, opts, params, how) => analyzer.across(name, keys, opts, params, how),
  shared,
});
let applied = null; // the options of the reports on show (restored by Cancel)
let drawing = 0; // show() calls whose cells are still being attached

// Files wait for this: a link's options are checked by the analysis first.
const optionsReady = analyzer.ready.then(async ({ version, defaultOptions, cells, across: acrossList }) => {
  $('version').textContent = version;
  notebook.setCells(cells); // the analysis' suite cells (notebook.js)
  across.setList(acrossList); // and its cells across files
  options = restoreOptions(defaultOptions, shared); // a link's or a report's options (state.js)
  // Each option the analysis refuses falls back to its default, and the page says which.
  options = await checkOptions(options, (o) => analyzer.call('checkOptions', o));
  const notice = linkNotice();
  if (notice) {
    $('link-notice').textContent = notice;
    $('link-notice').hidden = false;
  }
  applied = options;
  setupQuantiles(options.quantile_type);
  setupOptionControls();
}, () => { /* shown by onFatal */ });

/** Change analysis options and re-analyse every loaded file in the worker. */
function setOptions(patch) {
  options = { ...options, ...patch };
  syncOptionControls();
  for (const [key, f] of files) if (f.loaded) analyzeAndShow(key, f.name, null);
}

function syncOptionControls() {
  // A link may hold any confidence the analysis takes: offer it too.
  if (![...$('confidence').options].some((o) => o.value === String(options.confidence))) {
    $('confidence').append(h('option', { value: String(options.confidence) }, `${+(options.confidence * 100).toPrecision(6)} %`));
  }
  $('confidence').value = String(options.confidence);
  $('resamples').value = String(options.bootstrap.resamples);
  $('seed').value = String(options.bootstrap.seed);
  $('threshold').value = String(Math.round(options.threshold * 1e6) / 1e4);
  for (const id of ['resamples', 'seed', 'threshold']) setValidity($(id), '');
}

function setValidity(input, message) {
  input.setCustomValidity(message);
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  input.title = message || input.dataset.title || input.title;
}

/** A whole number in [lo, hi] typed as digits, or null. */
function wholeNumber(text, lo, hi) {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n >= lo && n <= hi ? n : null;
}

function setupOptionControls() {
  const confidence = $('confidence');
  const resamples = $('resamples');
  const seed = $('seed');
  const threshold = $('threshold');
  for (const el of [resamples, seed, threshold]) el.dataset.title = el.title;
  syncOptionControls();
  for (const el of [confidence, resamples, seed, threshold]) el.disabled = false;
  threshold.addEventListener('change', () => {
    // Typed in %, passed as a share (options.threshold, as the analysis takes it).
    const t = threshold.value.trim();
    const pct = t === '' ? NaN : Number(t);
    if (!Number.isFinite(pct) || pct < 0 || pct > 1000) return setValidity(threshold, 'The threshold must be a percentage from 0 to 1000');
    setValidity(threshold, '');
    const share = pct / 100;
    if (share !== options.threshold) setOptions({ threshold: share });
  });
  confidence.addEventListener('change', () => {
    const c = Number(confidence.value);
    // One confidence for every interval, as `tickbook analyze --confidence`.
    setOptions({ confidence: c, bootstrap: { ...options.bootstrap, confidence: c } });
  });
  resamples.addEventListener('change', () => {
    const n = wholeNumber(resamples.value, 1, 1_000_000);
    if (n == null) return setValidity(resamples, 'Resamples must be a whole number from 1 to 1 000 000');
    setValidity(resamples, '');
    if (n !== options.bootstrap.resamples) setOptions({ bootstrap: { ...options.bootstrap, resamples: n } });
  });
  seed.addEventListener('change', () => {
    // The page passes numbers to the analysis; seeds above 2^53 − 1 would be rounded.
    const n = wholeNumber(seed.value, 0, Number.MAX_SAFE_INTEGER);
    if (n == null) return setValidity(seed, `The seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`);
    setValidity(seed, '');
    if (n !== options.bootstrap.seed) setOptions({ bootstrap: { ...options.bootstrap, seed: n } });
  });
}

function setupQuantiles(current) {
  const select = $('quantile-type');
  select.replaceChildren(...QUANTILE_TYPES.map(([n, name]) =>
    h('option', { value: n, selected: n === current }, `type ${n} · ${name}`)));
  select.disabled = false;
  select.addEventListener('change', () => setOptions({ quantile_type: Number(select.value) }));
}

// Files whose rows and slots are built in one task: a thousand at once
// were one task of 600+ ms.
const ADD_BATCH = 100;

/** Add files: `items` are {name, load() -> Promise<ArrayBuffer>}. */
function add(items) {
  $('intro').hidden = true;
  $('clear').disabled = false;
  // Every file is known at once (a link's views go by position); its row,
  // slot and loading start a batch per task.
  const keys = items.map((item) => {
    const key = `f${++counter}`;
    files.set(key, { name: item.name, loaded: false, item, report: null });
    return key;
  });
  document.body.classList.toggle('many-files', files.size > 4); // style.css
  const start = async () => {
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % ADD_BATCH === 0) await yieldToPage();
      if (!files.has(keys[i])) continue; // removed meanwhile
      fileList.add(keys[i], items[i].name);
      notebook.add(keys[i]);
      load(keys[i], items[i]);
    }
  };
  start();
}

async function load(key, item) {
  // A file too big to read is refused by its size before it is read
  // (analysis/src/limits.rs): read, it would exhaust the tab's memory.
  if (item.size != null) {
    const { maxFileBytes } = await analyzer.ready.catch(() => ({}));
    if (item.size > maxFileBytes) {
      // The message is the analysis crate's; a cancel restarts the worker
      // under the call, so ask the new one.
      const ask = () => analyzer.call('checkSize', item.name, item.size);
      const refusal = await ask().catch(() => analyzer.ready.then(ask)).catch((e) => String(e?.message ?? e));
      if (!files.has(key)) return; // removed meanwhile
      show(key, failure(item.name, refusal));
      return;
    }
  }
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
  await optionsReady.catch(() => {});
  analyzeAndShow(key, item.name, buffer);
}

async function analyzeAndShow(key, name, buffer) {
  if (!buffer) await files.get(key)?.restoring;
  // A file's first analysis shows its cells as they are ready (worker.js);
  // a re-analysis replaces the cells on show at once.
  // (Not for a file whose cells will wait as placeholders: its parts would
  // only be more messages to take in, with many files most of them.)
  const partial = files.get(key)?.report || !notebook.builtAtOnce(key) ? undefined : (r) => showPartial(key, r);
  const report = await analyzer.analyze(key, name, buffer, options, partial, buffer ? (header) => read(key, header) : undefined);
  show(key, report);
}

/**
 * A file read, its analysis to come: once every file is read (or has its
 * report), the cells across files are asked for. They need the documents,
 * not the files' own analyses, which the workers do after them (worker.js):
 * a History of a thousand files waited for the thousand analyses first.
 */
function read(key, header) {
  const f = files.get(key);
  if (!f || f.report) return;
  f.header = header;
  if ([...files.values()].every((g) => g.report || g.header)) {
    performance.mark('files read'); // (scripts/bench-history)
    applied = options;
    across.schedule();
  }
}

/** Some of a file's cells before its final report; the file stays 'analysing…'. */
function showPartial(key, report) {
  const f = files.get(key);
  if (!f || f.report) return;
  notebook.render(key, report, { partial: true });
}

async function show(key, report) {
  const f = files.get(key);
  if (!f) return;
  // A cancelled re-analysis keeps what was shown; a cancelled first one says so.
  if (report.cancelled && f.report) return;
  f.report = report;
  // Timed for scripts/bench-page (User Timing: 'render <file>'; the cells are
  // built one per task, so this is the time until the last one is attached).
  const t0 = performance.now();
  drawing += 1;
  let anchor;
  try {
    anchor = await notebook.render(key, report);
  } finally {
    drawing -= 1;
  }
  if (anchor === undefined || files.get(key) !== f) return; // a newer render took over
  fileList.fill(key, f.name, report, anchor);
  performance.measure(`render ${f.name}`, { start: t0 });
  // The cells across files once, when the last file's are drawn: a file
  // analysed while another's cells were still being attached (one per
  // frame) would otherwise ask for the same comparison twice, and the
  // second would replace the first's table as it was being read.
  if (!analyzer.analyzing && drawing === 0) {
    applied = options;
    across.schedule();
  }
}

/**
 * Cancel: stop the worker (Analyzer.cancel), go back to the options of what
 * is shown, and give the new worker the files' bytes again (read anew from
 * their source: the main thread keeps no copy).
 */
function cancelWork() {
  analyzer.cancel();
  across.cancel();
  if (applied && applied !== options) {
    options = applied;
    syncOptionControls();
  }
  for (const [key, f] of files) {
    if (!f.loaded) continue;
    // Requests for this file wait until the new worker has its bytes.
    f.restoring = f.item.load().then((buffer) => {
      if (files.get(key) === f) analyzer.store(key, f.name, buffer);
    }, () => {});
  }
}

function remove(key) {
  if (!files.has(key)) return;
  files.delete(key);
  analyzer.forget(key);
  fileList.remove(key);
  notebook.remove(key);
  if (!analyzer.analyzing) across.schedule();
  document.body.classList.toggle('many-files', files.size > 4);
  if (files.size === 0) {
    $('intro').hidden = false;
    $('clear').disabled = true;
  }
}

$('clear').addEventListener('click', () => {
  for (const key of [...files.keys()]) remove(key);
  $('file-input').focus();
});

// Which files of a folder are read, and as what: the analysis's (intake.js).
// A cancel restarts the workers under a call, so ask the new ones.
const folders = {
  rules: () => analyzer.ready.then((r) => r.intake),
  plan: (entries) => analyzer.call('intakePlan', entries).catch(() => analyzer.ready.then(() => analyzer.call('intakePlan', entries))),
};
watchPicker($('file-input'), add, folders);
setupMeasure($('measure-browser'), $('measure-quick'), $('measure'), (item) => add([item]));
watchPicker($('folder-input'), add, folders); // a folder: its files, or one Criterion tree (intake.js)
watchDrops(document, $('drop-overlay'), add, folders);

// Sharing (state.js, export.js): a report's embedded files first, then ?url=;
// each file gets the view the link or report holds for its position.
if (embedded) add(embeddedItems(embedded));
const urls = urlsFromQuery();
if (urls.length) add(fromUrls(urls));
restoreViews(notebook.views, [...files.keys()], shared);
const sharedState = () => currentState({
  options, views: [...files.keys()].map((k) => notebook.views.get(k)), across: across.linkState(),
});
trackState(sharedState);
watchExports($('cells'));
watchScrollers($('notebook'));
// A jump to a cell (the file list's links, a #cell-… fragment, focus moving
// down the page) lands below the sticky top bar, whose height changes with
// the width: style.css pads the scroll by --top-bar.
new ResizeObserver(([e]) => {
  document.documentElement.style.setProperty('--top-bar', `${Math.ceil(e.borderBoxSize?.[0]?.blockSize ?? e.target.offsetHeight)}px`);
}).observe(document.querySelector('header.top'));
setupReportExport($('export-report'), $('file-rows'), {
  bytesOf: (key) => analyzer.call('fileBytes', key),
  state: sharedState,
  version: () => $('version').textContent,
});
progress.show();
