// The Operations cell's published figures (OpsReport.published): which core
// the host reports and which it behaves like, the measured table's score
// against every core, the operations that tell the cores apart, and the
// table's published and verdict columns. Every number and verdict is a field
// of the report; this file only formats.

import { h, table, numCell } from '../../ui/dom.js';
import { fmtCount, fmtNum, fmtPercent } from '../../ui/units.js';

const VERDICT = {
  agrees: ['agrees', 'ok'],
  differs: ['differs', 'bad'],
  not_comparable: ['not comparable', 'neutral'],
};

/** A published range in core cycles: `3` or `7 to 19`. */
const range = (low, high) => (low === high ? fmtNum(low, { digits: 3 }) : `${fmtNum(low, { digits: 3 })} to ${fmtNum(high, { digits: 3 })}`);

/** Each source's figure, for a cell's title. */
const sources = (figures) => figures.map((f) => `${f.source}: ${range(f.low, f.high)}${f.note ? ` (${f.note})` : ''} — ${f.citation}`).join('\n');

/** The published row of each operation and form. */
function rowsByOp(o) {
  return new Map((o.published?.rows ?? []).map((r) => [`${r.name}\u0000${r.form}`, r]));
}

/** The ops table's two columns (published range, verdict), or none when the
 * report has no comparison. */
export function publishedColumns(o) {
  const p = o.published;
  if (!p?.rows?.length) return [];
  const byOp = rowsByOp(o);
  const of = (r) => byOp.get(`${r.name}\u0000${r.form}`);
  return [
    {
      key: 'published', label: `Published (${p.core_name})`, num: true, get: (r) => of(r)?.low,
      title: `Published core cycles per operation on ${p.core_name}: the range over InstLatX64 and uops.info`,
      cell: (r) => {
        const x = of(r);
        const text = x?.low != null ? range(x.low, x.high) : '—';
        const td = numCell('published', x?.low, text, { title: x?.figures?.length ? sources(x.figures) : 'no published figure' });
        td.dataset.low = x?.low ?? '';
        td.dataset.high = x?.high ?? '';
        return td;
      },
    },
    {
      key: 'verdict', label: 'Verdict', get: (r) => of(r)?.verdict,
      title: p.rule,
      cell: (r) => {
        const x = of(r);
        if (!x) return h('td', { class: 'verdict muted' }, '—');
        const [text, tone] = VERDICT[x.verdict] ?? [x.verdict, 'neutral'];
        return h('td', { class: 'verdict', dataset: { stat: 'verdict', verdict: x.verdict } },
          h('span', { class: ['badge', tone] }, text),
          x.reason ? h('span', { class: 'sub', 'data-testid': 'verdict-reason' }, x.reason) : null);
      },
    },
  ];
}

/** The core match, the score per core and the discriminating operations;
 * or, when the figures have no core of the host's architecture, that. */
export function publishedSection(o) {
  const p = o.published;
  if (!p && o.published_absent) {
    return h('div', { class: 'published', 'data-testid': 'published' },
      h('h3', {}, 'Published figures'),
      h('p', { class: 'muted section-note', 'data-testid': 'published-absent' }, `${o.published_absent}.`));
  }
  if (!p) return null;
  const rule = p.rule.charAt(0).toUpperCase() + p.rule.slice(1);
  return h('div', { class: 'published', 'data-testid': 'published' },
    h('h3', {}, 'Published figures'),
    h('p', {
      class: 'headline', 'data-testid': 'core-match',
      dataset: { reported: p.reported.core ?? '', best: p.best_match ?? '', core: p.core ?? '' },
    }, h('strong', {}, p.summary)),
    h('p', { class: 'muted section-note' },
      p.core_name ? `The table compares each operation with ${p.core_name} (${p.chosen_by}). ` : `No core to compare with (${p.chosen_by}). `,
      `${rule}; figures from InstLatX64 and uops.info, each with its source (hover a published value).`),
    p.latencies_only ? h('p', { class: 'warnings', role: 'note', 'data-testid': 'latencies-only' }, p.latencies_only) : null,
    scoresTable(p),
    discriminatingTable(p));
}

/**
 * Whether the core's issue width was the thread's alone (the analysis'
 * `issue`): its sentence, and each phase's width in data-* for the tests.
 */
export function issueWidth(o) {
  const i = o.issue;
  if (!i) return null;
  return h('div', { class: 'issue-width', 'data-testid': 'issue-width', dataset: { shared: i.shared, factor: i.factor ?? '' } },
    h('h3', {}, 'Issue width'),
    h('p', { class: i.shared ? 'warnings' : 'muted section-note', role: i.shared ? 'note' : null }, i.text),
    h('ul', { class: 'muted' }, i.phases.map((ph) => h('li', {
      'data-testid': 'issue-phase', dataset: { at: ph.at, width: ph.probe_width ?? '', below: ph.below ?? '', shared: ph.shared ?? '' },
    }, `${ph.at}: ${ph.probe_width == null ? 'not timed' : `${fmtNum(ph.probe_width, { digits: 3 })} operations a cycle`}${ph.below == null ? '' : `, ${fmtNum(ph.below, { digits: 3 })}× below what the core can issue`}`))));
}

function scoresTable(p) {
  const share = (a) => (a.comparable ? `${fmtCount(a.agree)} of ${fmtCount(a.comparable)}` : '—');
  return table({
    testid: 'published-scores',
    className: 'data compact-table',
    caption: 'The measured table against every core in the data, best match first: operations within the rule of a published figure.',
    columns: ['Core', { label: 'Latencies agree', class: 'num' }, { label: 'Throughputs agree', class: 'num' }, { label: 'Share', class: 'num' }],
    rows: p.scores.map((s) => h('tr', { 'data-testid': 'published-score', dataset: { core: s.core } },
      h('th', { scope: 'row' }, s.name, s.core === p.best_match ? h('span', { class: 'badge ok' }, 'best match') : null,
        s.core === p.reported.core ? h('span', { class: 'badge neutral' }, 'CPUID') : null),
      h('td', { class: 'num', dataset: { stat: 'latency', agree: s.latency.agree, comparable: s.latency.comparable } }, share(s.latency)),
      h('td', { class: 'num', dataset: { stat: 'throughput', agree: s.throughput.agree, comparable: s.throughput.comparable } }, share(s.throughput)),
      numCell('share', s.share, s.share == null ? '—' : fmtPercent(s.share)))),
  });
}

function discriminatingTable(p) {
  if (!p.discriminating.length) return null;
  const cores = p.scores.map((s) => [s.core, s.name]);
  return table({
    testid: 'published-discriminating',
    className: 'data compact-table',
    caption: 'Operations whose published figures tell the cores apart (core cycles); ✓ where the measured cost agrees.',
    columns: ['Operation', 'Form', { label: 'Measured', class: 'num' }, ...cores.map(([, name]) => ({ label: name, class: 'num' }))],
    rows: p.discriminating.map((d) => h('tr', { 'data-testid': 'discriminating-row', dataset: { op: d.name, form: d.form } },
      h('th', { scope: 'row' }, h('code', {}, d.name)),
      h('td', {}, d.form),
      numCell('measured', d.measured, d.measured == null ? '—' : fmtNum(d.measured, { digits: 3 })),
      cores.map(([core]) => {
        const c = d.cores.find((x) => x.core === core);
        if (!c) return h('td', { class: 'num missing', dataset: { core } }, '—');
        return h('td', {
          class: ['num', c.agrees && 'agrees'],
          dataset: { core, low: c.low, high: c.high, agrees: c.agrees ?? '' },
        }, range(c.low, c.high), c.agrees ? ' ✓' : '');
      }))),
  });
}
