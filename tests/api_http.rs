//! The read API over real HTTP (a server of the test's own on a port the
//! system picks) against real PostgreSQL, MariaDB and the tansu broker:
//! documents, the errors a client can provoke, the bearer token, health,
//! metrics and the status page's escaping.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use diesel::r2d2::{ConnectionManager, Pool};
use diesel::sql_types::BigInt;
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::mailbox::Mailbox;
use flightstate::store::pg::PgStore;

use common::sis::state_documents;

use reading::{DAY, TestApi, applied_day, get, parse_prometheus, request, settings, value};

fn by_flid(array: &serde_json::Value) -> BTreeMap<i64, serde_json::Value> {
    array
        .as_array()
        .expect("a JSON array")
        .iter()
        .map(|d| (d["FLID"].as_i64().expect("FLID"), d.clone()))
        .collect()
}

#[test]
fn the_api_serves_the_documents_the_pipeline_stored() {
    let (db, store) = applied_day(30);
    let api = TestApi::start(store, None, settings(None, None));
    let stored = state_documents(&mut db.connect());

    let all = get(api.addr, "/all/flights");
    assert_eq!(all.status, 200, "{}", all.text());
    assert_eq!(all.header("Transfer-Encoding"), Some("chunked"));
    assert_eq!(all.header("Content-Type"), Some("application/json"));
    let array = all.json();
    let flids: Vec<i64> = array
        .as_array()
        .expect("array")
        .iter()
        .map(|d| d["FLID"].as_i64().expect("FLID"))
        .collect();
    assert!(flids.windows(2).all(|w| w[0] < w[1]), "FLID order");
    assert_eq!(by_flid(&array), stored);

    let day = get(api.addr, &format!("/all/flights?operation_day={DAY}"));
    assert_eq!(day.status, 200);
    let expected: BTreeMap<i64, serde_json::Value> = stored
        .iter()
        .filter(|(_, d)| d["OPERATION_DAY"] == DAY)
        .map(|(k, v)| (*k, v.clone()))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(by_flid(&day.json()), expected);
    let empty = get(api.addr, "/all/flights?operation_day=2030-01-01");
    assert_eq!((empty.status, empty.text()), (200, "[]".to_owned()));

    let (flid, document) = stored.iter().next().expect("a flight");
    let one = get(api.addr, &format!("/flights/{flid}"));
    assert_eq!(one.status, 200);
    assert_eq!(&one.json(), document);
}

#[test]
fn bad_requests_get_400_absent_flights_404_and_writes_405() {
    let (_db, store) = applied_day(3);
    let api = TestApi::start(store, None, settings(None, None));
    for path in [
        "/flights/abc",
        "/flights/0",
        "/flights/-5",
        "/flights/99999999999999999999",
        "/flights/1;DROP%20TABLE%20flight_schd",
        "/flights/1?x=1",
        "/all/flights?operation_day=2025-13-01",
        "/all/flights?operation_day=2025-06-01%27%20OR%201=1",
        "/all/flights?day=2025-06-01",
    ] {
        let answer = get(api.addr, path);
        assert_eq!(answer.status, 400, "{path}: {}", answer.text());
        assert!(answer.json()["error"].is_string(), "{path}");
    }
    let absent = get(api.addr, "/flights/42");
    assert_eq!(absent.status, 404);
    assert_eq!(absent.json()["error"], "no flight 42");
    assert_eq!(get(api.addr, "/nowhere").status, 404);
    let post = request(api.addr, "POST", "/all/flights", &[("Content-Length", "0")]);
    assert_eq!(post.status, 405);
    // Still all there.
    assert_eq!(
        get(api.addr, "/all/flights")
            .json()
            .as_array()
            .map(Vec::len),
        Some(5)
    );
}

#[test]
fn a_token_guards_every_endpoint() {
    let (_db, store) = applied_day(3);
    let api = TestApi::start(store, None, settings(Some("s3cret-token"), None));
    for path in [
        "/",
        "/metrics",
        "/healthz",
        "/all/flights",
        "/flights/1000000",
    ] {
        let none = get(api.addr, path);
        assert_eq!(none.status, 401, "{path}");
        assert_eq!(none.header("WWW-Authenticate"), Some("Bearer"), "{path}");
        let wrong = request(
            api.addr,
            "GET",
            path,
            &[("Authorization", "Bearer s3cret-tokeN")],
        );
        assert_eq!(wrong.status, 401, "{path}");
        let bare = request(api.addr, "GET", path, &[("Authorization", "s3cret-token")]);
        assert_eq!(bare.status, 401, "{path}");
        let right = request(
            api.addr,
            "GET",
            path,
            &[("Authorization", "Bearer s3cret-token")],
        );
        assert_eq!(right.status, 200, "{path}: {}", right.text());
    }
}

#[test]
fn healthz_names_what_is_down() {
    let (_db, store) = applied_day(3);
    let mailbox_db = pumping::MailboxDatabase::create("api_health");
    let mailbox =
        Mailbox::connect(pumping::mailbox_settings(mailbox_db.url())).expect("mailbox pool");
    let mailbox = Arc::new(mailbox);
    mailbox.create_tables().expect("mailbox tables");
    let broker = Some(dispatching::tansu());
    let api = TestApi::start(
        store.clone(),
        Some(Arc::clone(&mailbox)),
        settings(None, broker),
    );
    let healthy = get(api.addr, "/healthz");
    assert_eq!(healthy.status, 200, "{}", healthy.text());
    assert_eq!(healthy.json()["down"], serde_json::json!([]));
    drop(api);

    // Nothing listens on port 1.
    let gone = Arc::new(
        Mailbox::connect(pumping::mailbox_settings(
            "mysql://root@127.0.0.1:1/none".to_owned(),
        ))
        .expect("mailbox pool"),
    );
    let api = TestApi::start(
        store,
        Some(gone),
        settings(None, Some("127.0.0.1:1".to_owned())),
    );
    let down = get(api.addr, "/healthz");
    assert_eq!(down.status, 503, "{}", down.text());
    assert_eq!(
        down.json()["down"],
        serde_json::json!(["mailbox", "broker"])
    );
    drop(api);

    let pool = Pool::builder()
        .connection_timeout(Duration::from_secs(1))
        .build_unchecked(ConnectionManager::<PgConnection>::new(
            "postgres://postgres@127.0.0.1:1/none",
        ));
    let api = TestApi::start(
        PgStore::from_pool(pool),
        Some(mailbox),
        settings(None, None),
    );
    let down = get(api.addr, "/healthz");
    assert_eq!(down.status, 503);
    assert_eq!(down.json()["down"], serde_json::json!(["state_db"]));
    assert_eq!(get(api.addr, "/all/flights").status, 503);
    assert_eq!(get(api.addr, "/flights/1000000").status, 503);
    // The status page and the metrics still answer, saying what is missing.
    let page = get(api.addr, "/");
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("id=\"state-error\""),
        "{}",
        page.text()
    );
    let metrics = parse_prometheus(&get(api.addr, "/metrics").text()).expect("metrics");
    assert_eq!(
        value(&metrics, "flightstate_up", &[("part", "state_db")]),
        0.0
    );
    assert_eq!(
        value(&metrics, "flightstate_up", &[("part", "mailbox")]),
        1.0
    );
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn count(conn: &mut PgConnection, sql: &str) -> f64 {
    diesel::sql_query(sql)
        .get_result::<Count>(conn)
        .expect("count")
        .n as f64
}

#[test]
fn metrics_parse_as_prometheus_text_and_tell_the_tables() {
    let (db, store) = applied_day(12);
    let mailbox_db = pumping::MailboxDatabase::create("api_metrics");
    mailbox_db.insert(b"<MSG/>");
    mailbox_db.insert(b"<MSG/>");
    let mailbox =
        Mailbox::connect(pumping::mailbox_settings(mailbox_db.url())).expect("mailbox pool");
    let api = TestApi::start(store, Some(Arc::new(mailbox)), settings(None, None));
    // A group of two messages applied in 3 ms by a pump of this process.
    flightstate::histogram::APPLY_LATENCY.observe(Duration::from_millis(3), 2);
    let answer = get(api.addr, "/metrics");
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .header("Content-Type")
            .is_some_and(|t| t.starts_with("text/plain; version=0.0.4")),
        "{:?}",
        answer.headers
    );
    let text = answer.text();
    let samples = parse_prometheus(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut conn = db.connect();
    assert_eq!(
        value(&samples, "flightstate_up", &[("part", "state_db")]),
        1.0
    );
    assert_eq!(value(&samples, "flightstate_mailbox_pending", &[]), 2.0);
    assert!(value(&samples, "flightstate_apply_seconds_count", &[]) >= 2.0);
    assert!(
        value(
            &samples,
            "flightstate_apply_seconds_bucket",
            &[("le", "0.0025")]
        ) >= 2.0,
        "1.5 ms a message"
    );
    assert!(
        value(
            &samples,
            "flightstate_apply_seconds_bucket",
            &[("le", "+Inf")]
        ) >= value(
            &samples,
            "flightstate_apply_seconds_bucket",
            &[("le", "0.0025")]
        )
    );
    assert!(
        value(
            &samples,
            "flightstate_mailbox_oldest_pending_age_seconds",
            &[]
        ) >= 0.0
    );
    // The dispatcher's freshness, by the same renderer: one series per topic.
    for topic in ["flight.state", "flight.change"] {
        let name = "flightstate_publish_freshness_seconds";
        assert_eq!(
            value(
                &samples,
                &format!("{name}_bucket"),
                &[("topic", topic), ("le", "+Inf")]
            ),
            value(&samples, &format!("{name}_count"), &[("topic", topic)]),
            "{topic}"
        );
    }
    assert_eq!(value(&samples, "flightstate_messages_dead", &[]), 1.0);
    assert_eq!(
        value(&samples, "flightstate_messages_unsupported", &[]),
        0.0
    );
    let applied: f64 = samples
        .iter()
        .filter(|s| s.name == "flightstate_messages_applied")
        .map(|s| s.value)
        .sum();
    assert_eq!(
        applied,
        count(
            &mut conn,
            "SELECT count(*) AS n FROM proc_state WHERE status = 'SUCCEEDED'"
        )
    );
    assert_eq!(
        value(
            &samples,
            "flightstate_messages_applied",
            &[("type", "SCHD"), ("subtype", "DNLD")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &samples,
            "flightstate_outbox_pending",
            &[("topic", "flight.state")]
        ),
        count(
            &mut conn,
            "SELECT count(*) AS n FROM kafka_schd WHERE sent_at IS NULL"
        )
    );
    assert_eq!(
        value(
            &samples,
            "flightstate_outbox_pending",
            &[("topic", "flight.change")]
        ),
        count(
            &mut conn,
            "SELECT count(*) AS n FROM kafka_msg WHERE sent_at IS NULL"
        )
    );
    assert_eq!(
        value(
            &samples,
            "flightstate_snapshot_version",
            &[("operation_day", DAY)]
        ),
        1.0
    );
    assert_eq!(
        value(
            &samples,
            "flightstate_day_flights",
            &[("operation_day", DAY)]
        ),
        count(
            &mut conn,
            "SELECT count(*) AS n FROM flight_schd WHERE operation_day = DATE '2025-06-01'"
        )
    );
    assert_eq!(value(&samples, "flightstate_lease_epoch", &[]), 0.0);
}

#[test]
fn the_status_page_escapes_what_comes_from_data() {
    let (db, store) = applied_day(3);
    diesel::sql_query(
        "INSERT INTO proc_state (message_id, identity_key, status, error_kind, error_text, \
         attempts, msg_type, first_seen_at, updated_at) VALUES (10000, 'k-10000', 'DEAD', \
         'BAD_INPUT', '<script>alert(1)</script> & \"x\"', 1, '<b>', now(), now())",
    )
    .execute(&mut db.connect())
    .expect("insert a dead message");
    diesel::sql_query(
        "UPDATE pipeline_lock SET lease_holder = '<i>pump</i>', lease_epoch = 3, \
         lease_expires_at = now() AT TIME ZONE 'UTC' + interval '1 minute'",
    )
    .execute(&mut db.connect())
    .expect("take the lease");
    let api = TestApi::start(store, None, settings(None, None));
    let page = get(api.addr, "/");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("Content-Type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("<i>pump"), "{html}");
    assert!(!html.contains("<b>"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"),
        "{html}"
    );
    assert!(html.contains("<dd id=\"lease-holder\">&lt;i&gt;pump&lt;/i&gt;</dd>"));
    assert!(
        html.contains("<dd id=\"lease-state\" class=\"ok\">held</dd>"),
        "{html}"
    );
    assert!(html.contains("name=\"viewport\""));
    // No script and nothing fetched from elsewhere: links stay on the API.
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href=\"http"));
}
