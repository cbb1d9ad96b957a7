//! The page's entry points into `tickbook-analysis`. Converts values and
//! nothing else: every number comes from the analysis crate, and nothing here
//! may panic across the boundary (errors become JS exceptions with a message).
//! The list of cells comes from the analysis crate's registry (`cells`).

use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use tickbook_analysis::limits::Limits;
use tickbook_analysis::report::across;
use tickbook_analysis::report::kept::KeptFile;
use tickbook_analysis::report::{
    analyze_bytes, apply_calibration, CalibrationFit, OpsView, Options, ReportView,
};
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
    let opts: Options = serde_wasm_bindgen::from_value(options)
        .map_err(|e| JsError::new(&format!("bad analysis options: {e}")))?;
    opts.validate()
        .map_err(|e| JsError::new(&format!("bad analysis options: {e}")))?;
    Ok(opts)
}

/// Analyse one file's bytes; returns the same `FileReport` object that
/// `tickbook analyze --json` prints. A bad file is a report with `ok: false`,
/// not an exception; exceptions are reserved for bad options.
#[wasm_bindgen]
pub fn analyze(name: &str, bytes: &[u8], options: JsValue) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    to_js(&analyze_bytes(name, bytes, &opts))
}

thread_local! {
    /// The files the worker keeps, read once, by the worker's file id
    /// (report::kept): their analysis, a samples file's batches, the
    /// comparison and the campaign never read their bytes again.
    static KEPT: RefCell<HashMap<String, KeptFile>> = RefCell::new(HashMap::new());
}

/// Read a file's bytes and keep the document under `id` (replacing what
/// `id` held). A bad file is kept as its error.
#[wasm_bindgen]
pub fn keep(id: &str, name: &str, bytes: &[u8], options: JsValue) -> Result<(), JsError> {
    let opts = options_from_js(options)?;
    let file = KeptFile::read(name, bytes, &opts);
    KEPT.with(|k| k.borrow_mut().insert(id.to_string(), file));
    Ok(())
}

/// Drop the document kept under `id`.
#[wasm_bindgen]
pub fn forget(id: &str) {
    KEPT.with(|k| k.borrow_mut().remove(id));
}

/// Whether a document is kept under `id`, read within `options`' limits
/// (else the worker keeps it again from its bytes).
#[wasm_bindgen(js_name = isKept)]
pub fn is_kept(id: &str, options: JsValue) -> Result<bool, JsError> {
    let opts = options_from_js(options)?;
    Ok(KEPT.with(|k| k.borrow().get(id).is_some_and(|f| f.read_within(&opts))))
}

fn with_kept<R>(
    id: &str,
    f: impl FnOnce(&mut KeptFile) -> Result<R, JsError>,
) -> Result<R, JsError> {
    KEPT.with(|k| match k.borrow_mut().get_mut(id) {
        Some(file) => f(file),
        None => Err(JsError::new("the file is not kept in the analysis")),
    })
}

/// The kept file's report (`analyze` of its bytes).
#[wasm_bindgen(js_name = keptReport)]
pub fn kept_report(id: &str, options: JsValue) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    with_kept(id, |f| to_js(&f.report(&opts)))
}

/// The kept file's report header (`KeptFile::header`: kind, info, no
/// cell), posted by the worker as soon as a file is read.
#[wasm_bindgen(js_name = keptHeader)]
pub fn kept_header(id: &str, options: JsValue) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    with_kept(id, |f| to_js(&f.header(&opts)))
}

/// The kept file's report with only the named suites' cells (`report::analyze_bytes_suites`):
/// the worker analyses a run suite by suite to show its first cells early.
#[wasm_bindgen(js_name = keptSuites)]
pub fn kept_suites(id: &str, options: JsValue, suites: Vec<String>) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    with_kept(id, |f| to_js(&f.report_suites(&opts, &suites)))
}

/// The next `count` series of a kept samples file (report::kept::SamplesBatch:
/// `{cell, done, total}`), or null for any other file.
#[wasm_bindgen(js_name = samplesBatch)]
pub fn samples_batch(id: &str, options: JsValue, count: u32) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    with_kept(id, |f| to_js(&f.samples_batch(&opts, count as usize)))
}

/// The cell across files `name` (report::across) of the kept files `ids`
/// (in that order; an id not kept is left out), with `params` as the cell
/// takes them (undefined for its defaults): the same report `tickbook
/// analyze` prints with `--json` for that cell (`--compare`, `--campaign`,
/// `--native`, `--compare-series`). Throws with the reason when the cell
/// refuses the files or the parameters.
#[wasm_bindgen(js_name = acrossKept)]
pub fn across_kept(
    name: &str,
    ids: Vec<String>,
    options: JsValue,
    params: JsValue,
) -> Result<JsValue, JsError> {
    let opts = options_from_js(options)?;
    let params: serde_json::Value = if params.is_undefined() || params.is_null() {
        serde_json::Value::Null
    } else {
        serde_wasm_bindgen::from_value(params)
            .map_err(|e| JsError::new(&format!("bad parameters for the cell {name:?}: {e}")))?
    };
    KEPT.with(|k| {
        let k = k.borrow();
        let files: Vec<&KeptFile> = ids.iter().filter_map(|id| k.get(id)).collect();
        let r = across::across_kept(name, &files, &opts, params).map_err(|e| JsError::new(&e))?;
        to_js(&r)
    })
}

/// The cells across files in the page's order, `[{name, title, needs}, …]`
/// (`report::across::across_list`): the page gives each a slot and asks for
/// it with `acrossKept` when the loaded files meet its `needs`.
#[wasm_bindgen(js_name = acrossCells)]
pub fn across_cells() -> Result<JsValue, JsError> {
    to_js(&across::across_list())
}

/// The Bernoulli trial planner (eq. 5) for any inputs: an event of
/// `event_ns`, a clock tick of `tick_ns`, timer overhead `overhead_ns`,
/// relative error `epsilon` at `confidence`. Returns `{p, trials,
/// wall_time}` (wall time in ns) or null when the inputs admit no plan.
#[wasm_bindgen]
pub fn plan(
    event_ns: f64,
    tick_ns: f64,
    overhead_ns: f64,
    epsilon: f64,
    confidence: f64,
) -> Result<JsValue, JsError> {
    to_js(&tickbook_analysis::stats::bernoulli::plan(
        event_ns,
        tick_ns,
        overhead_ns,
        epsilon,
        confidence,
    ))
}

/// The calibration fit of one form from a report `analyze` returned: the
/// object to save as a fit file. Throws with the reason when there is none.
#[wasm_bindgen(js_name = exportFit)]
pub fn export_fit(report: JsValue, form: &str) -> Result<JsValue, JsError> {
    let view: ReportView = serde_wasm_bindgen::from_value(report)
        .map_err(|e| JsError::new(&format!("not an analysis report: {e}")))?;
    let fit = CalibrationFit::export_report(&view, form).map_err(|e| JsError::new(&e))?;
    to_js(&fit)
}

/// Apply a fit file (its bytes, as read) to a report's `ops`: returns the
/// same `calibrated` object `tickbook analyze --calibrate-with` adds under
/// `ops`. Throws with the reason for a bad fit file.
#[wasm_bindgen(js_name = applyCalibration)]
pub fn apply_calibration_js(
    ops: JsValue,
    fit_name: &str,
    fit_bytes: &[u8],
) -> Result<JsValue, JsError> {
    let fit = CalibrationFit::from_json(fit_name, fit_bytes).map_err(|e| JsError::new(&e))?;
    let view: OpsView = serde_wasm_bindgen::from_value(ops)
        .map_err(|e| JsError::new(&format!("not an ops report: {e}")))?;
    to_js(&apply_calibration(&view, &fit).map_err(|e| JsError::new(&e))?)
}

/// Dynamic time warping of two series (dtw-python semantics, as the
/// Perturbation cell's outer perturbation): `step_pattern` `symmetric1` or
/// `symmetric2`, `band` the Sakoe–Chiba width or undefined. Returns
/// `{distance, normalized_distance, index1, index2}`; throws when no path
/// fits the band. The page's DTW benchmark times this in the worker.
#[wasm_bindgen]
pub fn dtw(
    x: &[f64],
    y: &[f64],
    step_pattern: &str,
    band: Option<u32>,
) -> Result<JsValue, JsError> {
    use tickbook_analysis::stats::dtw::{dtw, StepPattern};
    let pattern = match step_pattern {
        "symmetric1" => StepPattern::Symmetric1,
        "symmetric2" => StepPattern::Symmetric2,
        other => {
            return Err(JsError::new(&format!(
                "unknown step pattern {other:?}: expected symmetric1 or symmetric2"
            )))
        }
    };
    let a = dtw(x, y, pattern, band.map(|b| b as usize)).map_err(|e| JsError::new(&e))?;
    to_js(&a)
}

/// Every cell in the page's order, `[{name, title, cost}, …]`
/// (`suites::cell_list`; `cost` orders the worker's progressive analysis,
/// cheapest first): the page takes its cells' titles and order from it.
#[wasm_bindgen]
pub fn cells() -> Result<JsValue, JsError> {
    to_js(&tickbook_analysis::suites::cell_list())
}

/// The default analysis options, for the page's controls.
#[wasm_bindgen(js_name = defaultOptions)]
pub fn default_options() -> Result<JsValue, JsError> {
    to_js(&Options::default())
}

/// Why the analysis cannot take `options` (the message `analyze` would
/// throw), or undefined when it can: the page checks a link's options field
/// by field with it (web/src/app/state.js) and falls back to a field's default.
#[wasm_bindgen(js_name = checkOptions)]
pub fn check_options(options: JsValue) -> Option<String> {
    let opts: Options = match serde_wasm_bindgen::from_value(options) {
        Ok(o) => o,
        // serde-wasm-bindgen's errors are JS Errors: "Error: " + the message.
        Err(e) => return Some(e.to_string().trim_start_matches("Error: ").to_string()),
    };
    opts.validate().err()
}

/// Why a file of `size` bytes is too big to read (the message
/// `tickbook analyze` prints), or undefined: the page asks before it reads
/// a file into memory (`tickbook_analysis::limits`, the defaults).
#[wasm_bindgen(js_name = checkSize)]
pub fn check_size(name: &str, size: f64) -> Option<String> {
    // A JS number: sizes are whole and below 2^53; anything else is huge.
    let size = if size.is_finite() && size >= 0.0 {
        size as u64
    } else {
        u64::MAX
    };
    Limits::default()
        .check_size(name, size)
        .err()
        .map(|e| e.message)
}

/// The most bytes a file may have: the page compares a file's size with it
/// before reading the file, and asks `checkSize` for the message only for
/// a file over it.
#[wasm_bindgen(js_name = maxFileBytes)]
pub fn max_file_bytes() -> f64 {
    Limits::default().file_bytes as f64
}

/// The rules of a folder's walk (`intake::rules`: the names kept, the
/// directories skipped, the most files, how much of a file's head
/// `intakePlan` needs): the worker passes them on when it is ready.
#[wasm_bindgen(js_name = intakeRules)]
pub fn intake_rules() -> Result<JsValue, JsError> {
    to_js(&tickbook_analysis::intake::rules())
}

/// A folder's inputs (`intake::plan`) from the files its walk kept,
/// `[{path, head}]`: `[{kind: "file", path} | {kind: "criterion", paths} |
/// {kind: "runs", dir, paths}]`.
#[wasm_bindgen(js_name = intakePlan)]
pub fn intake_plan(entries: JsValue) -> Result<JsValue, JsError> {
    let entries: Vec<tickbook_analysis::intake::Entry> = serde_wasm_bindgen::from_value(entries)
        .map_err(|e| JsError::new(&format!("bad folder entries: {e}")))?;
    to_js(&tickbook_analysis::intake::plan(&entries))
}

/// The analysis crate's version, shown in the page footer.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
