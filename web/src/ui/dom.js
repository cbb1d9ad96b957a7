// Building DOM from code. File contents are untrusted: every string that came
// from a file becomes a text node (or an attribute value) — never markup.

/**
 * h('td', {class: 'num', dataset: {value: 1}}, 'text', child, [more])
 * Attribute names are always written by this code base, never taken from data.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (key === 'dataset') {
      for (const [k, v] of Object.entries(value)) if (v != null) el.dataset[k] = String(v);
    } else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else el.setAttribute(key, value === true ? '' : String(value));
  }
  return el;
}

function append(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// Parts of cells built in later tasks (later()), and who waits for them.
const deferred = [];
let draining = false;
let idle = [];

/**
 * A placeholder now, filled with `build()`'s nodes in a later task: a big
 * cell's lower sections (long tables, lists, the clustering) are built one
 * per frame (drainLater), so attaching it is not one long main-thread task (a
 * Samples cell of hundreds of series, built and laid out at once, is thousands
 * of boxes in one task).
 * A placeholder no longer in the page when its turn comes is skipped.
 */
export function later(build) {
  // aria-busy until built: assistive technology may wait for it, and so do
  // the tests that read every chart (tests/e2e/marks.mjs settleCharts).
  const slot = h('div', { class: 'later', 'aria-busy': 'true' });
  deferred.push([slot, build]);
  if (!draining) {
    draining = true;
    afterFrame(drainLater);
  }
  return slot;
}

function drainLater() {
  // One part per frame: building is quick and laying out is not, so a time
  // budget for building still let one frame lay out many parts at once.
  // The part highest in the page goes first: the History's charts, asked
  // for while a dozen Samples cells below it queued their parts, waited
  // for all of them (seconds of frames with many files loading).
  let next = -1;
  for (let i = 0; i < deferred.length; i++) {
    const slot = deferred[i][0];
    if (!slot.isConnected) continue;
    if (next < 0 || slot.compareDocumentPosition(deferred[next][0]) & Node.DOCUMENT_POSITION_FOLLOWING) next = i;
  }
  if (next < 0) deferred.length = 0; // (none left in the page)
  else {
    const [[slot, build]] = deferred.splice(next, 1);
    append(slot, build());
    slot.removeAttribute('aria-busy');
  }
  if (deferred.length) {
    afterFrame(drainLater);
    return;
  }
  draining = false;
  const waiting = idle;
  idle = [];
  for (const resolve of waiting) resolve();
}

/**
 * Run `fn` in a task after the page has drawn a frame. Parts built in
 * back-to-back tasks were all laid out together in the next frame; a frame
 * between the batches lays each out on its own. A hidden page draws no
 * frames: the timeout goes on without one.
 */
export function afterFrame(fn) {
  let done = false;
  const go = () => {
    if (done) return;
    done = true;
    setTimeout(fn, 0);
  };
  requestAnimationFrame(go);
  setTimeout(go, 100);
}

/** Resolves once every later() part queued so far is built. */
export function laterDone() {
  if (!draining && !deferred.length) return Promise.resolve();
  return new Promise((resolve) => idle.push(resolve));
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/**
 * A table with a header row; `rows` are arrays of cells (Nodes or h() results).
 * Or `lazy: {count, build(i) -> <tr>, first, noun}` for long tables: the first
 * rows at once and a button for the rest (showMore).
 */
export function table({ testid, caption, columns, rows, lazy, className = 'data' }) {
  const tbody = h('tbody', {}, rows);
  const wrap = h('div', { class: 'table-wrap' },
    h('table', { class: className, 'data-testid': testid },
      caption ? h('caption', {}, caption) : null,
      h('thead', {}, h('tr', {}, columns.map((c) =>
        typeof c === 'string'
          ? h('th', { scope: 'col' }, c)
          : h('th', { scope: 'col', class: c.class, title: c.title }, c.label)))),
      tbody));
  if (!lazy) return wrap;
  const more = showMore(tbody, lazy.count, lazy.build, { first: lazy.first, noun: lazy.noun ?? 'rows' });
  return more ? [wrap, more] : wrap;
}

/**
 * Build the first `first` of `count` items (`build(i)` -> Node) into
 * `container` now, and return a button that builds the rest (a few hundred
 * per task), or null when there is no rest. A file with 250 series built
 * every table row, box plot and block at once: a 2 s task, then a 7 s
 * layout; the top of each list is what readers look at first.
 * `container.showAll()` builds the rest at once (CSV export calls it).
 */
export function showMore(container, count, build, { first = 50, noun = 'rows', parts = 0, built = 0 } = {}) {
  // `built`: the first items already in `container` (a table whose rows came
  // in as they were analysed, samples/index.js).
  const shown = Math.max(built, Math.min(count, first));
  if (built > 0) {
    for (let i = built; i < shown; i++) container.append(build(i));
  } else if (parts > 0) {
    // The first items too in later parts of `parts` each, a part per frame
    // (block containers only: a later() slot is a div; style.css makes it
    // display: contents inside a grid).
    for (let i = 0; i < shown; i += parts) {
      const end = Math.min(shown, i + parts);
      container.append(later(() => Array.from({ length: end - i }, (_, k) => build(i + k))));
    }
  } else for (let i = 0; i < shown; i++) container.append(build(i));
  let next = shown;
  container.dataset.total = String(count);
  container.dataset.shown = String(next);
  if (next >= count) return null;
  const button = h('button', { type: 'button', class: 'button small show-more', 'data-testid': 'show-more' },
    `Show all ${count} ${noun} (${count - next} more)`);
  const finish = () => {
    container.dataset.shown = String(next);
    if (next >= count) button.remove();
  };
  container.showAll = () => {
    while (next < count) container.append(build(next++));
    finish();
  };
  button.addEventListener('click', () => {
    button.disabled = true;
    button.textContent = `Showing all ${count} ${noun}…`;
    const step = () => {
      if (!container.isConnected) return;
      const start = performance.now();
      while (next < count && performance.now() - start < 30) container.append(build(next++));
      finish();
      if (next < count) setTimeout(step, 0);
    };
    step();
  });
  return button;
}

/**
 * A table cell showing a formatted number, with the raw number from the
 * report in data-value (tests compare it with `tickbook analyze --json`) and
 * in the tooltip.
 */
export function numCell(stat, value, text, { unit, className = 'num', title } = {}) {
  const missing = value == null;
  return h('td', {
    class: [className, missing && 'missing'],
    dataset: { stat, value: missing ? '' : String(value) },
    title: title ?? (missing ? 'not available' : `${value}${unit ? ' ' + unit : ''}`),
  }, missing ? '—' : text);
}

/** svg('circle', {r: 3}, child, 'text'): h() for SVG elements. */
export function svgEl(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs ?? {})) el.setAttribute(k, String(v));
  return append(el, children);
}

/** Save `blob` as a file named `name` (a Blob URL clicked through <a download>). */
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Give the main thread back to the page (input, paint) before going on. */
export function yieldToPage() {
  if (globalThis.scheduler?.yield) return globalThis.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
