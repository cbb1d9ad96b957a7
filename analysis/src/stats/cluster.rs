//! Agglomerative hierarchical clustering with scipy's `linkage` semantics and
//! `fcluster(criterion = "distance")` cuts.
//!
//! The linkage itself is `kodama` (fastcluster's algorithms, full dendrogram);
//! this module adds what tickbook needs on top: scipy's numbering and sort
//! order, the distance cut, and per-cluster members.

use kodama::{linkage, Method};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Linkage {
    Single,
    Complete,
    /// UPGMA.
    #[default]
    Average,
    /// WPGMA.
    Weighted,
    Ward,
    Centroid,
    Median,
}

impl Linkage {
    pub const ALL: [Linkage; 7] = [
        Linkage::Single,
        Linkage::Complete,
        Linkage::Average,
        Linkage::Weighted,
        Linkage::Ward,
        Linkage::Centroid,
        Linkage::Median,
    ];

    fn method(self) -> Method {
        match self {
            Linkage::Single => Method::Single,
            Linkage::Complete => Method::Complete,
            Linkage::Average => Method::Average,
            Linkage::Weighted => Method::Weighted,
            Linkage::Ward => Method::Ward,
            Linkage::Centroid => Method::Centroid,
            Linkage::Median => Method::Median,
        }
    }
}

/// One merge, as a row of scipy's `Z`: clusters `a` and `b` (observations are
/// `0..n`, the cluster made by merge `i` is `n + i`) joined at `height`,
/// giving a cluster of `size` observations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Merge {
    pub a: usize,
    pub b: usize,
    pub height: f64,
    pub size: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dendrogram {
    pub observations: usize,
    pub method: Linkage,
    pub merges: Vec<Merge>,
}

/// Cluster 1-D values (e.g. per-operation costs) with distances |xᵢ − xⱼ|.
/// `None` for fewer than two values or non-finite values.
pub fn cluster_1d(values: &[f64], method: Linkage) -> Option<Dendrogram> {
    let n = values.len();
    if n < 2 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut condensed = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            condensed.push((values[i] - values[j]).abs());
        }
    }
    Some(from_condensed(&mut condensed, n, method))
}

/// Cluster from a condensed distance matrix (row-major upper triangle, as
/// scipy's `pdist`).
pub fn from_condensed(condensed: &mut [f64], n: usize, method: Linkage) -> Dendrogram {
    let d = linkage(condensed, n, method.method());
    let merges = d
        .steps()
        .iter()
        .map(|s| Merge {
            // scipy lists the smaller id first.
            a: s.cluster1.min(s.cluster2),
            b: s.cluster1.max(s.cluster2),
            height: s.dissimilarity,
            size: s.size,
        })
        .collect();
    Dendrogram {
        observations: n,
        method,
        merges,
    }
}

impl Dendrogram {
    /// Flat clusters as scipy's `fcluster(Z, t, criterion="distance")`: a
    /// subtree becomes one cluster when no merge inside it is higher than
    /// `t`. Returns a cluster index per observation, numbered 0.. in order of
    /// first appearance (callers reorder by cost as they need).
    pub fn cut(&self, t: f64) -> Vec<usize> {
        let n = self.observations;
        let m = self.merges.len();
        // Highest merge inside each subtree (non-monotone methods can merge
        // lower above a higher merge; scipy's cut uses this maximum).
        let mut max_inside = vec![0.0f64; m];
        for (i, mg) in self.merges.iter().enumerate() {
            let child = |c: usize| if c >= n { max_inside[c - n] } else { 0.0 };
            max_inside[i] = mg.height.max(child(mg.a)).max(child(mg.b));
        }
        let mut label = vec![usize::MAX; n];
        let mut next = 0;
        // Walk from the root down; every subtree whose max height ≤ t is one
        // cluster; leaves reached otherwise are singletons.
        let mut stack: Vec<usize> = if m > 0 {
            vec![n + m - 1]
        } else {
            (0..n).collect()
        };
        let mut groups: Vec<Vec<usize>> = Vec::new();
        while let Some(node) = stack.pop() {
            if node < n {
                groups.push(vec![node]);
            } else if max_inside[node - n] <= t {
                groups.push(self.leaves(node));
            } else {
                let mg = self.merges[node - n];
                stack.push(mg.b);
                stack.push(mg.a);
            }
        }
        // Deterministic numbering: by smallest observation index.
        groups.sort_by_key(|g| g.iter().copied().min());
        for g in groups {
            for o in g {
                label[o] = next;
            }
            next += 1;
        }
        label
    }

    /// Number of flat clusters at cut height `t`.
    pub fn clusters_at(&self, t: f64) -> usize {
        self.cut(t).into_iter().max().map_or(0, |k| k + 1)
    }

    /// Observations under `node` (a leaf or a merge id).
    pub fn leaves(&self, node: usize) -> Vec<usize> {
        let n = self.observations;
        let mut out = Vec::new();
        let mut stack = vec![node];
        while let Some(c) = stack.pop() {
            if c < n {
                out.push(c);
            } else if let Some(mg) = self.merges.get(c - n) {
                stack.push(mg.a);
                stack.push(mg.b);
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close_all(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "{got:?}\n vs {want:?}"
            );
        }
    }

    fn heights(d: &Dendrogram) -> Vec<f64> {
        d.merges.iter().map(|m| m.height).collect()
    }

    const REF: [f64; 12] = [
        101., 102., 114., 130., 139., 178., 188., 202., 258., 269., 277., 398.,
    ];

    #[test]
    fn reference_single_linkage() {
        let d = cluster_1d(&REF, Linkage::Single).unwrap();
        let h = heights(&d);
        close_all(&h, &[1., 8., 9., 10., 11., 12., 14., 16., 39., 56., 121.]);
        for (i, &t) in h.iter().enumerate() {
            assert_eq!(d.clusters_at(t), 11 - i);
        }
        assert_eq!(d.clusters_at(0.5), 12);
    }

    /// 1-D single linkage = cutting the sorted gaps larger than t.
    #[test]
    fn single_linkage_equals_gap_cut() {
        let xs: Vec<f64> = (0..60u64)
            .map(|i| ((i * 7919) % 211) as f64 * 1.37)
            .collect();
        let d = cluster_1d(&xs, Linkage::Single).unwrap();
        let mut s = xs.clone();
        s.sort_by(f64::total_cmp);
        for t in [0.0, 0.5, 1.37, 2.0, 3.0, 10.0, 100.0] {
            let gaps = s.windows(2).filter(|w| w[1] - w[0] > t).count();
            assert_eq!(d.clusters_at(t), gaps + 1, "t = {t}");
        }
    }

    /// scipy 1.17.1: `linkage(x.reshape(-1, 1), method)` heights and
    /// `fcluster(Z, t, "distance")` cluster counts at t = 0.5, 1, 2, 5.
    // Long: scipy's table, seven methods' fifteen heights each, one per
    // line as rustfmt lays them out; the checks after it are a few lines.
    #[test]
    fn every_method_matches_scipy() {
        let x = [
            2.722, 3.665, 2.067, 1.116, 1.725, 1.008, 2.887, 10.383, 1.662, 1.462, 4.436, 3.884,
            3.02, 1.072, 2.64, 5.448,
        ];
        let cases: [(Linkage, [f64; 15], [usize; 4]); 7] = [
            (
                Linkage::Single,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.06400000000000006,
                    0.08199999999999985,
                    0.133,
                    0.16500000000000004,
                    0.19999999999999996,
                    0.21899999999999986,
                    0.3420000000000001,
                    0.34599999999999986,
                    0.552,
                    0.573,
                    0.645,
                    1.0120000000000005,
                    4.934999999999999,
                ],
                [6, 3, 2, 1],
            ),
            (
                Linkage::Complete,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.08199999999999985,
                    0.1080000000000001,
                    0.133,
                    0.21899999999999986,
                    0.2630000000000001,
                    0.3799999999999999,
                    0.6050000000000002,
                    0.7709999999999999,
                    1.0590000000000002,
                    1.7830000000000004,
                    2.012,
                    4.44,
                    9.375,
                ],
                [8, 6, 4, 2],
            ),
            (
                Linkage::Average,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.08199999999999985,
                    0.08600000000000008,
                    0.133,
                    0.21899999999999986,
                    0.23150000000000004,
                    0.27249999999999996,
                    0.4506666666666668,
                    0.6615,
                    0.6636666666666665,
                    1.1777499999999999,
                    1.8774285714285714,
                    3.064714285714286,
                    7.795399999999999,
                ],
                [7, 5, 3, 2],
            ),
            (
                Linkage::Weighted,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.08199999999999985,
                    0.08600000000000008,
                    0.133,
                    0.21899999999999986,
                    0.23150000000000004,
                    0.27249999999999996,
                    0.4892500000000002,
                    0.6615,
                    0.7713749999999999,
                    1.2879999999999998,
                    1.9867500000000005,
                    3.0179375000000004,
                    7.437343749999999,
                ],
                [7, 5, 3, 2],
            ),
            (
                Linkage::Ward,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.08199999999999985,
                    0.09930424630061571,
                    0.133,
                    0.21899999999999986,
                    0.26731317463479676,
                    0.38537319574666834,
                    0.5519516887071431,
                    0.7638344061378748,
                    1.2288718790980997,
                    1.7795542981319792,
                    3.0820000000000003,
                    5.856278747756851,
                    10.67429106193943,
                ],
                [8, 6, 4, 3],
            ),
            (
                Linkage::Centroid,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.08199999999999985,
                    0.08600000000000009,
                    0.133,
                    0.21899999999999986,
                    0.23150000000000004,
                    0.27249999999999996,
                    0.4506666666666669,
                    0.6615,
                    0.6636666666666667,
                    1.1777499999999999,
                    1.8774285714285712,
                    3.064714285714287,
                    7.795399999999999,
                ],
                [7, 5, 3, 2],
            ),
            (
                Linkage::Median,
                [
                    0.04400000000000004,
                    0.06300000000000017,
                    0.08199999999999985,
                    0.08600000000000009,
                    0.133,
                    0.21899999999999986,
                    0.23150000000000004,
                    0.27249999999999996,
                    0.48925000000000024,
                    0.6615,
                    0.771375,
                    1.2879999999999998,
                    1.9867500000000002,
                    3.0179375000000004,
                    7.437343749999999,
                ],
                [7, 5, 3, 2],
            ),
        ];
        for (method, want_h, want_k) in cases {
            let d = cluster_1d(&x, method).unwrap();
            let mut h = heights(&d);
            // scipy sorts Z by height; compare as sorted lists.
            h.sort_by(f64::total_cmp);
            for (g, w) in h.iter().zip(&want_h) {
                assert!((g - w).abs() <= 1e-9 * w, "{method:?}: {h:?}");
            }
            let k: Vec<usize> = [0.5, 1.0, 2.0, 5.0]
                .iter()
                .map(|&t| d.clusters_at(t))
                .collect();
            assert_eq!(k, want_k, "{method:?}");
        }
    }

    #[test]
    fn cut_labels_group_neighbours() {
        let d = cluster_1d(&[1.0, 10.0, 1.1, 10.2, 30.0], Linkage::Average).unwrap();
        assert_eq!(d.cut(1.0), vec![0, 1, 0, 1, 2]);
        assert_eq!(
            d.leaves(d.observations + d.merges.len() - 1),
            vec![0, 1, 2, 3, 4]
        );
        assert!(cluster_1d(&[1.0], Linkage::Single).is_none());
        assert!(cluster_1d(&[1.0, f64::NAN], Linkage::Single).is_none());
    }
}
