//! Why an input could not be read, and the one context every reader checks
//! values with.
//!
//! The native reader, the importers, the limits and every suite's checks
//! build their errors here, so each names the file, the JSON path and what
//! was expected in the same way. This module uses nothing else of the crate:
//! everything that reads may use it without making a cycle.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::fmt;

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReadError {
    pub file: String,
    /// JSON path of the offending value, e.g. `series[0].executions[1][3]`.
    pub path: Option<String>,
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: at {}: {}", self.file, p, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ReadError {}

/// Where the values being checked come from: the file messages name and,
/// for another tool's format, the label every message starts with
/// (`pyperf JSON: …`). Paths are JSON paths such as `suites[0].data.ops[3]`;
/// a leading `.` is dropped and an empty path means the whole document.
#[derive(Debug, Clone, Copy)]
pub struct Checker<'a> {
    pub file: &'a str,
    /// The foreign format's label, or `None` for tickbook's own files.
    pub format: Option<&'a str>,
}

impl<'a> Checker<'a> {
    /// Checks of a tickbook file: messages without a format label.
    pub fn new(file: &'a str) -> Self {
        Checker { file, format: None }
    }

    /// Checks of a file in another tool's format, named by `label`.
    pub fn of_format(file: &'a str, label: &'a str) -> Self {
        Checker {
            file,
            format: Some(label),
        }
    }

    pub fn err(&self, path: Option<String>, message: impl AsRef<str>) -> ReadError {
        ReadError {
            file: self.file.to_string(),
            path,
            message: match self.format {
                Some(label) => format!("{label}: {}", message.as_ref()),
                None => message.as_ref().to_string(),
            },
        }
    }

    /// An error at `path` (none when it is empty).
    pub fn at(&self, path: &str, message: impl AsRef<str>) -> ReadError {
        let p = path.strip_prefix('.').unwrap_or(path);
        self.err((!p.is_empty()).then(|| p.to_string()), message)
    }

    /// A warning of a file read in part (a samples file's `warnings`):
    /// what was left out and why, at `path` (a JSON path or a line; none
    /// when it is empty), worded as an error would be but without the file,
    /// which the warning belongs to.
    pub fn warning(&self, path: &str, message: impl AsRef<str>) -> String {
        let e = self.at(path, message);
        match e.path {
            Some(p) => format!("at {p}: {}", e.message),
            None => e.message,
        }
    }

    /// Deserialize `value` as `T`, reporting the path below `prefix`.
    pub fn typed<T: DeserializeOwned>(&self, value: &Value, prefix: &str) -> Result<T, ReadError> {
        serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
            let inner = e.path().to_string();
            let path = match (prefix.is_empty(), inner.as_str()) {
                (true, ".") => None,
                (true, p) => Some(p.to_string()),
                (false, ".") => Some(prefix.to_string()),
                (false, p) if p.starts_with('[') => Some(format!("{prefix}{p}")),
                (false, p) => Some(format!("{prefix}.{p}")),
            };
            self.err(path, e.into_inner().to_string())
        })
    }

    /// Samples already read as numbers are durations or counts: finite and
    /// not negative.
    pub fn check_samples(&self, xs: &[f64], path: &str) -> Result<(), ReadError> {
        match xs.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
            None => Ok(()),
            Some(k) => Err(self.err(
                Some(format!("{path}[{k}]")),
                format!(
                    "sample is {}: expected a finite number ≥ 0 (samples are durations or counts)",
                    xs[k]
                ),
            )),
        }
    }

    /// A number already read that must be finite and > 0.
    pub fn check_positive(&self, v: f64, path: &str) -> Result<(), ReadError> {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(self.err(
                Some(path.to_string()),
                format!("expected a positive number, found {v}"),
            ))
        }
    }

    pub fn obj<'v>(&self, v: &'v Value, path: &str) -> Result<&'v Map<String, Value>, ReadError> {
        v.as_object()
            .ok_or_else(|| self.at(path, format!("expected an object, found {}", type_name(v))))
    }

    pub fn arr<'v>(&self, v: &'v Value, path: &str) -> Result<&'v Vec<Value>, ReadError> {
        v.as_array()
            .ok_or_else(|| self.at(path, format!("expected an array, found {}", type_name(v))))
    }

    /// A required field of an object.
    pub fn field<'v>(
        &self,
        o: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Result<&'v Value, ReadError> {
        o.get(key)
            .ok_or_else(|| self.at(path, format!("missing \"{key}\"")))
    }

    pub fn str<'v>(&self, v: &'v Value, path: &str) -> Result<&'v str, ReadError> {
        v.as_str()
            .ok_or_else(|| self.at(path, format!("expected a string, found {}", type_name(v))))
    }

    /// A measurement: a finite number ≥ 0.
    pub fn sample(&self, v: &Value, path: &str) -> Result<f64, ReadError> {
        match v.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            Some(x) => Err(self.at(
                path,
                format!("measurement is {x}: expected a finite number ≥ 0"),
            )),
            None => Err(self.at(path, format!("expected a number, found {}", type_name(v)))),
        }
    }

    /// An array of measurements.
    pub fn samples(&self, v: &Value, path: &str) -> Result<Vec<f64>, ReadError> {
        self.arr(v, path)?
            .iter()
            .enumerate()
            .map(|(i, x)| self.sample(x, &format!("{path}[{i}]")))
            .collect()
    }

    /// A measurement per iteration: `total / count` for the count at
    /// `count_path`, which must be > 0 and leave the quotient finite (a
    /// count such as 5e-324 makes any time infinite).
    pub fn per_iteration(
        &self,
        total: f64,
        total_path: &str,
        count: &Value,
        count_path: &str,
    ) -> Result<f64, ReadError> {
        let n = self.positive(count, count_path)?;
        let x = total / n;
        if x.is_finite() {
            Ok(x)
        } else {
            let total_at = total_path.strip_prefix('.').unwrap_or(total_path);
            Err(self.at(
                count_path,
                format!(
                    "{total_at} / this count = {} / {} is {x}: expected a count that \
                     gives a finite measurement per iteration",
                    short(total),
                    short(n)
                ),
            ))
        }
    }

    /// A positive count (iterations, loops).
    pub fn positive(&self, v: &Value, path: &str) -> Result<f64, ReadError> {
        match v.as_f64() {
            Some(x) if x.is_finite() && x > 0.0 => Ok(x),
            Some(x) => Err(self.at(path, format!("is {x}: expected a number > 0"))),
            None => Err(self.at(path, format!("expected a number, found {}", type_name(v)))),
        }
    }
}

/// A number as a message shows it: in exponent form when plain digits
/// would run long (`{}` writes 2e-323 with 323 digits).
fn short(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-6 || x.abs() >= 1e15) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// What a JSON value is, as messages say it ("found an array").
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
