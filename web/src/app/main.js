// Entry point: wires the file sources, the analysis worker, the file list and
// the notebook together.

import { Analyzer, failure } from '../worker/analyzer.js';
import { watchPicker, watchDrops, urlsFromQuery, fromUrls } from './intake.js';
import { FileList } from './filelist.js';
import { Notebook } from './notebook.js';
import { Progress } from '../ui/progress.js';
import { QUANTILE_TYPES } from '../ui/quantiles.js';
import { h, clear } from '../ui/dom.js';
import { compareCell, comparePending, compareFailed, seriesCell } from '../cells/compare.js';
import { campaignCell, isCampaign } from '../cells/campaign.js';
import { nativeCell } from '../cells/browser/native.js';
import { embeddedData, embeddedItems } from './embed.js';
import {
  initialState, restoreOptions, restoreViews, trackState, currentState, checkOptions, linkNotice, restoreCompare, declareViewFields,
} from './state.js';
import { CELL_VIEW_FIELDS } from 'tickbook:cells';
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

// The Comparison cell sits above the per-file cells (compare.js).
const compareSlot = h('div', { class: 'compare-slot' });
$('cells').prepend(compareSlot);
// The Campaign cell sits below it, when the files make a campaign (campaign.js).
const campaignSlot = h('div', { class: 'campaign-slot' });
compareSlot.after(campaignSlot);
let campaignRun = 0; // newest campaign request; older answers are dropped
// Below that, a browser measurement against each native ops run loaded with it.
const nativeSlot = h('div', { class: 'native-slot' });
campaignSlot.after(nativeSlot);
let nativeRun = 0; // newest request; older answers are dropped
const compareView = restoreCompare(shared); // the Comparison cell's toggles, from a link (state.js)
let pool = compareView.pool; // the Comparison cell's pooling toggle
let warmUps = compareView.warmUps; // its warm-up toggle (the CLI's --warm-ups)
let seriesReference = compareView.reference; // the reference series of one file's comparison, or null
let seriesKey = null; // with several files: the one whose series the Comparison cell shows, or null
let compareRun = 0; // newest comparison request; older answers are dropped
let applied = null; // the options of the reports on show (restored by Cancel)
let drawing = 0; // show() calls whose cells are still being attached

// Files wait for this: a link's options are checked by the analysis first.
const optionsReady = analyzer.ready.then(async ({ version, defaultOptions, cells }) => {
  $('version').textContent = version;
  notebook.setCells(cells); // the analysis' suite cells (notebook.js)
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

/** Add files: `items` are {name, load() -> Promise<ArrayBuffer>}. */
function add(items) {
  $('intro').hidden = true;
  $('clear').disabled = false;
  for (const item of items) {
    const key = `f${++counter}`;
    files.set(key, { name: item.name, loaded: false, item, report: null });
    document.body.classList.toggle('many-files', files.size > 4); // style.css
    fileList.add(key, item.name);
    notebook.add(key);
    load(key, item);
  }
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
  const partial = files.get(key)?.report ? undefined : (r) => showPartial(key, r);
  const report = await analyzer.analyze(key, name, buffer, options, partial);
  show(key, report);
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
    scheduleCompare();
    scheduleCampaign();
    scheduleNative();
  }
}

/**
 * Cancel: stop the worker (Analyzer.cancel), go back to the options of what
 * is shown, and give the new worker the files' bytes again (read anew from
 * their source: the main thread keeps no copy).
 */
function cancelWork() {
  analyzer.cancel();
  compareRun += 1;
  campaignRun += 1;
  nativeRun += 1;
  if (compareSlot.querySelector('[data-pending]')) clear(compareSlot);
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

/**
 * Readable files that share a suite with another: the ones a comparison may
 * hold (the analysis compares the suites it can, and leaves out a file that
 * shares none of those: worker.js compareKept).
 */
function comparable() {
  const ok = [...files].filter(([, f]) => f.report?.ok);
  const count = new Map();
  for (const [, f] of ok) for (const s of new Set(f.report.info?.suites ?? [])) count.set(s, (count.get(s) ?? 0) + 1);
  return ok.filter(([, f]) => (f.report.info?.suites ?? []).some((s) => count.get(s) >= 2)).map(([key]) => key);
}

/**
 * One loaded file with series (a samples file or an import): its series are
 * compared with each other (report::compare_series); no cell when it has
 * no two series of one unit.
 */
async function scheduleSeries(run) {
  const ok = [...files].filter(([, f]) => f.report?.ok);
  const [key, f] = ok.length === 1 ? ok[0] : ok.find(([k]) => k === seriesKey) ?? [];
  if (!f || !(f.report.info?.suites ?? []).includes('samples')) {
    clear(compareSlot);
    return;
  }
  const opts = options;
  let cell;
  try {
    const report = await analyzer.compareSeries(key, opts, seriesReference, warmUps);
    if (!report.groups.length) {
      if (run === compareRun) clear(compareSlot);
      return;
    }
    cell = seriesCell(report, {
      threshold: opts.threshold,
      setReference: (name) => { seriesReference = name; scheduleCompare(); },
      setWarmUps: (on) => { warmUps = on; scheduleCompare(); },
      back: ok.length > 1 ? () => { seriesKey = null; scheduleCompare(); } : null,
    });
  } catch (e) {
    if (e?.cancelled) return;
    cell = compareFailed(e?.message ?? String(e));
  }
  if (run !== compareRun) return;
  const focused = document.activeElement?.dataset?.testid;
  clear(compareSlot).append(cell);
  if (focused) compareSlot.querySelector(`[data-testid="${focused}"]`)?.focus({ preventScroll: true });
}

/** Recompute the Comparison cell once every file's analysis is in. */
async function scheduleCompare() {
  const run = ++compareRun;
  // Counted by the tests: loading files asks for one comparison, not one per file.
  performance.mark('compare asked');
  const keys = comparable();
  if (seriesKey != null && !files.get(seriesKey)?.report?.ok) seriesKey = null;
  if (keys.length < 2 || seriesKey != null) {
    await scheduleSeries(run);
    return;
  }
  const opts = options;
  if (!compareSlot.firstChild) compareSlot.append(comparePending(keys.length));
  let cell;
  try {
    const report = await analyzer.compare(keys, opts, pool, warmUps);
    // No suite the analysis compares is in two of the files: no cell.
    if (!report.suites.length) {
      if (run === compareRun) clear(compareSlot);
      return;
    }
    cell = compareCell(report, { threshold: opts.threshold, only: compareView.only, setPool: (on) => { pool = on; scheduleCompare(); },
      setWarmUps: (on) => { warmUps = on; scheduleCompare(); },
      // Files whose series can be compared with each other instead.
      seriesFiles: [...files].filter(([, f]) => f.report?.ok && (f.report.info?.suites ?? []).includes('samples')).map(([key, f]) => ({ key, name: f.name })),
      showSeries: (key) => { seriesKey = key; scheduleCompare(); } });
  } catch (e) {
    if (e?.cancelled) return;
    cell = compareFailed(e?.message ?? String(e));
  }
  if (run !== compareRun) return;
  const focused = document.activeElement?.dataset?.testid;
  clear(compareSlot).append(cell);
  if (focused === 'pool-toggle' || focused === 'warmups-toggle') compareSlot.querySelector(`[data-testid="${focused}"]`)?.focus({ preventScroll: true });
}

/**
 * Recompute the Campaign cell: the readable files as one campaign, shown
 * when they come from two machines or more, one with several executions.
 */
async function scheduleCampaign() {
  const run = ++campaignRun;
  const keys = [...files].filter(([, f]) => f.report?.ok).map(([key]) => key);
  if (keys.length < 3) {
    clear(campaignSlot);
    return;
  }
  let cell = null;
  try {
    const report = await analyzer.campaign(keys, options);
    if (isCampaign(report)) cell = campaignCell(report);
  } catch (e) {
    if (e?.cancelled) return;
    cell = h('section', { class: 'cell error', 'data-testid': 'campaign-failed' }, h('h2', {}, 'Campaign'), h('p', {}, e?.message ?? String(e)));
  }
  if (run !== campaignRun) return;
  clear(campaignSlot);
  if (cell) campaignSlot.append(cell);
}

/**
 * Recompute the WebAssembly-against-native cells: each loaded browser
 * measurement against each loaded run with native operations.
 */
async function scheduleNative() {
  const run = ++nativeRun;
  const ok = [...files].filter(([, f]) => f.report?.ok);
  const browsers = ok.filter(([, f]) => f.report.browser);
  const natives = ok.filter(([, f]) => f.report.ops);
  const cells = [];
  for (const [bk, b] of browsers) {
    for (const [nk, n] of natives) {
      try {
        cells.push(nativeCell(await analyzer.nativeComparison(bk, nk, options), b.name, n.name));
      } catch (e) {
        if (e?.cancelled) return;
        cells.push(h('section', { class: 'cell error', 'data-testid': 'native-failed' }, h('h2', {}, 'WebAssembly against native'), h('p', {}, e?.message ?? String(e))));
      }
      if (run !== nativeRun) return;
    }
  }
  clear(nativeSlot).append(...cells);
}

function remove(key) {
  if (!files.has(key)) return;
  files.delete(key);
  analyzer.forget(key);
  fileList.remove(key);
  notebook.remove(key);
  if (!analyzer.analyzing) {
    scheduleCompare();
    scheduleCampaign();
    scheduleNative();
  }
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

watchPicker($('file-input'), add);
setupMeasure($('measure-browser'), $('measure-quick'), $('measure'), (item) => add([item]));
watchPicker($('folder-input'), add); // a folder: its files, or one Criterion tree (intake.js)
watchDrops(document, $('drop-overlay'), add);

// Sharing (state.js, export.js): a report's embedded files first, then ?url=;
// each file gets the view the link or report holds for its position.
if (embedded) add(embeddedItems(embedded));
const urls = urlsFromQuery();
if (urls.length) add(fromUrls(urls));
restoreViews(notebook.views, [...files.keys()], shared);
const sharedState = () => currentState({
  options, views: [...files.keys()].map((k) => notebook.views.get(k)), compare: { pool, warmUps, reference: seriesReference, only: compareView.only },
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
