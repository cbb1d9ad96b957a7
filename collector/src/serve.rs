//! `tickbook serve`: the notebook page and a folder of results on 127.0.0.1.
//!
//! A static file server (tiny_http) with two roots: the built page at `/`
//! and the results folder at `/results/`. It binds loopback only, serves
//! nothing outside those two folders, lists no folder, and answers only
//! requests addressed to itself: a `Host` other than the loopback address or
//! `localhost` with the bound port gets 403. Binding loopback is not enough
//! on its own: a web page the user visits can point its own name at
//! 127.0.0.1 (DNS rebinding) and read every result through the browser; its
//! requests then carry that name in `Host`. The page it serves may connect
//! to this server and to the origins of the `?url=` files it was opened
//! with, and nowhere else (`page_with_policy`).

use clap::Args;
use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ServeArgs {
    /// Folder of result files, served at /results/.
    #[arg(default_value = "results")]
    dir: PathBuf,
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 8765)]
    port: u16,
    /// The built page (web/dist). Default: $TICKBOOK_WEB_ROOT, else web/dist
    /// beside the binary's checkout, else ./web/dist.
    #[arg(long)]
    web_root: Option<PathBuf>,
    /// Result files (names inside DIR) to open the page with; default: every
    /// .json file in DIR.
    #[arg(long = "load", value_name = "FILE")]
    load: Vec<String>,
    /// Do not try to open a browser.
    #[arg(long)]
    no_open: bool,
    /// Serve every response with `Cross-Origin-Opener-Policy: same-origin`
    /// and `Cross-Origin-Embedder-Policy: require-corp`, so the page is
    /// cross-origin isolated: browsers then give `performance.now` a finer
    /// tick (Measure this browser records which it was). `?url=` files from
    /// other origins then load only if they send CORP or CORS headers.
    #[arg(long)]
    isolated: bool,
}

pub fn run(args: ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    let web_root = find_web_root(args.web_root.as_deref())?;
    fs::create_dir_all(&args.dir).map_err(|e| {
        format!(
            "cannot create the results folder {}: {e}",
            args.dir.display()
        )
    })?;
    let results = args
        .dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", args.dir.display()))?;

    let server = tiny_http::Server::http(("127.0.0.1", args.port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .ok_or("the server has no IP address")?;
    let base = format!("http://127.0.0.1:{port}/");

    let load = if args.load.is_empty() {
        json_files(&results)
    } else {
        args.load.clone()
    };
    let query: Vec<String> = load
        .iter()
        .map(|f| format!("url={}", percent_encode(&format!("/results/{f}"))))
        .collect();
    let page = if query.is_empty() {
        base.clone()
    } else {
        format!("{base}?{}", query.join("&"))
    };

    // First stdout line is machine-read by tests and scripts: keep its shape.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "serving {base}");
    let _ = writeln!(out, "open {page}");
    let _ = out.flush();
    eprintln!(
        "tickbook: page from {}, results from {} (Ctrl-C stops)",
        web_root.display(),
        results.display()
    );
    if !args.no_open {
        open_browser(&page);
    }

    for request in server.incoming_requests() {
        let host = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Host"))
            .map(|h| h.value.as_str());
        let response = match refused_host(host, port) {
            Some(reason) => text(403, &reason),
            None => respond(&web_root, &results, request.url(), args.isolated),
        };
        // A client that went away is not our error.
        let _ = request.respond(response);
    }
    Ok(())
}

type Response = tiny_http::Response<std::io::Cursor<Vec<u8>>>;

fn respond(web_root: &Path, results: &Path, url: &str, isolated: bool) -> Response {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let path = percent_decode(path);
    let (root, rel) = match path.strip_prefix("/results/") {
        Some(rest) => (results, rest.to_string()),
        None => (web_root, path.trim_start_matches('/').to_string()),
    };
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel
    };
    let Some(file) = safe_join(root, &rel) else {
        return text(403, "forbidden path");
    };
    let Ok(mut bytes) = fs::read(&file) else {
        return text(404, "not found");
    };
    let mut headers = vec![
        ("Content-Type", content_type(&file).to_string()),
        ("Cache-Control", "no-store".to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
    ];
    if isolated {
        headers.push(("Cross-Origin-Opener-Policy", "same-origin".to_string()));
        headers.push(("Cross-Origin-Embedder-Policy", "require-corp".to_string()));
        headers.push(("Cross-Origin-Resource-Policy", "same-origin".to_string()));
    }
    if root == web_root && rel == "index.html" {
        let query = url.split_once('?').map_or("", |(_, q)| q);
        let query = query.split('#').next().unwrap_or("");
        match page_with_policy(&bytes, &connect_sources(query)) {
            Ok((page, policy)) => {
                bytes = page;
                headers.push(("Content-Security-Policy", policy));
            }
            Err(e) => return text(500, &e),
        }
    }
    let mut r = tiny_http::Response::from_data(bytes).with_status_code(200);
    for (k, v) in headers {
        if let Ok(h) = tiny_http::Header::from_bytes(k, v.as_bytes()) {
            r.add_header(h);
        }
    }
    r
}

/// What the served page may connect to: its own origin, and the origin of
/// every `url=` file it was opened with (the files the user asked for).
/// Anything that is not an http(s) URL with a host adds nothing (relative
/// URLs are the page's own origin).
fn connect_sources(query: &str) -> Vec<String> {
    let mut sources = vec!["'self'".to_string()];
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        if k != "url" {
            continue;
        }
        let Ok(u) = url::Url::parse(&v) else { continue };
        if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
            continue;
        }
        // `Origin::ascii_serialization` is scheme://host[:port], punycoded:
        // nothing a URL carries can add a directive to the policy.
        let origin = u.origin().ascii_serialization();
        if !sources.contains(&origin) {
            sources.push(origin);
        }
    }
    sources
}

/// The built page with its policy's `connect-src 'none'` (what a report and
/// a page opened from disk keep) widened to `sources`, and that policy, also
/// sent as a header.
fn page_with_policy(page: &[u8], sources: &[String]) -> Result<(Vec<u8>, String), String> {
    const NONE: &str = "connect-src 'none'";
    let html = std::str::from_utf8(page).map_err(|_| "the built page is not UTF-8".to_string())?;
    let start = html
        .find("http-equiv=\"Content-Security-Policy\"")
        .and_then(|i| {
            html[i..]
                .find("content=\"")
                .map(|j| i + j + "content=\"".len())
        })
        .ok_or(
            "the built page has no Content-Security-Policy; rebuild it with scripts/build-web",
        )?;
    let end = start
        + html[start..]
            .find('"')
            .ok_or("the built page's Content-Security-Policy is not closed")?;
    let policy = &html[start..end];
    if policy.matches(NONE).count() != 1 {
        return Err(format!(
            "the built page's Content-Security-Policy does not say {NONE} once; rebuild it with scripts/build-web"
        ));
    }
    let policy = policy.replacen(NONE, &format!("connect-src {}", sources.join(" ")), 1);
    let page = format!("{}{policy}{}", &html[..start], &html[end..]);
    Ok((page.into_bytes(), policy))
}

/// Why a request with this `Host` header is refused, or `None` when it names
/// this server: `127.0.0.1`, `localhost` or `[::1]` with the bound port.
fn refused_host(host: Option<&str>, port: u16) -> Option<String> {
    let Some(host) = host.map(str::trim) else {
        return Some("refused: the request has no Host header\n".into());
    };
    let ours = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host.eq_ignore_ascii_case(&format!("{name}:{port}")));
    (!ours).then(|| {
        format!(
            "refused: Host {host:?} is not this server (127.0.0.1:{port} or localhost:{port}); \
             tickbook serve answers only requests addressed to the loopback address\n"
        )
    })
}

fn text(code: u16, body: &str) -> Response {
    tiny_http::Response::from_data(body.as_bytes().to_vec()).with_status_code(code)
}

/// `root/rel` if `rel` is a plain relative path (no `..`, no root, no
/// prefix); requests never leave the served folders.
fn safe_join(root: &Path, rel: &str) -> Option<PathBuf> {
    let rel = Path::new(rel);
    if rel.components().all(|c| matches!(c, Component::Normal(_))) {
        Some(root.join(rel))
    } else {
        None
    }
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        _ => "application/octet-stream",
    }
}

fn json_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The page's build: explicit flag, then $TICKBOOK_WEB_ROOT, then the
/// checkout the binary was built in (target/<profile>/tickbook → web/dist),
/// then ./web/dist.
pub(crate) fn find_web_root(flag: Option<&Path>) -> Result<PathBuf, String> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(f) = flag {
        candidates.push(f.to_path_buf());
    } else {
        if let Some(env) = std::env::var_os("TICKBOOK_WEB_ROOT") {
            candidates.push(PathBuf::from(env));
        }
        if let Ok(exe) = std::env::current_exe() {
            if let Some(checkout) = exe.parent().and_then(Path::parent).and_then(Path::parent) {
                candidates.push(checkout.join("web/dist"));
            }
        }
        candidates.push(PathBuf::from("web/dist"));
    }
    candidates
        .iter()
        .find(|c| c.join("index.html").is_file())
        .and_then(|c| c.canonicalize().ok())
        .ok_or_else(|| {
            format!(
                "the built page (index.html) is not in {}; build it with scripts/build-web or pass --web-root",
                candidates
                    .iter()
                    .map(|c| c.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

fn open_browser(url: &str) {
    let has_display = std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some()
        || cfg!(target_os = "macos");
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = has_display
        && std::process::Command::new(opener)
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok();
    if !started {
        eprintln!("tickbook: no browser to open here; open this address in one: {url}");
    }
}

fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_escape() {
        let root = Path::new("/srv");
        assert_eq!(
            safe_join(root, "a/b.js"),
            Some(PathBuf::from("/srv/a/b.js"))
        );
        assert_eq!(safe_join(root, "../etc/passwd"), None);
        assert_eq!(safe_join(root, "/etc/passwd"), None);
        assert_eq!(safe_join(root, "a/../../x"), None);
    }

    #[test]
    fn only_requests_addressed_to_this_server_are_answered() {
        for ok in [
            "127.0.0.1:8765",
            "localhost:8765",
            "LOCALHOST:8765",
            "[::1]:8765",
        ] {
            assert_eq!(refused_host(Some(ok), 8765), None, "{ok}");
        }
        for bad in [
            "evil.example:8765",
            "127.0.0.1",
            "localhost",
            "127.0.0.1:8766",
            "127.0.0.1.evil.example:8765",
            "localhost:8765.evil.example",
            "",
        ] {
            let why = refused_host(Some(bad), 8765).expect(bad);
            assert!(why.starts_with("refused: Host"), "{why}");
            assert!(!why.trim_end().contains('\n'), "one line: {why}");
        }
        assert!(refused_host(None, 8765).unwrap().contains("no Host header"));
    }

    #[test]
    fn the_page_connects_to_itself_and_the_files_asked_for() {
        let q = "url=%2Fresults%2Fa.json&url=https%3A%2F%2Ffiles.example%3A8443%2Fx.json\
                 &url=https%3A%2F%2Ffiles.example%3A8443%2Fy.json&url=javascript%3Aalert(1)\
                 &url=http%3A%2F%2Fa.example%2F%3B%20script-src%20*&other=http%3A%2F%2Fno.example%2F";
        assert_eq!(
            connect_sources(q),
            ["'self'", "https://files.example:8443", "http://a.example"]
        );
        let page = br#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; connect-src 'none'; base-uri 'none'"><p>"#;
        let (html, policy) = page_with_policy(page, &connect_sources(q)).unwrap();
        assert_eq!(
            policy,
            "default-src 'none'; connect-src 'self' https://files.example:8443 http://a.example; base-uri 'none'"
        );
        assert!(String::from_utf8(html)
            .unwrap()
            .contains(&format!("content=\"{policy}\"><p>")));
        assert!(page_with_policy(b"<p>no policy</p>", &[]).is_err());
    }

    #[test]
    fn percent_round_trip() {
        let s = "/results/host name-2026.json";
        assert_eq!(percent_decode(&percent_encode(s)), s);
        assert_eq!(percent_decode("%2e%2e/x"), "../x");
        assert_eq!(percent_decode("bad%zz%"), "bad%zz%");
    }
}
