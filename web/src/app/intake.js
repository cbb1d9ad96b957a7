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
// re-analysis, cancel and re-read). Any other folder adds each JSON file in it.

// Also gzip-compressed (pyperf writes .json.gz): the analysis inflates them.
const JSON_FILE = /\.(json|ndjson|jsonl)(\.gz)?$/i;
// Criterion's previous run, change estimates and HTML reports: never read.
const SKIP_DIRS = new Set(['base', 'change', 'report']);
const MAX_FOLDER_FILES = 20000;

function fromFiles(fileList) {
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
  return [
    ...loose.map((file) => ({ name: file.name, size: file.size, load: () => file.arrayBuffer() })),
    ...[...folders].flatMap(([root, list]) => fromFolder(root, list)),
  ];
}

/** Items for one folder: `list` is [{path (relative to the folder), file}]. */
function fromFolder(root, list) {
  const wanted = list.filter(({ path }) => JSON_FILE.test(path)
    && !path.split('/').slice(0, -1).some((d) => SKIP_DIRS.has(d)));
  const criterion = wanted.some(({ path }) => path.split('/').pop() === 'sample.json');
  if (!criterion) {
    return wanted.map(({ path, file }) => ({ name: `${root}/${path}`, size: file.size, load: () => file.arrayBuffer() }));
  }
  // The bundle holds text: compressed files are no part of a Criterion tree.
  const texts = wanted.filter(({ path }) => !/\.gz$/i.test(path));
  return [{
    name: `${root}/`,
    size: texts.reduce((n, { file }) => n + file.size, 0),
    load: async () => {
      const entries = [];
      for (const { path, file } of texts) entries.push({ path, text: await file.text() });
      return new TextEncoder().encode(JSON.stringify({ tickbook_folder: 1, entries })).buffer;
    },
  }];
}

/** Watch a picker; reset it after each choice so the same file can be chosen again. */
export function watchPicker(input, add) {
  input.addEventListener('change', () => {
    const items = fromFiles(input.files);
    input.value = '';
    if (items.length) add(items);
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
      } else if (JSON_FILE.test(entry.name)) {
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
      const items = fromFiles(e.dataTransfer?.files);
      if (items.length) add(items);
      return;
    }
    const files = Array.from(e.dataTransfer?.files ?? []).filter((f, i) => !entries[i]?.isDirectory);
    if (files.length) add(fromFiles(files));
    for (const dir of dirs) {
      walk(dir).then(
        (list) => {
          const items = fromFolder(dir.name, list);
          add(items.length ? items : [failedFolder(dir.name, 'the folder holds no JSON files')]);
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
