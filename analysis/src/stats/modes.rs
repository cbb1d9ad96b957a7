//! Modes among values (execution means, operation costs): k-means for
//! k = 2 … 6, and the number of modes chosen by the mean silhouette — the k
//! with the largest silhouette when it is at least 0.7 ("strong
//! structure", Kaufman & Rousseeuw), otherwise one mode.
//!
//! The values are one-dimensional, where k-means has an exact solution by
//! dynamic programming over the sorted values (Wang & Song's Ckmeans.1d.dp):
//! the clustering of least within-cluster sum of squares, deterministic, in
//! O(k·n·log n). Written here because no crate fits the pure core: the
//! `ckmeans` crate exports wasm-bindgen and C functions from any build that
//! links it, and an iterative k-means (linfa's, used before) finds a local
//! optimum from seeded starts, many restarts per k — most of a small
//! series' analysis time, for a result that can be worse than the optimum.

use serde::Serialize;

/// Silhouette a clustering must reach to count as modes.
pub const STRONG_SILHOUETTE: f64 = 0.7;
pub const MAX_MODES: usize = 6;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Modes {
    /// The number of modes chosen.
    pub k: usize,
    /// How k was chosen, in words.
    pub rule: String,
    /// Mean silhouette of each k tried.
    pub tried: Vec<(usize, f64)>,
    /// Centre (mean) and size of each mode, ascending by centre.
    pub centres: Vec<f64>,
    pub sizes: Vec<usize>,
    /// Mode of each value (index into `centres`).
    pub labels: Vec<usize>,
}

/// `None` for fewer than three values or non-finite values.
pub fn detect_modes(values: &[f64]) -> Option<Modes> {
    let n = values.len();
    if n < 3 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    // Distinct values with their counts: equal values always share a
    // cluster, and k is bounded by how many there are.
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut distinct: Vec<(f64, f64)> = Vec::new();
    for &v in &sorted {
        match distinct.last_mut() {
            Some((x, w)) if *x == v => *w += 1.0,
            _ => distinct.push((v, 1.0)),
        }
    }
    // Scaled to [0, 1] first so that squares of huge values cannot overflow
    // and the prefix sums lose no digits (the clustering is scale-invariant).
    let (lo, hi) = (distinct[0].0, distinct[distinct.len() - 1].0);
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        let rule = "one mode: the values do not separate".to_string();
        return Some(relabel(values, 1, vec![0; n], rule, Vec::new()));
    }
    let scaled: Vec<(f64, f64)> = distinct
        .iter()
        .map(|&(v, w)| ((v - lo) / span, w))
        .collect();
    let mut tried = Vec::new();
    let mut best: Option<(usize, f64, Vec<usize>)> = None;
    for k in 2..=MAX_MODES.min(n - 1).min(distinct.len()) {
        // The cluster of each distinct value, then of each value.
        let of_distinct = kmeans_1d(&scaled, k);
        let labels: Vec<usize> = values
            .iter()
            .map(|v| {
                let i = distinct.partition_point(|(x, _)| x.total_cmp(v).is_lt());
                of_distinct[i]
            })
            .collect();
        let Some(s) = silhouette(values, &labels) else {
            continue;
        };
        tried.push((k, s));
        if best.as_ref().map_or(true, |b| s > b.1) {
            best = Some((k, s, labels));
        }
    }
    let (k, labels, rule) = match best {
        Some((k, s, labels)) if s >= STRONG_SILHOUETTE => (
            k,
            labels,
            format!("k-means (exact, 1-D), k = {k}: the largest mean silhouette ({s:.3}) of k = 2…{MAX_MODES}, above {STRONG_SILHOUETTE}"),
        ),
        Some((_, s, _)) => (
            1,
            vec![0; n],
            format!("one mode: no k = 2…{MAX_MODES} reaches a mean silhouette of {STRONG_SILHOUETTE} (best {s:.3})"),
        ),
        None => (1, vec![0; n], "one mode: the values do not separate".into()),
    };
    Some(relabel(values, k, labels, rule, tried))
}

/// Number the modes by ascending centre and summarise them.
fn relabel(
    values: &[f64],
    k: usize,
    labels: Vec<usize>,
    rule: String,
    tried: Vec<(usize, f64)>,
) -> Modes {
    let mut groups: Vec<(f64, usize, usize)> = (0..k)
        .filter_map(|c| {
            let members: Vec<f64> = values
                .iter()
                .zip(&labels)
                .filter(|(_, l)| **l == c)
                .map(|(v, _)| *v)
                .collect();
            (!members.is_empty()).then(|| {
                (
                    members.iter().sum::<f64>() / members.len() as f64,
                    members.len(),
                    c,
                )
            })
        })
        .collect();
    groups.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut map = vec![0; k];
    for (new, g) in groups.iter().enumerate() {
        map[g.2] = new;
    }
    Modes {
        k: groups.len(),
        rule,
        tried,
        centres: groups.iter().map(|g| g.0).collect(),
        sizes: groups.iter().map(|g| g.1).collect(),
        labels: labels.iter().map(|&l| map[l]).collect(),
    }
}

/// Optimal k-means of weighted sorted distinct values `(x, weight)`: the
/// cluster (0 … k − 1, ascending) of each, minimising the weighted sum of
/// squared distances to the cluster means. Clusters are runs of the sorted
/// values; `cost[m][j]`, the least cost of the first j + 1 values in m + 1
/// clusters, takes the best start of the last cluster, and those starts
/// never decrease with j (Wang & Song), so each row is filled by divide and
/// conquer. Ties keep the earliest start. Needs 1 ≤ k ≤ values.
fn kmeans_1d(xw: &[(f64, f64)], k: usize) -> Vec<usize> {
    let n = xw.len();
    // Prefix sums of weight, weighted value and weighted square.
    let mut pw = vec![0.0; n + 1];
    let mut px = vec![0.0; n + 1];
    let mut pxx = vec![0.0; n + 1];
    for (i, &(x, w)) in xw.iter().enumerate() {
        pw[i + 1] = pw[i] + w;
        px[i + 1] = px[i] + w * x;
        pxx[i + 1] = pxx[i] + w * x * x;
    }
    // Within sum of squares of values i..=j.
    let sse = |i: usize, j: usize| {
        let w = pw[j + 1] - pw[i];
        let sx = px[j + 1] - px[i];
        (pxx[j + 1] - pxx[i] - sx * sx / w).max(0.0)
    };
    let mut cost: Vec<Vec<f64>> = vec![(0..n).map(|j| sse(0, j)).collect()];
    let mut start: Vec<Vec<usize>> = vec![vec![0; n]];
    for m in 1..k {
        let prev = &cost[m - 1];
        let mut row = vec![f64::INFINITY; n];
        let mut from = vec![m; n];
        // (j range, range of the last cluster's start), filled middle first.
        let mut stack = vec![(m, n - 1, m, n - 1)];
        while let Some((jlo, jhi, slo, shi)) = stack.pop() {
            if jlo > jhi {
                continue;
            }
            let j = (jlo + jhi) / 2;
            let (mut best, mut at) = (f64::INFINITY, slo);
            for s in slo..=shi.min(j) {
                let c = prev[s - 1] + sse(s, j);
                if c < best {
                    (best, at) = (c, s);
                }
            }
            row[j] = best;
            from[j] = at;
            if j > jlo {
                stack.push((jlo, j - 1, slo, at));
            }
            stack.push((j + 1, jhi, at, shi));
        }
        cost.push(row);
        start.push(from);
    }
    // Back from the last value: each cluster's start gives the previous end.
    let mut labels = vec![0; n];
    let mut end = n;
    for m in (0..k).rev() {
        let s = if m == 0 { 0 } else { start[m][end - 1] };
        labels[s..end].fill(m);
        end = s;
    }
    labels
}

/// Mean silhouette of a labelling of 1-D values; `None` when fewer than two
/// clusters are non-empty.
pub fn silhouette(values: &[f64], labels: &[usize]) -> Option<f64> {
    let k = labels.iter().max()? + 1;
    let sizes: Vec<usize> = (0..k)
        .map(|c| labels.iter().filter(|&&l| l == c).count())
        .collect();
    if sizes.iter().filter(|&&s| s > 0).count() < 2 {
        return None;
    }
    let mut total = 0.0;
    for (i, &x) in values.iter().enumerate() {
        let own = labels[i];
        if sizes[own] == 1 {
            continue; // s(i) = 0 by convention
        }
        let mut sums = vec![0.0; k];
        for (j, &y) in values.iter().enumerate() {
            if i != j {
                sums[labels[j]] += (x - y).abs();
            }
        }
        let a = sums[own] / (sizes[own] - 1) as f64;
        let b = (0..k)
            .filter(|&c| c != own && sizes[c] > 0)
            .map(|c| sums[c] / sizes[c] as f64)
            .fold(f64::INFINITY, f64::min);
        let m = a.max(b);
        total += if m > 0.0 { (b - a) / m } else { 0.0 };
    }
    Some(total / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_clear_modes() {
        let v = [10.0, 10.2, 9.9, 10.1, 20.0, 20.3, 19.8, 10.05, 20.1, 19.9];
        let m = detect_modes(&v).unwrap();
        assert_eq!(m.k, 2, "{}", m.rule);
        assert_eq!(m.sizes, vec![5, 5]);
        assert!((m.centres[0] - 10.05).abs() < 1e-9);
        assert_eq!(m.labels[4], 1);
    }

    #[test]
    fn unimodal_noise_is_one_mode() {
        let v: Vec<f64> = (0..30)
            .map(|i| 100.0 + ((i * 37) % 17) as f64 * 0.1)
            .collect();
        let m = detect_modes(&v).unwrap();
        assert_eq!(m.k, 1, "{}", m.rule);
        assert_eq!(m.sizes, vec![30]);
    }

    #[test]
    fn silhouette_by_hand() {
        // Clusters {0, 1} and {10}: s(0) = (10 − 1)/10, s(1) = (9 − 1)/9, and
        // the singleton counts 0.
        let s = silhouette(&[0.0, 1.0, 10.0], &[0, 0, 1]).unwrap();
        let want = (0.9 + 8.0 / 9.0) / 3.0;
        assert!((s - want).abs() < 1e-12);
        assert!(detect_modes(&[1.0, 2.0]).is_none());
        assert_eq!(detect_modes(&[3.0; 8]).unwrap().k, 1);
    }

    /// Within sum of squares of a labelling of weighted values.
    fn sse_of(xw: &[(f64, f64)], labels: &[usize], k: usize) -> f64 {
        (0..k)
            .map(|c| {
                let members: Vec<(f64, f64)> = xw
                    .iter()
                    .zip(labels)
                    .filter(|(_, l)| **l == c)
                    .map(|(x, _)| *x)
                    .collect();
                let w: f64 = members.iter().map(|m| m.1).sum();
                let mean = members.iter().map(|m| m.0 * m.1).sum::<f64>() / w;
                members
                    .iter()
                    .map(|m| m.1 * (m.0 - mean).powi(2))
                    .sum::<f64>()
            })
            .sum()
    }

    /// The dynamic programme's clustering has the least within sum of
    /// squares of every split of the sorted values into k runs, found here
    /// by trying them all, on seeded random weighted values.
    #[test]
    fn one_dimensional_kmeans_is_the_optimum() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..300 {
            let n = 3 + case % 8;
            let mut xw: Vec<(f64, f64)> = (0..n)
                .map(|_| (next() * next(), (1.0 + 4.0 * next()).floor()))
                .collect();
            xw.sort_by(|a, b| a.0.total_cmp(&b.0));
            xw.dedup_by(|a, b| a.0 == b.0);
            for k in 1..=xw.len().min(5) {
                let labels = kmeans_1d(&xw, k);
                assert_eq!(labels.len(), xw.len());
                assert!(labels.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= 1));
                assert_eq!(labels[0], 0);
                assert_eq!(labels[xw.len() - 1], k - 1);
                let got = sse_of(&xw, &labels, k);
                // Every choice of k − 1 cut points among the n − 1 gaps.
                let gaps = xw.len() - 1;
                let mut best = f64::INFINITY;
                for mask in 0u32..(1 << gaps) {
                    if mask.count_ones() as usize != k - 1 {
                        continue;
                    }
                    let mut l = vec![0; xw.len()];
                    for i in 1..xw.len() {
                        l[i] = l[i - 1] + usize::from(mask & (1 << (i - 1)) != 0);
                    }
                    best = best.min(sse_of(&xw, &l, k));
                }
                assert!(
                    got <= best + 1e-12,
                    "case {case}, k {k}: {got} > optimum {best}"
                );
            }
        }
    }

    /// Wang & Song's example as the Ckmeans.1d.dp package clusters it
    /// (also the `ckmeans` crate's documented example): three clusters.
    #[test]
    fn the_published_example() {
        let v = [
            1.0, 12.0, 13.0, 14.0, 15.0, 16.0, 2.0, 2.0, 3.0, 5.0, 7.0, 1.0, 2.0, 5.0, 7.0, 1.0,
            5.0, 82.0, 1.0, 1.3, 1.1, 78.0,
        ];
        let m = detect_modes(&v).unwrap();
        let k3 = {
            let mut d: Vec<(f64, f64)> = Vec::new();
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            for x in s {
                match d.last_mut() {
                    Some((y, w)) if *y == x => *w += 1.0,
                    _ => d.push((x, 1.0)),
                }
            }
            let labels = kmeans_1d(&d, 3);
            let sizes: Vec<f64> = (0..3)
                .map(|c| {
                    d.iter()
                        .zip(&labels)
                        .filter(|(_, l)| **l == c)
                        .map(|(x, _)| x.1)
                        .sum()
                })
                .collect();
            sizes
        };
        assert_eq!(k3, [15.0, 5.0, 2.0]);
        assert!(m.tried.iter().any(|&(k, _)| k == 3));
    }
}
