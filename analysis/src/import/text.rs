//! Inputs that are not one JSON document: the formats that recognise bytes
//! (line streams of JSON objects, text), tried in the registry's order, and
//! what a file none of the readers accepts is told: every format tried,
//! each with why it was not it.

use super::{checker, detect_bytes, sniff, Imported, Importer, Shape, IMPORTERS};
use crate::error::ReadError;

/// Read bytes that are not a JSON document with the first format that
/// recognises them, or `None` when none does.
pub fn import_bytes(file: &str, bytes: &[u8]) -> Option<Result<Imported, ReadError>> {
    let importer = detect_bytes(bytes)?;
    Some(
        importer
            .read_bytes(&checker(importer, file), bytes)
            .map(Imported::Samples),
    )
}

/// The error for bytes no reader accepts. `e` is the JSON parser's; when the
/// bytes look like a JSON format cut short (`sniff`) or like a tickbook
/// file, that message alone is the answer. Otherwise every format tried is
/// listed with why it is not this file, grouped by [`Shape`]: the JSON
/// documents, the JSON streams, then each text format's own reason.
pub fn not_recognised(bytes: &[u8], e: ReadError) -> ReadError {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    if sniff(bytes).is_some() || head.contains("\"tickbook\"") {
        return e;
    }
    let first = head
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let short: String = l.trim().chars().take(40).collect();
            let more = if l.trim().chars().count() > 40 {
                "…"
            } else {
                ""
            };
            format!("line {} (\"{short}{more}\")", i + 1)
        })
        .unwrap_or_else(|| "the first line".into());
    let abouts: Vec<_> = IMPORTERS.iter().map(|i| i.about()).collect();
    let mut documents: Vec<&str> = vec!["tickbook"];
    let (mut streams, mut keys) = (Vec::new(), Vec::new());
    for a in &abouts {
        match a.shape {
            // Formats with more than one importer are listed once.
            Shape::Document if !documents.contains(&a.name) => documents.push(a.name),
            Shape::Stream { key } => {
                streams.push(a.name);
                keys.push(format!("\"{key}\""));
            }
            _ => {}
        }
    }
    let texts: Vec<String> = IMPORTERS
        .iter()
        .filter(|i| i.about().shape == Shape::Text)
        .map(|i| {
            let why = i.why_not(bytes).unwrap_or_default();
            format!("{}: {why}", i.about().label)
        })
        .collect();
    // The stream format whose key the first line has: the file most looks
    // like it, and its reason is the first thing that failed there.
    let first_object = head
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(serde_json::Value::is_object);
    let closest = first_object.as_ref().and_then(|o| {
        IMPORTERS.iter().find_map(|i| match i.about().shape {
            Shape::Stream { key } if o.get(key).is_some() => {
                let why = i
                    .why_not(bytes)
                    .unwrap_or_else(|| "it is not one of its objects".into());
                Some(format!(
                    "{first} has \"{key}\", as a {} line has, but {why} (the format this file \
                     is closest to)",
                    i.about().label
                ))
            }
            _ => None,
        })
    });
    let keys = match keys.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    let streams_why = match &closest {
        Some(c) => c.clone(),
        None => format!("{first} is not an object with {keys}"),
    };
    // A text format two or more of whose strings the file holds: the one
    // with most is the format the file most looks like.
    let text_closest = closest.is_none().then(|| {
        IMPORTERS
            .iter()
            .filter(|i| i.about().shape == Shape::Text)
            .map(|i| (*i, i.marks().iter().filter(|m| head.contains(*m)).count()))
            .filter(|(_, n)| *n >= 2)
            .fold(None, |best: Option<(&dyn Importer, usize)>, x| match best {
                Some(b) if b.1 >= x.1 => Some(b),
                _ => Some(x),
            })
            .map(|(i, _)| {
                format!(
                    "It is closest to {} ({}). ",
                    i.about().label,
                    i.why_not(bytes)
                        .unwrap_or_else(|| "yet it reads none of it".into())
                )
            })
    });
    let message = format!(
        "{}; not a format tickbook reads. {}Tried: the JSON formats ({}): not one JSON \
         document; the JSON streams ({}): {streams_why}; {}",
        e.message,
        text_closest.flatten().unwrap_or_default(),
        documents.join(", "),
        streams.join(", "),
        texts.join("; "),
    );
    ReadError { message, ..e }
}
