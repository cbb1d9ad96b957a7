// Where files come from: the file picker, drag-and-drop anywhere on the
// page, and `?url=` query parameters (how `tickbook serve` opens the page).
// Each source hands {name, load: () => Promise<ArrayBuffer>} items to `add`.

export function fromFiles(fileList) {
  return Array.from(fileList ?? [], (file) => ({
    name: file.name,
    load: () => file.arrayBuffer(),
  }));
}

/** Watch the picker; reset it after each choice so the same file can be chosen again. */
export function watchPicker(input, add) {
  input.addEventListener('change', () => {
    const items = fromFiles(input.files);
    input.value = '';
    if (items.length) add(items);
  });
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
    const items = fromFiles(e.dataTransfer?.files);
    if (items.length) add(items);
  });
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
