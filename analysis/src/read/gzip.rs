//! gzip-compressed input of any format (pyperf writes `.json.gz`):
//! recognised by its magic bytes, never the name, and inflated within the
//! file-size limit, so a small file that inflates to gigabytes (a
//! decompression bomb) is refused by the limit instead of filling memory.

use crate::error::ReadError;
use crate::limits::Limits;
use std::io::Read;

/// The two bytes every gzip member starts with (RFC 1952).
const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `bytes` are gzip-compressed.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The inflated bytes of a gzip file (every member, as `gzip -d` reads
/// concatenated ones), refused once they pass `limits.file_bytes`: at most
/// that much plus one byte is ever held.
pub fn inflate(file: &str, bytes: &[u8], limits: &Limits) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limits.file_bytes.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| ReadError {
            file: file.to_string(),
            path: None,
            message: format!("gzip-compressed (recognised by its first bytes), but it cannot be decompressed: {e}"),
        })?;
    if out.len() as u64 > limits.file_bytes {
        return Err(limits.inflated_too_big(file));
    }
    if is_gzip(&out) {
        // Compressed twice: refused rather than unwrapped layer by layer.
        return Err(ReadError {
            file: file.to_string(),
            path: None,
            message: "gzip-compressed twice: decompress it once (gzip -d) and load the result"
                .into(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn inflates_within_the_limit_and_refuses_beyond_it() {
        let l = Limits {
            file_bytes: 1000,
            ..Limits::default()
        };
        let text = vec![b' '; 1000];
        assert_eq!(inflate("f", &gz(&text), &l).unwrap(), text);
        // 1001 bytes inflated: one more than the limit.
        let e = inflate("f", &gz(&[b' '; 1001]), &l).unwrap_err();
        assert!(e.message.contains("decompresses to more than"), "{e}");
        assert!(e.message.contains("TICKBOOK_MAX_FILE_BYTES"), "{e}");
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        // 1 GiB of zeros compress to ~1 MiB; only limit + 1 bytes are inflated.
        let mut e = GzEncoder::new(Vec::new(), Compression::best());
        let chunk = vec![0u8; 1 << 20];
        for _ in 0..1024 {
            e.write_all(&chunk).unwrap();
        }
        let bomb = e.finish().unwrap();
        assert!(bomb.len() < 2 << 20, "{}", bomb.len());
        let l = Limits {
            file_bytes: 1 << 20,
            ..Limits::default()
        };
        let err = inflate("bomb.json.gz", &bomb, &l).unwrap_err();
        assert_eq!(err.file, "bomb.json.gz");
        assert!(
            err.message.contains("decompresses to more than 1 MiB"),
            "{err}"
        );
    }

    #[test]
    fn broken_and_doubled_gzip_are_named() {
        let l = Limits::default();
        let mut cut = gz(b"{\"a\": 1}");
        cut.truncate(cut.len() - 6);
        let e = inflate("f", &cut, &l).unwrap_err();
        assert!(e.message.contains("cannot be decompressed"), "{e}");
        let e = inflate("f", &gz(&gz(b"{}")), &l).unwrap_err();
        assert!(e.message.contains("compressed twice"), "{e}");
    }
}
