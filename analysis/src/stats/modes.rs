//! Modes among values (execution means, operation costs): k-means from
//! `linfa-clustering` for k = 2 … 6, and the number of modes chosen by the
//! mean silhouette — the k with the largest silhouette when it is at least
//! 0.7 ("strong structure", Kaufman & Rousseeuw), otherwise one mode.

use linfa::prelude::*;
use linfa_clustering::KMeans;
use ndarray::Array2;
use ndarray_rand::rand::rngs::StdRng;
use ndarray_rand::rand::SeedableRng;
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
pub fn detect_modes(values: &[f64], seed: u64) -> Option<Modes> {
    let n = values.len();
    if n < 3 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    // k-means cannot place more centres than there are distinct values (and
    // linfa's initialisation panics on a zero range), so bound k by them.
    let mut distinct = values.to_vec();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    // k-means squares distances: scale to [0, 1] first so huge values cannot
    // overflow to infinity (the clustering is scale-invariant).
    let (lo, hi) = (distinct[0], distinct[distinct.len() - 1]);
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        let rule = "one mode: the values do not separate".to_string();
        return Some(relabel(values, 1, vec![0; n], rule, Vec::new()));
    }
    let scaled: Vec<f64> = values.iter().map(|v| (v - lo) / span).collect();
    let data = Array2::from_shape_vec((n, 1), scaled).ok()?;
    let dataset = DatasetBase::from(data);
    let mut tried = Vec::new();
    let mut best: Option<(usize, f64, Vec<usize>)> = None;
    for k in 2..=MAX_MODES.min(n - 1).min(distinct.len()) {
        let model = KMeans::params_with_rng(k, StdRng::seed_from_u64(seed))
            .n_runs(10)
            .max_n_iterations(300)
            .tolerance(1e-12)
            .fit(&dataset)
            .ok()?;
        let labels: Vec<usize> = model.predict(&dataset).to_vec();
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
            format!("k-means, k = {k}: the largest mean silhouette ({s:.3}) of k = 2…{MAX_MODES}, above {STRONG_SILHOUETTE}"),
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
        let m = detect_modes(&v, 1).unwrap();
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
        let m = detect_modes(&v, 1).unwrap();
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
        assert!(detect_modes(&[1.0, 2.0], 1).is_none());
        assert_eq!(detect_modes(&[3.0; 8], 1).unwrap().k, 1);
    }
}
