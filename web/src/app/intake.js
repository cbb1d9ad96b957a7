// Where files come from: the file and folder pickers, drag-and-drop anywhere
// on the page (files and folders), and `?url=` query parameters (how
// `tickbook serve` opens the page). Each source hands {name, load: () =>
// Promise<ArrayBuffer>, size?} items to `add`; `size` (bytes, where known
// before reading) lets the page refuse a file too big to read (main.js).
//
// A folder holding Criterion.rs results (a `sample.json` anywhere in it,
// e.g. `target/criterion`) becomes one item: its JSON files bundled as
// {"tickbook_folder": 1, "entries": [{path, text}]}, which the analysis reads
// as one Criterion tree (analysis/src/import, docs/importers.md). Bundling
// into bytes keeps a folder an ordinary file everywhere downstream (worker,
// re-analysis, cancel and re-read). Any other folder adds each JSON file in it,
// except `perf stat` output (-x, CSV or -j, text files included): two or more
// such files in one directory are one item, bundled the same way, which the
// analysis reads as runs of the same events (one execution per file) — as
// `tickbook analyze DIR` does (collector/src/load.rs). A campaign folder
// (`campaign.json` of kind `tickbook-campaign` at its top) is its `results/`:
// the manifest is no result and `attempts/` holds the earlier files of tasks
// run again, which would count as extra executions.

// Also gzip-compressed (pyperf writes .json.gz): the analysis inflates them.
const JSON_FILE = /\.(json|ndjson|jsonl)(\.gz)?$/i;
// Text that may hold results (perf stat -x, writes CSV, -o FILE any name):
// kept only when it is perf's.
const TEXT_FILE = /\.(csv|txt)$/i;
// How much of a file is looked at to tell perf stat output.
const HEAD_BYTES = 4096;
// Criterion's previous run, change estimates and HTML reports: never read.
const SKIP_DIRS = new Set(['base', 'change', 'report']);
const MAX_FOLDER_FILES = 20000;

/**
 * Whether the head of a file is `perf stat` output: its first line that is
 * neither blank nor a `#` comment is a `-x,` row (VALUE,UNIT,EVENT,…: seven
 * fields or more, an event named, the value a number or `<not counted>`) or
 * a `-j` object (`counter-value` and `event`). The analysis's
 * `perf_stat::recognises`, needed here to group a folder's runs before
 * anything is read.
 */
export function looksLikePerfStat(head) {
  const line = head.split('\n').map((l) => l.replace(/\r$/, ''))
    .find((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  // The table perf stat prints, anywhere in the head (import/perf_stat_text.rs).
  if (head.split('\n').some((l) => l.trimStart().startsWith('Performance counter stats for '))) return true;
  if (line == null) return false;
  if (line.trimStart().startsWith('{')) {
    try {
      const v = JSON.parse(line);
      return v != null && typeof v === 'object' && 'counter-value' in v && 'event' in v;
    } catch {
      return false;
    }
  }
  const f = line.split(',');
  const first = f[0].trim();
  const number = first !== '' && Number.isFinite(Number(first));
  return f.length >= 7 && f.slice(2).some((x) => x.trim() !== '')
    && (number || (first.startsWith('<') && first.endsWith('>')) || line.startsWith('CPU'));
}

async function fromFiles(fileList) {
  const files = Array.from(fileList ?? []);
  // A folder picker (`webkitdirectory`) gives files with relative paths.
  const inFolders = files.filter((f) => f.webkitRelativePath?.includes('/'));
  const loose = files.filter((f) => !inFolders.includes(f));
  const folders = new Map(); // root -> [{path, file}]
  for (const f of inFolders) {
    const [root, ...rest] = f.webkitRelativePath.split('/');
    if (!folders.has(root)) folders.set(root, []);
    folders.get(root).push({ path: rest.join('/'), file: f });
  }
  const fromFolders = await Promise.all([...folders].map(([root, list]) => fromFolder(root, list)));
  return [
    ...loose.map((file) => ({ name: file.name, size: file.size, load: () => file.arrayBuffer() })),
    ...fromFolders.flat(),
  ];
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

/** Items for one folder: `list` is [{path (relative to the folder), file}]. */
async function fromFolder(root, all) {
  const list = (await campaignResults(all)) ?? all;
  const inKept = ({ path }) => !path.split('/').slice(0, -1).some((d) => SKIP_DIRS.has(d));
  const wanted = list.filter((x) => JSON_FILE.test(x.path) && inKept(x));
  const criterion = wanted.some(({ path }) => path.split('/').pop() === 'sample.json');
  if (criterion) {
    // The bundle holds text: compressed files are no part of a Criterion tree.
    return [bundle(`${root}/`, wanted.filter(({ path }) => !/\.gz$/i.test(path)))];
  }
  const candidates = list.filter((x) => (JSON_FILE.test(x.path) || TEXT_FILE.test(x.path)) && inKept(x))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const dirOf = (path) => path.split('/').slice(0, -1).join('/');
  const perf = await Promise.all(candidates.map(async ({ path, file }) => !/\.gz$/i.test(path)
    && looksLikePerfStat(await file.slice(0, HEAD_BYTES).text())));
  const runs = new Map(); // directory -> its perf stat files
  candidates.forEach((x, i) => {
    if (!perf[i]) return;
    const d = dirOf(x.path);
    if (!runs.has(d)) runs.set(d, []);
    runs.get(d).push(x);
  });
  const items = [];
  const done = new Set();
  candidates.forEach((x, i) => {
    const d = dirOf(x.path);
    if (perf[i] && runs.get(d).length >= 2) {
      if (done.has(d)) return;
      done.add(d);
      const files = runs.get(d).map(({ path, file }) => ({ path: path.slice(d ? d.length + 1 : 0), file }));
      items.push(bundle(d ? `${root}/${d}/` : `${root}/`, files));
    } else if (perf[i] || JSON_FILE.test(x.path)) {
      items.push({ name: `${root}/${x.path}`, size: x.file.size, load: () => x.file.arrayBuffer() });
    }
  });
  return items;
}

/** Watch a picker; reset it after each choice so the same file can be chosen again. */
export function watchPicker(input, add) {
  input.addEventListener('change', () => {
    const picked = Array.from(input.files ?? []);
    input.value = '';
    fromFiles(picked).then((items) => {
      if (items.length) add(items);
    });
  });
}

/** Every file under a dropped directory (FileSystemDirectoryEntry), as [{path, file}]. */
async function walk(dir, prefix = '', out = []) {
  const reader = dir.createReader();
  for (;;) {
    // readEntries returns the listing in batches; an empty batch ends it.
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return out;
    for (const entry of batch) {
      if (out.length >= MAX_FOLDER_FILES) return out;
      if (entry.isDirectory) {
        if (!SKIP_DIRS.has(entry.name)) await walk(entry, `${prefix}${entry.name}/`, out);
      } else if (JSON_FILE.test(entry.name) || TEXT_FILE.test(entry.name)) {
        const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
        out.push({ path: `${prefix}${entry.name}`, file });
      }
    }
  }
}

/** Accept drops anywhere on the page; show `overlay` while files are dragged over it. */
export function watchDrops(target, overlay, add) {
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
      fromFiles(Array.from(e.dataTransfer?.files ?? [])).then((items) => {
        if (items.length) add(items);
      });
      return;
    }
    const files = Array.from(e.dataTransfer?.files ?? []).filter((f, i) => !entries[i]?.isDirectory);
    if (files.length) fromFiles(files).then(add);
    for (const dir of dirs) {
      walk(dir).then(fromFolder.bind(null, dir.name)).then(
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
