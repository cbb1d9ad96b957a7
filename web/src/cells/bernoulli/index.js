// The Bernoulli cell: events shorter than a coarse clock's tick, estimated
// from how often the clock ticked during n trials (Lambert & Power, eqs. 1,
// 2, 5, 6), checked against the TSC; and the trial planner. Every number is
// a field of the report's `bernoulli` (BernoulliReport) or, in the planner,
// the wasm `plan()`; the page only scales units.

import * as Plot from '@observablehq/plot';
import { h, table, numCell } from '../../ui/dom.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { cellSection, fact } from '../../ui/cell.js';
import { plotKey, glyph } from '../../ui/key.js';
import {
  fmtNs, fmtCount, fmtSignedPercent, fmtPercent, fmtLevel, fmtWall, fmtProb, fmtNum, timeUnit,
} from '../../ui/units.js';

const TIME_FIELD = { text: 'string', unit: 'string', exact: 'number' };

/** What a link keeps of this cell's view (app/state.js): the trial planner's
 * inputs, once the reader edited them (`edited`: else they are the file's
 * values); the two defaults say which file's values they started from; a null
 * confidence follows the toolbar's. */
export const viewFields = {
  planner: {
    edited: 'true',
    tickDefault: 'number',
    overheadDefault: 'number',
    event: TIME_FIELD,
    tick: TIME_FIELD,
    overhead: TIME_FIELD,
    epsilon: { text: 'string', exact: 'number' },
    confidence: 'string',
  },
};

export function build(report, key, ctx) {
  const b = report.bernoulli;
  return cellSection(ctx, report, key,
  explanation(b),
  facts(b),
  coverageLine(b),
  eventsTable(b),
  b.events.length ? estimateChart(b) : null,
  planner(b, ctx));
}

function explanation(b) {
  return h('div', { class: 'explain' },
    h('p', {},
      'How can a clock that ticks every ', h('strong', {}, fmtNs(b.tick_ns, { exact: true })),
      ' (', h('code', {}, b.clock), ') time an event of a few nanoseconds? ',
      h('strong', {}, 'Bernoulli timing'), ': read the clock, run the event, read the clock again — ',
      'one trial, which either saw the clock tick (1) or not (0). ',
      'The shorter the event, the rarer a tick: with m ticks in n trials, p = m/n, and ',
      h('span', { class: 'eq' }, 'p · Tc'), ' estimates the event plus the timer overhead (eq. 1), within ',
      h('span', { class: 'eq' }, 'p ± z·√(p(1 − p)/n)'), ' (eq. 2; Wilson\u2019s interval where m or n − m is too small for it).'),
    h('p', {},
      'The overhead ', h('span', { class: 'eq' }, 'To'), ' (two clock reads) is estimated the same way from an empty event and subtracted: ',
      h('span', { class: 'eq' }, 'Te = p·Tc − To'), ' (eq. 6). ',
      'Eq. 5 says how many trials a relative error ε needs: ', h('span', { class: 'eq' }, 'n = z²·q / (ε²·p)'),
      ' — a hundred times as many for an event ten times shorter at the same ε, which is why the planner below matters. ',
      'The estimate is checked against the same trials timed by a fine clock (', h('code', {}, b.reference),
      ', chunk by chunk): one trial of the event less one of the empty event, over the stretches that kept the CPU — the mean the estimate estimates, ',
      'interrupts included. Each event is also timed alone (the median of its samples, less that clock\u2019s own overhead): its typical undisturbed length.'));
}

function facts(b) {
  const o = b.overhead;
  return h('dl', { class: 'headline-facts', 'data-testid': 'bernoulli-facts' },
    fact('Clock', [h('code', {}, b.clock), ', tick Tc = ',
      h('strong', { 'data-testid': 'tick-ns', dataset: { value: b.tick_ns } }, fmtNs(b.tick_ns, { exact: true }))]),
    fact('Timer overhead To', o
      ? [h('strong', { 'data-testid': 'overhead-ns', dataset: { value: o.raw_ns } }, fmtNs(o.raw_ns)),
        h('span', { class: 'muted' }, ` (${fmtNs(o.raw_interval_ns.lo)} to ${fmtNs(o.raw_interval_ns.hi)}; `,
          `${fmtCount(o.m)} ticks in ${fmtCount(o.n)} trials${o.wilson_used ? ', Wilson' : ''}${o.capped ? ', capped by the time budget' : ''})`),
        b.to_ns !== o.raw_ns
          ? h('span', {}, '; corrected for disturbance, the estimates and the planner use ',
            h('strong', { 'data-testid': 'to-used-ns', dataset: { value: b.to_ns } }, fmtNs(b.to_ns)))
          : null]
      : h('span', { class: 'muted' }, 'not estimated (no overhead trials)')),
    fact('Reference', [h('code', {}, b.reference), b.reference_overhead_ns != null
      ? h('span', { class: 'muted' }, ', own overhead ',
        h('span', { 'data-testid': 'reference-overhead-ns', dataset: { value: b.reference_overhead_ns } }, fmtNs(b.reference_overhead_ns)),
        ' subtracted')
      : null]),
    fact('Planned for', `ε = ${fmtPercent(b.planned_epsilon)} at ${fmtLevel(b.planned_confidence)} confidence`),
    fact('Intervals shown', h('span', { 'data-testid': 'bernoulli-confidence', dataset: { value: b.confidence } }, `${fmtLevel(b.confidence)} confidence`)));
}

function coverageLine(b) {
  const c = b.coverage;
  const good = c.share != null && c.share >= 0.9;
  return h('p', {
    class: ['coverage', c.share == null ? 'neutral' : good ? 'ok' : 'bad'], 'data-testid': 'coverage',
    dataset: { covered: c.covered, events: c.events, share: c.share ?? '' },
  },
  c.events
    ? [h('strong', {}, `${fmtCount(c.covered)} of ${fmtCount(c.events)}`),
      ` events of at least ${fmtNs(c.min_target_ns, { exact: true })}: the reference lies inside the ${fmtLevel(b.confidence)} interval`,
      ` (${fmtPercent(c.share)}). `,
      c.no_interval
        ? h('span', { 'data-testid': 'no-interval-count', dataset: { value: c.no_interval } },
          `${fmtCount(c.no_interval)} more got no interval: too disturbed to support one. `)
        : null,
      h('span', { class: 'muted' }, good
        ? 'The estimates agree with the TSC about as often as their confidence promises.'
        : 'Fewer than 90 %: the intervals are too narrow for this machine, or the estimate is biased (see the relative errors).')]
    : `No event of at least ${fmtNs(c.min_target_ns, { exact: true })} has a reference to check against.`);
}

function eventsTable(b) {
  const level = fmtLevel(b.confidence);
  const columns = [
    'Event',
    { label: 'Target', class: 'num', title: 'The length the busy work was calibrated to' },
    { label: 'n', class: 'num', title: 'Trials' },
    { label: 'm', class: 'num', title: 'Trials in which the clock ticked' },
    { label: 'Disturbed', class: 'num', title: 'Share of the trials whose chunk lost the CPU (an involuntary context switch, steal time, or wall time beyond the thread\u2019s CPU time)' },
    { label: 'Estimate Te', class: 'num', title: 'p·Tc − To (eq. 6); corrected for disturbed trials where there were any' },
    { label: `${level} interval`, class: 'num', title: 'Interval of Te: the trials\u2019 interval less To, widened by To\u2019s own uncertainty' },
    { label: 'Reference', class: 'num', title: `The trials timed by a fine clock: one trial of the event less one of the empty event; below, the event timed alone by ${b.reference}` },
    { label: 'Relative error', class: 'num', title: '(estimate − reference) / reference' },
    { label: 'Covered', title: 'Reference inside the interval' },
    { label: 'Trials vs eq. 5', class: 'num', title: 'n / the trials eq. 5 asks for at the observed p and the planned ε' },
    { label: 'Budget', title: 'Whether the time budget stopped the trials before the planned number' },
  ];
  const rows = b.events.map((e) => {
    const t = e.trials;
    const counted = e.target_ns >= b.coverage.min_target_ns;
    return h('tr', { 'data-testid': 'event-row', dataset: { event: e.name } },
      h('th', { scope: 'row' }, h('code', {}, e.name)),
      numCell('target_ns', e.target_ns, fmtNs(e.target_ns, { exact: true }), { unit: 'ns' }),
      numCell('n', t.n, [fmtCount(t.n), t.disturbed_n > 0
        ? h('span', { class: 'sub', dataset: { stat: 'disturbed_n', value: t.disturbed_n },
          title: `${t.disturbed_n} more trials (${t.disturbed_m} ticks) ran in chunks during which the thread was descheduled; set aside, not counted` },
        `+${fmtCount(t.disturbed_n)} set aside`)
        : null]),
      numCell('m', t.m, fmtCount(t.m), { title: `p = ${t.p}; p·Tc = ${t.raw_ns} ns (event + overhead)` }),
      numCell('disturbed_share', e.disturbed_share, e.disturbed_share == null ? '—' : fmtPercent(e.disturbed_share)),
      numCell('estimate_ns', e.estimate_ns, [fmtNs(e.estimate_ns), e.corrected
        ? h('span', { class: 'sub', dataset: { stat: 'uncorrected_ns', value: e.uncorrected_ns }, title: 'Corrected for the trials that lost the CPU (docs/methods.md, on a busy machine); below, the estimate from m/n as it stands' },
          `corrected; m/n gives ${fmtNs(e.uncorrected_ns)}`)
        : null], { unit: 'ns' }),
      e.interval_ns
        ? h('td', { class: 'num interval' },
          h('span', { dataset: { stat: 'interval_lo', value: e.interval_ns.lo }, title: `${e.interval_ns.lo} ns` }, fmtNs(e.interval_ns.lo)),
          '\u00a0to ', // a narrow column breaks the interval after "to", not before
          h('span', { dataset: { stat: 'interval_hi', value: e.interval_ns.hi }, title: `${e.interval_ns.hi} ns` }, fmtNs(e.interval_ns.hi)),
          t.wilson_used && !e.corrected ? [' ', h('span', { class: 'badge', title: 'm or n − m was too small for the normal interval (eq. 2): Wilson\u2019s score interval was used', 'data-testid': 'wilson' }, 'Wilson')] : null)
        : h('td', { class: 'num interval', dataset: { stat: 'no_interval', value: e.no_interval ?? '' } },
          h('span', { class: 'badge warn', 'data-testid': 'no-interval', title: e.no_interval ?? '' }, 'no interval'),
          h('span', { class: 'sub' }, (e.no_interval ?? '').replace(/^no interval: /, ''))),
      numCell('reference_ns', e.reference_ns, [fmtNs(e.reference_ns), e.reference_alone_ns != null && e.reference_basis?.startsWith('the trials')
        ? h('span', { class: 'sub', dataset: { stat: 'reference_alone_ns', value: e.reference_alone_ns },
          title: e.reference ? `the event timed alone: ${e.reference.n} samples; median ${e.reference.median} ns, mean ${e.reference.mean} ns before subtracting the reference overhead` : undefined },
        `alone ${fmtNs(e.reference_alone_ns)}`)
        : null], {
        unit: 'ns',
        title: e.reference_basis ? `${e.reference_basis}: ${e.reference_ns} ns` : undefined,
      }),
      numCell('relative_error', e.relative_error, fmtSignedPercent(e.relative_error)),
      h('td', { class: ['covered', !counted && 'uncounted'], dataset: { stat: 'covered', value: e.covered ?? '' } },
        e.covered == null
          ? h('span', { class: 'muted' }, '—')
          : h('span', { class: ['mark', e.covered ? 'ok' : 'bad'], 'aria-label': e.covered ? 'yes' : 'no', title: e.covered ? 'reference inside the interval' : 'reference outside the interval' }, e.covered ? '✓' : '✗'),
        counted ? null : h('span', { class: 'sub' }, 'not counted')),
      numCell('trials_ratio', t.trials_ratio, [fmtPercent(t.trials_ratio),
        h('span', { class: 'sub', dataset: { stat: 'trials_needed', value: t.trials_needed ?? '' } },
          t.trials_needed != null ? `of ${fmtCount(t.trials_needed)}` : 'no plan')], {
        title: t.trials_ratio != null ? `n = ${t.n} of ${t.trials_needed} trials eq. 5 asks for (planned: ${t.planned})` : undefined,
      }),
      h('td', { dataset: { stat: 'capped', value: t.capped } },
        t.capped
          ? h('span', { class: 'badge warn', title: `the time budget stopped the trials at ${t.n} of ${t.planned} planned` }, 'capped')
          : h('span', { class: 'muted' }, 'planned n')));
  });
  return h('div', { class: 'events' },
    h('h3', {}, 'Events'),
    table({
      testid: 'bernoulli-table', columns, rows,
      caption: `Events below ${fmtNs(b.coverage.min_target_ns, { exact: true })} are not counted in the coverage: the busy loop's call adds a few ns their target does not include. ` +
        'Trials vs eq. 5: trials run as a share of those eq. 5 asks for at the observed p and the planned ε.',
    }));
}

const logTickNs = (v) => {
  const e = Math.log10(v);
  return Math.abs(e - Math.round(e)) < 1e-9 ? fmtNs(v, { exact: true }).replace('\u202f', '') : '';
};

function estimateChart(b) {
  const events = b.events;
  const positives = events.flatMap((e) => [e.target_ns, e.estimate_ns, e.interval_ns?.lo, e.interval_ns?.hi, e.reference_ns])
    .filter((v) => v != null && v > 0);
  const lo = Math.min(...positives) / 1.6;
  const hi = Math.max(...positives) * 1.6;
  const drawn = events.filter((e) => e.estimate_ns > 0);
  const hidden = events.length - drawn.length;
  const intervals = events.filter((e) => e.interval_ns && e.interval_ns.hi > 0)
    .map((e) => ({ ...e, y1: Math.max(e.interval_ns.lo, lo), y2: e.interval_ns.hi, clipped: e.interval_ns.lo < lo }));
  const refs = events.filter((e) => e.reference_ns != null && e.reference_ns > 0);
  const summary = `Estimate of each event (dots, with its ${fmtLevel(b.confidence)} interval as a vertical bar) and its reference, the trials timed by ${b.reference} (crosses) ` +
    `against the target length, both axes logarithmic; the dashed diagonal is estimate = target. ` +
    events.map((e) => `${e.name}: ${fmtNs(e.estimate_ns)}${e.interval_ns ? '' : ', no interval'} (reference ${fmtNs(e.reference_ns)})`).join('; ') + '.' +
    (hidden ? ` ${hidden} estimate${hidden === 1 ? ' is' : 's are'} not above zero and cannot be drawn on a log axis.` : '');
  const figure = chartFigure({
    testid: 'bernoulli-chart',
    caption: 'Bernoulli estimates and their reference against the target length.',
    summary,
    draw: (width) => Plot.plot({
      ...baseOptions(width),
      height: Math.max(300, Math.min(460, width * 0.45)),
      marginLeft: 64,
      marginBottom: 42,
      x: { type: 'log', domain: [lo, hi], label: 'target length →', grid: true, tickFormat: logTickNs },
      y: { type: 'log', domain: [lo, hi], label: '↑ measured length', grid: true, tickFormat: logTickNs },
      marks: [
        Plot.line([[lo, lo], [hi, hi]], { stroke: 'currentColor', strokeOpacity: 0.45, strokeDasharray: '4 4' }),
        Plot.ruleX(intervals, { x: 'target_ns', y1: 'y1', y2: 'y2', stroke: 'var(--accent)', strokeWidth: 2, strokeOpacity: 0.8 }),
        // Caps: short horizontal links, a fixed ratio wide on the log axis.
        Plot.link(intervals, { x1: (e) => e.target_ns / 1.09, x2: (e) => e.target_ns * 1.09, y1: 'y2', y2: 'y2', stroke: 'var(--accent)', strokeWidth: 1.5 }),
        Plot.link(intervals.filter((e) => !e.clipped), { x1: (e) => e.target_ns / 1.09, x2: (e) => e.target_ns * 1.09, y1: 'y1', y2: 'y1', stroke: 'var(--accent)', strokeWidth: 1.5 }),
        Plot.dot(refs, {
          x: 'target_ns', y: 'reference_ns', symbol: 'times', r: 4.5, stroke: 'var(--series-2)', strokeWidth: 2,
        }),
        Plot.dot(drawn, {
          x: 'target_ns', y: 'estimate_ns', r: 4, fill: 'var(--accent)', stroke: 'var(--card)',
        }),
        Plot.tip(events.filter((e) => e.estimate_ns > 0), Plot.pointer({
          x: 'target_ns', y: 'estimate_ns',
          title: (e) => `${e.name}\nestimate ${fmtNs(e.estimate_ns)} ` +
            (e.interval_ns ? `(${fmtNs(e.interval_ns.lo)} to ${fmtNs(e.interval_ns.hi)})` : `(${e.no_interval})`) +
            `\nreference ${fmtNs(e.reference_ns)}\nrelative error ${fmtSignedPercent(e.relative_error)}` +
            `\n${fmtCount(e.trials.m)} ticks in ${fmtCount(e.trials.n)} trials`,
        })),
      ],
    }),
  });
  return h('div', { class: 'bernoulli-chart' },
    plotKey('Key to the Bernoulli chart', [
      [glyph.dot('var(--accent)'), 'estimate Te'],
      [glyph.vbar('var(--accent)'), `${fmtLevel(b.confidence)} interval`],
      [glyph.cross('var(--series-2)'), 'reference (the trials by a fine clock)'],
      [glyph.line('currentColor', '4 4'), 'estimate = target'],
    ]),
    figure);
}

/* ------------------------------------------------------------ planner */

const UNITS = [['ns', 1], ['µs', 1e3], ['ms', 1e6], ['s', 1e9]];

/** A time input's starting text and unit for a value in ns (display scaling only). */
function timeField(ns) {
  const [scale, unit] = timeUnit(ns);
  return { text: fmtNum(ns / scale, { digits: 4, exact: true }).replace(/\u202f/g, ''), unit, exact: ns };
}

/**
 * Whether a planner state (typed here, or restored from a link by state.js
 * with the right types) can drive the form: units the selects offer, a
 * confidence strictly between 0 and 1, or none (the toolbar's). Anything
 * else starts afresh.
 */
function usablePlanner(st) {
  const unitOk = (f) => f && typeof f.text === 'string' && UNITS.some(([u]) => u === f.unit);
  const c = Number(st.confidence);
  return unitOk(st.event) && unitOk(st.tick) && unitOk(st.overhead) && typeof st.epsilon?.text === 'string' &&
    (st.confidence == null || (typeof st.confidence === 'string' && c > 0 && c < 1));
}

/** The confidence levels offered, with `current` among them (a link's or the options' own). */
function levels(current) {
  const list = ['0.9', '0.95', '0.99'];
  if (!list.includes(current)) list.push(current);
  return list.sort((x, y) => Number(x) - Number(y));
}

function planner(b, ctx) {
  const view = ctx.view;
  // What the reader typed survives a re-analysis, and a link (state.js keeps
  // the planner once edited); defaults follow the file.
  if (!view.planner || view.planner.tickDefault !== b.tick_ns || view.planner.overheadDefault !== b.to_ns ||
      !usablePlanner(view.planner)) {
    view.planner = {
      edited: false,
      tickDefault: b.tick_ns,
      overheadDefault: b.to_ns,
      event: { text: '100', unit: 'ns', exact: null },
      tick: timeField(b.tick_ns),
      overhead: { ...timeField(b.to_ns), unit: 'ns', text: fmtNum(b.to_ns, { digits: 4, exact: true }) },
      epsilon: { text: String(+(b.planned_epsilon * 100).toPrecision(6)), exact: null },
      // null: the toolbar's confidence (this report's), which the planner
      // follows until the reader picks a level in the planner itself.
      confidence: null,
    };
  }
  const st = view.planner;
  st.confidence ??= null;
  const level = () => st.confidence ?? String(b.confidence);
  const out = h('output', { class: 'plan-result', 'data-testid': 'plan-result', 'aria-live': 'polite', for: '' });

  const timeInput = (name, label, hint) => {
    const f = st[name];
    const input = h('input', {
      type: 'number', min: 0, step: 'any', value: f.text, 'data-testid': `plan-${name}`, 'aria-label': `${label} (number)`, required: true,
      oninput: () => { f.text = input.value; f.exact = null; st.edited = true; update(); },
    });
    const unit = h('select', {
      'data-testid': `plan-${name}-unit`, 'aria-label': `${label} (unit)`,
      onchange: () => { f.unit = unit.value; f.exact = null; st.edited = true; update(); },
    }, UNITS.map(([u]) => h('option', { value: u, selected: u === f.unit }, u)));
    return h('div', { class: 'field' }, h('label', {}, h('span', { class: 'label' }, label), h('span', { class: 'inputs' }, input, unit)),
      hint ? h('span', { class: 'hint' }, hint) : null);
  };
  const eps = h('input', {
    type: 'number', min: 0, max: 100, step: 'any', value: st.epsilon.text, 'data-testid': 'plan-epsilon', 'aria-label': 'Relative error ε in percent',
    oninput: () => { st.epsilon.text = eps.value; st.edited = true; update(); },
  });
  const conf = h('select', {
    'data-testid': 'plan-confidence', 'aria-label': 'Confidence',
    onchange: () => { st.confidence = conf.value; st.edited = true; update(); },
  }, levels(level()).map((v) => h('option', { value: v, selected: v === level() }, fmtLevel(Number(v)))));

  const value = (f) => {
    if (f.exact != null) return f.exact;
    const x = Number(f.text);
    const scale = UNITS.find(([u]) => u === f.unit)?.[1] ?? 1;
    return f.text.trim() === '' || !Number.isFinite(x) ? NaN : x * scale;
  };
  let seq = 0;
  async function update() {
    const args = {
      event_ns: value(st.event),
      tick_ns: value(st.tick),
      overhead_ns: value(st.overhead),
      epsilon: Number(st.epsilon.text) / 100,
      confidence: Number(level()),
    };
    const mine = ++seq;
    if (Object.values(args).some((v) => !Number.isFinite(v)) || st.epsilon.text.trim() === '') {
      show(null, 'Fill in every field with a number.');
      return;
    }
    let plan;
    try {
      plan = await ctx.plan(args);
    } catch (e) {
      if (mine === seq) show(null, `The planner failed: ${e.message}`);
      return;
    }
    if (mine !== seq) return; // a newer request is on its way
    if (!plan) show(null, 'No plan for these inputs: the event and the tick must be positive, the overhead not negative, ε and the confidence between 0 and 1.');
    else show(plan, null, args);
  }
  function show(plan, message, args) {
    out.dataset.trials = plan ? plan.trials : '';
    out.dataset.wallTime = plan ? plan.wall_time : '';
    out.dataset.p = plan ? plan.p : '';
    out.replaceChildren(...(plan
      ? [
        h('span', {}, 'Trials ', h('strong', { 'data-testid': 'plan-trials', dataset: { value: plan.trials } }, fmtCount(plan.trials))),
        h('span', {}, 'wall time ', h('strong', { 'data-testid': 'plan-wall-time', dataset: { value: plan.wall_time } }, fmtWall(plan.wall_time))),
        h('span', { class: 'muted' }, `p = ${fmtProb(plan.p)} per trial; each trial costs ${fmtNs(args.event_ns + args.overhead_ns)}`),
      ]
      : [h('span', { class: 'muted', 'data-testid': 'plan-message' }, message)]));
  }
  const reset = h('button', {
    type: 'button', class: 'button small', 'data-testid': 'plan-reset',
    onclick: () => { view.planner = null; const fresh = planner(b, ctx); section.replaceWith(fresh); fresh.querySelector('[data-testid=plan-event]')?.focus(); },
  }, 'Reset to this file');

  const section = h('div', { class: 'planner', 'data-testid': 'planner' },
    h('h3', {}, 'Trial planner'),
    h('p', { class: 'muted section-note' },
      'How many trials, and how much wall time, does an event need for a given relative error? Eq. 5 with p = (event + To) / Tc; ',
      'each trial costs the event plus the overhead. The tick and To start at this file\u2019s values; change anything.'),
    h('form', { class: 'plan-form', onsubmit: (e) => e.preventDefault() },
      timeInput('event', 'Event length'),
      timeInput('tick', 'Clock tick Tc', `this file: ${fmtNs(b.tick_ns, { exact: true })}`),
      timeInput('overhead', 'Overhead To', `this file: ${fmtNs(b.overhead?.raw_ns)}`),
      h('div', { class: 'field' }, h('label', {}, h('span', { class: 'label' }, 'Relative error ε'), h('span', { class: 'inputs' }, eps, h('span', { class: 'unit' }, '%')))),
      h('div', { class: 'field' }, h('label', {}, h('span', { class: 'label' }, 'Confidence'), h('span', { class: 'inputs' }, conf))),
      h('div', { class: 'field actions' }, reset)),
    out,
    plannerTable(b));
  update();
  return section;
}

function plannerTable(b) {
  const epsilons = [...new Set(b.planner.map((r) => r.epsilon))];
  const events = [...new Set(b.planner.map((r) => r.event_ns))];
  if (!events.length) return h('p', { class: 'muted' }, 'The report has no planner table (no usable tick or overhead).');
  const rows = events.map((ev) => h('tr', { 'data-testid': 'planner-row', dataset: { event: ev } },
    h('th', { scope: 'row', class: 'num' }, fmtNs(ev, { exact: true })),
    epsilons.map((eps) => {
      const r = b.planner.find((x) => x.event_ns === ev && x.epsilon === eps);
      return [
        numCell(`trials_${eps}`, r?.trials, fmtCount(r?.trials), { className: 'num group-start' }),
        numCell(`wall_time_${eps}`, r?.wall_time_ns, fmtWall(r?.wall_time_ns), { unit: 'ns', className: ['num', r && r.wall_time_ns > 3.6e12 ? 'bad' : r && r.wall_time_ns > 6e10 ? 'warn' : ''].join(' ') }),
      ];
    })));
  return h('div', { class: 'planner-table' },
    h('h4', {}, `Table 1 for this machine: trials and wall time at Tc = ${fmtNs(b.tick_ns, { exact: true })}, To = ${fmtNs(b.overhead?.raw_ns)}, ${fmtLevel(b.confidence)} confidence`),
    h('div', { class: 'table-wrap' },
      h('table', { class: 'data planner', 'data-testid': 'planner-table' },
        h('caption', {}, 'Wall time over a minute in amber, over an hour in red: sequences of many copies of a short event are the way out (the operations cell).'),
        h('thead', {},
          h('tr', {}, h('th', { scope: 'col', rowspan: 2 }, 'Event'),
            epsilons.map((eps) => h('th', { scope: 'colgroup', colspan: 2, class: 'group-start center' }, `ε = ${fmtPercent(eps)}`))),
          h('tr', {}, epsilons.map(() => [h('th', { scope: 'col', class: 'num group-start' }, 'Trials'), h('th', { scope: 'col', class: 'num' }, 'Wall time')]))),
        h('tbody', {}, rows))));
}
