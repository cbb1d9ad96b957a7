// Labels for the Hyndman–Fan quantile types the analysis offers (1–9), with
// the name numpy gives each; the computation itself is in the Rust crate.

export const QUANTILE_TYPES = [
  [1, 'inverted_cdf'],
  [2, 'averaged_inverted_cdf'],
  [3, 'closest_observation'],
  [4, 'interpolated_inverted_cdf'],
  [5, 'hazen'],
  [6, 'weibull'],
  [7, 'linear'],
  [8, 'median_unbiased'],
  [9, 'normal_unbiased'],
];

export function quantileName(t) {
  return QUANTILE_TYPES.find(([n]) => n === t)?.[1] ?? null;
}
