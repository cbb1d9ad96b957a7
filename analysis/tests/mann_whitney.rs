//! The Mann–Whitney U test against scipy: every case of
//! `mann_whitney_cases.json` (made by `mann_whitney_cases.py` with
//! `scipy.stats.mannwhitneyu(x, y)`, two-sided, `method='auto'`) gives
//! scipy's U, p-value and method.

use tickbook_analysis::stats::mann_whitney::{mann_whitney, Method};

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    x: Vec<f64>,
    y: Vec<f64>,
    u: f64,
    p_value: f64,
    method: String,
}

#[derive(serde::Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[test]
fn agrees_with_scipy() {
    let cases: Cases = serde_json::from_str(include_str!("mann_whitney_cases.json"))
        .expect("the cases file is valid");
    assert!(cases.cases.len() >= 10);
    for c in &cases.cases {
        let r = mann_whitney(&c.x, &c.y).expect(&c.name);
        assert_eq!(r.u, c.u, "{}: U", c.name);
        let method = match r.method {
            Method::Exact => "exact",
            Method::Asymptotic => "asymptotic",
        };
        assert_eq!(method, c.method, "{}: method", c.name);
        let tol = 1e-10 * c.p_value.max(1e-300);
        assert!(
            (r.p_value - c.p_value).abs() <= tol,
            "{}: p {} vs scipy {}",
            c.name,
            r.p_value,
            c.p_value
        );
    }
}
