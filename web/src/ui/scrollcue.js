// Tables and charts wider than their card scroll sideways inside it. Many
// systems show no scrollbar until the reader scrolls (overlay scrollbars,
// touch screens), so a cut-off column looked like the end of the table. A
// container whose content is wider than itself gets
// data-overflow = 'right' | 'left' | 'both' (the sides with more to see):
// style.css fades those edges and shows a "scroll" hint; and it becomes a
// focusable region, so the keyboard can scroll it too.

const SCROLLERS = '.table-wrap, figure.chart[data-testid="dendrogram"] .chart-body';

function label(el, sideways) {
  const text = el.querySelector('caption')?.textContent
    ?? el.closest('figure')?.querySelector('figcaption .caption')?.textContent
    ?? el.closest('section')?.querySelector('h2 .kind')?.textContent
    ?? 'Wide content';
  const short = text.length > 90 ? `${text.slice(0, 89)}…` : text;
  return `${short} (scrolls${sideways ? ' sideways' : ''})`;
}

/**
 * Set `el`'s data-overflow from its scroll position; while it scrolls
 * either way (tall tables scroll down inside a box), make it a region.
 */
function update(el) {
  const max = el.scrollWidth - el.clientWidth;
  const left = max > 1 && el.scrollLeft > 1;
  const right = max > 1 && el.scrollLeft < max - 1;
  const state = left && right ? 'both' : left ? 'left' : right ? 'right' : null;
  if ((el.dataset.overflow ?? null) !== state) {
    if (state) el.dataset.overflow = state;
    else delete el.dataset.overflow;
  }
  const scrolls = max > 1 || (el.scrollHeight > el.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(el).overflowY));
  const mine = 'cueFocus' in el.dataset;
  if (scrolls && (mine || !el.hasAttribute('tabindex'))) {
    const how = max > 1 ? 'sideways' : 'down';
    if (el.dataset.cueFocus === how) return;
    el.dataset.cueFocus = how;
    el.setAttribute('tabindex', '0');
    el.setAttribute('role', 'region');
    el.setAttribute('aria-label', label(el, max > 1));
  } else if (!scrolls && mine) {
    delete el.dataset.cueFocus;
    for (const a of ['tabindex', 'role', 'aria-label']) el.removeAttribute(a);
  }
}

/** Watch every scroll container in `root`, now and later (tables added, charts redrawn). */
export function watchScrollers(root) {
  const watched = new WeakSet();
  const sized = new WeakSet();
  // A container changes when its own width changes or its content's does
  // (rows shown, a chart redrawn): both are observed.
  const resize = new ResizeObserver((entries) => {
    const seen = new Set();
    for (const e of entries) {
      const el = e.target.matches(SCROLLERS) ? e.target : e.target.parentElement?.closest(SCROLLERS);
      if (el && !seen.has(el)) {
        seen.add(el);
        update(el);
      }
    }
  });
  const observe = (el) => {
    if (!sized.has(el)) {
      sized.add(el);
      resize.observe(el);
    }
  };
  const watch = (el) => {
    if (!watched.has(el)) {
      watched.add(el);
      observe(el);
      el.addEventListener('scroll', () => update(el), { passive: true });
    }
    for (const child of el.children) observe(child);
  };
  const scan = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.matches(SCROLLERS)) watch(node);
    for (const el of node.querySelectorAll(SCROLLERS)) watch(el);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      // New content in a container (a chart's new drawing) is observed too.
      if (r.target.nodeType === Node.ELEMENT_NODE && r.target.matches(SCROLLERS)) watch(r.target);
      for (const n of r.addedNodes) scan(n);
    }
  }).observe(root, { childList: true, subtree: true });
  scan(root);
}
