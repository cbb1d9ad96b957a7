// Where files come from: the file and folder pickers, drag-and-drop anywhere
// on the page (files and folders), and `?url=` query parameters (how
// `tickbook serve` opens the page). Each source hands {name, load: () =>
// Promise<ArrayBuffer>, size?} items to `add`; `size` (bytes, where known
// before reading) lets the page refuse a file too big to read (main.js).
//
// Which files of a folder are read, and as what, is the analysis's
// (analysis/src/intake.rs, the command line's too): the walk's rules (names
// kept, directories skipped, the most files, how much of a head to read)
// come with the worker's ready message, and a folder's inputs from the
// worker's `intakePlan` given the kept files' heads — a folder holding
// Criterion.rs results as one item, its JSON files bundled as
// {"tickbook_folder": 1, "entries": [{path, text}]}; two or more `perf stat`
// files of one directory as one item, bundled the same way (runs of the
// same events); other result files one item each. Bundling into bytes keeps
// a folder an ordinary file everywhere downstream (worker, re-analysis,
// cancel and re-read). `folders` ({rules, plan}, main.js) reaches the
// analysis. A campaign folder (`campaign.json` of kind `tickbook-campaign`
// at its top) is its `results/`: the manifest is no result and `attempts/`
// holds the earlier files of tasks run again, which would count as extra
// executions.

import { yieldToPage } from '../ui/dom.js';

const endsWithAny = (path, endings) => endings.some((e) => path.toLowerCase().endsWith(e));
const isCandidate = (rules, path) => endsWithAny(path, rules.result_endings) || endsWithAny(path, rules.text_endings);
const inSkippedDir = (rules, path) => path.split('/').slice(0, -1).some((d) => rules.skip_dirs.includes(d));

async function fromFiles(fileList, folders) {
  const files = Array.from(fileList ?? []);
  // A folder picker (`webkitdirectory`) gives files with relative paths.
  const inFolders = files.filter((f) => f.webkitRelativePath?.includes('/'));
  const loose = files.filter((f) => !inFolders.includes(f));
  const byRoot = new Map(); // root -> [{path, file}]
  for (const f of inFolders) {
    const [root, ...rest] = f.webkitRelativePath.split('/');
    if (!byRoot.has(root)) byRoot.set(root, []);
    byRoot.get(root).push({ path: rest.join('/'), file: f });
  }
  const fromFolders = await Promise.all([...byRoot].map(([root, list]) => fromFolder(root, list, folders)
    .catch((e) => [failedFolder(root, `could not read the folder: ${e?.message ?? e}`)])));
  // Chromium reads a chosen file's size from the disk on first asking, in
  // the main thread: a thousand files in one go is a long task, so a
  // hundred at a time, giving the page its turn between.
  const items = [];
  for (let i = 0; i < loose.length; i += 100) {
    if (i > 0) await yieldToPage();
    for (const file of loose.slice(i, i + 100)) items.push({ name: file.name, size: file.size, load: () => file.arrayBuffer() });
  }
  return [...items, ...fromFolders.flat()];
}

/** One item of a folder's files ({path, file}), bundled as the analysis reads a folder. */
function bundle(name, files) {
  return {
    name,
    size: files.reduce((n, { file }) => n + file.size, 0),
    load: async () => {
      const entries = [];
      for (const { path, file } of files) entries.push({ path, text: await file.text() });
      return new TextEncoder().encode(JSON.stringify({ tickbook_folder: 1, entries })).buffer;
    },
  };
}

/** A campaign folder's results ({path, file} under `results/`), or null for any other folder. */
async function campaignResults(list) {
  const manifest = list.find(({ path }) => path === 'campaign.json');
  // A manifest is a few kilobytes a submission: a big file is something else.
  if (!manifest || manifest.file.size > 16 << 20) return null;
  let kind;
  try {
    kind = JSON.parse(await manifest.file.text())?.kind;
  } catch {
    return null;
  }
  return kind === 'tickbook-campaign' ? list.filter(({ path }) => path.startsWith('results/')) : null;
}

/** Items for one folder: `all` is [{path (relative to the folder), file}]; the analysis plans them. */
async function fromFolder(root, all, folders) {
  const rules = await folders.rules();
  const list = (await campaignResults(all)) ?? all;
  const kept = list.filter(({ path }) => isCandidate(rules, path) && !inSkippedDir(rules, path));
  const files = new Map(kept.map(({ path, file }) => [path, file]));
  // Compressed files are never perf stat output: their heads are not read.
  const entries = await Promise.all(kept.map(async ({ path, file }) => ({
    path,
    head: /\.gz$/i.test(path) ? null : await file.slice(0, rules.head_bytes).text(),
  })));
  const under = (dir, paths) => paths.map((path) => ({ path: dir ? path.slice(dir.length + 1) : path, file: files.get(path) }));
  return (await folders.plan(entries)).map((item) => {
    if (item.kind === 'criterion') return bundle(`${root}/`, under('', item.paths));
    if (item.kind === 'runs') return bundle(item.dir ? `${root}/${item.dir}/` : `${root}/`, under(item.dir, item.paths));
    const file = files.get(item.path);
    return { name: `${root}/${item.path}`, size: file.size, load: () => file.arrayBuffer() };
  });
}

/**
 * Watch a picker; reset it after each choice so the same file can be chosen
 * again. `folders`: {rules: () => Promise<rules>, plan: (entries) => Promise<items>}.
 */
export function watchPicker(input, add, folders) {
  input.addEventListener('change', () => {
    const picked = Array.from(input.files ?? []);
    input.value = '';
    fromFiles(picked, folders).then((items) => {
      if (items.length) add(items);
    });
  });
}

/** Every file under a dropped directory (FileSystemDirectoryEntry), as [{path, file}]. */
async function walk(dir, rules, prefix = '', out = []) {
  const reader = dir.createReader();
  for (;;) {
    // readEntries returns the listing in batches; an empty batch ends it.
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return out;
    for (const entry of batch) {
      if (out.length >= rules.max_folder_files) return out;
      if (entry.isDirectory) {
        if (!rules.skip_dirs.includes(entry.name)) await walk(entry, rules, `${prefix}${entry.name}/`, out);
      } else if (isCandidate(rules, entry.name)) {
        const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
        out.push({ path: `${prefix}${entry.name}`, file });
      }
    }
  }
}

/** Accept drops anywhere on the page; show `overlay` while files are dragged over it. */
export function watchDrops(target, overlay, add, folders) {
  let depth = 0;
  const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  const show = (on) => {
    overlay.hidden = !on;
    document.body.classList.toggle('dragging', on);
  };
  target.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth += 1;
    show(true);
  });
  target.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  target.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) show(false);
  });
  target.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    show(false);
    // Entries must be taken while the event is being handled; reading
    // folders happens afterwards.
    // dataTransfer.files lists the file-kind items, in the same order.
    const fileItems = Array.from(e.dataTransfer?.items ?? []).filter((it) => it.kind === 'file');
    const entries = fileItems.map((it) => it.webkitGetAsEntry?.() ?? null);
    const dirs = entries.filter((en) => en?.isDirectory);
    if (dirs.length === 0) {
      fromFiles(Array.from(e.dataTransfer?.files ?? []), folders).then((items) => {
        if (items.length) add(items);
      });
      return;
    }
    const files = Array.from(e.dataTransfer?.files ?? []).filter((f, i) => !entries[i]?.isDirectory);
    if (files.length) fromFiles(files, folders).then(add);
    for (const dir of dirs) {
      folders.rules().then((rules) => walk(dir, rules)).then((list) => fromFolder(dir.name, list, folders)).then(
        (items) => {
          add(items.length ? items : [failedFolder(dir.name, 'the folder holds no result files')]);
        },
        (err) => add([failedFolder(dir.name, `could not read the folder: ${err?.message ?? err}`)]),
      );
    }
  });
}

function failedFolder(name, message) {
  return { name: `${name}/`, load: () => Promise.reject(new Error(message)) };
}

/** The `?url=` parameters, each resolved against the page. */
export function urlsFromQuery(search = location.search) {
  return new URLSearchParams(search).getAll('url').filter((u) => u.trim() !== '');
}

export function fromUrls(urls) {
  return urls.map((raw) => ({
    name: raw,
    load: async () => {
      let url;
      try {
        url = new URL(raw, location.href);
      } catch {
        throw new Error(`not a valid URL: ${raw}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new Error(`only http and https URLs can be loaded, not ${url.protocol}`);
      }
      let response;
      try {
        response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
      } catch (e) {
        throw new Error(`could not fetch ${raw}: ${e.message}`);
      }
      if (!response.ok) {
        throw new Error(`could not fetch ${raw}: HTTP ${response.status} ${response.statusText}`.trim());
      }
      return response.arrayBuffer();
    },
  }));
}
