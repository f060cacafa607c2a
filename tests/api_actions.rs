//! The operators' actions from the page, as people take them: headless
//! Chromium (driven through `chromedriver`) on `flightstate serve` with
//! `api.actions` on, over a real pipeline — a MariaDB mailbox, a
//! `flightstate pump` process, the PostgreSQL state database. The read
//! role sees no button; an operator signs in with HTTP Basic, requeues one
//! dead letter and all that match a filter, releases a held snapshot; a
//! forged cross-site `POST` is refused and changes nothing; the action list
//! shows each, and the command line's actions in the same list. Without
//! `api.actions` a `POST` is refused as before.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestDatabase;
use common::operator::{operator_command, stdout_of};
use common::sis::{at, count, flight, sep, snapshot};
use common::webdriver::Browser;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use pumping::MailboxDatabase;
use sha2::{Digest, Sha256};

const OPERATOR: &str = "ana";
const PASSWORD: &str = "correct horse battery";

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// `api.operators`' entry for the test's operator.
fn operator_entry() -> String {
    let digest: String = Sha256::digest(PASSWORD.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("[\"{OPERATOR}:{digest}\"]")
}

/// `flightstate SUBCOMMAND` on the test's databases with actions `on`.
fn flightstate(db: &TestDatabase, mb: &MailboxDatabase, subcommand: &str, on: bool) -> Command {
    let mut command = operator_command(subcommand, db.url(), &mb.url());
    command
        .env("FLIGHTSTATE_PUMP_HOLDER", "actions-test-pump")
        .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
        .env("FLIGHTSTATE_API_ACTIONS", if on { "true" } else { "false" })
        .env("FLIGHTSTATE_API_OPERATORS", operator_entry())
        .env_remove("FLIGHTSTATE_KAFKA_BROKERS")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// `flightstate serve` on a port of its own, once it listens.
fn serve(db: &TestDatabase, mb: &MailboxDatabase, on: bool) -> (Killed, SocketAddr) {
    let addr = free_port();
    let child = Killed(
        flightstate(db, mb, "serve", on)
            .args(["--bind", &addr.to_string()])
            .spawn()
            .expect("start flightstate serve"),
    );
    wait_for("flightstate serve to listen", || {
        TcpStream::connect(addr).is_ok()
    });
    (child, addr)
}

#[track_caller]
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !done() {
        assert!(Instant::now() < deadline, "waited too long for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One request's status line, headers and body, sent as `curl` would.
fn request(addr: SocketAddr, method: &str, path: &str, headers: &[&str], body: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect to the API");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    write!(stream, "{head}\r\n{body}").expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read the reply");
    reply
}

fn basic() -> String {
    use base64::Engine as _;
    let encoded =
        base64::engine::general_purpose::STANDARD.encode(format!("{OPERATOR}:{PASSWORD}"));
    format!("Authorization: Basic {encoded}")
}

#[derive(QueryableByName, Debug)]
struct Record {
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<Text>)]
    error_text: Option<String>,
    #[diesel(sql_type = Integer)]
    requeue_count: i32,
    #[diesel(sql_type = Nullable<Text>)]
    requeued_by: Option<String>,
}

fn record(conn: &mut PgConnection, id: i64) -> Option<Record> {
    diesel::sql_query(
        "SELECT status, error_text, requeue_count, requeued_by FROM proc_state \
         WHERE message_id = $1",
    )
    .bind::<BigInt, _>(id)
    .get_result(conn)
    .ok()
}

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct Action {
    #[diesel(sql_type = Text)]
    taken_by: String,
    #[diesel(sql_type = Text)]
    via: String,
    #[diesel(sql_type = Text)]
    action: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    message_id: Option<i64>,
    #[diesel(sql_type = Text)]
    result: String,
}

fn actions(conn: &mut PgConnection) -> Vec<Action> {
    diesel::sql_query(
        "SELECT taken_by, via, action, message_id, result FROM operator_action \
         ORDER BY action_id",
    )
    .load(conn)
    .expect("the action record")
}

fn status_of(conn: &mut PgConnection, id: i64) -> String {
    record(conn, id).map_or_else(String::new, |r| r.status)
}

/// A day of 200 flights, three dead letters (two of one reason, one of
/// another) and a snapshot of 20 flights held by the mass-delete guard,
/// all pumped by a `flightstate pump` that keeps running.
struct Site {
    db: TestDatabase,
    mb: MailboxDatabase,
    _pump: Killed,
    dead_alike: [i64; 2],
    dead_other: i64,
    held: i64,
}

fn a_site_with_dead_letters_and_a_held_snapshot(tag: &str) -> Site {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    mb.insert(&snapshot(
        sep(9),
        (1..=200).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    let first = mb.insert(b"<MSG><META>not well formed");
    let second = mb.insert(b"<MSG><META>not well formed");
    let other = mb.insert(b"<MSG/>");
    let held = mb.insert(&snapshot(
        sep(9),
        (1..=20).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    let log = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{tag}-pump.log"));
    let pump = Killed(
        flightstate(&db, &mb, "pump", true)
            .env("RUST_LOG", "info")
            .stderr(std::fs::File::create(&log).expect("the pump's log"))
            .spawn()
            .expect("start flightstate pump"),
    );
    let mut conn = db.connect();
    wait_for(
        "the dead letters written back and the snapshot held",
        || {
            status_of(&mut conn, held) == "HELD"
                && [first, second, other].iter().all(|id| {
                    status_of(&mut conn, *id) == "DEAD"
                        && mb
                            .rows()
                            .iter()
                            .any(|(row, _, processed)| row == id && *processed)
                })
        },
    );
    Site {
        db,
        mb,
        _pump: pump,
        dead_alike: [first, second],
        dead_other: other,
        held,
    }
}

/// A word of `text` that `other` does not contain: a filter that tells the
/// two reasons apart.
fn word_only_in(text: &str, other: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 3)
        .find(|w| !other.contains(w))
        .unwrap_or_else(|| panic!("no word of {text:?} is missing from {other:?}"))
        .to_owned()
}

/// A page of another site (`localhost`, not `127.0.0.1`) that posts a
/// requeue of `id` to `target` as soon as it loads, with `token` (as if it
/// had leaked): only the browser's own origin headers can stop it.
fn forged_page(
    target: SocketAddr,
    id: i64,
    token: &str,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the other site");
    let addr = listener.local_addr().expect("its address");
    let page = format!(
        "<!DOCTYPE html><html><body><form id=\"f\" method=\"post\" \
         action=\"http://{target}/operator/requeue\"><input name=\"token\" value=\"{token}\">\
         <input name=\"id\" value=\"{id}\"></form>\
         <script>document.getElementById('f').submit()</script></body></html>"
    );
    let server = std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buffer = [0_u8; 4096];
            let _ = stream.read(&mut buffer);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    (addr, server)
}

#[test]
fn an_operator_requeues_and_releases_from_the_page_and_every_action_is_listed() {
    let site = a_site_with_dead_letters_and_a_held_snapshot("api_actions");
    let mut conn = site.db.connect();
    let (_serve, addr) = serve(&site.db, &site.mb, true);
    let browser = Browser::start(&[]);

    // The read role: the page, and no action on it.
    browser.go(&format!("http://{addr}/"));
    let page = browser.source();
    assert!(page.contains("id=\"dead\""), "{page}");
    assert!(
        !page.contains("method=\"post\"") && browser.find("button[id^=requeue]").is_none(),
        "the read role sees an action:\n{page}"
    );
    let refused = request(addr, "POST", "/operator/requeue", &[], "id=1");
    assert!(
        refused.starts_with("HTTP/1.1 401")
            && refused.contains("WWW-Authenticate: Basic realm=\"flightstate operator\""),
        "{refused}"
    );

    // The operator signs in and requeues one dead letter.
    browser.go(&format!(
        "http://{OPERATOR}:{}@{addr}/operator/",
        PASSWORD.replace(' ', "%20")
    ));
    assert!(
        browser.text("#operator").contains(OPERATOR),
        "{}",
        browser.source()
    );
    let other = site.dead_other;
    browser.click(&format!("#requeue-{other}"));
    let result = browser.text("#action-result");
    assert!(result.contains(&format!("{other}: requeued")), "{result}");
    let requeued = record(&mut conn, other).expect("its record");
    assert_eq!(
        (requeued.requeue_count, requeued.requeued_by.as_deref()),
        (1, Some(OPERATOR))
    );

    // All that match a filter: the two alike, not the other.
    let [first, second] = site.dead_alike;
    let reason = record(&mut conn, first)
        .and_then(|r| r.error_text)
        .expect("a reason");
    let other_reason = record(&mut conn, other)
        .and_then(|r| r.error_text)
        .unwrap_or_default();
    let word = word_only_in(&reason, &other_reason);
    browser.go(&format!("http://{addr}/operator/dead"));
    browser.type_into("input[name=kind]", "BAD_INPUT");
    browser.type_into("input[name=error]", &word);
    browser.click("#filter-button");
    wait_for("the filtered page", || browser.url().contains("error="));
    assert!(
        browser.text("#dead-matching").starts_with("2 match"),
        "{}",
        browser.source()
    );
    browser.click("#requeue-matching");
    let question = browser.text("#question");
    assert!(
        question.contains("Requeue 2 dead letter(s)")
            && question.contains(&format!("{first}, {second}")),
        "{question}"
    );
    browser.click("#confirm");
    let result = browser.text("#action-result");
    for id in [first, second] {
        assert!(result.contains(&format!("{id}: requeued")), "{result}");
        assert_eq!(record(&mut conn, id).expect("record").requeue_count, 1);
    }

    // The held snapshot: released after a confirmation, then applied.
    browser.go(&format!("http://{addr}/operator/"));
    browser.click(&format!("#release-{}", site.held));
    assert!(
        browser
            .text("#question")
            .contains(&format!("Release held snapshot {}", site.held)),
        "{}",
        browser.source()
    );
    browser.click("#confirm");
    assert!(
        browser.text("#action-result").contains("RELEASED"),
        "{}",
        browser.source()
    );
    let deadline = Instant::now() + Duration::from_secs(90);
    while status_of(&mut conn, site.held) != "SUCCEEDED" {
        assert!(
            Instant::now() < deadline,
            "the released snapshot was not applied: {:?}\n{}",
            [first, second, other, site.held].map(|id| record(&mut conn, id)),
            std::fs::read_to_string(std::env::temp_dir().join("none")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        count(
            &mut conn,
            "flight_schd",
            "operation_day = DATE '2026-09-09'"
        ),
        20
    );

    // A page of another site posts a requeue with the operator's own
    // token: the browser says where it comes from, and nothing changes.
    browser.go(&format!("http://{addr}/operator/dead"));
    let token = browser
        .source()
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a form token on the operator's page")
        .to_owned();
    wait_for("the requeued letter dead again", || {
        status_of(&mut conn, other) == "DEAD"
    });
    let before = actions(&mut conn).len();
    let (evil, server) = forged_page(addr, other, &token);
    browser.go(&format!("http://localhost:{}/", evil.port()));
    let _ = server.join();
    wait_for("the forged request answered", || {
        browser.url().contains("/operator/requeue")
    });
    let answer = browser.source();
    assert!(answer.contains("comes from another site"), "{answer}");
    assert_eq!(record(&mut conn, other).expect("record").requeue_count, 1);
    assert_eq!(
        actions(&mut conn).len(),
        before,
        "a forged request left a record"
    );

    // The command line's action lands in the same list.
    let cli = stdout_of(
        &operator_command("dead", site.db.url(), &site.mb.url())
            .args(["requeue", &other.to_string()])
            .output()
            .expect("flightstate dead requeue"),
        0,
    );
    assert!(cli.contains("requeued"), "{cli}");

    let listed = actions(&mut conn);
    let summary: Vec<(&str, &str, &str, Option<i64>)> = listed
        .iter()
        .map(|a| {
            (
                a.taken_by.as_str(),
                a.via.as_str(),
                a.action.as_str(),
                a.message_id,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (OPERATOR, "PAGE", "REQUEUE", Some(other)),
            (OPERATOR, "PAGE", "REQUEUE", Some(first)),
            (OPERATOR, "PAGE", "REQUEUE", Some(second)),
            (OPERATOR, "PAGE", "RELEASE", Some(site.held)),
            ("night-shift", "CLI", "REQUEUE", Some(other)),
        ]
    );
    // The page lists them, for the read role too.
    browser.go(&format!("http://{addr}/"));
    let table = browser.text("#actions");
    assert_eq!(table.matches(OPERATOR).count(), 4, "{table}");
    assert!(table.contains("night-shift"), "{table}");
}

#[test]
fn without_actions_a_post_is_refused_and_with_them_a_bad_token_changes_nothing() {
    let site = a_site_with_dead_letters_and_a_held_snapshot("api_actions_off");
    let mut conn = site.db.connect();
    let id = site.dead_other;
    let form = format!("id={id}&token=0000");
    {
        let (_off, addr) = serve(&site.db, &site.mb, false);
        let answer = request(addr, "POST", "/operator/requeue", &[&basic()], &form);
        assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");
        let answer = request(addr, "GET", "/operator/", &[&basic()], "");
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    }
    let (_on, addr) = serve(&site.db, &site.mb, true);
    let wrong = "Authorization: Basic YW5hOndyb25n"; // ana:wrong
    let answer = request(addr, "POST", "/operator/requeue", &[wrong], &form);
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    let answer = request(addr, "POST", "/operator/requeue", &[&basic()], &form);
    assert!(
        answer.starts_with("HTTP/1.1 403") && answer.contains("token"),
        "{answer}"
    );
    let answer = request(
        addr,
        "POST",
        "/operator/requeue",
        &[
            &basic(),
            "Origin: http://evil.example",
            "Sec-Fetch-Site: cross-site",
        ],
        &form,
    );
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert_eq!(record(&mut conn, id).expect("record").requeue_count, 0);
    assert!(actions(&mut conn).is_empty());
    // The dead letters filtered by kind, words of the reason and day.
    let reason = record(&mut conn, site.dead_alike[0])
        .and_then(|r| r.error_text)
        .expect("a reason");
    let other_reason = record(&mut conn, id)
        .and_then(|r| r.error_text)
        .unwrap_or_default();
    let word = word_only_in(&reason, &other_reason);
    let today = chrono::Utc::now().date_naive();
    for (query, matching) in [
        ("kind=BAD_INPUT".to_owned(), 3),
        (format!("kind=BAD_INPUT&error={word}"), 2),
        (format!("day={today}"), 3),
        ("day=2000-01-01".to_owned(), 0),
        ("kind=DATA_REJECTED".to_owned(), 0),
    ] {
        let page = request(addr, "GET", &format!("/dead?{query}"), &[], "");
        assert!(
            page.contains(&format!("<p id=\"dead-matching\">{matching} match")),
            "{query}: {page}"
        );
        assert!(!page.contains("method=\"post\""), "{page}");
    }
    // The read page answers as before, and names no operator.
    let page = request(addr, "GET", "/", &[], "");
    assert!(page.starts_with("HTTP/1.1 200") && !page.contains("method=\"post\""));
}

#[test]
fn actions_on_a_network_address_need_tls() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("api_actions_tls");
    let out = flightstate(&db, &mb, "serve", true)
        .env("FLIGHTSTATE_API_BIND", "0.0.0.0:0")
        .stderr(Stdio::piped())
        .output()
        .expect("run flightstate serve");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("api.tls_cert_file"),
        "{stderr}"
    );

    let ca = common::tls::TestCa::new("api-actions");
    let issued = ca.server_cert("api");
    let addr = free_port();
    let _serve = Killed(
        flightstate(&db, &mb, "serve", true)
            .env("FLIGHTSTATE_API_BIND", format!("0.0.0.0:{}", addr.port()))
            .env("FLIGHTSTATE_API_TLS_CERT_FILE", &issued.cert)
            .env("FLIGHTSTATE_API_TLS_KEY_FILE", &issued.key)
            .spawn()
            .expect("start flightstate serve over TLS"),
    );
    wait_for("flightstate serve over TLS", || {
        TcpStream::connect(addr).is_ok()
    });
    let browser = Browser::start(&["--ignore-certificate-errors"]);
    browser.go(&format!(
        "https://{OPERATOR}:{}@127.0.0.1:{}/operator/",
        PASSWORD.replace(' ', "%20"),
        addr.port()
    ));
    assert!(
        browser.text("#operator").contains(OPERATOR),
        "{}",
        browser.source()
    );
}
