// Unit scaling and number formatting: the only arithmetic the page does.

const NNBSP = '\u202f'; // narrow no-break space: digit groups and before units

function grouped(str) {
  return str.replace(/,/g, NNBSP);
}

const fixedSig = new Map();
const trimSig = new Map();
const wholeFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
function fmtSig(x, digits, trim) {
  // A number with more integer digits than `digits` keeps them all: rounding
  // 31 987 500 to "31 990 000" would print invented zeros as if exact.
  if (Math.abs(x) >= 10 ** digits) return grouped(wholeFmt.format(x));
  const cache = trim ? trimSig : fixedSig;
  let f = cache.get(digits);
  if (!f) {
    f = new Intl.NumberFormat('en-US', trim
      ? { maximumSignificantDigits: digits }
      : { minimumSignificantDigits: digits, maximumSignificantDigits: digits });
    cache.set(digits, f);
  }
  return grouped(f.format(x));
}

const TIME_UNITS = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/** Pick a time unit for a value in ns. */
export function timeUnit(ns) {
  const a = Math.abs(ns);
  for (const [scale, unit] of TIME_UNITS) if (a >= scale) return [scale, unit];
  return [1, 'ns'];
}

/**
 * A duration in ns as text with a scaled unit: 23.47 ns, 4.000 ms.
 * `exact` trims trailing zeros (for ticks and resolutions that are exact).
 */
export function fmtNs(ns, { digits = 4, exact = false } = {}) {
  if (ns == null || !Number.isFinite(ns)) return '—';
  if (ns === 0) return `0${NNBSP}ns`;
  const [scale, unit] = timeUnit(ns);
  return `${fmtSig(ns / scale, digits, exact)}${NNBSP}${unit}`;
}

/** A number with `digits` significant digits. */
export function fmtNum(x, { digits = 4, exact = false } = {}) {
  if (x == null || !Number.isFinite(x)) return '—';
  return fmtSig(x, digits, exact);
}

export function fmtCount(n) {
  if (n == null || !Number.isFinite(n)) return '—';
  return grouped(wholeFmt.format(n));
}

const BINARY_UNITS = [
  [2 ** 40, 'TiB'],
  [2 ** 30, 'GiB'],
  [2 ** 20, 'MiB'],
  [2 ** 10, 'KiB'],
];

/**
 * A byte count, exactly: in the largest binary unit where it is at least 1
 * and a whole number or ends in at most two decimals that are exact
 * (1 MiB, 1.5 KiB, 1 014 KiB, 1 000 B, 100 003 B). Never rounded: sizes
 * near a cache boundary must not read as the boundary.
 */
export function fmtBytes(n) {
  if (n == null || !Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  if (Number.isInteger(a)) {
    for (const [scale, unit] of BINARY_UNITS) {
      if (a >= scale && (a * 100) % scale === 0) return `${fmtExactDecimal(n / scale)}${NNBSP}${unit}`;
    }
  }
  return `${fmtExactDecimal(n)}${NNBSP}B`;
}

const exactFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });
function fmtExactDecimal(x) {
  return grouped(exactFmt.format(x)).replace('-', '−');
}

const mhzFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
/** Hz as MHz with kHz resolution (0.3 ppm at 3 GHz): 2 899.998 MHz. */
export function fmtMHz(hz) {
  if (hz == null || !Number.isFinite(hz)) return '—';
  return `${grouped(mhzFmt.format(hz / 1e6))}${NNBSP}MHz`;
}

/** Signed ppm: +0.31 ppm, −1.7 ppm, 0 ppm. */
export function fmtPpm(ppm) {
  if (ppm == null || !Number.isFinite(ppm)) return '—';
  if (ppm === 0) return `0${NNBSP}ppm`;
  const a = Math.abs(ppm);
  const body = a >= 100 ? fmtCount(a) : fmtSig(a, 2, false);
  return `${ppm < 0 ? '−' : '+'}${body}${NNBSP}ppm`;
}

/** Unsigned ppm (a spread). */
export function fmtPpmAbs(ppm) {
  if (ppm == null || !Number.isFinite(ppm)) return '—';
  return `${ppm >= 100 ? fmtCount(ppm) : fmtSig(ppm, 2, false)}${NNBSP}ppm`;
}

/** A ratio as a percentage: 8.87 %. */
export function fmtPercent(ratio) {
  if (ratio == null || !Number.isFinite(ratio)) return '—';
  return `${fmtSig(ratio * 100, 3, false)}${NNBSP}%`;
}

/**
 * A value of a samples series in its unit: time units are scaled through
 * `unit_ns` (from the report), anything else is shown with its unit as given,
 * a whole number (a count, bytes) as an integer: `90 count`, not `90.00 count`.
 */
export function fmtSeriesValue(x, series, opts) {
  if (x == null || !Number.isFinite(x)) return '—';
  if (series.unit_ns != null) return fmtNs(x * series.unit_ns, opts);
  if (Number.isSafeInteger(x)) return `${fmtCount(x)}${NNBSP}${series.unit}`;
  return `${fmtNum(x, opts)}${NNBSP}${series.unit}`;
}

/** Hz as GHz: 3.000 GHz. */
export function fmtGHz(hz) {
  if (hz == null || !Number.isFinite(hz)) return '—';
  return `${fmtSig(hz / 1e9, 4, false)}${NNBSP}GHz`;
}

/** A signed ratio as a percentage: +12.3 %, −4.56 %. */
export function fmtSignedPercent(ratio) {
  if (ratio == null || !Number.isFinite(ratio)) return '—';
  const body = fmtSig(Math.abs(ratio) * 100, 3, false);
  return `${ratio < 0 ? '−' : ratio > 0 ? '+' : ''}${body}${NNBSP}%`;
}

/** A confidence level: 95 %. */
export function fmtLevel(c) {
  if (c == null || !Number.isFinite(c)) return '—';
  return `${fmtSig(c * 100, 3, true)}${NNBSP}%`;
}

/** A duration in ns scaled to s, min, h or days for long wall times. */
export function fmtWall(ns) {
  if (ns == null || !Number.isFinite(ns)) return '—';
  const s = ns / 1e9;
  if (s < 60) return fmtNs(ns, { digits: 3 });
  if (s < 3600) return `${fmtSig(s / 60, 3, false)}${NNBSP}min`;
  if (s < 86400 * 2) return `${fmtSig(s / 3600, 3, false)}${NNBSP}h`;
  if (s < 86400 * 365 * 2) return `${fmtSig(s / 86400, 3, false)}${NNBSP}days`;
  return `${fmtSig(s / (86400 * 365.25), 3, false)}${NNBSP}years`;
}

/**
 * A ratio as a factor: 1.23×. An end of an interval that the data cannot
 * bound comes as the largest double (JSON has no infinity): shown as ∞×.
 */
export function fmtFactor(x, { digits = 3 } = {}) {
  if (x == null || !Number.isFinite(x)) return '—';
  return x >= 1e300 ? '∞×' : `${fmtSig(x, digits, false)}×`;
}

/** A signed number: +0.123, −4.56, 0. */
export function fmtSigned(x, { digits = 3 } = {}) {
  if (x == null || !Number.isFinite(x)) return '—';
  return `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmtSig(Math.abs(x), digits, false)}`;
}

const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** A probability: 0.2710, or 2.710 × 10⁻⁵ when small. */
export function fmtProb(p, digits = 4) {
  if (p == null || !Number.isFinite(p)) return '—';
  if (p === 0 || p >= 1e-3) return fmtSig(p, digits, false);
  const e = Math.floor(Math.log10(p));
  const m = p / 10 ** e;
  return `${fmtSig(m, digits, false)}${NNBSP}×${NNBSP}10${String(e).replace(/./g, (c) => SUP[c])}`;
}

const TIME_SCALES = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']];
const BYTE_SCALES = [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB'], [1, 'B']];

/**
 * The scale a series' values are shown in, chosen by `x`: [size in the
 * series' unit, name]; times (`unit_ns`) to ns…s, bytes (`unit_bytes`) to
 * B…GiB, anything else as given.
 */
export function scaleOf(x, item) {
  const pick = (v, scales) => scales.find(([s]) => Math.abs(v) >= s) ?? scales[scales.length - 1];
  if (item.unit_ns != null) {
    const [s, u] = pick(x * item.unit_ns, TIME_SCALES);
    return [s / item.unit_ns, u];
  }
  if (item.unit_bytes != null) {
    const [s, u] = pick(x * item.unit_bytes, BYTE_SCALES);
    return [s / item.unit_bytes, u];
  }
  return [1, item.unit];
}

/**
 * Decimals showing `x` to four significant digits and an interval's nearer
 * half-width to two, so an interval never prints as a point it is not (the
 * terminal's `decimals`).
 */
export function ciDecimals(x, lo, hi) {
  const mag = (v) => Math.floor(Math.log10(Math.abs(v)) + 1e-9);
  let d = x !== 0 && Number.isFinite(x) ? Math.max(0, 3 - mag(x)) : 0;
  let half = Math.min(x - lo, hi - x);
  if (!(half > 0)) half = Math.max(x - lo, hi - x);
  if (half > 0 && Number.isFinite(half)) d = Math.max(d, 1 - mag(half));
  return Math.min(12, Math.max(0, d));
}
