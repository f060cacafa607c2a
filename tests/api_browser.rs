//! The status page in a real browser: headless Chromium loads the page that
//! `flightstate serve` renders over a real pipeline — a MariaDB mailbox, a
//! `flightstate pump` process, the PostgreSQL state database — and the DOM
//! it built must show the backlog, a DEAD message's reason and the lease
//! holder. A phone-sized screenshot is kept in the target directory.
//!
//! Chromium comes from `scripts/services` (Debian's `chromium`), which
//! `scripts/test` runs first, as it does for the servers. Without it the
//! tests fail, naming what to run: a browser test that did not run is never
//! counted as passed.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::protocol::to_xml;
use flightstate::synth::{DayOptions, airport_day};

use common::TestDatabase;
use pumping::MailboxDatabase;

const HOLDER: &str = "browser-test-pump";

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn flightstate(db: &TestDatabase, mailbox: &MailboxDatabase) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_flightstate"));
    command
        .args(["--config", "/nonexistent/flightstate.toml"])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mailbox.url())
        .env("FLIGHTSTATE_PUMP_HOLDER", HOLDER)
        // Long enough that the lease is still held when the page is read
        // after the pump was killed.
        .env("FLIGHTSTATE_PUMP_LEASE_SECS", "600")
        .env_remove("FLIGHTSTATE_KAFKA_BROKERS")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Reason {
    #[diesel(sql_type = Nullable<Text>)]
    error_text: Option<String>,
}

fn recorded(conn: &mut PgConnection) -> i64 {
    diesel::sql_query("SELECT count(*) AS n FROM proc_state")
        .get_result::<Count>(conn)
        .map_or(0, |c| c.n)
}

/// Text as a browser serialises it in a text node: `&`, `<`, `>` escaped.
fn as_dom_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// Runs `command` for at most `limit`; its output, or a panic naming it.
#[track_caller]
fn run_bounded(mut command: Command, limit: Duration, what: &str) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return child.wait_with_output().expect("output"),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("output");
                panic!(
                    "{what} did not finish within {limit:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
}

/// The browser.
///
/// # Panics
///
/// When `chromium` does not run.
#[track_caller]
fn chromium() -> &'static str {
    let found = Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "chromium is missing: run scripts/services (it installs chromium and chromium-driver)"
    );
    "chromium"
}

fn headless(browser: &str, profile: &std::path::Path) -> Command {
    let mut command = Command::new(browser);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=412,915",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

#[test]
fn chromium_shows_backlog_dead_reason_and_lease_holder() {
    let browser = chromium();
    let db = TestDatabase::migrated();
    let mailbox = MailboxDatabase::create("api_browser");
    let day = airport_day(&DayOptions {
        flights: 20,
        ..DayOptions::default()
    });
    let mut bodies: Vec<String> = std::iter::once(&day.snapshot)
        .chain(day.events.iter().take(30))
        .map(to_xml)
        .collect();
    bodies.insert(1, "<MSG><META>not well formed".to_owned());
    for body in &bodies {
        mailbox.insert(body.as_bytes());
    }

    // The pump drains the mailbox, then dies without releasing its lease.
    // Drained means applied and written back: a pump killed between the two
    // leaves rows pending, which the page would rightly count.
    let pump = Killed(
        flightstate(&db, &mailbox)
            .arg("pump")
            .spawn()
            .expect("start flightstate pump"),
    );
    let mut conn = db.connect();
    let deadline = Instant::now() + Duration::from_secs(120);
    let expected = i64::try_from(bodies.len()).expect("small");
    while recorded(&mut conn) < expected
        || !mailbox.rows().iter().all(|(_, _, processed)| *processed)
    {
        assert!(
            Instant::now() < deadline,
            "the pump did not drain the mailbox"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(pump);
    // Three messages arrive while no pump runs: the backlog.
    for body in bodies.iter().skip(2).take(3) {
        mailbox.insert(body.as_bytes());
    }
    let reason = diesel::sql_query(
        "SELECT error_text FROM proc_state WHERE status = 'DEAD' ORDER BY message_id LIMIT 1",
    )
    .get_result::<Reason>(&mut conn)
    .expect("the dead message")
    .error_text
    .expect("a reason");

    let addr = free_port();
    let _serve = Killed(
        flightstate(&db, &mailbox)
            .args(["serve", "--bind", &addr.to_string()])
            .spawn()
            .expect("start flightstate serve"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "flightstate serve does not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    let profile = tempdir("profile");
    let url = format!("http://{addr}/");
    let mut dump = headless(browser, &profile);
    dump.args(["--dump-dom", &url]);
    let out = run_bounded(dump, Duration::from_secs(90), "chromium --dump-dom");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("<dd id=\"backlog\">3</dd>"),
        "backlog missing from the DOM:\n{dom}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        dom.contains(&format!("<dd id=\"lease-holder\">{HOLDER}</dd>")),
        "{dom}"
    );
    assert!(
        dom.contains("<dd id=\"lease-state\" class=\"ok\">held</dd>"),
        "{dom}"
    );
    assert!(
        dom.contains(&format!(
            "<td class=\"reason\">{}</td>",
            as_dom_text(&reason)
        )),
        "the dead message's reason {reason:?} is missing:\n{dom}"
    );
    assert!(
        dom.contains("<dd id=\"dead-count\" class=\"bad\">1</dd>"),
        "{dom}"
    );

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("status-page.png");
    let _ = std::fs::remove_file(&shot);
    let shot_profile = tempdir("shot-profile");
    let mut screenshot = headless(browser, &shot_profile);
    screenshot
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url);
    run_bounded(screenshot, Duration::from_secs(90), "chromium --screenshot");
    let png = std::fs::read(&shot).expect("the screenshot was written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 1_000,
        "not a PNG"
    );
    eprintln!("screenshot: {}", shot.display());
}

/// A fresh directory under the target's temporary directory.
fn tempdir(what: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "api-browser-{what}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

#[derive(QueryableByName)]
struct FlightFacts {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Text)]
    flno: String,
    #[diesel(sql_type = Text)]
    operation_day: String,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
}

#[derive(QueryableByName)]
struct GateName {
    #[diesel(sql_type = Text)]
    gate: String,
}

#[derive(QueryableByName)]
struct MinuteCount {
    #[diesel(sql_type = Text)]
    minute: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The DOM headless Chromium builds from `url`.
fn dom_of(browser: &str, url: &str) -> String {
    let profile = tempdir("pages");
    let mut dump = headless(browser, &profile);
    dump.args(["--dump-dom", url]);
    let out = run_bounded(dump, Duration::from_secs(90), "chromium --dump-dom");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A screenshot of `url` kept as `name` under the target's temporary
/// directory.
fn screenshot(browser: &str, url: &str, name: &str) {
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_file(&shot);
    let profile = tempdir("pages-shot");
    let mut command = headless(browser, &profile);
    command
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url);
    run_bounded(command, Duration::from_secs(90), "chromium --screenshot");
    let png = std::fs::read(&shot).expect("the screenshot was written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 1_000,
        "not a PNG"
    );
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn chromium_finds_a_flight_by_number_opens_it_and_sees_the_pumped_minutes() {
    let browser = chromium();
    let db = TestDatabase::migrated();
    let mailbox = MailboxDatabase::create("api_browser_pages");
    let day = airport_day(&DayOptions {
        flights: 20,
        ..DayOptions::default()
    });
    let bodies: Vec<String> = std::iter::once(&day.snapshot)
        .chain(day.events.iter())
        .map(to_xml)
        .collect();
    for body in &bodies {
        mailbox.insert(body.as_bytes());
    }
    let pump = Killed(
        flightstate(&db, &mailbox)
            .arg("pump")
            .spawn()
            .expect("start flightstate pump"),
    );
    let mut conn = db.connect();
    let deadline = Instant::now() + Duration::from_secs(180);
    let expected = i64::try_from(bodies.len()).expect("small");
    while recorded(&mut conn) < expected {
        assert!(
            Instant::now() < deadline,
            "the pump did not drain the mailbox"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(pump);

    let flight = diesel::sql_query(
        "SELECT f.flid, f.flno, to_char(f.operation_day, 'YYYY-MM-DD') AS operation_day, \
         f.state_version FROM flight_schd f WHERE f.flno IS NOT NULL \
         AND f.operation_day IS NOT NULL AND EXISTS \
         (SELECT 1 FROM flight_gate g WHERE g.flid = f.flid) \
         ORDER BY f.state_version DESC, f.flid LIMIT 1",
    )
    .get_result::<FlightFacts>(&mut conn)
    .expect("a pumped flight with gates");
    let gates: Vec<String> = diesel::sql_query(
        "SELECT gate FROM flight_gate WHERE flid = $1 AND gate IS NOT NULL ORDER BY ordinal",
    )
    .bind::<BigInt, _>(flight.flid)
    .load::<GateName>(&mut conn)
    .expect("gates")
    .into_iter()
    .map(|g| g.gate)
    .collect();
    let minutes = diesel::sql_query(
        "SELECT to_char(date_trunc('minute', updated_at), 'YYYY-MM-DD\"T\"HH24:MI') AS minute, \
         count(*) AS n FROM proc_state WHERE status = 'SUCCEEDED' GROUP BY 1 ORDER BY 1",
    )
    .load::<MinuteCount>(&mut conn)
    .expect("the pumped minutes");
    assert!(!minutes.is_empty());

    let addr = free_port();
    let _serve = Killed(
        flightstate(&db, &mailbox)
            .args(["serve", "--bind", &addr.to_string()])
            .spawn()
            .expect("start flightstate serve"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "flightstate serve does not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Searched as a person types it: lower case, with a space.
    let typed = format!("{}+{}", flight.flno[..2].to_lowercase(), &flight.flno[2..]);
    let search = format!(
        "http://{addr}/search?q={typed}&day={}",
        flight.operation_day
    );
    let dom = dom_of(browser, &search);
    let link = format!("<a href=\"/flight/{0}\">{0}</a>", flight.flid);
    assert!(dom.contains(&link), "{dom}");
    screenshot(browser, &search, "search-page.png");

    let page = format!("http://{addr}/flight/{}", flight.flid);
    let dom = dom_of(browser, &page);
    assert!(
        dom.contains(&format!(
            "<dd id=\"state-version\">{}</dd>",
            flight.state_version
        )),
        "{dom}"
    );
    let gate_table = &dom[dom.find("<table id=\"gates\">").expect("gates")..];
    let gate_table = &gate_table[..gate_table.find("</table>").expect("end")];
    for gate in &gates {
        assert!(
            gate_table.contains(&format!("<td>{}</td>", as_dom_text(gate))),
            "{gate}: {gate_table}"
        );
    }
    screenshot(browser, &page, "flight-page.png");

    let status = format!("http://{addr}/?refresh=off");
    let dom = dom_of(browser, &status);
    let chart = &dom[dom.find("<svg id=\"chart-applied\"").expect("the chart")..];
    let chart = &chart[..chart.find("</svg>").expect("end")];
    for m in &minutes {
        let total: i64 = chart
            .split("<rect ")
            .filter(|r| r.contains(&format!("data-minute=\"{}\"", m.minute)))
            .map(|r| {
                let v = &r[r.find("data-value=\"").expect("value") + 12..];
                v[..v.find('"').expect("quote")]
                    .parse::<i64>()
                    .expect("count")
            })
            .sum();
        assert_eq!(total, m.n, "minute {}: {chart}", m.minute);
    }
    screenshot(browser, &status, "status-charts.png");
}
