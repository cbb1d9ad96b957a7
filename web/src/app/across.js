// The cells across files: computed from several loaded files at once (the
// Comparison, the Campaign, WebAssembly against native), above the files'
// own cells. The analysis lists them (wasm `acrossCells()`: name, title, cost and
// `needs`, which loaded files each is asked for) in display order, and each
// is drawn by web/src/across/<name>/index.js, found by that name: the build
// bundles every such folder as `tickbook:across` (main.js passes it here),
// so the page names none of them. Each gets a slot of its own and a run counter (a newer request
// drops an older one's answer).
//
// A cell's module exports `update(slot, inputs, ctx)` (async): `inputs` are
// the lists of file keys its needs choose (selectInputs), `ctx`:
//   name(key)      a file's name
//   files          the readable files [{key, name, report}] in load order
//   options        the analysis options of this request
//   needs          its needs, as the analysis declares them
//   view           its view state, kept between updates (and in links, below)
//   ask(keys, params, how?)  the cell of those files in the worker (wasm
//                  `acrossKept`); `how`: {label: status line text, spread:
//                  compute a report of suites a part per worker, analyzer.js}
//   current()      whether this update is still the newest
//   again()        update it again (after one of its controls changed)
//   open(name, patch)  show another cell across files with `patch` merged
//                  into its view (the History cell opens the Comparison of
//                  two commits); resolves with that cell's slot once drawn
// and optionally `link = {key, restore(value), save(view)}`: what a link keeps
// of its view, under that key of the page's state (state.js).

import { h } from '../ui/dom.js';

/**
 * The lists of readable files (`files`: [{key, name, report}]) a cell
 * across files is asked for, by its `needs` (report::across::Needs).
 */
export function selectInputs(needs, files) {
  const suites = (f) => f.report.info?.suites ?? [];
  switch (needs?.kind) {
    case 'all':
      return files.length >= needs.min ? [files.map((f) => f.key)] : [];
    case 'sharing': {
      const count = new Map();
      for (const f of files) for (const s of new Set(suites(f))) count.set(s, (count.get(s) ?? 0) + 1);
      const keys = files.filter((f) => suites(f).some((s) => count.get(s) >= 2)).map((f) => f.key);
      return keys.length >= needs.min ? [keys] : [];
    }
    case 'pairs': {
      const first = files.filter((f) => suites(f).includes(needs.first));
      const second = files.filter((f) => suites(f).includes(needs.second));
      return first.flatMap((a) => second.map((b) => [a.key, b.key]));
    }
    default:
      return [];
  }
}

export class AcrossCells {
  /**
   * `container`: where the slots go (first, in the analysis' order);
   * `modules`: each cell's module by name (`tickbook:across`);
   * `readable()`: the readable files [{key, name, report}]; `options()`;
   * `ask(name, keys, options, params, how)`: the analyzer's request;
   * `shared`: the page's state from a link or report (views of the cells).
   */
  constructor(container, { modules, readable, options, ask, shared }) {
    this.container = container;
    this.modules = modules;
    this.readable = readable;
    this.options = options;
    this.askAnalyzer = ask;
    this.shared = shared;
    this.cells = [];
  }

  /** The analysis' list of cells across files: a slot for each with a module. */
  setList(list) {
    const anchor = this.container.firstChild;
    this.cells = (list ?? []).filter((info) => this.modules[info.name]).map((info) => {
      const module = this.modules[info.name];
      const slot = h('div', { class: `${info.name}-slot` });
      this.container.insertBefore(slot, anchor);
      const view = module.link ? module.link.restore(this.shared?.[module.link.key]) : {};
      return { info, module, slot, view, run: 0 };
    });
  }

  /**
   * Ask for every cell across files again (the files or the options
   * changed); a cell whose files, their suites and the options are those it
   * was last asked for is left as it is (main.js asks once the files are
   * read and again once they are analysed).
   */
  schedule() {
    const files = this.readable();
    const options = this.options();
    const suites = files.map((f) => [f.key, f.name, f.report.info?.suites ?? []]);
    // Cheapest first (the analysis' `cost`): the workers take them in order.
    for (const cell of [...this.cells].sort((a, b) => (a.info.cost ?? 0) - (b.info.cost ?? 0))) {
      const asked = JSON.stringify([selectInputs(cell.info.needs, files), suites, options]);
      if (asked === cell.asked) continue;
      cell.asked = asked;
      this.update(cell, files, options);
    }
  }

  async update(cell, files = this.readable(), options = this.options()) {
    const run = ++cell.run;
    // Counted by the tests: loading files asks for each cell once, not once per file.
    performance.mark(`${cell.info.name} asked`);
    const names = new Map(files.map((f) => [f.key, f.name]));
    const ctx = {
      name: (key) => names.get(key),
      files,
      options,
      needs: cell.info.needs,
      view: cell.view,
      ask: (keys, params, how = {}) => this.askAnalyzer(cell.info.name, keys, options, params, how),
      current: () => run === cell.run,
      again: () => this.update(cell),
      open: (name, patch) => this.open(name, patch),
    };
    await cell.module.update(cell.slot, selectInputs(cell.info.needs, files), ctx);
  }

  /** The cell across files `name` updated with `patch` merged into its view; resolves with its slot (null: no such cell). */
  async open(name, patch) {
    const cell = this.cells.find((c) => c.info.name === name);
    if (!cell) return null;
    Object.assign(cell.view, patch);
    await this.update(cell);
    return cell.slot;
  }

  /** Cancel: answers to requests asked so far are dropped, placeholders removed. */
  cancel() {
    for (const cell of this.cells) {
      cell.run += 1;
      cell.asked = null;
      if (cell.slot.querySelector('[data-pending]')) cell.slot.replaceChildren();
    }
  }

  /** What links keep of the cells' views: {key: value} (state.js currentState). */
  linkState() {
    return Object.fromEntries(this.cells.filter((c) => c.module.link).map((c) => [c.module.link.key, c.module.link.save(c.view)]));
  }
}
