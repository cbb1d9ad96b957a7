//! How much one input may hold: the one place the command line and the page
//! take their limits from, so a file too big for one is too big for the
//! other, with the same message.
//!
//! Each limit guards a way a huge input would exhaust memory or time rather
//! than fail: the bytes themselves (read whole; the page's WebAssembly has
//! 4 GiB in all), the parsed JSON tree (a number costs ~60 bytes once read,
//! an object a map node of 400–630 bytes, before any analysis), and
//! the series of a `samples` file (the Samples cell clusters series by cost,
//! with a distance for every pair: 10 000 series are 400 MB and seconds,
//! 100 000 are 40 GB). They are checked before the work they guard: the
//! size before a file is read (`check_size`), the counts of numbers and
//! other values by a scan of the bytes before they are parsed
//! (`check_counts`; a gzip-compressed file's size is checked again as it is
//! inflated, `read::gzip`), the series once the file is read and before it is
//! analysed (`check_series`).
//!
//! `tickbook analyze` and `tickbook report` raise them with environment
//! variables ([`Limits::from_vars`]); the page always uses the defaults.

use crate::error::ReadError;

/// The limits for one input (a file, or a folder bundled into one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of the file.
    pub file_bytes: u64,
    /// JSON numbers in the file: samples, and every other number.
    pub numbers: u64,
    /// JSON values other than numbers: objects, arrays, strings (object
    /// keys included) and `true` / `false` / `null`.
    pub values: u64,
    /// Series of a `samples` file or an imported harness's results.
    pub series: u64,
}

/// Environment variables that raise (or lower) each limit for the command
/// line, in the order of [`Limits`]'s fields.
pub const VARS: [&str; 4] = [
    "TICKBOOK_MAX_FILE_BYTES",
    "TICKBOOK_MAX_NUMBERS",
    "TICKBOOK_MAX_VALUES",
    "TICKBOOK_MAX_SERIES",
];

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // 2.5 × the biggest files the page benchmark loads (~100 MB).
            file_bytes: 256 << 20,
            // Reading takes ~60 bytes a number (the JSON tree, its arrays'
            // spare room, the typed copy): 1.2 GB at the limit. Analysis
            // time grows with them too (25 million: minutes natively).
            numbers: 20_000_000,
            // A real run holds ~1 such value per 25 numbers; a full one
            // stays far below. Worst case (all maps): ~1.3 GB.
            values: 4_000_000,
            // Clustering every pair: 400 MB and seconds at 10 000.
            series: 10_000,
        }
    }
}

impl Limits {
    /// The defaults, with each limit whose variable `var` gives replaced.
    /// A variable that is not a positive whole number is refused, named.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Limits, String> {
        let mut l = Limits::default();
        let fields = [
            &mut l.file_bytes,
            &mut l.numbers,
            &mut l.values,
            &mut l.series,
        ];
        for (name, field) in VARS.iter().zip(fields) {
            if let Some(v) = var(name) {
                *field = v
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("{name}={v:?}: expected a positive whole number"))?;
            }
        }
        Ok(l)
    }

    /// Refuse a file of `size` bytes before it is read.
    pub fn check_size(&self, file: &str, size: u64) -> Result<(), ReadError> {
        if size <= self.file_bytes {
            return Ok(());
        }
        Err(exceeded(
            file,
            format!(
                "the file is {} ({size} bytes), more than the {} a file may have",
                bytes(size),
                bytes(self.file_bytes)
            ),
            VARS[0],
        ))
    }

    /// Refuse bytes that hold more numbers or other values than the limits
    /// allow, before they are parsed. A scan of the tokens, not a parser:
    /// it allocates nothing, stops at the first limit passed, and reads any
    /// bytes (JSON, JSON lines, a bundled folder); bad JSON is left to the
    /// parser to name.
    pub fn check_counts(&self, file: &str, bytes: &[u8]) -> Result<(), ReadError> {
        let (mut numbers, mut values) = (0u64, 0u64);
        let mut i = 0;
        let n = bytes.len();
        while i < n {
            match bytes[i] {
                b'"' => {
                    values += 1;
                    i += 1;
                    // To the closing quote, past escaped characters.
                    while i < n && bytes[i] != b'"' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                b'{' | b'[' => {
                    values += 1;
                    i += 1;
                }
                b't' | b'f' | b'n' => {
                    values += 1;
                    while i < n && bytes[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                }
                b'-' | b'0'..=b'9' => {
                    numbers += 1;
                    while i < n
                        && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
            if numbers > self.numbers {
                return Err(exceeded(
                    file,
                    format!(
                        "the file holds more than {} numbers (samples and other numbers), the most a file may hold",
                        self.numbers
                    ),
                    VARS[1],
                ));
            }
            if values > self.values {
                return Err(exceeded(
                    file,
                    format!(
                        "the file holds more than {} JSON objects, arrays, strings and keys, the most a file may hold",
                        self.values
                    ),
                    VARS[2],
                ));
            }
        }
        Ok(())
    }

    /// The error for a compressed file whose content is bigger than a file
    /// may be (found while inflating it, which stops there).
    pub fn inflated_too_big(&self, file: &str) -> ReadError {
        exceeded(
            file,
            format!(
                "the gzip-compressed file decompresses to more than {}, the most a file may have",
                bytes(self.file_bytes)
            ),
            VARS[0],
        )
    }

    /// Refuse a file of more series than the limit, before it is analysed.
    pub fn check_series(&self, file: &str, series: usize) -> Result<(), ReadError> {
        if series as u64 <= self.series {
            return Ok(());
        }
        Err(exceeded(
            file,
            format!(
                "the file holds {series} series, more than the {} a file may hold (the Samples cell compares every pair of series)",
                self.series
            ),
            VARS[3],
        ))
    }
}

fn exceeded(file: &str, what: String, var: &str) -> ReadError {
    ReadError {
        file: file.to_string(),
        path: None,
        message: format!(
            "too big to analyse: {what}. Split the file, or set the environment variable {var} to a higher limit and use `tickbook analyze` (the page keeps its limits)"
        ),
    }
}

/// A byte count in binary units: `1.1 GiB`, `256 MiB`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_tokens_not_characters() {
        let l = Limits {
            numbers: 4,
            values: 7,
            ..Limits::default()
        };
        // 4 numbers; 7 values: the object, 3 keys, the array, "a\"1,2", true.
        let ok = br#"{"x": [1, -2.5e-3, 30, 4E+2], "y": "a\"1,2", "z": true}"#;
        assert_eq!(l.check_counts("f", ok), Ok(()));
        let one_more = br#"{"x": [1, -2.5e-3, 30, 4E+2, 5], "y": "a\"1,2", "z": true}"#;
        let e = l.check_counts("f", one_more).unwrap_err();
        assert!(e.message.contains("more than 4 numbers"), "{e}");
        assert!(e.message.contains("TICKBOOK_MAX_NUMBERS"), "{e}");
        let e = l
            .check_counts("f", br#"{"x": [1], "y": "a", "z": null, "w": []}"#)
            .unwrap_err();
        assert!(e.message.contains("more than 7 JSON objects"), "{e}");
        // Numbers inside strings are text; JSON lines are read too.
        assert_eq!(
            l.check_counts("f", b"{\"a\":\"1 2 3 4 5 6\"}\n{\"b\":1}\n"),
            Ok(())
        );
        // Truncated input ends the scan without a panic.
        assert_eq!(l.check_counts("f", b"[\"abc\\"), Ok(()));
    }

    #[test]
    fn size_and_series_messages_name_the_limit_and_the_way_out() {
        let l = Limits::default();
        assert_eq!(l.check_size("f", 256 << 20), Ok(()));
        let e = l.check_size("big.json", 1_181_116_006).unwrap_err();
        assert_eq!(e.file, "big.json");
        assert_eq!(
            e.message,
            "too big to analyse: the file is 1.1 GiB (1181116006 bytes), more than the 256 MiB a file may have. Split the file, or set the environment variable TICKBOOK_MAX_FILE_BYTES to a higher limit and use `tickbook analyze` (the page keeps its limits)"
        );
        assert_eq!(l.check_series("f", 10_000), Ok(()));
        let e = l.check_series("f", 10_001).unwrap_err();
        assert!(
            e.message
                .contains("holds 10001 series, more than the 10000"),
            "{e}"
        );
        assert!(e.message.contains("TICKBOOK_MAX_SERIES"), "{e}");
    }

    #[test]
    fn variables_raise_limits_and_bad_values_are_named() {
        let l =
            Limits::from_vars(|v| (v == "TICKBOOK_MAX_SERIES").then(|| "20000".into())).unwrap();
        assert_eq!(
            l,
            Limits {
                series: 20_000,
                ..Limits::default()
            }
        );
        let e = Limits::from_vars(|v| (v == "TICKBOOK_MAX_FILE_BYTES").then(|| "1G".into()))
            .unwrap_err();
        assert!(e.starts_with("TICKBOOK_MAX_FILE_BYTES=\"1G\""), "{e}");
        assert!(Limits::from_vars(|_| Some("0".into())).is_err());
    }
}
