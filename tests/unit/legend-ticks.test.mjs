// The colour legends' ticks (ui/charts.js legendTicks) against values worked
// out by hand: round 1-2-5 steps, both ends of a span that is a whole number
// of steps kept even when the span carries rounding error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legendTicks } from '../../web/src/ui/charts.js';

test('a linear span of four round steps keeps both ends, rounding error or not', () => {
  assert.deepEqual(legendTicks(0.0095, 0.0115, { log: true }), [0.0095, 0.01, 0.0105, 0.011, 0.0115]);
  // As a copy heat map computes them: a per-byte time times a length over it.
  const lo = (0.0095 * 12_350) / 12_350;
  const hi = (0.0115 * 12_351) / 12_351 + 2 ** -58;
  assert.ok(hi - lo > 0.002, 'the span carries rounding error');
  assert.deepEqual(legendTicks(lo, hi, { log: true }), [0.0095, 0.01, 0.0105, 0.011, 0.0115]);
});

test('a span just past four steps takes the next round step', () => {
  assert.deepEqual(legendTicks(0, 2.1), [0, 1, 2]);
  assert.deepEqual(legendTicks(0, 2), [0, 0.5, 1, 1.5, 2]);
});

test('a log span of decades gives powers of ten', () => {
  assert.deepEqual(legendTicks(0.001, 10, { log: true }), [0.001, 0.1, 10]);
  assert.deepEqual(legendTicks(3, 3), [3]);
});
