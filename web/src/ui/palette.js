// The colours of chart series, in one place.

/**
 * Many categories (clocks, metric pairs, kernels): Observable's ten
 * categorical colours (Plot's default scheme) and four more, so that a
 * dozen clocks (a typical Linux x86 run) get distinct colours in light and
 * dark themes.
 */
export const CATEGORICAL = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5',
  '#9c6b4e', '#9498a0', '#00a2b8', '#b5179e', '#6b8e23', '#e8590c'];

/**
 * A few series (strategies, a baseline and a run): the page's accent and
 * second colour first (CSS variables that follow the theme), then three more.
 */
export const SERIES = ['var(--accent)', 'var(--series-2)', '#2ca58d', '#b5479a', '#7a7a7a'];

/**
 * Cluster `k` (0-based) of a dendrogram and its members: CSS variables
 * (style.css --cluster-0 … --cluster-11), chosen per scheme so that text in
 * these colours reads at 4.5:1 or more.
 */
export const clusterColour = (k) => `var(--cluster-${k % 12})`;
