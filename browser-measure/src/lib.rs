//! "Measure this browser": the browser's clocks and the cost of WebAssembly
//! operations, measured by this crate compiled to wasm and run in a
//! dedicated worker (`web/src/worker/measure.js`), so the code that times is
//! the code that runs. The result is an ordinary run file with one
//! `browser` section (the analysis crate's types), which the notebook loads
//! like any other.

mod clocks;
mod emit;
mod timing;

use js_sys::{Array, Date, Function, Reflect};
use serde_json::json;
use tickbook_analysis::format::{
    Host, RunFile, Suite as Section, Tool, FORMAT_TAG, FORMAT_VERSION, KIND_RUN,
};
use tickbook_analysis::suites::browser::{Browser, BrowserData, WasmOps};
use tickbook_analysis::suites::Suite;
use wasm_bindgen::prelude::*;
use web_sys::{Performance, WorkerGlobalScope};

fn now_rfc3339() -> String {
    String::from(Date::new_0().to_iso_string())
}

/// A property of a JS object as a string, if it is one.
fn string_of(obj: &JsValue, key: &str) -> Option<String> {
    Reflect::get(obj, &key.into()).ok()?.as_string()
}

/// `navigator.userAgentData.brands` as `name version` (Chromium only).
fn brands(navigator: &JsValue) -> Vec<String> {
    let Ok(data) = Reflect::get(navigator, &"userAgentData".into()) else {
        return Vec::new();
    };
    let Ok(list) = Reflect::get(&data, &"brands".into()) else {
        return Vec::new();
    };
    match list.dyn_into::<Array>() {
        Ok(list) => list
            .iter()
            .filter_map(|b| {
                Some(format!(
                    "{} {}",
                    string_of(&b, "brand")?,
                    string_of(&b, "version")?
                ))
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The browser's name for the file list: its first brand that is not a
/// "Not A Brand" filler, else the user agent's last product.
fn browser_name(brands: &[String], user_agent: &str) -> String {
    brands
        .iter()
        .find(|b| !b.to_ascii_lowercase().contains("brand"))
        .cloned()
        .or_else(|| user_agent.split_whitespace().last().map(str::to_string))
        .unwrap_or_default()
}

/// Run the whole measurement and return the run file as JSON text.
/// `progress(done, total, label)` is called between measurements (the
/// caller posts it to the page); the page's Cancel ends the worker.
#[wasm_bindgen]
pub fn measure(quick: bool, progress: &Function) -> Result<String, JsValue> {
    let scope: WorkerGlobalScope = js_sys::global()
        .dyn_into()
        .map_err(|_| JsValue::from_str("the measurement runs in a dedicated worker"))?;
    let perf: Performance = scope
        .performance()
        .ok_or_else(|| JsValue::from_str("this worker has no performance clock"))?;
    let navigator = scope.navigator();
    let user_agent = navigator.user_agent().unwrap_or_default();
    let platform = navigator.platform().unwrap_or_default();
    let brands = brands(navigator.as_ref());
    let hardware_concurrency = navigator.hardware_concurrency();
    let isolated = Reflect::get(&scope, &"crossOriginIsolated".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let started_at = now_rfc3339();
    let ops = emit::ops();
    let variants: Vec<(&emit::OpDef, &str)> = ops
        .iter()
        .flat_map(|op| op.forms().iter().map(move |f| (op, *f)))
        .collect();
    let total = 3 + variants.len() as u32;
    let report = |done: u32, label: &str| -> Result<(), JsValue> {
        progress.call3(&JsValue::NULL, &done.into(), &total.into(), &label.into())?;
        Ok(())
    };

    let plan = clocks::ClockPlan::new(quick);
    let origin = perf.time_origin();
    report(0, "performance.now")?;
    let now_clock = clocks::measure("performance.now", || perf.now(), &perf, &plan);
    report(1, "Date.now")?;
    let date_clock = clocks::measure("Date.now", Date::now, &perf, &plan);
    report(2, "performance.timeOrigin + now")?;
    let origin_clock = clocks::measure(
        "performance.timeOrigin + now",
        || origin + perf.now(),
        &perf,
        &plan,
    );
    let read_ns = now_clock
        .read_cost
        .as_ref()
        .and_then(|r| {
            let mut v = r.samples_ns.clone();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        })
        .unwrap_or(0.0);
    let tick_ns = clocks::tick_ns(&now_clock).unwrap_or(0.0);
    let mut fallbacks = Vec::new();
    if tick_ns <= 0.0 {
        fallbacks.push("performance.now never changed during its scan: no Bernoulli trials".into());
    }

    let now_fn: Function = Reflect::get(&perf, &"now".into())?
        .dyn_into::<Function>()
        .map_err(|_| JsValue::from_str("performance.now is not a function"))?
        .bind0(&perf);
    let clock = timing::Clock {
        perf: &perf,
        now: &now_fn,
        tick_ns,
        read_ns,
    };
    let ops_plan = timing::OpsPlan::new(quick);
    // In some runs the first operation (i64.add, the figure compared with
    // native) came out 4 to 6 times slow and no later one did: likely the
    // engine's first optimised compile in a fresh worker outlasting the
    // warm-up. The first operation is measured once beforehand, and dropped.
    if let Some((op, form)) = variants.first() {
        report(3, &format!("{} ({form}, warming up the engine)", op.name))?;
        let _ = timing::measure(op, form, &ops_plan, &clock);
    }
    let mut measured = Vec::with_capacity(variants.len());
    for (i, (op, form)) in variants.iter().enumerate() {
        report(3 + i as u32, &format!("{} ({form})", op.name))?;
        match timing::measure(op, form, &ops_plan, &clock) {
            Ok(m) => measured.push(m),
            Err(e) => fallbacks.push(format!(
                "{} ({form}) not measured: {}",
                op.name,
                e.as_string()
                    .or_else(|| string_of(&e, "message"))
                    .unwrap_or_else(|| "the engine refused it".into())
            )),
        }
    }
    report(total, "done")?;

    let data = BrowserData {
        user_agent: user_agent.clone(),
        platform: platform.clone(),
        brands: brands.clone(),
        hardware_concurrency: (hardware_concurrency > 0.0).then_some(hardware_concurrency as u32),
        cross_origin_isolated: isolated,
        quick,
        reference: clocks::REFERENCE.into(),
        clocks: vec![now_clock, date_clock, origin_clock],
        wasm: WasmOps {
            clock: clocks::REFERENCE.into(),
            copies: ops_plan.copies,
            repetitions: ops_plan.repetitions,
            ops: measured,
        },
    };
    let ended_at = now_rfc3339();
    let data = serde_json::to_value(&data).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let run = RunFile {
        format: FORMAT_TAG.into(),
        format_version: FORMAT_VERSION.into(),
        kind: KIND_RUN.into(),
        tool: Tool {
            name: "tickbook-browser-measure".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        started_at: started_at.clone(),
        ended_at: Some(ended_at.clone()),
        status: "complete".into(),
        command_line: vec![if quick {
            "Measure this browser (quick)"
        } else {
            "Measure this browser"
        }
        .into()],
        host: Host {
            hostname: browser_name(&brands, &user_agent),
            os: platform,
            arch: "wasm32".into(),
            notes: vec![format!("measured in a browser: {user_agent}")],
            ..Host::default()
        },
        campaign: None,
        environment: None,
        revision: None,
        suites: vec![Section {
            suite: Browser::NAME.into(),
            status: "complete".into(),
            error: None,
            started_at,
            ended_at,
            config: json!({
                "quick": quick,
                "copies": ops_plan.copies,
                "repetitions": ops_plan.repetitions,
                "long_run_ms": ops_plan.long_run_ms,
                "warm_ms": ops_plan.warm_ms,
                "trials_budget_ms": ops_plan.trials_budget_ms,
                "epsilon": ops_plan.epsilon,
                "confidence": ops_plan.confidence,
            }),
            fallbacks,
            data,
        }],
    };
    serde_json::to_string_pretty(&run).map_err(|e| JsValue::from_str(&e.to_string()))
}
