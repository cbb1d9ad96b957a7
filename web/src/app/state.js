// The page's state in the URL fragment, so a link reopens the same view:
// `#s=` + encodeURIComponent(JSON of {o, v, c}), where `o` holds the analysis
// options that differ from the defaults, `v` the view choices of each file
// (by position in the file list: ops form, sort and filter, granularity
// statistic, copy selections, the Bernoulli trial planner's inputs, the
// Perturbation cell's workload, run, metric and "show all" toggles), and
// each cell across files' view under its own key (`c`: the Comparison cell's
// toggles — pooling, suites showing only differences —, taken from a link
// and checked by its module, web/src/across/compare/index.js `link`).
// An exported report carries the same object in its data block; a fragment
// in the address wins over it.
//
// The fragment is untrusted input: only known fields of the right type are
// taken (the view fields each cell declares, the defaults' own keys),
// everything else is dropped.
// Options are then checked by the analysis itself (checkOptions, the wasm
// `checkOptions`: Options::validate) field by field; a field it refuses
// falls back to its default, and the page names what was dropped
// (linkNotice). Nothing from the fragment is ever parsed as HTML.

import { link as compareLink } from '../across/compare/index.js';

const PREFIX = '#s=';
// Longer strings are no choice a cell offers: dropped.
const MAX_TEXT = 200;

/**
 * View fields kept in the link: each cell's `viewFields` (web/src/cells/<name>/
 * index.js), merged by declareViewFields (main.js passes the build's
 * `tickbook:cells`). A field's type is 'string', 'number', 'boolean', 'true'
 * (only the value true: an object with such a field is kept only when it is
 * true, as the planner's `edited`), or an object of those. A leaf type ending
 * in '?' may be missing; an object missing any other field is no choice (a
 * sort without its direction), and one left with no field is dropped. null is
 * allowed for each: the cells treat a missing choice as their default, and
 * each cell checks a restored choice against its report.
 */
let viewFields = {};

/** Take the cells' view fields ({cell name: its viewFields or undefined}). */
export function declareViewFields(byCell) {
  const out = {};
  const owner = {};
  for (const [cell, fields] of Object.entries(byCell)) {
    for (const [k, t] of Object.entries(fields ?? {})) {
      // Two cells storing one field would overwrite each other's choice.
      if (Object.hasOwn(out, k)) throw new Error(`view field ${k} is declared by cells ${owner[k]} and ${cell}`);
      out[k] = t;
      owner[k] = cell;
    }
  }
  viewFields = out;
}

let defaults = null;
let unreadable = false; // the fragment was there but could not be read
let dropped = []; // [{field, reason}] of the options last restored

/** The state the page starts in: the fragment's, else the report's, else null. */
export function initialState(embedded, hash = location.hash) {
  unreadable = false;
  if (hash.startsWith(PREFIX)) {
    try {
      const s = JSON.parse(decodeURIComponent(hash.slice(PREFIX.length)));
      if (s && typeof s === 'object' && !Array.isArray(s)) return s;
    } catch { /* a mangled link opens the default view, and says so */ }
    unreadable = true;
  }
  const s = embedded?.state;
  return s && typeof s === 'object' ? s : null;
}

const isPlain = (x) => x != null && typeof x === 'object' && !Array.isArray(x);
const kind = (x) => (x === null ? 'null' : Array.isArray(x) ? 'a list' : typeof x === 'object' ? 'an object' : `a ${typeof x}`);

/**
 * `restored` laid over `base`, key by key, where it has the same shape; a
 * null in `base` (an option that may be unset, as dtw.band) takes null or a
 * number. Every restored field not taken is named in `out.dropped`.
 */
function overlay(base, restored, path, lost) {
  if (restored === undefined) return base;
  if (!isPlain(restored)) {
    lost.push({ field: path || 'options', reason: `expected an object, got ${kind(restored)}` });
    return base;
  }
  const out = { ...base };
  for (const [k, r] of Object.entries(restored)) {
    const field = path ? `${path}.${k}` : k;
    if (!Object.hasOwn(base, k)) {
      lost.push({ field, reason: 'not an analysis option' });
      continue;
    }
    const v = base[k];
    if (isPlain(v)) out[k] = overlay(v, r, field, lost);
    else if (v === null ? r === null || (typeof r === 'number' && Number.isFinite(r))
      : typeof v === typeof r && (typeof r !== 'number' || Number.isFinite(r))) out[k] = r;
    else lost.push({ field, reason: `expected ${v === null ? 'a number or null' : kind(v)}, got ${kind(r)}` });
  }
  return out;
}

/**
 * The options to start with: the defaults with the state's options laid over
 * them where they have the defaults' shape (the rest is noted for linkNotice).
 * Call checkOptions next: only the analysis knows which values it takes.
 */
export function restoreOptions(defaultOptions, state) {
  defaults = defaultOptions;
  dropped = [];
  return overlay(defaultOptions, state?.o, '', dropped);
}

/** [path, value] of every leaf of `o` (an object of objects). */
function leaves(o, path = []) {
  return Object.entries(o).flatMap(([k, v]) => (isPlain(v) ? leaves(v, [...path, k]) : [[[...path, k], v]]));
}

function withField(o, [k, ...rest], value) {
  return { ...o, [k]: rest.length ? withField(o[k], rest, value) : value };
}

/**
 * The restored `options` as the analysis takes them: `check(options)`
 * resolves with the analysis' reason to refuse them, or null (the worker's
 * `checkOptions`). When it refuses, each field that differs from the
 * defaults is tried alone over what was accepted so far; a refused one keeps
 * its default and is noted for linkNotice.
 */
export async function checkOptions(options, check) {
  const changed = defaults ? diff(options, defaults) : undefined;
  if (!changed) return options;
  try {
    if ((await check(options)) == null) return options;
    let ok = defaults;
    for (const [path, value] of leaves(changed)) {
      const candidate = withField(ok, path, value);
      const reason = await check(candidate);
      if (reason == null) ok = candidate;
      else dropped.push({ field: path.join('.'), reason: String(reason) });
    }
    return ok;
  } catch {
    return options; // no analysis to ask (it failed to start): the page says so
  }
}

/**
 * One sentence for the reader when the link could not be used in full, or
 * null: the options dropped (with the analysis' reasons), or an unreadable
 * fragment. Plain text: the reasons quote the link's values.
 */
export function linkNotice() {
  const short = (s) => (s.length > 160 ? `${s.slice(0, 159)}…` : s);
  if (dropped.length) {
    const list = dropped.map((d) => `${short(d.field)} (${short(d.reason)})`).join('; ');
    return `This link asked for ${dropped.length === 1 ? 'an option' : 'options'} the analysis cannot use, ` +
      `so ${dropped.length === 1 ? 'its default is' : 'their defaults are'} used instead: ${list}. The rest of the link applies.`;
  }
  if (unreadable) return 'This link\u2019s view could not be read (it may have been cut short), so the default view is shown.';
  return null;
}

function sanitize(value, type, nested = false) {
  if (type === 'true') return value === true ? true : undefined;
  if (value === null) return null;
  if (typeof type === 'string') {
    if (typeof value !== type.replace(/\?$/, '')) return undefined;
    if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
    if (typeof value === 'string' && value.length > MAX_TEXT) return undefined;
    return value;
  }
  if (!isPlain(value)) return undefined;
  const out = {};
  for (const [k, t] of Object.entries(type)) {
    const v = sanitize(value[k], t, true);
    if (v !== undefined) out[k] = v;
    // A half-valid choice (sort without dir) is no choice.
    else if (nested && !(typeof t === 'string' && t.endsWith('?'))) return undefined;
  }
  return nested && !Object.keys(out).length ? undefined : out;
}

/** The kept fields of one view, checked against the cells' view fields. */
export function pickView(view) {
  return sanitize(view ?? {}, viewFields) ?? {};
}

/** Give each file (keys in list order) the view the state holds for its position. */
export function restoreViews(views, keys, state) {
  const v = Array.isArray(state?.v) ? state.v : [];
  keys.forEach((key, i) => {
    const picked = pickView(v[i]);
    if (Object.keys(picked).length) views.set(key, { ...(views.get(key) ?? {}), ...picked });
  });
}

/**
 * The Comparison cell's toggles from the state ({pool, warmUps, reference,
 * only}), as its module reads them from a link (its `link`, under `c`).
 */
export function restoreCompare(state) {
  return compareLink.restore(state?.[compareLink.key]);
}

/** Differences of `value` from `base` (same shape), or undefined when equal. */
function diff(value, base) {
  if (value && typeof value === 'object' && base && typeof base === 'object' && !Array.isArray(value)) {
    const out = {};
    for (const k of Object.keys(value)) {
      const d = diff(value[k], base[k]);
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return JSON.stringify(value) === JSON.stringify(base) ? undefined : value;
}

/**
 * The state to share: `get()` returns {options, views: [view of each file in
 * order], across: {key: value} of the cells across files' views, each as its
 * module's `link.save` gives it (across.js)}; or, for the Comparison alone,
 * `compare`: its view ({pool, warmUps, reference, only: Set}).
 */
export function currentState({ options, views, across, compare }) {
  if (compare) across = { ...across, [compareLink.key]: compareLink.save(compare) };
  const s = {};
  const o = options && defaults ? diff(options, defaults) : options;
  if (o) s.o = o;
  const v = views.map(pickView);
  if (v.some((x) => Object.keys(x).length)) s.v = v;
  for (const [key, value] of Object.entries(across ?? {})) {
    if (key !== 'o' && key !== 'v' && value && Object.keys(value).length) s[key] = value;
  }
  return s;
}

export function stateHash(state) {
  return Object.keys(state).length ? PREFIX + encodeURIComponent(JSON.stringify(state)) : '';
}

/**
 * Keep the fragment in step with the page: after any input, change or click
 * (the cells change their view in those handlers), write the state with
 * history.replaceState when it differs. A link to a cell (#cell-…) is
 * followed first, then replaced by the state.
 */
/** `get()` returns the state to share (currentState). */
export function trackState(get) {
  let queued = false;
  const write = () => {
    queued = false;
    if (!defaults) return; // options not known yet: nothing was changed
    const hash = stateHash(get());
    if (hash === location.hash || (hash === '' && location.hash === '')) return;
    history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
  };
  const later = () => {
    if (queued) return;
    queued = true;
    setTimeout(write, 0);
  };
  for (const type of ['input', 'change', 'click']) document.addEventListener(type, later, true);
  return later;
}
