//! The binding, run in headless Chromium by wasm-bindgen's test runner:
//! values cross the boundary intact and bad input never panics.

use js_sys::{Array, Reflect};
use tickbook_analysis_wasm::{analyze, cells, default_options, version};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(v.clone(), |v, key| {
        let key = match key.parse::<u32>() {
            Ok(i) => JsValue::from(i),
            Err(_) => JsValue::from_str(key),
        };
        Reflect::get(&v, &key).unwrap_or(JsValue::UNDEFINED)
    })
}

fn num(v: &JsValue, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number"))
}

const REFERENCE: &str = r#"{"format":"tickbook","format_version":"1.0","kind":"samples",
  "series":[{"name":"ref","unit":"ns",
    "executions":[[4.0,3.1,4.8,3.5,6.6],[4.2,3.9,5.3,3.4,4.4]]}]}"#;

#[wasm_bindgen_test]
fn reference_summary_crosses_the_boundary() {
    let r = analyze("ref.json", REFERENCE.as_bytes(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&r, "ok").as_bool(), Some(true));
    let s = "samples.series.0.summary";
    assert!((num(&r, &format!("{s}.q1")) - 3.6).abs() < 1e-12);
    assert!((num(&r, &format!("{s}.median")) - 4.1).abs() < 1e-12);
    assert!((num(&r, &format!("{s}.q3")) - 4.7).abs() < 1e-12);
    assert!((num(&r, &format!("{s}.sd")) - 1.03794669098819).abs() < 1e-12);
    assert_eq!(num(&r, "samples.series.0.outliers.0.value"), 6.6);
    assert_eq!(num(&r, "samples.series.0.fences.whisker_high"), 5.3);
    // ECDF points arrive as [x, F] pairs.
    let ecdf = Array::from(&get(&r, "samples.series.0.ecdf"));
    assert_eq!(ecdf.length(), 10);
    assert_eq!(num(&r, "samples.series.0.ecdf.9.1"), 1.0);
}

#[wasm_bindgen_test]
fn options_are_honoured() {
    let opts = default_options().unwrap();
    Reflect::set(&opts, &"quantile_type".into(), &JsValue::from(6)).unwrap();
    let r = analyze("ref.json", REFERENCE.as_bytes(), opts).unwrap();
    assert!((num(&r, "samples.series.0.summary.q1") - 3.475).abs() < 1e-12);
    assert_eq!(num(&r, "samples.series.0.summary.quantile_type"), 6.0);
}

#[wasm_bindgen_test]
fn bad_options_are_an_exception_not_a_panic() {
    let opts = js_sys::Object::new();
    Reflect::set(&opts, &"quantile_type".into(), &JsValue::from(12)).unwrap();
    let err = analyze("ref.json", REFERENCE.as_bytes(), opts.into()).unwrap_err();
    let msg = get(&JsValue::from(err), "message").as_string().unwrap();
    assert!(msg.contains("quantile type"), "{msg}");
}

#[wasm_bindgen_test]
fn bad_files_are_reports() {
    for (bytes, expect) in [
        (&b"not json"[..], "not valid JSON"),
        (&REFERENCE.as_bytes()[..60], "truncated JSON"),
        (
            REFERENCE.replace("1.0", "2.0").as_bytes(),
            "format version 2.0 is not supported",
        ),
        (REFERENCE.replace("4.4", "-4.4").as_bytes(), "≥ 0"),
        (REFERENCE.replace("4.4", "NaN").as_bytes(), "NaN"),
    ] {
        let r = analyze("bad.json", bytes, JsValue::NULL).unwrap();
        assert_eq!(get(&r, "ok").as_bool(), Some(false));
        assert_eq!(
            get(&r, "error.file").as_string().as_deref(),
            Some("bad.json")
        );
        let msg = get(&r, "error.message").as_string().unwrap();
        assert!(msg.contains(expect), "{msg} lacks {expect}");
    }
}

#[wasm_bindgen_test]
fn version_is_the_crate_version() {
    assert_eq!(version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn cells_are_the_registry_in_page_order() {
    let list = cells().unwrap();
    let got: Vec<(String, String, f64)> = Array::from(&list)
        .iter()
        .map(|c| {
            (
                get(&c, "name").as_string().unwrap(),
                get(&c, "title").as_string().unwrap(),
                num(&c, "cost"),
            )
        })
        .collect();
    // The binding carries the registry as it is, in its order.
    let want: Vec<(String, String, f64)> = tickbook_analysis::suites::cell_list()
        .iter()
        .map(|c| (c.name.to_string(), c.title.to_string(), f64::from(c.cost)))
        .collect();
    assert!(want.len() >= 8, "{want:?}");
    assert_eq!(got, want);
}
