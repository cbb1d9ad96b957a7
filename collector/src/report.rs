//! `tickbook report FILE... -o report.html`: the page's Export report from
//! the command line, so a CI job can publish one.
//!
//! The built page (web/dist/index.html, self-contained: scripts, styles and
//! the wasm inline) is the template; this fills its empty data block with
//! the files (gzip + base64) and the options, in the shape the page itself
//! writes (web/src/app/embed.js). Opened in a browser, the report analyses the
//! files with the same wasm the page uses, offline. Nothing is analysed
//! here: files are only read, to name the bad ones on stderr; a bad file still
//! goes in and shows its error card, as it would in the page. The same
//! inputs give the same bytes (no time stamp), so a CI job's report only
//! changes when its results do.

use base64::Engine as _;
use clap::Args;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tickbook_analysis::limits::Limits;
use tickbook_analysis::read::read_document_within;
use tickbook_analysis::report::Options;
use tickbook_analysis::stats::QuantileType;

/// The data block as the built page holds it, empty.
const PLACEHOLDER: &str = r#"<script type="application/json" id="tickbook-data"></script>"#;

#[derive(Args)]
pub struct ReportArgs {
    /// Result files and folders (read as `tickbook analyze` reads them), in
    /// the report's order.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to write the report (.html).
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    out: PathBuf,
    /// The built page (web/dist). Default: as `tickbook serve`.
    #[arg(long)]
    web_root: Option<PathBuf>,
    /// Hyndman–Fan quantile definition, 1 to 9.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=9))]
    quantile_type: Option<u8>,
    /// Confidence level of intervals, e.g. 0.95.
    #[arg(long)]
    confidence: Option<f64>,
    /// Bootstrap resamples.
    #[arg(long)]
    resamples: Option<usize>,
    /// Bootstrap seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Comparison threshold (0.03 = 3 %).
    #[arg(long)]
    threshold: Option<f64>,
    /// Tukey's outlier rule multiple (outliers beyond K·IQR, extreme beyond 2K·IQR).
    #[arg(long)]
    outlier_k: Option<f64>,
    /// ops suite's reference clock: portable or counter.
    #[arg(long, value_name = "portable|counter")]
    reference_clock: Option<String>,
    /// Clustering linkage: single, complete, average, weighted, ward, centroid, median.
    #[arg(long)]
    linkage: Option<String>,
}

pub fn run(args: ReportArgs) -> ExitCode {
    let options = match options(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = match crate::load::limits() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let template = match template(args.web_root.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    let files: Vec<Value> = crate::load::load_inputs(&args.files, &limits)
        .into_iter()
        .map(|input| {
            let (entry, error) = file_entry(input, &limits);
            if let Some(e) = error {
                failed = true;
                eprintln!("error: {e}");
            }
            entry
        })
        .collect();
    let data = json!({
        "tickbook": "report",
        "version": 1,
        "generator": format!("tickbook report {}", env!("CARGO_PKG_VERSION")),
        "files": files,
        "state": { "o": options },
    });
    let html = match fill(&template, &data) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = write_atomically(&args.out, html.as_bytes()) {
        eprintln!("error: cannot write {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let _ = writeln!(std::io::stdout(), "{}", args.out.display());
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The options the report opens with, checked as `tickbook analyze` checks them.
fn options(args: &ReportArgs) -> Result<Value, String> {
    let mut o = Options::default();
    if let Some(q) = args.quantile_type {
        o.quantile_type = QuantileType::new(q)?;
    }
    if let Some(c) = args.confidence {
        o.confidence = c;
        o.bootstrap.confidence = c;
    }
    if let Some(n) = args.resamples {
        o.bootstrap.resamples = n;
    }
    if let Some(s) = args.seed {
        o.bootstrap.seed = s;
    }
    if let Some(t) = args.threshold {
        o.threshold = t;
    }
    if let Some(k) = args.outlier_k {
        o.outlier_k = k;
    }
    if let Some(c) = &args.reference_clock {
        o.reference_clock = c.parse()?;
    }
    if let Some(l) = &args.linkage {
        o.linkage = serde_json::from_value(Value::String(l.clone()))
            .map_err(|_| format!("unknown linkage {l:?} (single, complete, average, weighted, ward, centroid, median)"))?;
    }
    o.validate()?;
    serde_json::to_value(o).map_err(|e| e.to_string())
}

/// The built page, which must hold the empty data block exactly once.
fn template(web_root: Option<&Path>) -> Result<String, String> {
    let root = crate::serve::find_web_root(web_root)?;
    let file = root.join("index.html");
    let html = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read the page template {}: {e}", file.display()))?;
    if html.matches(PLACEHOLDER).count() != 1 {
        return Err(format!(
            "{} is not a self-contained page with an empty data block; rebuild it with scripts/build-web",
            file.display()
        ));
    }
    Ok(html)
}

/// One file of the data block, and the error to print when it is bad (the
/// file goes in either way: the page shows why it could not be read).
fn file_entry(input: crate::load::Input, limits: &Limits) -> (Value, Option<String>) {
    let name = input.name;
    match input.bytes {
        Err(message) => {
            let line = format!("{name}: {message}");
            (json!({ "name": name, "error": message }), Some(line))
        }
        Ok(bytes) => {
            let error = read_document_within(&name, &bytes, limits)
                .err()
                .map(|e| e.to_string());
            let data = match gzip(&bytes) {
                Ok(gz) => base64::engine::general_purpose::STANDARD.encode(gz),
                Err(e) => {
                    let message = format!("cannot compress the file: {e}");
                    return (
                        json!({ "name": name, "error": message }),
                        Some(format!("{name}: {message}")),
                    );
                }
            };
            (
                json!({ "name": name, "encoding": "gzip+base64", "data": data }),
                error,
            )
        }
    }
}

fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    // Level 6: within a few per cent of the best size at a fraction of its time.
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes)?;
    enc.finish()
}

/// The template with `data` in its data block. Every `<` (and the two line
/// separators JavaScript once disallowed) is escaped in the JSON, so nothing
/// inside can end the block; `<` only occurs inside JSON strings.
fn fill(template: &str, data: &Value) -> Result<String, String> {
    let text = serde_json::to_string(data).map_err(|e| e.to_string())?;
    let text = text
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    let block = format!(r#"<script type="application/json" id="tickbook-data">{text}</script>"#);
    Ok(template.replacen(PLACEHOLDER, &block, 1))
}

/// Temporary file beside the target, then rename: a reader never sees half a report.
fn write_atomically(out: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, out)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_block() {
        let t = format!("<html><body>{PLACEHOLDER}</body></html>");
        let data = json!({ "files": [{ "name": "</script><script>alert(1)</script><!--" }] });
        let html = fill(&t, &data).unwrap();
        let block = &html[html.find("tickbook-data\">").unwrap()..];
        // The only `</script` after the block's start is the block's own end.
        assert_eq!(block.matches("</script").count(), 1);
        assert!(!block.contains("<!--"));
        let json_text = &block["tickbook-data\">".len()..block.find("</script>").unwrap()];
        let back: Value = serde_json::from_str(json_text).unwrap();
        assert_eq!(back, data);
    }

    #[test]
    fn options_are_checked() {
        let base = ReportArgs {
            files: vec![],
            out: PathBuf::from("x.html"),
            web_root: None,
            quantile_type: None,
            confidence: Some(0.9),
            resamples: None,
            seed: None,
            threshold: None,
            outlier_k: None,
            reference_clock: Some("counter".into()),
            linkage: Some("ward".into()),
        };
        let o = options(&base).unwrap();
        assert_eq!(o["confidence"], json!(0.9));
        assert_eq!(o["bootstrap"]["confidence"], json!(0.9));
        assert_eq!(o["linkage"], json!("ward"));
        assert_eq!(o["reference_clock"], json!("counter"));
        let wall = ReportArgs {
            files: vec![],
            out: PathBuf::from("x.html"),
            web_root: None,
            quantile_type: None,
            confidence: None,
            resamples: None,
            seed: None,
            threshold: None,
            outlier_k: None,
            reference_clock: Some("wall".into()),
            linkage: None,
        };
        assert!(options(&wall)
            .unwrap_err()
            .contains("unknown reference clock"));
        let bad = ReportArgs {
            linkage: Some("nearest".into()),
            ..base
        };
        assert!(options(&bad).unwrap_err().contains("unknown linkage"));
    }

    #[test]
    fn gzip_round_trips() {
        use std::io::Read as _;
        let bytes = b"{\"tickbook\": 1}".repeat(100);
        let gz = gzip(&bytes).unwrap();
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, bytes);
    }
}
