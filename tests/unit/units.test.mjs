// The page's formatting helpers (web/src/ui/units.js) against known answers and
// against the property that matters most: what is printed, read back, is the
// value (sizes and counts are never rounded into something else).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fmtBytes, fmtNum, fmtCount, fmtSeriesValue, fmtNs } from '../../web/src/ui/units.js';

const S = '\u202f';
const plain = (s) => s.replaceAll(S, ' ');

test('fmtBytes prints known sizes exactly', () => {
  const cases = [
    [0, '0 B'],
    [1, '1 B'],
    [1000, '1 000 B'],
    [1023, '1 023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [2000, '2 000 B'],
    [48 * 1024, '48 KiB'],
    [1014 * 1024, '1 014 KiB'],
    [1000 * 1024, '1 000 KiB'],
    [1024 * 1024, '1 MiB'],
    [1.5 * 2 ** 20, '1.5 MiB'],
    [1.25 * 2 ** 20, '1.25 MiB'],
    [1.125 * 2 ** 20, '1 152 KiB'],
    [1025 * 1024, '1 025 KiB'],
    [64 * 2 ** 20, '64 MiB'],
    [100_003, '100 003 B'],
    [2 ** 30, '1 GiB'],
  ];
  for (const [n, want] of cases) assert.equal(plain(fmtBytes(n)), want, `fmtBytes(${n})`);
  assert.equal(fmtBytes(null), '—');
  assert.equal(fmtBytes(NaN), '—');
});

const UNIT = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };
function parseBytes(s) {
  const m = /^([\d ]+(?:\.\d+)?) (B|KiB|MiB|GiB|TiB)$/.exec(plain(s));
  assert.ok(m, `"${s}" is a number and a binary unit`);
  return Number(m[1].replaceAll(' ', '')) * UNIT[m[2]];
}

test('fmtBytes read back is the size, for powers of two, their neighbours and random sizes', () => {
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed; };
  const sizes = [];
  for (let e = 0; e <= 36; e++) sizes.push(2 ** e, 2 ** e - 1, 2 ** e + 1, 3 * 2 ** e, 2 ** e + 2 ** Math.max(0, e - 2));
  for (let i = 0; i < 2000; i++) sizes.push(rand() % (1 << 28));
  for (const n of sizes) {
    const s = fmtBytes(n);
    assert.equal(parseBytes(s), n, `fmtBytes(${n}) = "${s}"`);
    // At most two decimals: a size is never a long fraction.
    assert.ok(!/\.\d{3}/.test(s), `"${s}" has at most two decimals`);
  }
});

test('large numbers keep every integer digit instead of invented zeros', () => {
  assert.equal(plain(fmtNum(31_987_500)), '31 987 500');
  assert.equal(plain(fmtCount(31_987_500)), '31 987 500');
  assert.equal(plain(fmtSeriesValue(31_987_500, { unit: 'cycles', unit_ns: null })), '31 987 500 cycles');
  // Whole counts are integers (perf's events, Go's B/op and allocs/op);
  // fractions keep their significant digits.
  assert.equal(plain(fmtSeriesValue(90, { unit: 'count', unit_ns: null })), '90 count');
  assert.equal(plain(fmtSeriesValue(1, { unit: 'allocs/op', unit_ns: null })), '1 allocs/op');
  assert.equal(plain(fmtSeriesValue(320, { unit: 'B/op', unit_ns: null })), '320 B/op');
  assert.equal(plain(fmtSeriesValue(0, { unit: 'B/op', unit_ns: null })), '0 B/op');
  assert.equal(plain(fmtSeriesValue(329.18, { unit: 'MB/s', unit_ns: null })), '329.2 MB/s');
  assert.equal(plain(fmtSeriesValue(2, { unit: 's', unit_ns: 1e9 })), '2.000 s');
  assert.equal(plain(fmtNum(12_345.678)), '12 346');
  // Below 10^digits the significant digits stay as they were.
  assert.equal(plain(fmtNum(1234.5678)), '1 235');
  assert.equal(plain(fmtNum(0.012345)), '0.01235');
  assert.equal(plain(fmtNum(2, { digits: 3 })), '2.00');
  assert.equal(plain(fmtNs(23.4712)), '23.47 ns');
  assert.equal(plain(fmtNs(4e6)), '4.000 ms');
  // Read back, an integer count of at least 10^4 is itself.
  for (const n of [10_000, 99_999, 123_456, 31_987_500, 2 ** 40 + 7]) {
    assert.equal(Number(plain(fmtNum(n)).replaceAll(' ', '')), n, `fmtNum(${n})`);
  }
});

test('scaleOf and ciDecimals: times and bytes scaled, an interval never shown as a point', async () => {
  const { scaleOf, ciDecimals } = await import('../../web/src/ui/units.js');
  // pyperf's seconds: 81.6 ns, not 0.0000 s.
  assert.deepEqual(scaleOf(8.16e-8, { unit: 's', unit_ns: 1e9 }).map((x) => (typeof x === 'number' ? x * 1e9 : x)), [1, 'ns']);
  assert.deepEqual(scaleOf(3227648, { unit: 'bytes', unit_bytes: 1 }), [2 ** 20, 'MiB']);
  assert.deepEqual(scaleOf(12.5, { unit: 'count' }), [1, 'count']);
  // Four significant digits, more when the interval needs them.
  assert.equal(ciDecimals(81.6, 81.1, 82.2), 2);
  assert.equal(ciDecimals(1, 0.99999, 1.00002), 6);
  assert.equal(ciDecimals(3.0781, 3.0518, 3.0994), 3);
});
