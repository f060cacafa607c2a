//! The status page's new pages over real HTTP against a real PostgreSQL:
//! the search by FLID and by flight number as people type it, a flight's
//! page against the tables, the processing record and dead-letter pages,
//! the escaping of every kind of field a message can carry, the charts'
//! per-minute bars against `PROC_STATE`, and the bearer token on every new
//! route.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};

use reading::{DAY, TestApi, applied_day, get, request, settings};

#[derive(QueryableByName)]
struct FlightRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Nullable<Text>)]
    flno: Option<String>,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
}

/// A flight of `DAY` with at least one gate, and its gates.
fn flight_with_gates(conn: &mut PgConnection) -> (FlightRow, Vec<String>) {
    let flight = diesel::sql_query(
        "SELECT f.flid, f.flno, f.state_version, f.last_message_id FROM flight_schd f \
         WHERE f.operation_day = DATE '2025-06-01' AND EXISTS \
         (SELECT 1 FROM flight_gate g WHERE g.flid = f.flid) ORDER BY f.flid LIMIT 1",
    )
    .get_result::<FlightRow>(conn)
    .expect("a flight with gates");
    #[derive(QueryableByName)]
    struct GateRow {
        #[diesel(sql_type = Nullable<Text>)]
        gate: Option<String>,
    }
    let gates = diesel::sql_query("SELECT gate FROM flight_gate WHERE flid = $1 ORDER BY ordinal")
        .bind::<BigInt, _>(flight.flid)
        .load::<GateRow>(conn)
        .expect("gates")
        .into_iter()
        .filter_map(|g| g.gate)
        .collect();
    (flight, gates)
}

#[test]
fn a_flight_is_found_by_number_and_flid_and_its_page_shows_the_tables() {
    let (db, store) = applied_day(20);
    let mut conn = db.connect();
    let (flight, gates) = flight_with_gates(&mut conn);
    let number = flight.flno.clone().expect("a flight number");
    let api = TestApi::start(store, None, settings(None, None));

    // As people type it: lower case, a space after the airline.
    let typed = format!("{} {}", number[..2].to_lowercase(), &number[2..]);
    let found = get(
        api.addr,
        &format!("/search?q={}&day={DAY}", typed.replace(' ', "+")),
    );
    assert_eq!(found.status, 200, "{}", found.text());
    let html = found.text();
    assert!(
        html.contains(&format!("<a href=\"/flight/{0}\">{0}</a>", flight.flid)),
        "{html}"
    );
    assert!(html.contains(&format!("<td>{}</td>", flight.state_version)));
    // Another day: none.
    let none = get(api.addr, &format!("/search?q={number}&day=2030-01-01"));
    assert!(
        none.text().contains("class=\"none\">none</td>"),
        "{}",
        none.text()
    );
    // No day, and the flight is not around the station's today: every
    // day the state holds is searched, and the page says so.
    let widened = get(api.addr, &format!("/search?q={number}")).text();
    assert!(
        widened.contains(&format!("<a href=\"/flight/{0}\">{0}</a>", flight.flid))
            && widened.contains(&format!(
                "the state holds the operation days {DAY}..{DAY}, searched above"
            )),
        "{widened}"
    );
    // By FLID.
    let by_flid = get(api.addr, &format!("/search?q={}", flight.flid));
    assert!(
        by_flid
            .text()
            .contains(&format!("<a href=\"/flight/{0}\">{0}</a>", flight.flid))
    );

    let page = get(api.addr, &format!("/flight/{}", flight.flid));
    assert_eq!(page.status, 200, "{}", page.text());
    assert_eq!(
        page.header("Content-Type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    assert!(html.contains(&format!(
        "<dd id=\"state-version\">{}</dd>",
        flight.state_version
    )));
    assert!(html.contains(&format!("<dd id=\"operation-day\">{DAY}</dd>")));
    assert!(html.contains(&format!(
        "<a id=\"message-link\" href=\"/message/{0}\">{0}</a> (SUCCEEDED)",
        flight.last_message_id
    )));
    let gate_table = &html[html.find("<table id=\"gates\">").expect("gates")..];
    let gate_table = &gate_table[..gate_table.find("</table>").expect("end")];
    for gate in &gates {
        assert!(
            gate_table.contains(&format!("<td>{gate}</td>")),
            "{gate}: {gate_table}"
        );
    }
    assert_eq!(gate_table.matches("<tr>").count(), gates.len() + 1);
    assert!(html.contains("<pre id=\"document\">"));

    let record = get(api.addr, &format!("/message/{}", flight.last_message_id));
    assert_eq!(record.status, 200);
    assert!(record.text().contains("<dd id=\"status\">SUCCEEDED</dd>"));
    assert_eq!(
        get(api.addr, &format!("/dead/{}", flight.last_message_id)).status,
        404
    );
    let dead = get(api.addr, "/dead/9999");
    assert_eq!(dead.status, 200);
    assert!(dead.text().contains("<dd id=\"status\">DEAD</dd>"));

    for (path, status) in [
        ("/flight/0", 400),
        ("/flight/abc", 400),
        ("/flight/42", 404),
        ("/flight/1?x=1", 400),
        ("/message/-1", 400),
        ("/message/424242", 404),
        ("/search?q=CA-1", 400),
        ("/search?q=CA1&day=2025-13-01", 400),
        ("/search?q=%ff", 400),
        ("/search?x=1", 400),
        ("/?hours=12", 400),
    ] {
        assert_eq!(get(api.addr, path).status, status, "{path}");
    }
}

#[test]
fn the_flight_page_escapes_every_field_a_message_can_carry() {
    let (db, store) = applied_day(3);
    let mut conn = db.connect();
    let (flight, _) = flight_with_gates(&mut conn);
    let hostile = "<script>alert(\"x\")</script> & 'q' 北京首都 \"";
    diesel::sql_query("UPDATE flight_schd SET remc = $1, flno = $2 WHERE flid = $3")
        .bind::<Text, _>(hostile)
        .bind::<Text, _>("<b>C\"A'1")
        .bind::<BigInt, _>(flight.flid)
        .execute(&mut conn)
        .expect("hostile scalars");
    diesel::sql_query("UPDATE flight_gate SET gate = $1 WHERE flid = $2")
        .bind::<Text, _>("<i>G\"1'北")
        .bind::<BigInt, _>(flight.flid)
        .execute(&mut conn)
        .expect("a hostile gate");
    let api = TestApi::start(store, None, settings(None, None));
    let html = get(api.addr, &format!("/flight/{}", flight.flid)).text();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<b>") && !html.contains("<i>"), "{html}");
    assert!(html.contains(
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; 北京首都 &quot;"
    ));
    assert!(html.contains("<td>&lt;i&gt;G&quot;1&#39;北</td>"), "{html}");
    assert!(html.contains("&lt;b&gt;C&quot;A&#39;1"));
    // The document is escaped too (JSON keeps `<` as is; the page must not).
    let document = &html[html.find("<pre id=\"document\">").expect("document")..];
    assert!(document.contains("&lt;script&gt;"));
    // The search box gives back what was typed, escaped.
    let typed = get(api.addr, "/search?q=%22%3E%3Cscript%3E").text();
    assert!(!typed.contains("<script>"), "{typed}");
}

#[derive(QueryableByName)]
struct MinuteCount {
    #[diesel(sql_type = Text)]
    minute: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[test]
fn the_charts_carry_the_minutes_proc_state_recorded() {
    let (db, store) = applied_day(5);
    let mut conn = db.connect();
    // The applied messages, spread over the last minutes as a pump would
    // have recorded them.
    diesel::sql_query(
        "UPDATE proc_state SET updated_at = date_trunc('minute', now() AT TIME ZONE 'UTC') \
         - (message_id % 4) * interval '1 minute' + interval '7 seconds'",
    )
    .execute(&mut conn)
    .expect("spread the outcomes");
    let expected = diesel::sql_query(
        "SELECT to_char(date_trunc('minute', updated_at), 'YYYY-MM-DD\"T\"HH24:MI') AS minute, \
         count(*) AS n FROM proc_state WHERE status = 'SUCCEEDED' GROUP BY 1 ORDER BY 1",
    )
    .load::<MinuteCount>(&mut conn)
    .expect("minutes");
    assert_eq!(expected.len(), 4);
    let api = TestApi::start(store, None, settings(None, None));
    let html = get(api.addr, "/?refresh=off").text();
    assert!(!html.contains("http-equiv=\"refresh\""));
    let applied = &html[html.find("<svg id=\"chart-applied\"").expect("chart")..];
    let applied = &applied[..applied.find("</svg>").expect("end")];
    for m in &expected {
        let total: i64 = applied
            .split("<rect ")
            .filter(|r| r.contains(&format!("data-minute=\"{}\"", m.minute)))
            .map(|r| {
                let v = &r[r.find("data-value=\"").expect("value") + 12..];
                v[..v.find('"').expect("quote")]
                    .parse::<i64>()
                    .expect("count")
            })
            .sum();
        assert_eq!(total, m.n, "minute {}", m.minute);
    }
    let dead = &html[html
        .find("<svg id=\"chart-dead-held\"")
        .expect("dead chart")..];
    assert!(dead[..dead.find("</svg>").expect("end")].contains("data-kind=\"dead\""));
    // The page reloads by default, says so, and puts what needs a person first.
    let page = get(api.addr, "/").text();
    assert!(page.contains("<meta http-equiv=\"refresh\" content=\"60\">"));
    let attention = page.find("id=\"attention\"").expect("attention");
    assert!(attention < page.find("<h2>Mailbox</h2>").expect("mailbox"));
    assert!(page.contains("<li>1 dead letter(s)</li>"), "{page}");
    // The empty requests table says so.
    assert!(page.contains("<td colspan=\"8\" class=\"none\">none</td>"));
    assert!(page.contains("<svg id=\"chart-mailbox\""));
}

#[test]
fn a_token_guards_every_new_page() {
    let (_db, store) = applied_day(3);
    let api = TestApi::start(store, None, settings(Some("s3cret-token"), None));
    for path in [
        "/?hours=24",
        "/search?q=1000000",
        "/flight/1000000",
        "/message/1",
        "/dead/9999",
    ] {
        let none = get(api.addr, path);
        assert_eq!(none.status, 401, "{path}");
        let wrong = request(api.addr, "GET", path, &[("Authorization", "Bearer nope")]);
        assert_eq!(wrong.status, 401, "{path}");
        let right = request(
            api.addr,
            "GET",
            path,
            &[("Authorization", "Bearer s3cret-token")],
        );
        assert_eq!(right.status, 200, "{path}: {}", right.text());
    }
}
