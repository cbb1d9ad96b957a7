// The Commands cell's chart of every run in time order: x the round (the
// runs of one round share it, joined by a thin rule from the round's
// fastest run to its slowest, so a pair is read at a glance), y the run's
// wall time, one colour and symbol per command, and each command's drift
// line (the report's least-squares fit of wall time on round) over its
// rounds. Every value is the report's (`commands[].rounds`, `wall_ns`,
// `drift`); the page only scales ns to the axis' unit.
//
// What the tests read back: the dots' group `commands-run` (colour and
// symbol by command, in the report's order), the rules' one path
// (`commands-pair`), the drift links (`commands-drift`, Plot's datum index
// the command's index); the figure's data-scale is the ns per axis unit.

import * as Plot from '@observablehq/plot';
import { chartFigure, baseOptions } from '../../ui/charts.js';
import { svgEl } from '../../ui/dom.js';
import { timeUnit, fmtNs, fmtSignedPercent } from '../../ui/units.js';
import { CATEGORICAL } from '../../ui/palette.js';

const SYMBOLS = ['circle', 'square', 'triangle', 'diamond', 'cross', 'star', 'wye', 'times'];
// Rounds per tick label at most, by width.
const TICK_SPACING_PX = 70;

/** Integer ticks over the rounds, about one per TICK_SPACING_PX. */
function roundTicks(lo, hi, width) {
  const want = Math.max(2, Math.floor(width / TICK_SPACING_PX));
  const raw = Math.max(1, (hi - lo) / want);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let i = Math.ceil(lo / step) * step; i <= hi; i += step) out.push(i);
  return out;
}

/** The chart of `r` (the report's `commands`), or null without runs. */
export function runsChart(r) {
  const commands = r.commands.filter((c) => c.runs > 0);
  if (!commands.length) return null;
  const all = commands.flatMap((c) => c.wall_ns);
  const sorted = [...all].sort((a, b) => a - b);
  const [s, unit] = timeUnit(sorted[Math.floor(sorted.length / 2)] || 1);
  const names = commands.map((c) => c.name);
  const points = commands.flatMap((c) => c.rounds.map((round, k) => ({ command: c.name, round, wall: c.wall_ns[k] / s })));
  // Each round's fastest and slowest run: the rule that pairs them.
  const span = new Map();
  for (const p of points) {
    const x = span.get(p.round);
    if (!x) span.set(p.round, { round: p.round, lo: p.wall, hi: p.wall, n: 1 });
    else Object.assign(x, { lo: Math.min(x.lo, p.wall), hi: Math.max(x.hi, p.wall), n: x.n + 1 });
  }
  const pairs = [...span.values()].filter((x) => x.n > 1);
  const rounds = points.map((p) => p.round);
  const [r0, r1] = [Math.min(...rounds), Math.max(...rounds)];
  const drifts = commands.map((c) => {
    if (!c.drift) return null;
    const [a, b] = [Math.min(...c.rounds), Math.max(...c.rounds)];
    const at = (x) => (c.drift.intercept_ns + c.drift.slope_ns_per_round * x) / s;
    return { command: c.name, x1: a, x2: b, y1: at(a), y2: at(b), over: c.drift.over_run };
  });
  const summary = `Wall time of every run in time order over ${r.rounds} rounds (round on the x axis, the runs of one round joined by a rule), ` +
    commands.map((c, i) => `${c.name} (${SYMBOLS[i % SYMBOLS.length]}): ${c.runs} runs, mean ${fmtNs(c.mean_ns)}` +
      (drifts[i] ? `, drift over the run ${fmtSignedPercent(drifts[i].over)}` : '')).join('; ') + '.';
  const figure = chartFigure({
    testid: 'commands-runs',
    caption: 'Every run in time order: each round\u2019s runs on one x, joined by a rule; the lines are each command\u2019s drift (least squares of wall time on round).',
    summary,
    draw: (width) => {
      const dotRadius = points.length > 2000 ? 1.5 : points.length > 400 ? 2.5 : 3.5;
      return Plot.plot({
        ...baseOptions(width),
        height: 280,
        marginLeft: 56,
        x: {
          domain: [r0 - 0.5, r1 + 0.5], ticks: roundTicks(r0, r1, width), tickFormat: (i) => String(i),
          label: 'round (0-based, in time order) \u2192',
        },
        y: { label: `\u2191 wall time (${unit})`, grid: true, nice: true, zero: false },
        color: { domain: names, range: names.map((_, i) => CATEGORICAL[i % CATEGORICAL.length]) },
        symbol: { domain: names, range: names.map((_, i) => SYMBOLS[i % SYMBOLS.length]), legend: true },
        marks: [
          // One path for every round's rule: thousands of rounds would be
          // thousands of elements.
          Plot.ruleX(pairs, {
            x: 'round', y1: 'lo', y2: 'hi',
            render: (index, _scales, v) => {
              let d = '';
              for (const i of index) d += `M${v.x[i]},${v.y1[i]}V${v.y2[i]}`;
              return svgEl('g', { 'aria-label': 'commands-pair', class: 'commands-pair' },
                svgEl('path', { d, fill: 'none', stroke: 'currentColor', 'stroke-opacity': 0.35, 'stroke-width': 1 }));
            },
          }),
          Plot.dot(points, {
            x: 'round', y: 'wall', stroke: 'command', symbol: 'command', r: dotRadius, strokeWidth: 1.5,
            className: 'commands-run',
          }),
          Plot.link(drifts.filter(Boolean), {
            x1: 'x1', x2: 'x2', y1: 'y1', y2: 'y2', stroke: 'command', strokeWidth: 2, strokeDasharray: '6 3',
            className: 'commands-drift',
          }),
        ],
      });
    },
  });
  figure.dataset.scale = String(s);
  figure.dataset.unit = unit;
  return figure;
}
