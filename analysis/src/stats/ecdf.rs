//! Empirical cumulative distribution function.

/// ECDF of finite data: F(x) = #{xᵢ ≤ x} / n.
#[derive(Debug, Clone)]
pub struct Ecdf {
    sorted: Vec<f64>,
}

impl Ecdf {
    pub fn new(data: &[f64]) -> Ecdf {
        let mut sorted = data.to_vec();
        sorted.sort_by(f64::total_cmp);
        Ecdf { sorted }
    }

    pub fn from_sorted(sorted: Vec<f64>) -> Ecdf {
        Ecdf { sorted }
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// F(x); `None` for an empty sample.
    pub fn eval(&self, x: f64) -> Option<f64> {
        if self.sorted.is_empty() {
            return None;
        }
        let k = self.sorted.partition_point(|&v| v <= x);
        Some(k as f64 / self.sorted.len() as f64)
    }

    /// The ECDF's steps as (x, F(x)) at each distinct value, thinned to at
    /// most `max_points` for drawing: the first and last steps are always
    /// kept and the rest are taken at evenly spaced ranks, so the curve keeps
    /// its shape in the tails it is drawn on.
    pub fn points(&self, max_points: usize) -> Vec<(f64, f64)> {
        let n = self.sorted.len();
        let mut steps: Vec<(f64, f64)> = Vec::new();
        for (i, &x) in self.sorted.iter().enumerate() {
            let f = (i + 1) as f64 / n as f64;
            match steps.last_mut() {
                Some(last) if last.0 == x => last.1 = f,
                _ => steps.push((x, f)),
            }
        }
        if steps.len() <= max_points || max_points < 2 {
            return steps;
        }
        let last = steps.len() - 1;
        (0..max_points)
            .map(|k| steps[k * last / (max_points - 1)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_ecdf() {
        let e = Ecdf::new(&[4.0, 3.1, 4.8, 3.5, 6.6, 4.2, 3.9, 5.3, 3.4, 4.4]);
        assert_eq!(e.eval(4.1), Some(0.5));
        assert_eq!(e.eval(3.0), Some(0.0));
        assert_eq!(e.eval(6.6), Some(1.0));
        assert_eq!(Ecdf::new(&[]).eval(1.0), None);
    }

    #[test]
    fn points_merge_ties_and_thin() {
        let e = Ecdf::new(&[1.0, 1.0, 2.0, 3.0]);
        assert_eq!(e.points(10), vec![(1.0, 0.5), (2.0, 0.75), (3.0, 1.0)]);
        let big = Ecdf::new(&(0..1000).map(f64::from).collect::<Vec<_>>());
        let p = big.points(50);
        assert_eq!(p.len(), 50);
        assert_eq!(p[0], (0.0, 0.001));
        assert_eq!(p[49], (999.0, 1.0));
        assert!(p.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    }
}
