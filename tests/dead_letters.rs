//! `flightstate dead` against real PostgreSQL and MariaDB: a message the
//! database refuses is DEAD; the operator lists it, shows it, fixes the
//! cause (drops the site's CHECK constraint), requeues it, and the pump
//! applies it through the normal path: SUCCEEDED, the requeue recorded
//! (count, who, when) and the mailbox row written back again by a call of
//! its own.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::process::Output;

use common::TestDatabase;
use common::operator::{cli_action, operator_actions, operator_command, stdout_of};
use common::sis::{at, flight, flop, reno, sep, site_settings, snapshot};
use diesel::connection::SimpleConnection;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use mysql::prelude::Queryable;
use pumping::pg::pump_until_idle;
use pumping::{MailboxDatabase, effect_calls, proc_states};

/// `flightstate dead ARGS…` (the binary of this test run) on `db` and `mb`,
/// as operator `$USER=night-shift`.
fn dead(db: &TestDatabase, mb: &MailboxDatabase, args: &[&str]) -> Output {
    operator_command("dead", db.url(), &mb.url())
        .args(args)
        .output()
        .expect("run flightstate dead")
}

/// The status after each update of mailbox row `id`, in order (the test
/// mailbox's trigger logs every update).
fn row_updates(mb: &MailboxDatabase, id: i64) -> Vec<String> {
    mb.conn()
        .exec_map(
            "SELECT STATUS FROM writeback_log WHERE MSG_ID = ? ORDER BY LOG_ID",
            (id,),
            |status: Option<String>| status.unwrap_or_default(),
        )
        .expect("read the write-back log")
}

#[derive(QueryableByName, Debug)]
struct Requeue {
    #[diesel(sql_type = BigInt)]
    requeue_count: i64,
    #[diesel(sql_type = Nullable<Text>)]
    requeued_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    requeued_at: Option<chrono::NaiveDateTime>,
}

fn requeue_of(conn: &mut PgConnection, id: i64) -> Requeue {
    diesel::sql_query(
        "SELECT requeue_count::bigint AS requeue_count, requeued_by, requeued_at \
         FROM proc_state WHERE message_id = $1",
    )
    .bind::<BigInt, _>(id)
    .get_result(conn)
    .expect("the message's PROC_STATE row")
}

/// Three flights applied by a snapshot (its id is returned third), then a
/// rule of the site's own (a CHECK constraint: values that pass the
/// protocol now fail in the database, every time), then a renumbering of
/// flight 1 that the rule refuses (its id last), queued but not pumped.
fn a_renumbering_refused_by_a_site_rule(tag: &str) -> (TestDatabase, MailboxDatabase, i64, i64) {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let day = mb.insert(&snapshot(
        sep(9),
        (1..=3).map(|f| flight(f, at(9, 8, 0))).collect(),
    ));
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    db.connect()
        .batch_execute(
            "ALTER TABLE flight_schd ADD CONSTRAINT site_reno CHECK (reno IS DISTINCT FROM 'B0666')",
        )
        .expect("the site's rule");
    let refused = mb.insert(&flop("RENO", &[(1, "<RENO>B0666</RENO>")]));
    (db, mb, day, refused)
}

#[test]
fn a_dead_letter_is_listed_shown_requeued_after_its_fix_and_then_succeeds() {
    let (db, mb, day, refused) = a_renumbering_refused_by_a_site_rule("dead_letters");
    let mut conn = db.connect();
    let fine = mb.insert(&flop("RENO", &[(2, "<RENO>B22</RENO>")]));
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    let states = proc_states(&mut conn);
    assert_eq!(
        states,
        vec![
            (day, "SUCCEEDED".into(), None, 1),
            (refused, "DEAD".into(), Some("DATA_REJECTED".into()), 1),
            (fine, "SUCCEEDED".into(), None, 1),
        ]
    );

    // Listed, with its type, kind and the database's words; filtered.
    let listed = stdout_of(&dead(&db, &mb, &["list"]), 0);
    let line = listed
        .lines()
        .find(|l| l.starts_with(&format!("{refused} ")))
        .unwrap_or_else(|| panic!("message {refused} is not listed: {listed}"));
    assert!(
        line.contains("FLOP/RENO") && line.contains("DATA_REJECTED") && line.contains("site_reno"),
        "{line}"
    );
    assert!(listed.ends_with("1 dead letter(s)\n"), "{listed}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&dead(&db, &mb, &["list", "--json"]), 0)).expect("JSON");
    assert_eq!(json[0]["message_id"], refused);
    assert_eq!(json.as_array().map(Vec::len), Some(1));
    let today = chrono::Utc::now().date_naive().to_string();
    for other in [
        &["list", "--kind", "BAD_INPUT"][..],
        &["list", "--since", "2999-01-01"],
        &["list", "--error", "no_such_rule"],
        &["list", "--error", "SITE_RENO"],
        &["list", "--day", "2026-01-01"],
        &[
            "list",
            "--kind",
            "DATA_REJECTED",
            "--error",
            "site_reno",
            "--day",
            "2026-01-01",
        ],
    ] {
        let none = stdout_of(&dead(&db, &mb, other), 0);
        assert_eq!(none, "0 dead letter(s)\n", "{other:?}");
    }
    for selecting in [
        &["list", "--kind", "DATA_REJECTED"][..],
        &["list", "--error", "site_reno"],
        &["list", "--day", &today],
        &["list", "--error", "site_reno", "--day", &today],
    ] {
        let listed = stdout_of(&dead(&db, &mb, selecting), 0);
        assert!(
            listed.starts_with(&format!("{refused} ")) && listed.ends_with("1 dead letter(s)\n"),
            "{selecting:?}: {listed}"
        );
    }

    // Shown: its record, its write-back and its body.
    let shown = stdout_of(&dead(&db, &mb, &["show", &refused.to_string()]), 0);
    for words in [
        "status:      DEAD (DATA_REJECTED)",
        "site_reno",
        &format!("write-back:  backfill:{refused} → DEAD (ACCEPTED"),
        "mailbox row: status DEAD",
        "<RENO>B0666</RENO>",
    ] {
        assert!(shown.contains(words), "`{words}` missing from:\n{shown}");
    }

    // A message that is not DEAD is not requeued.
    let refused_again = stdout_of(&dead(&db, &mb, &["requeue", &fine.to_string()]), 1);
    assert!(
        refused_again.contains("not requeued: it is SUCCEEDED"),
        "{refused_again}"
    );
    assert_eq!(
        operator_actions(&mut conn),
        vec![cli_action(
            "night-shift",
            "REQUEUE",
            Some(fine),
            None,
            "NOT_DEAD"
        )],
        "a refused requeue is recorded too"
    );

    // The cause is fixed; the operator requeues the message.
    conn.batch_execute("ALTER TABLE flight_schd DROP CONSTRAINT site_reno")
        .expect("the fix");
    let before = chrono::Utc::now().naive_utc() - chrono::Duration::seconds(1);
    let requeued = stdout_of(
        &dead(
            &db,
            &mb,
            &["requeue", &refused.to_string(), "--by", "alice"],
        ),
        0,
    );
    assert!(
        requeued.contains("requeued (requeue 1, by alice); its mailbox row is pending again"),
        "{requeued}"
    );
    assert_eq!(
        operator_actions(&mut conn)[1..],
        [cli_action(
            "alice",
            "REQUEUE",
            Some(refused),
            None,
            "REQUEUED"
        )]
    );
    let recorded = requeue_of(&mut conn, refused);
    assert_eq!(recorded.requeue_count, 1);
    assert_eq!(recorded.requeued_by.as_deref(), Some("alice"));
    assert!(
        recorded.requeued_at.is_some_and(|t| t >= before),
        "{recorded:?}"
    );
    assert_eq!(
        proc_states(&mut conn)[1],
        (refused, "FAILED".into(), Some("REQUEUED".into()), 0),
        "requeued: FAILED, so that the identity-key check applies it again"
    );
    assert_eq!(
        mb.rows()[1],
        (refused, Some("VALID".into()), false),
        "the mailbox row is pending again"
    );

    // The pump applies it through the normal path and writes it back again.
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    assert_eq!(
        proc_states(&mut conn),
        vec![
            (day, "SUCCEEDED".into(), None, 1),
            (refused, "SUCCEEDED".into(), None, 1),
            (fine, "SUCCEEDED".into(), None, 1),
        ]
    );
    assert_eq!(reno(&mut conn, 1).as_deref(), Some("B0666"));
    let recorded = requeue_of(&mut conn, refused);
    assert_eq!(
        (recorded.requeue_count, recorded.requeued_by.as_deref()),
        (1, Some("alice")),
        "the requeue stays recorded"
    );
    assert_eq!(
        mb.rows()[1],
        (refused, Some("PROCESSED".into()), true),
        "written back with the new outcome"
    );
    assert_eq!(
        row_updates(&mb, refused),
        ["DEAD", "VALID", "PROCESSED"],
        "written back DEAD, set pending by the requeue, written back PROCESSED"
    );
    assert_eq!(mb.write_back_counts()[0], (day, 1));
    assert_eq!(mb.write_back_counts()[2], (fine, 1));
    let target = format!("cminmsgs:{refused}");
    let calls: Vec<(String, String, i64)> = effect_calls(&mut conn)
        .into_iter()
        .filter(|c| c.0 == target)
        .collect();
    assert_eq!(
        calls,
        vec![
            (target.clone(), "ACCEPTED".into(), 1),
            (target.clone(), "ACCEPTED".into(), 1)
        ],
        "two journaled calls, each made once"
    );
    let shown = stdout_of(&dead(&db, &mb, &["show", &refused.to_string()]), 0);
    for words in [
        "status:      SUCCEEDED",
        "requeued:    1 time(s), last by alice",
        &format!("write-back:  backfill:{refused} → DEAD (ACCEPTED"),
        &format!("write-back:  backfill:{refused}:requeue:1 → PROCESSED (ACCEPTED"),
        "mailbox row: status PROCESSED",
    ] {
        assert!(shown.contains(words), "`{words}` missing from:\n{shown}");
    }
    let empty = stdout_of(&dead(&db, &mb, &["list"]), 0);
    assert_eq!(empty, "0 dead letter(s)\n");
}

#[test]
fn a_requeued_message_still_refused_is_dead_again_and_written_back_again() {
    let (db, mb, _, refused) = a_renumbering_refused_by_a_site_rule("dead_again");
    let mut conn = db.connect();
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");

    // Requeued by kind, by the operating-system user, without the fix.
    let requeued = stdout_of(&dead(&db, &mb, &["requeue", "--kind", "DATA_REJECTED"]), 0);
    assert!(
        requeued.contains(&format!("{refused}: requeued (requeue 1, by night-shift)")),
        "{requeued}"
    );
    assert_eq!(
        operator_actions(&mut conn),
        vec![cli_action(
            "night-shift",
            "REQUEUE",
            Some(refused),
            None,
            "REQUEUED"
        )]
    );
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    assert_eq!(
        proc_states(&mut conn)[1],
        (refused, "DEAD".into(), Some("DATA_REJECTED".into()), 1),
        "refused again: DEAD again, its attempts counted from the requeue"
    );
    assert_eq!(mb.rows()[1], (refused, Some("DEAD".into()), true));
    assert_eq!(
        row_updates(&mb, refused),
        ["DEAD", "VALID", "DEAD"],
        "a requeue is always written back again, whatever its outcome"
    );
    let shown = stdout_of(&dead(&db, &mb, &["show", &refused.to_string()]), 0);
    assert!(
        shown.contains(&format!("backfill:{refused}:requeue:1 → DEAD (ACCEPTED")),
        "{shown}"
    );
}

#[test]
fn a_dead_letter_whose_row_is_pending_is_not_requeued() {
    let (db, mb, _, refused) = a_renumbering_refused_by_a_site_rule("dead_pending");
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    // The row is pending as before its write-back was made.
    mb.conn()
        .exec_drop(
            "UPDATE cminmsgs SET CMINMSGS_STATUS = 'VALID', CMINMSGS_DATE_PROCESSED = NULL \
             WHERE CMINMSGS_ID = ?",
            (refused,),
        )
        .expect("set the row pending");
    let said = stdout_of(&dead(&db, &mb, &["requeue", &refused.to_string()]), 1);
    assert!(
        said.contains(&format!(
            "{refused}: not requeued: its mailbox row is pending"
        )),
        "{said}"
    );
    let mut conn = db.connect();
    assert_eq!(
        proc_states(&mut conn)[1],
        (refused, "DEAD".into(), Some("DATA_REJECTED".into()), 1)
    );
    assert_eq!(requeue_of(&mut conn, refused).requeue_count, 0);
    assert_eq!(
        operator_actions(&mut conn),
        vec![cli_action(
            "night-shift",
            "REQUEUE",
            Some(refused),
            None,
            "PENDING"
        )],
        "refused by its mailbox row: recorded all the same"
    );
}

/// A requeue by filter (`--error`, `--day`) whose mailbox step fails after
/// the state transaction: recorded REQUEUED (the state transaction did it),
/// and the rerun, once the mailbox takes updates again, ALREADY_REQUEUED.
#[test]
fn a_requeue_by_filter_whose_mailbox_step_fails_is_recorded_and_completed_by_a_rerun() {
    let (db, mb, _, refused) = a_renumbering_refused_by_a_site_rule("dead_filter");
    let mut conn = db.connect();
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    let today = chrono::Utc::now().date_naive().to_string();

    // A filter that selects nothing requeues and records nothing.
    let none = stdout_of(
        &dead(
            &db,
            &mb,
            &["requeue", "--error", "no_such_rule", "--by", "carol"],
        ),
        0,
    );
    assert_eq!(none, "no dead letter to requeue\n");
    assert_eq!(operator_actions(&mut conn), Vec::new());

    // The mailbox refuses to set any row pending.
    mb.conn()
        .query_drop(
            "CREATE TRIGGER refuse_pending BEFORE UPDATE ON cminmsgs FOR EACH ROW \
             IF NEW.CMINMSGS_DATE_PROCESSED IS NULL THEN \
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'mailbox refuses'; END IF",
        )
        .expect("the refusing trigger");
    let half = stdout_of(
        &dead(
            &db,
            &mb,
            &[
                "requeue",
                "--error",
                "site_reno",
                "--day",
                &today,
                "--by",
                "carol",
            ],
        ),
        1,
    );
    assert!(
        half.contains(&format!(
            "{refused}: requeued (requeue 1, by carol); its mailbox row could not be set pending"
        )) && half.contains(&format!("run `dead requeue {refused}` again")),
        "{half}"
    );
    assert_eq!(
        proc_states(&mut conn)[1],
        (refused, "FAILED".into(), Some("REQUEUED".into()), 0)
    );
    assert_eq!(mb.rows()[1], (refused, Some("DEAD".into()), true));

    mb.conn()
        .query_drop("DROP TRIGGER refuse_pending")
        .expect("drop the trigger");
    let done = stdout_of(&dead(&db, &mb, &["requeue", &refused.to_string()]), 0);
    assert_eq!(
        done,
        format!("{refused}: already requeued; its mailbox row is pending again\n")
    );
    assert_eq!(requeue_of(&mut conn, refused).requeue_count, 1);
    assert_eq!(mb.rows()[1], (refused, Some("VALID".into()), false));
    assert_eq!(
        operator_actions(&mut conn),
        vec![
            cli_action("carol", "REQUEUE", Some(refused), None, "REQUEUED"),
            cli_action(
                "night-shift",
                "REQUEUE",
                Some(refused),
                None,
                "ALREADY_REQUEUED"
            ),
        ]
    );
}

/// Without `$USER` (systemd, cron, some `sudo` shells) the requeue is
/// recorded under the account the process runs as, as `psql` names it.
#[test]
fn without_user_the_requeue_is_by_the_account_name() {
    let (db, mb, _, refused) = a_renumbering_refused_by_a_site_rule("dead_account");
    pump_until_idle(db.url(), &mb, site_settings(), "dead-letters");
    let account = std::process::Command::new("id")
        .arg("-un")
        .output()
        .expect("run id -un");
    let account = String::from_utf8_lossy(&account.stdout).trim().to_owned();
    assert!(!account.is_empty(), "this test runs as a named account");
    let output = operator_command("dead", db.url(), &mb.url())
        .args(["requeue", &refused.to_string()])
        .env_remove("USER")
        .output()
        .expect("run flightstate dead");
    let requeued = stdout_of(&output, 0);
    assert!(
        requeued.contains(&format!("{refused}: requeued (requeue 1, by {account})")),
        "{requeued}"
    );
}
