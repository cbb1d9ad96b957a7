//! The Samples cell in the terminal (samples files and other harnesses'
//! results): every series' summary, the execution statistics, outliers,
//! each execution and the clustering of the series.

use super::executions::render_impact;
use super::numbers::{ci_with, fmt_ns, pct, sig, whole_or_sig};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{SamplesReport, SeriesReport};

/// The Samples cell: the summary of every series, the execution statistics,
/// the outliers, each execution, and the series clustered by cost.
pub(crate) fn render(out: &mut String, s: &SamplesReport) {
    let qt = s
        .series
        .first()
        .map(|x| x.summary.quantile_type.number().to_string())
        .unwrap_or_default();
    cell_title(
        out,
        "Samples",
        &format!("all measurements of each series pooled; quartiles of Hyndman–Fan type {qt}"),
    );
    if let Some(d) = &s.description {
        let _ = writeln!(out, "   {d}");
    }
    let mut t = Table::new(&[
        "series",
        "executions",
        "n",
        "min",
        "Q1",
        "median",
        "mean",
        "Q3",
        "max",
        "sd",
        "CV",
        "outliers",
    ]);
    for x in &s.series {
        let m = &x.summary;
        let v = |v: f64| series_value(v, x);
        t.row(vec![
            x.name.clone(),
            x.executions.to_string(),
            m.n.to_string(),
            v(m.min),
            v(m.q1),
            v(m.median),
            v(m.mean),
            v(m.q3),
            v(m.max),
            m.sd.map(v).unwrap_or_else(|| "—".into()),
            m.cv.map(pct).unwrap_or_else(|| "—".into()),
            x.outliers.len().to_string(),
        ]);
    }
    t.render(out);
    subtitle(
        out,
        "Execution statistics: between- against within-execution noise",
    );
    render_execution_stats(out, s);
    render_execution_details(out, s);
    render_impact(
        out,
        &["series"],
        s.series
            .iter()
            .filter_map(|x| Some((vec![x.name.clone()], x.execution_stats.as_ref()?)))
            .collect(),
    );

    let outliers: Vec<_> = s
        .series
        .iter()
        .flat_map(|x| x.outliers.iter().map(move |o| (x, o)))
        .collect();
    if outliers.is_empty() {
        subtitle(
            out,
            "Outliers: none (every measurement within the Tukey fences)",
        );
    } else {
        subtitle(
            out,
            "Outliers: measurements outside the Tukey fences; execution and index are 0-based positions in the file",
        );
        let mut t = Table::new(&["series", "execution", "index", "value", "how far"]);
        for (x, o) in outliers {
            t.row(vec![
                x.name.clone(),
                o.execution.to_string(),
                o.index.to_string(),
                series_value(o.value, x),
                if o.extreme {
                    "extreme".into()
                } else {
                    "outlier".into()
                },
            ]);
        }
        t.render(out);
    }

    subtitle(out, "Per execution (one process run each)");
    let mut t = Table::new(&["series", "execution", "n", "mean", "median", "sd"]);
    for x in &s.series {
        for (i, e) in x.per_execution.iter().enumerate() {
            t.row(vec![
                x.name.clone(),
                i.to_string(),
                e.n.to_string(),
                series_value(e.mean, x),
                series_value(e.median, x),
                e.sd.map(|v| series_value(v, x))
                    .unwrap_or_else(|| "—".into()),
            ]);
        }
    }
    t.render(out);

    if let Some(c) = &s.clustering {
        super::clustering::render(
            out,
            &format!("Clusters of series ({})", c.basis),
            &c.clustering,
            "series",
        );
        if !c.left_out.is_empty() {
            let left: Vec<String> = c
                .left_out
                .iter()
                .map(|(n, u)| format!("{n} ({u})"))
                .collect();
            let _ = writeln!(out, "   left out (not a time unit): {}", left.join(", "));
        }
    }
}

/// A value of a samples series: time units scaled (as the page's
/// `fmtSeriesValue`), anything else with its unit: a whole number (a count,
/// bytes) as an integer, others with five significant digits.
fn series_value(v: f64, x: &SeriesReport) -> String {
    match x.unit_ns {
        Some(k) => fmt_ns(v * k),
        None => format!("{} {}", whole_or_sig(v, 5), x.unit),
    }
}

/// What the page's execution-statistics block shows besides the line above:
/// the variance components (T₁² within executions and T₂² between them,
/// Kalibera and Jones's levels 1 and 2), the hierarchical bootstrap mean,
/// the modes among execution means, and the planning table.
fn render_execution_details(out: &mut String, s: &SamplesReport) {
    let with: Vec<_> = s
        .series
        .iter()
        .filter_map(|x| Some((x, x.execution_stats.as_ref()?)))
        .collect();
    if with.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        "series",
        "executions",
        "T₁² (within)",
        "T₂² (between)",
        "mean, hierarchical bootstrap",
        "modes among execution means",
    ]);
    for (x, e) in &with {
        let sq = |v: Option<f64>| {
            v.map(|v| format!("{} {}²", sig(v, 4), x.unit))
                .unwrap_or_else(|| "—".into())
        };
        let re = e.random_effects.as_ref();
        let modes = match &e.modes {
            None => "—".to_string(),
            Some(m) if m.k < 2 => "1".to_string(),
            Some(m) => format!(
                "{}: {}",
                m.k,
                m.centres
                    .iter()
                    .zip(&m.sizes)
                    .map(|(c, n)| format!("{} ({n})", series_value(*c, x)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        t.row(vec![
            x.name.clone(),
            e.executions.to_string(),
            sq(re.map(|r| r.t1_sq)),
            sq(re.and_then(|r| r.t2_sq)),
            ci_with(e.mean_hierarchical.as_ref(), |v| series_value(v, x)),
            modes,
        ]);
    }
    t.render(out);
    let planned: Vec<_> = with
        .iter()
        .filter(|(_, e)| !e.planning.is_empty())
        .collect();
    if planned.is_empty() {
        return;
    }
    subtitle(
        out,
        "Planning: for an execution costing as much as N measurements, the cost-optimal measurements per execution and the executions then needed for a ±1 % or ±5 % interval",
    );
    let mut t = Table::new(&[
        "series",
        "execution cost",
        "measurements / execution",
        "executions for ±1 %",
        "executions for ±5 %",
    ]);
    let n = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| "—".into());
    for (x, e) in planned {
        for p in &e.planning {
            t.row(vec![
                x.name.clone(),
                format!("{}", p.execution_cost),
                n(p.measurements_per_execution),
                n(p.executions_for_1pct),
                n(p.executions_for_5pct),
            ]);
        }
    }
    t.render(out);
}

/// Per-series execution statistics (between- vs within-execution noise) and,
/// for imported files, what the tool itself reported.
fn render_execution_stats(out: &mut String, s: &SamplesReport) {
    let ci = |c: &Option<tickbook_analysis::stats::bootstrap::BootstrapCi>| {
        c.as_ref()
            .map(|c| {
                format!(
                    "{} [{}, {}]",
                    sig(c.estimate, 4),
                    sig(c.lo, 4),
                    sig(c.hi, 4)
                )
            })
            .unwrap_or_else(|| "-".into())
    };
    for x in &s.series {
        let Some(e) = &x.execution_stats else {
            continue;
        };
        if e.executions < 2 {
            continue;
        }
        let mut line = format!("   executions of {}: {}", x.name, e.executions);
        if let Some(re) = &e.random_effects {
            if let Some((lo, hi)) = re.ci {
                let _ = write!(
                    line,
                    "; mean of execution means {} {} ({}% CI {} to {}, random effects)",
                    sig(re.mean, 5),
                    x.unit,
                    sig(100.0 * re.confidence, 3),
                    sig(lo, 5),
                    sig(hi, 5)
                );
            }
        } else if let Some(b) = &e.mean_bootstrap {
            let _ = write!(
                line,
                "; mean {} {} (bootstrap CI)",
                ci(&Some(b.clone())),
                x.unit
            );
        }
        let _ = write!(
            line,
            "; CV within {}, overall {}",
            ci(&e.cv_within),
            ci(&e.cv_overall)
        );
        let _ = writeln!(out, "{line}");
    }
    for x in &s.series {
        if let Some(t) = x.tool_statistics.as_ref().and_then(|t| t.as_object()) {
            // One number per statistic: a point estimate, a value, or a pair.
            let num = |v: &serde_json::Value| v.as_f64().map(|f| whole_or_sig(f, 5));
            let parts: Vec<String> = t
                .iter()
                .filter_map(|(k, v)| {
                    let shown = num(v)
                        .or_else(|| {
                            ["point_estimate", "estimate", "value"]
                                .iter()
                                .find_map(|f| v.get(*f).and_then(num))
                        })
                        .or_else(|| {
                            let a = v.as_array()?;
                            Some(format!(
                                "[{}]",
                                a.iter()
                                    .map(|e| num(e).unwrap_or_else(|| e.to_string()))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        })
                        .or_else(|| v.as_str().map(str::to_string))?;
                    Some(format!("{k} {shown}"))
                })
                .collect();
            let _ = writeln!(
                out,
                "   tool's own figures for {}: {}",
                x.name,
                parts.join(", ")
            );
        }
    }
    for x in &s.series {
        if let Some(m) = &x.metadata {
            let mut parts = Vec::new();
            flatten(m, "", &mut parts);
            if !parts.is_empty() {
                let _ = writeln!(out, "   metadata of {}: {}", x.name, parts.join("; "));
            }
        }
    }
}

/// Longest list shown whole; a longer one shows its first items and its length.
const LIST_SHOWN: usize = 12;

/// `key value` pairs of a metadata value, nested keys joined by dots and
/// lists written `[a, b, …]`, as the file records them.
fn flatten(v: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    // A whole number written as a double (Google Benchmark's counters,
    // `6.4000000000000000e+01`) as the integer it is, as the page shows it.
    let scalar = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .and_then(super::numbers::whole)
            .unwrap_or_else(|| n.to_string()),
        other => other.to_string(),
    };
    match v {
        Value::Object(o) if !o.is_empty() => {
            for (k, x) in o {
                let k = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                flatten(x, &k, out);
            }
        }
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
            let mut items: Vec<String> = a.iter().take(LIST_SHOWN).map(scalar).collect();
            if a.len() > LIST_SHOWN {
                items.push(format!("… ({} in all)", a.len()));
            }
            out.push(format!("{key} [{}]", items.join(", ")).trim().to_string());
        }
        other => out.push(
            format!(
                "{key} {}",
                match other {
                    Value::Array(_) | Value::Object(_) => other.to_string(),
                    x => scalar(x),
                }
            )
            .trim()
            .to_string(),
        ),
    }
}
