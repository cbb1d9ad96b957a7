// The page's state in the URL fragment, so a link reopens the same view:
// `#s=` + encodeURIComponent(JSON of {o, v}), where `o` holds the analysis
// options that differ from the defaults and `v` the view choices of each file
// (by position in the file list: ops form, sort and filter, granularity
// statistic, copy selections). An exported report carries the same object in
// its data block; a fragment in the address wins over it.
//
// The fragment is untrusted input: only known fields of the right type are
// taken (VIEW_FIELDS, the defaults' own keys), everything else is dropped.

const PREFIX = '#s=';

/**
 * View fields kept in the link, and their types ('string', 'number',
 * 'boolean', or an object of those). null is allowed for each: the cells
 * treat a missing choice as their default. A cell that adds a view choice
 * adds its field here.
 */
export const VIEW_FIELDS = {
  form: 'string',
  filter: 'string',
  sort: { key: 'string', dir: 'number' },
  statistic: 'string',
  copyImpl: 'string',
  copyLen: 'number',
  copyMetric: 'string',
};

let defaults = null;

/** The state the page starts in: the fragment's, else the report's, else null. */
export function initialState(embedded, hash = location.hash) {
  if (hash.startsWith(PREFIX)) {
    try {
      const s = JSON.parse(decodeURIComponent(hash.slice(PREFIX.length)));
      if (s && typeof s === 'object') return s;
    } catch { /* a mangled link opens the default view */ }
  }
  const s = embedded?.state;
  return s && typeof s === 'object' ? s : null;
}

/** `restored` laid over `base`, key by key, where it has the same shape. */
function overlay(base, restored) {
  if (restored == null || typeof restored !== 'object' || Array.isArray(restored)) return base;
  const out = { ...base };
  for (const [k, v] of Object.entries(base)) {
    if (!Object.hasOwn(restored, k)) continue;
    const r = restored[k];
    if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = overlay(v, r);
    else if (typeof v === typeof r && (typeof r !== 'number' || Number.isFinite(r))) out[k] = r;
  }
  return out;
}

/** The options to start with: the defaults with the state's options laid over them. */
export function restoreOptions(defaultOptions, state) {
  defaults = defaultOptions;
  return overlay(defaultOptions, state?.o);
}

function sanitize(value, type, nested = false) {
  if (value === null) return null;
  if (typeof type === 'string') return typeof value === type && (type !== 'number' || Number.isFinite(value)) ? value : undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out = {};
  for (const [k, t] of Object.entries(type)) {
    const v = sanitize(value[k], t, true);
    if (v !== undefined) out[k] = v;
    else if (nested) return undefined; // a half-valid choice (sort without dir) is no choice
  }
  return out;
}

/** The kept fields of one view, checked against VIEW_FIELDS. */
export function pickView(view) {
  return sanitize(view ?? {}, VIEW_FIELDS) ?? {};
}

/** Give each file (keys in list order) the view the state holds for its position. */
export function restoreViews(views, keys, state) {
  const v = Array.isArray(state?.v) ? state.v : [];
  keys.forEach((key, i) => {
    const picked = pickView(v[i]);
    if (Object.keys(picked).length) views.set(key, { ...(views.get(key) ?? {}), ...picked });
  });
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

/** The state to share: `get()` returns {options, views: [view of each file in order]}. */
export function currentState({ options, views }) {
  const s = {};
  const o = options && defaults ? diff(options, defaults) : options;
  if (o) s.o = o;
  const v = views.map(pickView);
  if (v.some((x) => Object.keys(x).length)) s.v = v;
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
