// Hierarchical clustering of operation costs (METHODS.md §000): the linkage
// (an analysis option: changing it re-analyses in the worker), the
// granularity cut at each of the six statistics (the paper's Table 4), the
// dendrogram drawn from the report's merges with the chosen cut, and the
// members of each cluster in order of cost (Tables 5–6).

import * as Plot from '@observablehq/plot';
import { h, table, numCell, clear } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { fmtNs, fmtCount } from '../../ui/units.js';
import { clusterColour } from '../../ui/palette.js';

const LINKAGES = [
  ['single', 'single (nearest member)'],
  ['complete', 'complete (farthest member)'],
  ['average', 'average (UPGMA)'],
  ['weighted', 'weighted (WPGMA)'],
  ['ward', 'Ward'],
  ['centroid', 'centroid'],
  ['median', 'median (WPGMC)'],
];

const STATISTICS = { min: 'minimum', q1: 'Q1', median: 'median', mean: 'mean', q3: 'Q3', max: 'maximum' };

export function clusteringSection(f, report, key, ctx) {
  const c = f.clustering;
  const view = ctx.view;
  // What is clustered: operations (ops cell) or a samples file's series.
  const noun = f.noun ?? 'operations';
  const section = h('div', { class: 'clustering', 'data-testid': 'clustering', dataset: { form: f.form } },
    h('h3', {}, `Clusters of ${f.form} costs`),
    h('p', { class: 'muted section-note' },
      `${noun[0].toUpperCase()}${noun.slice(1)} are clustered by cost (distance = |difference in ns${noun === 'operations' ? ' per op' : ''}|). `, f.basis && noun !== 'operations' ? `Cost: ${f.basis}. ` : '', 'The ',
      h('strong', {}, 'granularity'), ' is where the tree is cut: two clusters closer than it are not told apart. ',
      'Set to each of the six statistics of the costs in turn, it gives from many fine clusters (minimum) to one (maximum).'));
  if (!c) {
    section.append(h('p', { class: 'muted' }, `Clustering needs at least two ${noun} with an estimate.`));
    return section;
  }
  const stat = c.cuts.some((x) => x.statistic === view.statistic) ? view.statistic : (view.statistic = 'median');
  const linkage = h('select', {
    'data-testid': 'linkage', 'aria-label': 'Linkage',
    onchange: () => ctx.setOptions({ linkage: linkage.value }),
  }, LINKAGES.map(([v, label]) => h('option', { value: v, selected: v === c.method }, label)));
  const statistic = h('select', {
    'data-testid': 'granularity-statistic', 'aria-label': 'Granularity statistic',
    onchange: () => { view.statistic = statistic.value; showCut(); },
  }, c.cuts.map((x) => h('option', { value: x.statistic, selected: x.statistic === stat }, `${STATISTICS[x.statistic] ?? x.statistic} (${fmtNs(x.granularity_ns)})`)));

  const cutsTable = table({
    testid: 'cuts-table',
    columns: ['Granularity set to', { label: 'Granularity', class: 'num' }, { label: 'Clusters', class: 'num' }],
    rows: c.cuts.map((x) => h('tr', { 'data-testid': 'cut-row', dataset: { statistic: x.statistic } },
      h('th', { scope: 'row' }, STATISTICS[x.statistic] ?? x.statistic),
      numCell('granularity_ns', x.granularity_ns, fmtNs(x.granularity_ns), { unit: 'ns' }),
      numCell('clusters', x.clusters, fmtCount(x.clusters)))),
    caption: `Table 4 for this machine: ${c.method} linkage, ${fmtCount(c.dendrogram.observations)} ${noun}.`,
  });
  const cutArea = h('div', { class: 'cut-area' });
  function showCut() {
    for (const fig of cutArea.querySelectorAll('figure.chart')) fig.dispose?.();
    clear(cutArea);
    const cut = c.cuts.find((x) => x.statistic === view.statistic);
    for (const tr of cutsTable.querySelectorAll('tr[data-statistic]')) tr.classList.toggle('selected', tr.dataset.statistic === view.statistic);
    cutArea.append(dendrogram(f, c, cut), membersTable(cut, f));
  }
  section.append(
    h('div', { class: 'cluster-controls' },
      h('label', { class: 'select' }, h('span', {}, 'Linkage'), linkage),
      h('label', { class: 'select' }, h('span', {}, 'Granularity'), statistic)),
    h('div', { class: 'cuts-wrap' }, cutsTable),
    cutArea);
  showCut();
  return section;
}

/**
 * Layout of the tree: leaves left to right in the order a depth-first walk
 * from the root meets them (so no branches cross), the cheaper subtree first;
 * each merge centred over its two children at its height.
 */
function layout(f, d) {
  const n = d.observations;
  const merges = d.merges;
  const minValue = new Array(n + merges.length);
  for (let i = 0; i < n; i++) minValue[i] = f.values_ns[i];
  merges.forEach((m, i) => { minValue[n + i] = Math.min(minValue[m.a], minValue[m.b]); });
  const order = [];
  const stack = [n + merges.length - 1];
  while (stack.length) {
    const id = stack.pop();
    if (id < n) { order.push(id); continue; }
    const m = merges[id - n];
    const [first, second] = minValue[m.a] <= minValue[m.b] ? [m.a, m.b] : [m.b, m.a];
    stack.push(second, first);
  }
  const x = new Array(n + merges.length);
  const y = new Array(n + merges.length);
  order.forEach((leaf, i) => { x[leaf] = i; y[leaf] = 0; });
  merges.forEach((m, i) => { x[n + i] = (x[m.a] + x[m.b]) / 2; y[n + i] = m.height; });
  return { order, x, y };
}

function dendrogram(f, c, cut) {
  const d = c.dendrogram;
  const n = d.observations;
  const { order, x, y } = layout(f, d);
  // Cluster of each leaf from the report's cut (clusters in order of cost).
  const clusterOf = new Map();
  cut.members.forEach((m, k) => m.names.forEach((name) => clusterOf.set(name, k)));
  const leafCluster = f.names.map((name) => clusterOf.get(name) ?? -1);
  // A subtree takes its cluster's colour when all its leaves are in it.
  const nodeCluster = new Array(n + d.merges.length);
  for (let i = 0; i < n; i++) nodeCluster[i] = leafCluster[i];
  d.merges.forEach((m, i) => { nodeCluster[n + i] = nodeCluster[m.a] === nodeCluster[m.b] ? nodeCluster[m.a] : -1; });
  const colour = (k) => (k < 0 ? 'var(--muted)' : clusterColour(k));
  const segments = d.merges.flatMap((m, i) => {
    const id = n + i;
    const k = nodeCluster[id];
    return [
      { x1: x[m.a], y1: y[m.a], x2: x[m.a], y2: m.height, k },
      { x1: x[m.b], y1: y[m.b], x2: x[m.b], y2: m.height, k },
      { x1: x[m.a], y1: m.height, x2: x[m.b], y2: m.height, k },
    ];
  });
  const leaves = order.map((leaf, i) => ({ i, name: f.names[leaf], v: f.values_ns[leaf], k: leafCluster[leaf] }));
  const longest = Math.max(...f.names.map((s) => s.length));
  const top = Math.max(...d.merges.map((m) => m.height), cut.granularity_ns);
  const summary = `Dendrogram of ${n} ${f.form} operations (${d.method} linkage), cut at the ${STATISTICS[cut.statistic] ?? cut.statistic} ` +
    `granularity ${fmtNs(cut.granularity_ns)} into ${cut.clusters} cluster${cut.clusters === 1 ? '' : 's'}. ` +
    `Leaves from left to right: ${leaves.map((l) => l.name).join(', ')}.`;
  return chartFigure({
    testid: 'dendrogram',
    caption: `Dendrogram, cut at ${fmtNs(cut.granularity_ns)} (${STATISTICS[cut.statistic] ?? cut.statistic}): ${cut.clusters} cluster${cut.clusters === 1 ? '' : 's'}.`,
    summary,
    // At least 13 px per leaf so that names stay legible; wider scrolls.
    draw: (width) => Plot.plot({
      ...baseOptions(Math.max(width, 76 + n * 13)),
      style: { ...baseOptions(width).style, maxWidth: 'none' },
      height: 300 + longest * 6.6,
      marginLeft: 56,
      marginRight: 20,
      marginTop: 24,
      marginBottom: 14 + longest * 6.6,
      x: { domain: [-0.7, n - 0.3], axis: null },
      // Square-root axis: the low merges, where most of the structure is, get room.
      y: { type: 'sqrt', domain: [0, top * 1.06], label: '↑ merge height (ns, square-root axis)', grid: true, nice: false, tickFormat: (v) => fmtNs(v, { exact: true, digits: 3 }).replace(/\u202fns$/, '') },
      marks: [
        Plot.link(segments, {
          x1: 'x1', y1: 'y1', x2: 'x2', y2: 'y2', stroke: (s) => colour(s.k), strokeWidth: 1.6, strokeLinecap: 'square',
        }),
        Plot.ruleY([cut.granularity_ns], { stroke: 'var(--bad)', strokeDasharray: '5 4', strokeWidth: 1.5 }),
        Plot.text([cut], {
          x: -0.7, y: 'granularity_ns', text: (x) => `granularity ${fmtNs(x.granularity_ns)} (${STATISTICS[x.statistic] ?? x.statistic}): ${x.clusters} cluster${x.clusters === 1 ? '' : 's'}`,
          textAnchor: 'start', dy: -7, fill: 'var(--bad)', fontWeight: 600, stroke: 'var(--card)', strokeWidth: 4, paintOrder: 'stroke',
        }),
        // dx and dy are not rotated with the text: dy puts the name under its leaf.
        Plot.text(leaves, {
          x: 'i', y: 0, text: 'name', rotate: -90, textAnchor: 'end', dy: 7, fill: (l) => colour(l.k),
          fontFamily: 'var(--mono)', fontSize: 11, lineAnchor: 'middle',
        }),
        Plot.dot(leaves, { x: 'i', y: 0, r: 2.5, fill: (l) => colour(l.k), title: (l) => `${l.name}: ${fmtNs(l.v)} (cluster ${l.k + 1})`, tip: true }),
      ],
    }),
  });
}

function membersTable(cut, f) {
  const rows = cut.members.map((m, k) => h('tr', { 'data-testid': 'cluster-row', dataset: { cluster: k + 1 } },
    h('th', { scope: 'row', class: 'num' }, h('span', { class: 'swatch', style: `background:${clusterColour(k)}` }), String(k + 1)),
    numCell('size', m.names.length, fmtCount(m.names.length)),
    numCell('min_ns', m.min_ns, fmtNs(m.min_ns), { unit: 'ns' }),
    numCell('max_ns', m.max_ns, fmtNs(m.max_ns), { unit: 'ns' }),
    numCell('mean_ns', m.mean_ns, fmtNs(m.mean_ns), { unit: 'ns' }),
    h('td', { class: 'members', dataset: { stat: 'names', value: m.names.join(' ') } },
      m.names.map((name, i) => [i ? ' ' : '', h('code', { class: 'member' }, name)]))));
  return h('div', { class: 'members-wrap' },
    h('h4', {}, `Members of the ${cut.clusters} cluster${cut.clusters === 1 ? '' : 's'} at ${fmtNs(cut.granularity_ns)}`),
    table({
      testid: 'members-table',
      columns: [{ label: 'Cluster', class: 'num' }, { label: 'Size', class: 'num' }, { label: 'Cheapest', class: 'num' }, { label: 'Dearest', class: 'num' }, { label: 'Mean', class: 'num' }, 'Members, in order of cost'],
      rows,
      caption: `Tables 5–6 for this machine: clusters in order of mean cost (${f.form}); members in order of cost.`,
    }));
}
