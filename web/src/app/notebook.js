// The notebook: one slot per file, in the order the files were added, holding
// that file's cells (an error card, or its suite cells in the analysis'
// display order).
//
// The suite cells are the analysis' list (wasm `cells()`, sent by the worker
// when it is ready: name, title, cost): the cell of a suite `name` is built
// by `cells/<name>/index.js` `build(report, key, ctx)`, found by that name;
// the page holds no list of suites. `tickbook:cells` is every
// cells/<name>/index.js by its folder's name, written by web/build.mjs when
// it bundles the page (so a report opened offline has them all).
//
// Cells are rebuilt from each new report (after an option changes); what the
// reader chose in a cell (form, statistic, sort, planner inputs) lives in a
// per-file view state that survives the rebuild, and so does keyboard focus.

import { h, clear, laterDone, afterFrame, yieldToPage } from '../ui/dom.js';
import { cellHeader, errorCard } from '../ui/cell.js';
import { fitnessCard, withFitnessNote } from './fitness.js';
import CELL_BUILDERS from 'tickbook:cells';

// Cells in the page at once before new ones wait to be scrolled to. Every
// built cell keeps its tables, controls and data alive: with two dozen run
// files, the DOM and heap of ~80 cells made each garbage collection (and so
// each new file's task) cost 300+ ms. Past this many, a cell is a placeholder
// (its header) until it comes within a screen of the viewport.
const EAGER_CELLS = 12;

export class Notebook {
  /** `app`: {options() -> current options, setOptions(patch), plan(args) -> Promise, call(fn, ...args) -> Promise (worker.js CALLS)} */
  constructor(container, app) {
    this.container = container;
    this.app = app;
    // The suite cells (setCells): [{name, title, cost, build}] in display order.
    this.cells = [];
    this.cellsReady = new Promise((resolve) => { this.resolveCells = resolve; });
    this.slots = new Map();
    this.views = new Map(); // key -> view state of that file's cells
    this.generations = new Map(); // key -> number of the newest render of that slot
    // key -> {options, cells: Map(kind -> cell)} while a first analysis posts
    // its cells one by one (render's `partial`).
    this.progressive = new Map();
    // Placeholders near the viewport, built one per frame (buildSoon).
    this.near = new Set();
    this.observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) this.near.add(e.target);
        else this.near.delete(e.target);
      }
      this.buildSoon();
    }, { rootMargin: '100% 0px' });
    this.building = false;
    this.waiting = 0; // cells decided to be built, waiting for their frame
    // Printing shows every cell.
    globalThis.addEventListener?.('beforeprint', () => this.buildAll());
    // A jump to a cell (a #cell-… link, the file list's links) that lands
    // on a placeholder builds it and its neighbours, which changes the
    // heights above it: the jump stays on its cell while those are built,
    // until the reader scrolls. A page opened at a cell's fragment goes
    // there once the cell exists.
    this.jump = null;
    this.arriving = /^#cell-[\w-]+$/.test(globalThis.location?.hash ?? '') ? location.hash.slice(1) : null;
    // (The fragment jumped to, not the address now: state.js may have
    // written the view over it already.)
    globalThis.addEventListener?.('hashchange', (e) => this.follow(decodeURIComponent(new URL(e.newURL).hash.slice(1))));
    for (const type of ['wheel', 'touchmove', 'keydown', 'mousedown']) {
      globalThis.addEventListener?.(type, () => { this.jump = null; this.arriving = null; }, { capture: true, passive: true });
    }
    // Cells above the target also change height when their later parts and
    // charts are drawn, or when they are laid out on coming near the window
    // (content-visibility with many files): any change of the notebook's
    // height puts the jump back on its cell.
    new ResizeObserver(() => { if (this.jump || this.arriving) this.keepJump(); }).observe(container);
  }

  /**
   * The analysis' suite cells (wasm `cells()`: [{name, title, cost}] in
   * display order), each with its `build`; a cell the page has no module
   * for is shown as such.
   */
  setCells(list) {
    this.cells = list.map((c) => ({ ...c, build: Object.hasOwn(CELL_BUILDERS, c.name) ? CELL_BUILDERS[c.name] : null }));
    this.resolveCells();
  }

  /** Keep the view on the cell `id` (in this notebook) for a few seconds of building. */
  follow(id) {
    const el = id && document.getElementById(id);
    if (!el || !this.container.contains(el)) return;
    this.jump = { id, until: performance.now() + 5000 };
    this.keepJump();
  }

  keepJump() {
    if (this.arriving && document.getElementById(this.arriving)) {
      const id = this.arriving;
      this.arriving = null;
      this.follow(id);
      return;
    }
    const j = this.jump;
    if (!j) return;
    if (performance.now() > j.until) {
      this.jump = null;
      return;
    }
    document.getElementById(j.id)?.scrollIntoView({ block: 'start' }); // style.css: below the sticky bar
  }

  /** Slots above `slot` with nothing in them yet (their files still being analysed). */
  emptyAbove(slot) {
    let n = 0;
    for (const s of this.slots.values()) {
      if (s === slot) break;
      if (!s.firstChild) n += 1;
    }
    return n;
  }

  /**
   * Whether the first cell of file `key` would be built at once, were its
   * report in now, rather than wait as a placeholder (render's `eager`).
   */
  builtAtOnce(key) {
    const slot = this.slots.get(key);
    return !slot || this.builtCells() + this.emptyAbove(slot) < EAGER_CELLS;
  }

  /** Cells built (not placeholders) in the notebook. */
  builtCells() {
    return this.container.querySelectorAll('.slot > section.cell:not(.cell-placeholder)').length;
  }

  /**
   * A cell that is built when it comes near the viewport: its header now,
   * `build()` later (buildSoon). `onBuilt(cell)` hears of the swap.
   */
  placeholder(key, kind, title, report, build, onBuilt) {
    const ph = h('section', {
      class: 'cell cell-placeholder', id: `cell-${key}-${kind}`, 'data-testid': 'cell-placeholder',
      dataset: { file: report.file, kind },
    },
    cellHeader(title, report),
    h('p', { class: 'muted' }, 'This cell is built when it is scrolled into view.'));
    ph.buildCell = () => {
      this.dispose(ph);
      // (A growing cell's placeholder builds from the newest parts: render sets `latest`.)
      const cell = (ph.latest ?? build)();
      ph.replaceWith(cell);
      onBuilt(cell, ph);
      return cell;
    };
    this.observer.observe(ph);
    return ph;
  }

  /** Build the placeholders near the viewport, one per frame, top first. */
  buildSoon() {
    if (this.building || !this.near.size) return;
    this.building = true;
    afterFrame(() => {
      this.building = false;
      // Cells waiting for their frame (`frameTurn`) will push the
      // placeholders below them down: a placeholder that is near only
      // because they are not in yet is not built (render asks again once
      // they are in).
      if (this.waiting) return;
      for (const p of [...this.near]) if (!p.isConnected) this.near.delete(p);
      // Near where the page is now: the observer's news may predate the
      // cells attached since.
      const margin = globalThis.innerHeight;
      const near = [...this.near].filter((p) => {
        const r = p.getBoundingClientRect();
        return r.bottom >= -margin && r.top <= 2 * margin;
      });
      // The first in document order: readers scroll down.
      const ph = near.reduce((a, b) => (a && !(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_PRECEDING) ? a : b), null);
      if (!ph) return;
      ph.buildCell();
      this.keepJump();
      this.buildSoon();
    });
  }

  /** Stop the charts in `el` (a slot or a cell) from redrawing, and its placeholders from building. */
  dispose(el) {
    for (const fig of el.querySelectorAll('figure.chart')) fig.dispose?.();
    const phs = el.matches('.cell-placeholder') ? [el] : el.querySelectorAll('.cell-placeholder');
    for (const ph of phs) {
      this.observer.unobserve(ph);
      this.near.delete(ph);
    }
  }

  /** Build every placeholder now (printing). */
  buildAll() {
    for (const ph of this.container.querySelectorAll('.cell-placeholder')) ph.buildCell?.();
  }

  add(key) {
    const slot = h('div', { class: 'slot', dataset: { key } });
    this.slots.set(key, slot);
    this.container.append(slot);
  }

  remove(key) {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.dispose(slot);
    slot.remove();
    this.slots.delete(key);
    this.views.delete(key);
    this.progressive.delete(key);
  }

  /**
   * Render a FileReport into its slot, one cell per task (each cell is built
   * and attached, then the page gets the main thread back, so many files do
   * not make one long task). Resolves with the id of its first cell (for the
   * file list's link), or undefined when a newer render of the slot started
   * meanwhile (that one wins). `partial`: some of the file's cells, before its
   * final report (worker.js): the slot's data-options is set by the final one.
   */
  async render(key, report, { partial = false } = {}) {
    const slot = this.slots.get(key);
    if (!slot) return null;
    const generation = (this.generations.get(key) ?? 0) + 1;
    this.generations.set(key, generation);
    const current = () => this.slots.get(key) === slot && this.generations.get(key) === generation;
    if (report.ok) {
      await this.cellsReady;
      if (!current()) return undefined;
    }
    if (!this.views.has(key)) this.views.set(key, {});
    const view = this.views.get(key);
    const builders = [];
    // The worker sends each suite's cell as JSON text (worker.js packCells):
    // a cell's data is read when the cell is built. A growing cell (its rows
    // in parts, worker.js `growing`) is a list of parts, and once whole
    // {parts, whole} (the cell without its rows, Analyzer `grown`): it is
    // built from the first part, the rest are appended (grown), and the
    // whole completes it (finish).
    const partsOf = (kind) => {
      const v = report[kind];
      return Array.isArray(v) ? v : Array.isArray(v?.parts) && v.parts.length ? v.parts : null;
    };
    const withCell = (kind) => {
      const v = report[kind];
      const parts = partsOf(kind);
      if (parts) return { ...report, [kind]: JSON.parse(parts[0]) };
      return typeof v === 'string' ? { ...report, [kind]: JSON.parse(v) } : report;
    };
    const growing = (kind) => partsOf(kind) != null;
    // Append to a growing cell the parts it has not had yet (cells/samples
    // `grow`), each once, whichever render gets to it; then the whole.
    const grow = (kind, cell) => {
      const parts = partsOf(kind);
      cell.partsSeen ??= 1;
      while (cell.grow && cell.partsSeen < parts.length) cell.grow(JSON.parse(parts[cell.partsSeen++]), report.growing?.[kind]);
      const whole = report[kind].whole;
      if (typeof whole === 'string' && cell.finish) cell.finish({ ...report, [kind]: JSON.parse(whole) });
      return cell;
    };
    const titles = new Map();
    if (!report.ok) builders.push(['error', () => errorCard(report, key)]);
    else {
      if (report.fitness) builders.push(['fitness', () => fitnessCard(report, key)]);
      for (const cell of this.cells) {
        if (report[cell.name] == null) continue;
        const { name, title } = cell;
        titles.set(name, title);
        const ctx = { ...this.app, view, cell: { name, title } };
        const built = cell.build && growing(name) ? () => grow(name, cell.build(withCell(name), key, ctx)) : () => cell.build(withCell(name), key, ctx);
        const make = cell.build ? built : () => missingCell(ctx, report, key);
        builders.push([name, () => withFitnessNote(make(), report, name)]);
      }
      if (!builders.some(([kind]) => kind !== 'fitness')) {
        builders.push(['empty', () => h('section', { class: 'cell', id: `cell-${key}-empty`, 'data-testid': 'empty-cell', dataset: { file: report.file } },
          h('h2', {}, h('span', { class: 'kind' }, 'Nothing to show'), ' ', h('span', { class: 'file' }, report.file)),
          h('p', {}, 'The file was read, but it has no suite this page can show (suites: ',
            (report.info?.suites ?? []).join(', ') || 'none', ').'))]);
      }
    }
    const build = (kind, builder) => {
      const t0 = performance.now();
      const cell = builder();
      // Timed for scripts/bench-page (User Timing: 'render cell <testid> <file>').
      performance.measure(`render cell ${cell.dataset?.testid} ${report.file}`, { start: t0 });
      return cell;
    };
    // A placeholder built later stands in the progressive map until then.
    const swapped = (kind) => (cell, ph) => {
      const p = this.progressive.get(key);
      if (p?.cells.get(kind) === ph) p.cells.set(kind, cell);
    };
    // Built now when it was built before (a re-analysis of a cell on show)
    // or while the notebook is small; else when scrolled to.
    // Room is kept for the files above still being analysed (one cell
    // each): with a pool of workers files finish out of order, and the
    // cells built at once are still the top of the notebook.
    // Decided before the cell waits for its frame (`frameTurn`): decided
    // after, the cells other files built meanwhile could turn it into a
    // placeholder.
    const eager = (kind, wasBuilt) => wasBuilt || !titles.has(kind) || this.builtCells() + this.emptyAbove(slot) < EAGER_CELLS;
    // A cell built now waits for a frame of its own; a placeholder after
    // the first only lets the page in. False when the render is outdated.
    const turn = async (now, after) => {
      if (now) {
        this.waiting += 1;
        await frameTurn(); // (never rejects)
        // The cell is attached in this task, before buildSoon's next look.
        this.waiting -= 1;
        if (!this.waiting) this.buildSoon();
      } else if (after) await yieldToPage();
      return current();
    };
    const make = (kind, builder, now) => (now
      ? build(kind, builder)
      : this.placeholder(key, kind, titles.get(kind), report, () => build(kind, builder), swapped(kind)));
    const options = JSON.stringify(report.options ?? null);
    const earlier = this.progressive.get(key);
    const cells = earlier?.options === options ? earlier.cells : null;
    let first = null;
    let focus = null;
    if (cells) {
      // The same analysis going on (worker.js posts a file's cells as they are
      // ready): keep the cells already shown and add the new ones in their
      // places. Rebuilding them each time cost the layout and DOM work again,
      // and removing their controls made Chromium's autofill re-scan every
      // form control on the page (a forced layout of the whole notebook).
      const kinds = new Set(builders.map(([kind]) => kind));
      for (const [kind, cell] of cells) {
        if (!kinds.has(kind)) {
          this.dispose(cell);
          cell.remove();
          cells.delete(kind);
        }
      }
      let built = 0;
      for (let i = 0; i < builders.length; i++) {
        const [kind, builder] = builders[i];
        let cell = cells.get(kind);
        if (cell && growing(kind)) {
          // A placeholder is built later, from the newest parts; a built cell grows now.
          if (cell.matches('.cell-placeholder')) cell.latest = () => build(kind, builder);
          else grow(kind, cell);
        }
        if (!cell) {
          const now = eager(kind, false);
          if (!(await turn(now, built++ > 0))) return undefined;
          cell = make(kind, builder, now);
          const next = builders.slice(i + 1).map(([k]) => cells.get(k)).find((c) => c?.parentNode === slot);
          slot.insertBefore(cell, next ?? null);
          cells.set(kind, cell);
          this.keepJump();
        }
        if (i === 0) first = cell.id ?? null;
      }
    } else {
      focus = focusedIn(slot);
      // Keep the slot's height until the new charts have drawn, so a rebuild
      // does not make the page jump.
      // (An empty slot has no height: skip the read, which forces a layout of the page.)
      if (slot.firstChild && slot.offsetHeight) slot.style.minHeight = `${slot.offsetHeight}px`;
      // The cells on show now, built: their new versions are built at once.
      const shown = new Set([...slot.children].filter((c) => c.matches('section.cell:not(.cell-placeholder)')).map((c) => c.id));
      const fresh = new Map();
      for (let i = 0; i < builders.length; i++) {
        const [kind, builder] = builders[i];
        const now = eager(kind, shown.has(`cell-${key}-${kind}`));
        if (!(await turn(now, i > 0))) return undefined;
        const cell = make(kind, builder, now);
        if (i === 0) {
          first = cell.id ?? null;
          this.dispose(slot);
          clear(slot);
        }
        slot.append(cell);
        fresh.set(kind, cell);
        this.keepJump();
      }
      if (partial) this.progressive.set(key, { options, cells: fresh });
      restoreFocus(slot, focus);
      requestAnimationFrame(() => requestAnimationFrame(() => { slot.style.minHeight = ''; }));
    }
    if (partial && cells) this.progressive.set(key, { options, cells });
    if (!partial) {
      this.progressive.delete(key);
      // The options this rendering was analysed with (tests wait on it),
      // once the cells' later parts are built too.
      await laterDone();
      if (!current()) return undefined;
      // Focus that was in a part built later goes back there now.
      if (focus && !slot.contains(document.activeElement)) restoreFocus(slot, focus);
      slot.dataset.options = options;
    }
    return first;
  }
}

/** A suite cell this page has no module for (the analysis is newer than the page's cells). */
function missingCell(ctx, report, key) {
  const { name, title } = ctx.cell;
  return h('section', {
    class: 'cell', id: `cell-${key}-${name}`, 'data-testid': 'missing-cell', dataset: { file: report.file, kind: name },
  },
  cellHeader(title, report),
  h('p', { class: 'muted' }, `This version of the page has no view for this cell (web/src/cells/${name}/).`));
}

/**
 * A frame of its own for the next cell built, notebook-wide: cells built in
 * back-to-back tasks (files whose analyses finished together) were all laid
 * out in the next frame, one long task once their charts were many.
 */
let frames = Promise.resolve();
function frameTurn() {
  const turn = frames.then(() => new Promise((resolve) => afterFrame(resolve)));
  frames = turn;
  return turn;
}

/** Where focus is inside `slot`, as (data-testid, index among those), or null. */
function focusedIn(slot) {
  const el = document.activeElement;
  if (!el || !slot.contains(el) || !el.dataset.testid) return null;
  const same = [...slot.querySelectorAll(`[data-testid="${el.dataset.testid}"]`)];
  return { testid: el.dataset.testid, index: same.indexOf(el) };
}

function restoreFocus(slot, focus) {
  if (!focus) return;
  const el = slot.querySelectorAll(`[data-testid="${focus.testid}"]`)[focus.index];
  el?.focus({ preventScroll: true });
}
