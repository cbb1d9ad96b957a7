// Calibration of the portable clock against the cycle counter (METHODS.md
// §000): the same sequences timed both ways, the OLS fit y = α + β·x of the
// counter's ns per op (y) on the portable ns per op (x), Pearson r, and the
// largest residuals; all from the report's `calibration`. The fit can be
// exported (a JSON file) and another machine's fit applied to this file's
// portable timings; both are computed in Rust (worker.js CALLS), the page
// only downloads, reads the chosen file and renders.

import * as Plot from '@observablehq/plot';
import { h, download } from '../../ui/dom.js';
import { fact } from '../../ui/cell.js';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { plotKey, glyph } from '../../ui/key.js';
import { fmtNs, fmtNum, fmtLevel, fmtGHz, fmtCount } from '../../ui/units.js';

const signedNs = (v) => (v < 0 ? `−${fmtNs(-v)}` : `+${fmtNs(v)}`);

export function calibrationSection(o, f, report, ctx, rerender) {
  const cal = f.calibration;
  const section = h('div', { class: 'calibration', 'data-testid': 'calibration', dataset: { form: f.form } },
    h('h3', {}, `Calibration against the cycle counter (${f.form})`));
  if (!cal) {
    section.append(h('p', { class: 'muted' }, o.counter_clock
      ? 'Not enough operations with both a portable and a counter estimate to fit a line.'
      : 'No cycle counter on this machine: the portable timings cannot be calibrated.'),
    ctx ? fitTools(o, f, report, ctx, rerender) : null);
    return section;
  }
  const fit = cal.fit;
  const level = fmtLevel(fit.confidence);
  const ciIncludesOne = fit.slope_ci[0] <= 1 && 1 <= fit.slope_ci[1];
  const byName = new Map(cal.points.map((p) => [p.name, p]));
  section.append(
    h('p', { class: 'muted section-note' },
      'Each operation\u2019s cost by the portable clock (x) against the same sequences timed by ', h('code', {}, o.counter_clock ?? 'the counter'),
      ' (y, converted to ns with the counter frequency), and the least-squares line ', h('span', { class: 'eq' }, 'y = α + β·x'),
      '. One fit per machine then converts every portable timing, as in the paper (r = 0.989, β = 1.232 there).'),
    h('dl', { class: 'headline-facts fit', 'data-testid': 'fit' },
      fact('Pearson r', h('strong', { 'data-testid': 'fit-r', dataset: { value: fit.r } }, fmtNum(fit.r, { digits: 6 }))),
      fact('Slope β', [h('strong', { 'data-testid': 'fit-slope', dataset: { value: fit.slope, lo: fit.slope_ci[0], hi: fit.slope_ci[1] } }, fmtNum(fit.slope)),
        h('span', { class: 'muted' }, ` (${level} CI ${fmtNum(fit.slope_ci[0])} to ${fmtNum(fit.slope_ci[1])})`)]),
      fact('Intercept α', [h('strong', { 'data-testid': 'fit-intercept', dataset: { value: fit.intercept, lo: fit.intercept_ci[0], hi: fit.intercept_ci[1] } }, signedNs(fit.intercept)),
        h('span', { class: 'muted' }, ` (${level} CI ${signedNs(fit.intercept_ci[0])} to ${signedNs(fit.intercept_ci[1])})`)]),
      fact('Operations', h('span', { 'data-testid': 'fit-n', dataset: { value: fit.n } }, fmtCount(fit.n)))),
    h('p', { class: 'slope-reading', 'data-testid': 'slope-reading' },
      'Both axes are time, so ', h('strong', {}, 'β = 1'), ' means the two clocks agree per operation; here the ',
      level, ' interval of β ', ciIncludesOne ? h('strong', {}, 'includes 1') : h('strong', {}, 'excludes 1'),
      ciIncludesOne ? '.' : ': the counter\u2019s ns per op is a fixed multiple of the portable clock\u2019s — use the line to convert.',
      ' The counter ticks at a fixed rate, not with the core: ',
      cal.cycles_per_tick != null
        ? [h('strong', { 'data-testid': 'calibration-cycles-per-tick', dataset: { value: cal.cycles_per_tick } }, fmtNum(cal.cycles_per_tick)),
          ' core cycles per tick', o.core?.core_hz != null ? ` (core at ${fmtGHz(o.core.core_hz)})` : '',
          '. Ticks read as if they were core cycles would be off by that factor — the kind of effect inside a slope like the paper\u2019s 1.232; ',
          'the table\u2019s core cycles/op already divide it out.']
        : 'the core-clock ratio was not measured here, so counter ticks cannot be read as core cycles.'),
    h('p', { class: 'residuals', 'data-testid': 'largest-residuals' },
      h('strong', {}, 'Largest residuals: '),
      cal.largest_residuals.map((name, i) => [i ? ', ' : '',
        h('span', { 'data-testid': 'residual', dataset: { name, value: byName.get(name)?.residual_ns ?? '' } },
          h('code', {}, name), ` ${signedNs(byName.get(name)?.residual_ns)}`)])),
    calibrationChart(o, f, cal),
    ctx ? fitTools(o, f, report, ctx, rerender) : null,
  );
  return section;
}

/* ------------------------------------------------------------ export / apply */

// A download name from a file name: only safe characters survive.
function fitFileName(file, form) {
  const base = String(file).split(/[\\/]/).pop().replace(/\.json$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'tickbook';
  return `${base}-${form}-fit.json`;
}

function fitTools(o, f, report, ctx, rerender) {
  const view = ctx.view;
  const status = h('output', { class: 'fit-status', 'data-testid': 'fit-status', 'aria-live': 'polite' });
  const say = (text, bad) => {
    status.textContent = text;
    status.classList.toggle('bad', Boolean(bad));
  };
  const exportButton = h('button', {
    type: 'button', 'data-testid': 'export-fit', disabled: !f.calibration,
    title: f.calibration ? `Download this file’s ${f.form} fit as JSON` : 'No fit to export',
    onclick: async () => {
      try {
        const fit = await ctx.call('exportFit', report, f.form);
        download(fitFileName(report.file, f.form), new Blob([`${JSON.stringify(fit, null, 2)}\n`], { type: 'application/json' }));
        say(`Exported the ${f.form} fit (${fmtCount(fit.n)} operations).`);
      } catch (e) {
        say(`Could not export the fit: ${e?.message ?? e}`, true);
      }
    },
  }, 'Export fit');
  const input = h('input', {
    type: 'file', accept: '.json,application/json', 'data-testid': 'apply-fit', 'aria-label': 'Apply a fit file to this file’s portable timings',
    onchange: async () => {
      const file = input.files?.[0];
      if (!file) return;
      try {
        const buffer = await file.arrayBuffer();
        view.calibrated = await ctx.call('applyCalibration', o, file.name, buffer);
        // Tied to this report: a re-analysis (new options) drops it rather
        // than show numbers computed from the previous report.
        view.calibratedFor = report;
        rerender();
      } catch (e) {
        say(`Could not apply ${file.name}: ${e?.message ?? e}`, true);
      }
      input.value = '';
    },
  });
  const applied = view.calibratedFor === report ? view.calibrated : null;
  return h('div', { class: 'fit-tools', 'data-testid': 'fit-tools' },
    h('p', { class: 'muted section-note' },
      'Export this fit to convert another file’s portable timings, or apply a fit exported elsewhere (here or with ',
      h('code', {}, 'tickbook analyze --export-fit'), '): the table above gains a calibrated column, ',
      h('span', { class: 'eq' }, 'α + β·x'), ' with its interval.'),
    h('div', { class: 'table-tools' },
      exportButton,
      h('label', { class: 'file-pick' }, 'Apply a fit: ', input),
      applied ? h('button', { type: 'button', 'data-testid': 'remove-fit', onclick: () => { view.calibrated = null; view.calibratedFor = null; rerender(); } }, 'Remove the applied fit') : null),
    applied ? appliedNote(applied) : null,
    status);
}

function appliedNote(c) {
  const fit = c.fit;
  return h('div', { class: 'applied-fit', 'data-testid': 'applied-fit', dataset: { slope: fit.slope, intercept: fit.intercept, source: fit.source_file } },
    h('p', {}, 'Applied: the ', fit.form, ' fit of ', h('code', {}, fit.source_file),
      fit.source_host ? [' (', fit.source_host, ')'] : '', ': ',
      h('span', { class: 'eq' }, `y = ${signedNs(fit.intercept)} + ${fmtNum(fit.slope)}·x`),
      `, r = ${fmtNum(fit.r, { digits: 6 })}, ${fmtCount(fit.n)} operations; `,
      h('span', { 'data-testid': 'calibrated-count', dataset: { value: c.ops.length } }, `${fmtCount(c.ops.length)} operations calibrated`), '.'),
    c.warnings.length ? h('ul', { class: 'warnings', 'data-testid': 'fit-warnings' }, c.warnings.map((w) => h('li', {}, w))) : null);
}

function calibrationChart(o, f, cal) {
  const fit = cal.fit;
  const pts = cal.points;
  const xs = pts.map((p) => p.portable_ns);
  const x0 = 0;
  const x1 = Math.max(...xs) * 1.04;
  const top = new Set(cal.largest_residuals);
  // The fitted line, drawn between the ends of the x axis.
  const line = [{ x: x0, y: fit.intercept + fit.slope * x0 }, { x: x1, y: fit.intercept + fit.slope * x1 }];
  const summary = `Scatter of ${pts.length} ${f.form} operations: portable ns per op (x) against counter ns per op (y), with the fitted line ` +
    `y = ${fmtNum(fit.intercept)} + ${fmtNum(fit.slope)}·x (r = ${fmtNum(fit.r, { digits: 6 })}) and, dashed, y = x. ` +
    `Largest residuals: ${cal.largest_residuals.join(', ')}.`;
  return h('div', {},
    plotKey('Key to the calibration chart', [
      [glyph.dot('var(--accent)'), 'one operation'],
      [glyph.ring('var(--bad)'), 'largest residuals (named)'],
      [glyph.line('var(--series-2)'), 'fitted line'],
      [glyph.line('currentColor', '4 4'), 'y = x'],
    ]),
    chartFigure({
      testid: 'calibration-chart',
      caption: `${f.form}: counter against portable ns per operation.`,
      summary,
      draw: (width) => Plot.plot({
        ...baseOptions(width),
        height: Math.max(300, Math.min(440, width * 0.42)),
        marginLeft: 56,
        marginRight: 30,
        marginBottom: 42,
        x: { domain: [x0, x1], label: `portable ns per op (${o.portable_clock}) →`, grid: true },
        y: { label: `↑ counter ns per op (${o.counter_clock ?? 'counter'})`, grid: true, zero: true },
        marks: [
          Plot.line([[x0, x0], [x1, x1]], { stroke: 'currentColor', strokeOpacity: 0.4, strokeDasharray: '4 4' }),
          Plot.line(line, { x: 'x', y: 'y', stroke: 'var(--series-2)', strokeWidth: 2 }),
          Plot.dot(pts, { x: 'portable_ns', y: 'counter_ns', r: 3.5, fill: 'var(--accent)', fillOpacity: 0.8 }),
          Plot.dot(pts.filter((p) => top.has(p.name)), { x: 'portable_ns', y: 'counter_ns', r: 6.5, stroke: 'var(--bad)', strokeWidth: 1.5 }),
          // Names left of their point, or right of it in the left half (where the left margin would cut them).
          ...[[(p) => p.portable_ns >= x1 / 2, 'end', -10], [(p) => p.portable_ns < x1 / 2, 'start', 10]].map(([side, textAnchor, dx]) => Plot.text(pts.filter((p) => top.has(p.name) && side(p)), {
            x: 'portable_ns', y: 'counter_ns', text: 'name', textAnchor, dx, fill: 'var(--bad)',
            fontFamily: 'var(--mono)', fontSize: 11, stroke: 'var(--card)', strokeWidth: 3, paintOrder: 'stroke',
          })),
          Plot.tip(pts, Plot.pointer({
            x: 'portable_ns', y: 'counter_ns',
            title: (p) => `${p.name}\nportable ${fmtNs(p.portable_ns)}\ncounter ${fmtNs(p.counter_ns)}\nresidual ${signedNs(p.residual_ns)}`,
          })),
        ],
      }),
    }));
}
