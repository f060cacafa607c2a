//! Headless Chromium driven as a person drives it: `chromedriver` (from
//! Debian's `chromium-driver`, which `scripts/services` installs) speaks
//! the W3C WebDriver protocol over HTTP, and this client sends it the few
//! commands a test needs — go to a page, find an element, type, click, read
//! the page's source — as JSON over plain HTTP/1.1.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key WebDriver names an element by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A browser session; the browser and its driver end when it is dropped.
pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: PathBuf,
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// `method path` with `body` to the driver at `addr`; the reply's `value`.
fn call(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("chromedriver: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    // The driver keeps the connection open whatever the request says: the
    // body is as long as its `Content-Length`.
    let mut reply = Vec::new();
    let mut chunk = [0_u8; 64 * 1024];
    let body_start = loop {
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err(format!(
                "chromedriver closed: {}",
                String::from_utf8_lossy(&reply)
            ));
        }
        reply.extend_from_slice(&chunk[..n]);
        if let Some(end) = reply.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&reply[..body_start]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .ok_or_else(|| format!("no Content-Length: {head}"))?;
    while reply.len() < body_start + length {
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        reply.extend_from_slice(&chunk[..n]);
    }
    let json_text = String::from_utf8_lossy(&reply[body_start..]);
    let parsed: Value =
        serde_json::from_str(&json_text).map_err(|e| format!("not JSON ({e}): {json_text}"))?;
    let value = parsed.get("value").cloned().unwrap_or(Value::Null);
    if let Some(error) = value.get("error") {
        return Err(format!("{method} {path}: {error}: {}", value["message"]));
    }
    Ok(value)
}

impl Browser {
    /// Starts `chromedriver` and a headless Chromium session; `args` are
    /// the browser's extra switches.
    ///
    /// # Panics
    ///
    /// When `chromedriver` or Chromium does not start: run
    /// `scripts/services`.
    #[track_caller]
    pub fn start(args: &[&str]) -> Browser {
        let addr = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={}", addr.port()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver is missing: run scripts/services (chromium-driver)");
        let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "webdriver-{}-{}",
            std::process::id(),
            addr.port()
        ));
        let _ = std::fs::remove_dir_all(&profile);
        let mut browser = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: profile.clone(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < deadline, "chromedriver does not listen");
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut switches = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--no-first-run".to_owned(),
            "--window-size=1024,1400".to_owned(),
            format!("--user-data-dir={}", profile.display()),
        ];
        switches.extend(args.iter().map(|a| (*a).to_owned()));
        let capabilities = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": { "binary": "/usr/bin/chromium", "args": switches }
            }}
        });
        let session = call(addr, "POST", "/session", Some(&capabilities))
            .unwrap_or_else(|e| panic!("no browser session: {e}"));
        browser.session = session["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        browser
    }

    fn command(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        call(
            self.addr,
            method,
            &format!("/session/{}{path}", self.session),
            body,
        )
    }

    /// Goes to `url` and waits for the page to load.
    #[track_caller]
    pub fn go(&self, url: &str) {
        self.command("POST", "/url", Some(&json!({ "url": url })))
            .unwrap_or_else(|e| panic!("cannot open {url}: {e}"));
    }

    /// The page's source as the browser holds it now.
    #[track_caller]
    pub fn source(&self) -> String {
        self.command("GET", "/source", None)
            .expect("the page source")
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The page's address now.
    #[track_caller]
    pub fn url(&self) -> String {
        self.command("GET", "/url", None)
            .expect("the address")
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The element `css` selects, if the page has one.
    pub fn find(&self, css: &str) -> Option<String> {
        let found = self
            .command(
                "POST",
                "/element",
                Some(&json!({ "using": "css selector", "value": css })),
            )
            .ok()?;
        found[ELEMENT].as_str().map(str::to_owned)
    }

    /// The element `css` selects, waiting for it while a page that a
    /// click or a form's submission asked for loads.
    fn wait_for(&self, css: &str) -> Option<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let found = self.find(css);
            if found.is_some() || Instant::now() >= deadline {
                return found;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element `css` selects and waits for what it loads.
    #[track_caller]
    pub fn click(&self, css: &str) {
        let element = self
            .wait_for(css)
            .unwrap_or_else(|| panic!("no {css} on the page:\n{}", self.source()));
        self.command(
            "POST",
            &format!("/element/{element}/click"),
            Some(&json!({})),
        )
        .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
    }

    /// Types `text` into the field `css` selects.
    #[track_caller]
    pub fn type_into(&self, css: &str, text: &str) {
        let element = self
            .wait_for(css)
            .unwrap_or_else(|| panic!("no {css} on the page:\n{}", self.source()));
        self.command(
            "POST",
            &format!("/element/{element}/clear"),
            Some(&json!({})),
        )
        .unwrap_or_else(|e| panic!("cannot clear {css}: {e}"));
        self.command(
            "POST",
            &format!("/element/{element}/value"),
            Some(&json!({ "text": text })),
        )
        .unwrap_or_else(|e| panic!("cannot type into {css}: {e}"));
    }

    /// The text of the element `css` selects, as shown.
    #[track_caller]
    pub fn text(&self, css: &str) -> String {
        let element = self
            .wait_for(css)
            .unwrap_or_else(|| panic!("no {css} on the page:\n{}", self.source()));
        self.command("GET", &format!("/element/{element}/text"), None)
            .expect("the element's text")
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.command("DELETE", "", None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
