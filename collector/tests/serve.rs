//! `tickbook serve` as a browser (or an attacker's page) reaches it: the real
//! binary on a free loopback port, raw HTTP/1.1 requests over TCP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start() -> Server {
    // One folder per server: tests run in parallel within this process.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tickbook-serve-test-{}-{n}", std::process::id()));
    let (web, results) = (dir.join("web"), dir.join("results"));
    std::fs::create_dir_all(&web).unwrap();
    std::fs::create_dir_all(&results).unwrap();
    // The built page carries the policy serve widens to its own origin.
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><meta http-equiv=\"Content-Security-Policy\" \
         content=\"default-src 'self'; connect-src 'none'\"><title>page</title>",
    )
    .unwrap();
    std::fs::write(results.join("run.json"), r#"{"secret":"host facts"}"#).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .arg("serve")
        .arg(&results)
        .args(["--port", "0", "--no-open", "--web-root"])
        .arg(&web)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tickbook serve");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port = first
        .trim()
        .strip_prefix("serving http://127.0.0.1:")
        .and_then(|s| s.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line: {first:?}"));
    Server { child, port, dir }
}

/// Status code and body of `GET path` sent with these header lines.
fn get(port: u16, path: &str, headers: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let code = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (code, body)
}

#[test]
fn answers_only_requests_addressed_to_the_loopback_server() {
    let srv = start();
    let p = srv.port;
    for host in [format!("127.0.0.1:{p}"), format!("localhost:{p}")] {
        let (code, body) = get(p, "/results/run.json", &format!("Host: {host}\r\n"));
        assert_eq!(code, 200, "Host {host}");
        assert!(body.contains("host facts"));
    }
    // A DNS-rebinding page reaches 127.0.0.1 under its own name.
    let (code, body) = get(
        p,
        "/results/run.json",
        &format!("Host: evil.example:{p}\r\n"),
    );
    assert_eq!(code, 403, "{body}");
    assert!(!body.contains("host facts"));
    assert!(body.starts_with("refused: Host \"evil.example:"), "{body}");
    assert_eq!(body.trim_end().lines().count(), 1, "one line: {body}");
    let (code, _) = get(p, "/", "Host: evil.example\r\n");
    assert_eq!(code, 403);
    // The page too, and a request with no Host at all.
    let (code, _) = get(p, "/", "");
    assert_eq!(code, 403);
}

#[test]
fn serves_nothing_outside_its_folders_and_lists_no_folder() {
    let srv = start();
    let p = srv.port;
    let host = format!("Host: 127.0.0.1:{p}\r\n");
    let (code, page) = get(p, "/", &host);
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("connect-src 'self'"), "{page}");
    for path in [
        "/results/../web/index.html",
        "/results/%2e%2e/web/index.html",
        "/../results/run.json",
    ] {
        let (code, body) = get(p, path, &host);
        assert!(code == 403 || code == 404, "{path}: {code}");
        assert!(!body.contains("host facts"), "{path}");
    }
    // A folder is never listed: /results/ is looked up as results/index.html.
    let (code, body) = get(p, "/results/", &host);
    assert_eq!(code, 404);
    assert!(!body.contains("run.json"));
}
