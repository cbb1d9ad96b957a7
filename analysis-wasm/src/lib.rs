//! The page's entry points into `tickbook-analysis`. Converts values and
//! nothing else: every number comes from the analysis crate, and nothing here
//! may panic across the boundary (errors become JS exceptions with a message).

use serde::Serialize;
use tickbook_analysis::report::{analyze_bytes, Options};
use wasm_bindgen::prelude::*;

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    // json_compatible: maps become plain objects and 64-bit integers numbers,
    // so the page sees exactly what `tickbook analyze --json` prints.
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("could not convert the analysis result: {e}")))
}

fn options_from_js(options: JsValue) -> Result<Options, JsError> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options::default());
    }
    serde_wasm_bindgen::from_value(options)
        .map_err(|e| JsError::new(&format!("bad analysis options: {e}")))
}

/// Analyse one file's bytes; returns the same `FileReport` object that
/// `tickbook analyze --json` prints. A bad file is a report with `ok: false`,
/// not an exception; exceptions are reserved for bad options.
#[wasm_bindgen]
pub fn analyze(name: &str, bytes: &[u8], options: JsValue) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    to_js(&analyze_bytes(name, bytes, &opts))
}

/// The default analysis options, for the page's controls.
#[wasm_bindgen(js_name = defaultOptions)]
pub fn default_options() -> Result<JsValue, JsError> {
    to_js(&Options::default())
}

/// The analysis crate's version, shown in the page footer.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
