//! The evidence tables through each dialect's repository (`EvidenceOps`): rows written and
//! read back as they were, the blocked head found among the FAILED messages, and a stream
//! applied message by message (`flightstate apply`'s path) counted exactly — on PostgreSQL
//! here, on Oracle 11g where `FLIGHTSTATE_ORACLE_URL` names a schema (`docs/oracle.md`).
#![cfg(feature = "postgres")]

mod common;

use chrono::NaiveDateTime;
use common::dialects::ScenarioDb;
use common::sis::{at, flop_sent, parse_options, sep, snapshot_sent, unsupported_sent};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::store::{
    DayOrder, EvidenceOps, FailedHead, Outcome, ProcStatus, SenderSeqn, StateTx, Store,
};

dialect_tests! {
    evidence_rows_are_read_back_as_written_nulls_included,
    the_blocked_head_is_the_lowest_message_failed_on_the_infrastructure,
    a_stream_applied_message_by_message_is_counted_exactly,
}

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

fn evidence_rows_are_read_back_as_written_nulls_included(db: &impl ScenarioDb) {
    let store = db.store();
    let empty = DayOrder::new(sep(8));
    let full = DayOrder {
        snapshot_dttm: Some(at(9, 9, 10)),
        snapshot_message_id: Some(5),
        newest_event_dttm: Some(at(9, 9, 31)),
        newest_event_id: Some(9),
        late_events: 2,
        last_late_event_id: Some(6),
        late_event_after_id: Some(5),
        stale_snapshots: 1,
        last_stale_snapshot_id: Some(5),
        stale_snapshot_over_id: Some(4),
        ..DayOrder::new(sep(9))
    };
    let sender = SenderSeqn {
        sender: "AODB".into(),
        last_seqn: "000007".into(),
        last_message_id: 12,
        messages: 9,
        repeats: 1,
        gaps: 2,
        missing: 5,
        resets: 1,
        unreadable: 0,
        last_anomaly: Some("GAP".into()),
        last_anomaly_id: Some(11),
    };
    store
        .transaction(|tx| {
            tx.upsert_order_evidence(&empty, now())?;
            // Inserted bare, then updated with every column set.
            tx.upsert_order_evidence(&DayOrder::new(sep(9)), now())?;
            tx.upsert_order_evidence(&full, now())?;
            tx.upsert_seqn_evidence(
                &SenderSeqn {
                    sender: "AODB".into(),
                    last_seqn: "1".into(),
                    last_message_id: 1,
                    ..SenderSeqn::default()
                },
                now(),
            )?;
            tx.upsert_seqn_evidence(&sender, now())
        })
        .expect("write the evidence");
    let (day8, day9, days, one, senders, none) = store
        .transaction(|tx| {
            Ok::<_, flightstate::store::StoreError>((
                tx.select_order_evidence(sep(8))?,
                tx.select_order_evidence(sep(9))?,
                tx.select_latest_order_evidence(5)?,
                tx.select_seqn_evidence("AODB")?,
                tx.select_seqn_senders(5)?,
                tx.select_seqn_evidence("OPS")?,
            ))
        })
        .expect("read the evidence");
    assert_eq!(day8, Some(empty.clone()), "{}", db.dialect());
    assert_eq!(day9, Some(full.clone()), "{}", db.dialect());
    assert_eq!(days, vec![full, empty], "newest day first");
    assert_eq!(one, Some(sender.clone()));
    assert_eq!(senders, vec![sender]);
    assert_eq!(none, None);
}

fn outcome(
    message_id: i64,
    identity_key: &'static str,
    status: ProcStatus,
    error_kind: Option<&'static str>,
) -> Outcome<'static> {
    Outcome {
        message_id,
        identity_key,
        status,
        error_kind,
        error_text: error_kind.map(|_| "the state database went away"),
        msg_type: Some("FLOP"),
        msg_subtype: Some("RENO"),
        next_attempt_at: None,
        now: now(),
        received_at: None,
    }
}

fn blocked<S: Store>(store: &S) -> Option<FailedHead> {
    store
        .transaction(|tx| tx.select_blocked_head())
        .expect("read the blocked head")
}

fn the_blocked_head_is_the_lowest_message_failed_on_the_infrastructure(db: &impl ScenarioDb) {
    let store = db.store();
    assert_eq!(blocked(&store), None);
    store
        .transaction(|tx| {
            tx.record_outcomes(&[
                outcome(1, "identity-1", ProcStatus::Succeeded, None),
                outcome(2, "identity-2", ProcStatus::Failed, Some("UNSUPPORTED")),
                outcome(3, "identity-3", ProcStatus::Dead, Some("BAD_INPUT")),
                outcome(4, "identity-4", ProcStatus::Failed, Some("INFRA")),
                outcome(5, "identity-5", ProcStatus::Failed, Some("CONFLICT")),
            ])
        })
        .expect("record outcomes");
    let head = blocked(&store).expect("message 4 blocks the head");
    assert_eq!(
        (head.message_id, head.error_kind.as_str(), head.attempts),
        (4, "INFRA", 1),
        "{}",
        db.dialect()
    );
    assert_eq!(head.first_seen_at, now());
    assert_eq!(
        head.error_text.as_deref(),
        Some("the state database went away")
    );
    store
        .transaction(|tx| {
            tx.record_outcomes(&[outcome(4, "identity-4", ProcStatus::Succeeded, None)])
        })
        .expect("message 4 succeeds");
    assert_eq!(
        blocked(&store).map(|h| h.message_id),
        Some(5),
        "a lost race blocks too"
    );
}

#[track_caller]
fn apply<S: Store>(store: &S, message_id: i64, body: &[u8]) -> Applied {
    try_apply(store, message_id, body).expect("applied")
}

/// Applies as `flightstate apply` does, with the tests' site settings.
fn try_apply<S: Store>(
    store: &S,
    message_id: i64,
    body: &[u8],
) -> Result<Applied, flightstate::pipeline::PipelineError> {
    let settings = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    apply_message(store, &settings, message_id, body, now())
}

fn a_stream_applied_message_by_message_is_counted_exactly(db: &impl ScenarioDb) {
    let store = db.store();
    let day = sep(9);
    apply(
        &store,
        1,
        &snapshot_sent(day, &[1, 2], "000001", at(9, 9, 0)),
    );
    apply(&store, 2, &flop_sent("AODB", "000002", at(9, 8, 55), 1));
    apply(&store, 3, &flop_sent("AODB", "000004", at(9, 9, 20), 2));
    apply(
        &store,
        4,
        &snapshot_sent(day, &[1, 2], "000004", at(9, 9, 10)),
    );
    // The day's latest snapshot again: a replay, counted once.
    apply(
        &store,
        4,
        &snapshot_sent(day, &[1, 2], "000004", at(9, 9, 10)),
    );
    assert!(matches!(
        apply(&store, 5, &unsupported_sent("AODB", "000001", at(9, 9, 30))),
        Applied::Unsupported { .. }
    ));
    // Its second attempt is not a second message.
    apply(&store, 5, &unsupported_sent("AODB", "000001", at(9, 9, 30)));
    let (order, sender) = store
        .transaction(|tx| {
            Ok::<_, flightstate::store::StoreError>((
                tx.select_order_evidence(day)?,
                tx.select_seqn_evidence("AODB")?,
            ))
        })
        .expect("read the evidence");
    assert_eq!(
        order,
        Some(DayOrder {
            snapshot_dttm: Some(at(9, 9, 10)),
            snapshot_message_id: Some(4),
            late_events: 1,
            last_late_event_id: Some(2),
            late_event_after_id: Some(1),
            stale_snapshots: 1,
            last_stale_snapshot_id: Some(4),
            stale_snapshot_over_id: Some(3),
            ..DayOrder::new(day)
        }),
        "{}",
        db.dialect()
    );
    assert_eq!(
        sender,
        Some(SenderSeqn {
            sender: "AODB".into(),
            last_seqn: "000001".into(),
            last_message_id: 5,
            messages: 5,
            repeats: 1,
            gaps: 1,
            missing: 1,
            resets: 1,
            unreadable: 0,
            last_anomaly: Some("RESET".into()),
            last_anomaly_id: Some(5),
        })
    );
}

/// A transaction that fails after counting rolls its counts back with everything else: the
/// evidence of a message is there once it is applied, and once only.
#[cfg(feature = "failpoints")]
#[test]
fn a_failed_apply_counts_no_order_and_its_retry_counts_once() {
    use flightstate::failpoint::{self, Action, Injected};
    use flightstate::pipeline::PipelineError;

    // The error the armed point returns, and no other: a failure of the database or of the
    // message itself would roll back as well, and prove nothing about the point.
    #[track_caller]
    fn assert_injected_at(err: PipelineError, name: &'static str) {
        match err {
            PipelineError::Injected(injected) => assert_eq!(
                injected,
                Injected {
                    name,
                    action: Action::Error
                }
            ),
            other => panic!("expected the failure injected at `{name}`, got {other:?}"),
        }
    }

    let db = common::dialects::PgDb::migrated();
    let store = db.store();
    let day = sep(9);
    let read = || {
        store
            .transaction(|tx| {
                Ok::<_, flightstate::store::StoreError>((
                    tx.select_order_evidence(day)?,
                    tx.select_seqn_evidence("AODB")?.map(|s| s.messages),
                ))
            })
            .expect("read the evidence")
    };
    let snapshot = snapshot_sent(day, &[1], "000001", at(9, 9, 0));
    failpoint::arm("snapshot.before_commit", Action::Error, 1);
    let err = try_apply(&store, 1, &snapshot).expect_err("the commit fails");
    assert_injected_at(err, "snapshot.before_commit");
    assert_eq!(failpoint::fired("snapshot.before_commit"), 1);
    // The failure's own record counts the SEQN; the day saw no snapshot.
    assert_eq!(read(), (None, Some(1)));
    apply(&store, 1, &snapshot);
    let (order, messages) = read();
    assert_eq!(
        order
            .as_ref()
            .map(|o| (o.snapshot_message_id, o.stale_snapshots)),
        Some((Some(1), 0))
    );
    assert_eq!(messages, Some(1), "the retry is the same message");

    let event = flop_sent("AODB", "000002", at(9, 8, 0), 1);
    failpoint::arm("event.before_write", Action::Error, 1);
    let err = try_apply(&store, 2, &event).expect_err("the write fails");
    assert_injected_at(err, "event.before_write");
    assert_eq!(failpoint::fired("event.before_write"), 1);
    assert_eq!(read().0, order, "no late event of a rolled-back apply");
    apply(&store, 2, &event);
    let (after, messages) = read();
    let after = after.expect("the day's evidence");
    assert_eq!(
        (
            after.late_events,
            after.last_late_event_id,
            after.newest_event_id
        ),
        (1, Some(2), Some(2))
    );
    assert_eq!(messages, Some(2));
}

/// A large snapshot is read by parts while it is written; one that is DEAD (its RECS is
/// wrong) still counts its sender's SEQN, as a message read whole would.
#[test]
fn a_dead_snapshot_read_by_parts_counts_its_seqn() {
    use common::sis::{flight, schedule_message};
    use flightstate::protocol::{Field, ScheduleSubtype};

    let db = common::dialects::PgDb::migrated();
    let store = db.store();
    let settings = Rules {
        parse: parse_options(),
        stream_from_bytes: 0,
        ..Rules::default()
    };
    let wrong_recs = schedule_message(
        ScheduleSubtype::Dnld,
        Some(sep(9)),
        Field::Value(3),
        vec![flight(1, at(9, 8, 0)), flight(2, at(9, 8, 0))],
    );
    let applied = apply_message(&store, &settings, 1, &wrong_recs, now()).expect("recorded");
    assert!(matches!(applied, Applied::Dead { .. }), "{applied:?}");
    let sender = store
        .transaction(|tx| tx.select_seqn_evidence("AODB"))
        .expect("read the evidence")
        .expect("the sender is counted");
    assert_eq!(
        (
            sender.messages,
            sender.last_seqn.as_str(),
            sender.last_message_id
        ),
        (1, "1", 1)
    );
    let order = store
        .transaction(|tx| tx.select_order_evidence(sep(9)))
        .expect("read the evidence");
    assert_eq!(order, None, "a DEAD snapshot is no snapshot of the day");
}
