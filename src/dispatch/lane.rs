//! One lane of the dispatcher: its share of the outbox (a [`store::Lane`])
//! and its own producer. A pass claims the lane's due rows, builds their
//! messages, produces them, waits for every delivery report and settles the
//! rows, all in one transaction (STYLE §4.4). Lanes run side by side on
//! their own connections: while one waits for the broker or the database,
//! another builds its messages.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::freshness::{Ages, PUBLISH_FRESHNESS};
use super::gate::{Gate, GateLog};
use super::producer::{Failure, Outgoing, Producer};
use super::{
    DispatchReport, DispatchSettings, EVENT_ID_HEADER, EVENT_KIND_HEADER, OutboxError, PassReport,
    SCHEMA_VERSION, SCHEMA_VERSION_HEADER, notice_value, now, sleep_unless, stopped,
    tombstone_value,
};
use crate::doorbell::Doorbell;
use crate::state::StateDocument;
use crate::store::{
    self, Backoff, ClaimedNotice, ClaimedStateEvent, EventKind, FailedRow, OutboxOps, ReadOps,
    StateTx, Store,
};

/// A lane: which rows it claims, and the producer it sends them with.
pub(super) struct Lane {
    pub(super) share: store::Lane,
    pub(super) producer: Producer,
}

fn backoff(settings: &DispatchSettings) -> Backoff {
    Backoff {
        initial_secs: settings.backoff_initial.as_secs_f64(),
        max_secs: settings.backoff_max.as_secs_f64(),
    }
}

impl Lane {
    /// One pass over each outbox.
    pub(super) fn dispatch_once<S: Store>(
        &mut self,
        store: &S,
        settings: &DispatchSettings,
    ) -> Result<DispatchReport, OutboxError> {
        self.producer
            .replace_if_unusable()
            .map_err(OutboxError::Producer)?;
        let state = self.state_pass(store, settings)?;
        let change = self.change_pass(store, settings)?;
        Ok(DispatchReport { state, change })
    }

    /// Passes while `gate` is open, until one of `stop` is set or, with
    /// `until_idle`, until a pass finds nothing due (or the gate is
    /// closed); database faults are logged and retried.
    pub(super) fn run<S: Store>(
        &mut self,
        store: &S,
        settings: &DispatchSettings,
        stop: &[&AtomicBool],
        until_idle: bool,
        (gate, gate_log): (&dyn Gate, &GateLog),
        doorbell: &Doorbell,
    ) -> Result<DispatchReport, OutboxError> {
        let mut total = DispatchReport::default();
        // Database faults in a row: the first is logged at `warn`, the
        // rest of the same outage at `debug`, and the passes back off.
        let mut failures: u32 = 0;
        while !stopped(stop) {
            if !gate_log.open(gate) {
                if until_idle {
                    break;
                }
                sleep_unless(stop, settings.idle_poll);
                continue;
            }
            // Rings from here on wake the idle wait below.
            let seen = doorbell.rings();
            let outcome = self.dispatch_once(store, settings);
            if outcome.is_ok() && failures > 0 {
                tracing::info!(
                    lane = self.share.number,
                    failures,
                    "dispatch passes succeed again"
                );
                failures = 0;
            }
            match outcome {
                Ok(report) if report.idle() => {
                    if until_idle {
                        break;
                    }
                    doorbell.wait(seen, settings.idle_poll, stop);
                }
                Ok(report) => total.add(report),
                Err(e) if e.kind().retryable() => {
                    failures = failures.saturating_add(1);
                    if failures == 1 {
                        tracing::warn!(
                            lane = self.share.number,
                            error = %crate::failure::Causes(&e),
                            "dispatch pass failed; will retry"
                        );
                    } else {
                        tracing::debug!(
                            lane = self.share.number,
                            failures,
                            error = %crate::failure::Causes(&e),
                            "dispatch pass failed again; will retry"
                        );
                    }
                    sleep_unless(
                        stop,
                        crate::failure::backoff(
                            settings.backoff_initial,
                            settings.backoff_max,
                            failures,
                        ),
                    );
                }
                Err(e) => return Err(e),
            }
        }
        Ok(total)
    }

    pub(super) fn state_pass<S: Store>(
        &mut self,
        store: &S,
        settings: &DispatchSettings,
    ) -> Result<PassReport, OutboxError> {
        let backoff = backoff(settings);
        let Lane { share, producer } = self;
        let (report, ages) = store.transaction(|tx| {
            tx.set_repeatable_read()?;
            let rows = tx.claim_state_events(now(), settings.batch_size, *share)?;
            if rows.is_empty() {
                return Ok((PassReport::default(), Ages::default()));
            }
            keep_claim_while_frozen(tx)?;
            let span = pass_span(rows.iter().map(|r| r.event_id), &settings.state_topic);
            let _enter = span.enter();
            let flights = group_by_flight(&rows);
            let flids: Vec<i64> = flights.iter().map(|(flid, _)| *flid).collect();
            let mut current = tx.load_state_documents(&flids)?;
            let claimed = Instant::now();
            let mut messages = Vec::with_capacity(flights.len());
            // Which flight each message is about, to settle its rows.
            let mut owner = Vec::with_capacity(flights.len());
            for (index, (flid, group)) in flights.iter().enumerate() {
                for message in
                    flight_messages(&settings.state_topic, *flid, group, current.remove(flid))
                {
                    messages.push(message);
                    owner.push(index);
                }
            }
            crate::failpoint!("dispatch.before_produce");
            let outcomes = producer.deliver(&messages, fresh_claim(producer, claimed)?);
            let confirmed_at = now();
            crate::failpoint!("dispatch.state_after_produce");
            // A flight is done only when every one of its messages is.
            let mut failure: HashMap<usize, Failure> = HashMap::new();
            for (index, outcome) in owner.iter().zip(outcomes) {
                if let Err(f) = outcome {
                    failure.entry(*index).or_insert(f);
                }
            }
            // The flights something was published for: a flight gone with
            // no tombstone pending settles its rows with nothing sent.
            let mut published = vec![false; flights.len()];
            for index in &owner {
                published[*index] = true;
            }
            let mut sent = Vec::with_capacity(rows.len());
            // Each row whose change reached the topic: its message and
            // when it was registered.
            let mut delivered = Vec::with_capacity(rows.len());
            let mut failed = Vec::new();
            let mut retried = Retried::default();
            for (index, (flid, group)) in flights.iter().enumerate() {
                match failure.get(&index) {
                    None => {
                        sent.extend(group.iter().map(|r| r.event_id));
                        if published[index] {
                            delivered.extend(group.iter().map(|r| (r.message_id, r.created_at)));
                        }
                    }
                    Some(f) => {
                        log_failure(*flid, group.iter().map(|r| r.event_id), f);
                        retried.note(*flid, f);
                        failed.extend(group.iter().map(|r| FailedRow {
                            event_id: r.event_id,
                            error: f.text.clone(),
                        }));
                    }
                }
            }
            retried.log(producer, "state deliveries");
            tx.delete_sent_state_events(&sent)?;
            tx.retry_state_events(&failed, now(), backoff)?;
            let ages = Ages::read(tx, &delivered, confirmed_at)?;
            Ok::<_, OutboxError>((
                logged(
                    [rows.len(), messages.len(), sent.len(), failed.len()],
                    "state events dispatched",
                ),
                ages,
            ))
        })?;
        ages.observe(&PUBLISH_FRESHNESS.state);
        Ok(report)
    }

    pub(super) fn change_pass<S: Store>(
        &mut self,
        store: &S,
        settings: &DispatchSettings,
    ) -> Result<PassReport, OutboxError> {
        let backoff = backoff(settings);
        let Lane { share, producer } = self;
        let (report, ages) = store.transaction(|tx| {
            let rows = tx.claim_change_notices(now(), settings.batch_size, *share)?;
            if rows.is_empty() {
                return Ok((PassReport::default(), Ages::default()));
            }
            keep_claim_while_frozen(tx)?;
            let claimed = Instant::now();
            let span = pass_span(rows.iter().map(|r| r.event_id), &settings.change_topic);
            let _enter = span.enter();
            let messages: Vec<Outgoing> = rows
                .iter()
                .map(|row| notice_message(&settings.change_topic, row))
                .collect();
            let outcomes = producer.deliver(&messages, fresh_claim(producer, claimed)?);
            let confirmed_at = now();
            crate::failpoint!("dispatch.change_after_produce");
            let mut sent = Vec::with_capacity(rows.len());
            let mut delivered = Vec::with_capacity(rows.len());
            let mut failed = Vec::new();
            // Once a flight's notice failed, its later ones in the batch are
            // kept back too (even if delivered: they are sent again, and
            // consumers dedupe on the event id), so that they never overtake it.
            let mut blocked: HashMap<Option<i64>, String> = HashMap::new();
            let mut retried = Retried::default();
            for (row, outcome) in rows.iter().zip(outcomes) {
                let earlier = row.flid.and_then(|_| blocked.get(&row.flid).cloned());
                match (earlier, outcome) {
                    (None, Ok(())) => {
                        sent.push(row.event_id);
                        delivered.push((row.message_id, row.created_at));
                    }
                    (Some(text), _) => failed.push(FailedRow {
                        event_id: row.event_id,
                        error: format!("an earlier notice of the flight failed: {text}"),
                    }),
                    (None, Err(f)) => {
                        log_notice_failure(row, &f);
                        retried.note(row.flid.unwrap_or_default(), &f);
                        blocked.insert(row.flid, f.text.clone());
                        failed.push(FailedRow {
                            event_id: row.event_id,
                            error: f.text,
                        });
                    }
                }
            }
            retried.log(producer, "notice deliveries");
            tx.delete_sent_change_notices(&sent)?;
            tx.retry_change_notices(&failed, now(), backoff)?;
            let ages = Ages::read(tx, &delivered, confirmed_at)?;
            Ok::<_, OutboxError>((
                logged(
                    [rows.len(), messages.len(), sent.len(), failed.len()],
                    "change notices dispatched",
                ),
                ages,
            ))
        })?;
        ages.observe(&PUBLISH_FRESHNESS.change);
        Ok(report)
    }
}

/// Lifts the session's limit on an idle transaction for this pass: a pass
/// whose process froze keeps its claimed rows until it wakes, and so its
/// flights, which no other dispatcher sends meanwhile (the claim's flight
/// rule). Were the server to end it, another dispatcher would send newer
/// versions of those flights while messages this pass handed to librdkafka
/// before the freeze could still reach the broker after the thaw (a message
/// librdkafka reports timed out may have been sent: "possibly persisted"),
/// after them. Woken, the pass settles its reports first: a message timed
/// out keeps its rows pending, and they go out again at the flight's
/// current version. The rows wait, the pump does not.
fn keep_claim_while_frozen<T: ReadOps + ?Sized>(tx: &mut T) -> Result<(), OutboxError> {
    tx.set_idle_limit(None)?;
    Ok(())
}

/// The last moment the pass whose last statement ended at `claimed` may
/// produce (`Producer::enqueue_until`), while that moment is still ahead.
///
/// # Errors
///
/// [`OutboxError::ClaimTooOld`] once it is past: the process stood still
/// between its last statement and now, so it produces nothing of this
/// claim.
fn fresh_claim(producer: &Producer, claimed: Instant) -> Result<Instant, OutboxError> {
    let until = producer.enqueue_until(claimed);
    if Instant::now() < until {
        Ok(until)
    } else {
        Err(OutboxError::ClaimTooOld {
            held_ms: u64::try_from(claimed.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// The report of a pass (rows claimed, messages produced, rows sent, rows
/// failed), after its one log line.
fn logged([claimed, produced, sent, failed]: [usize; 4], what: &'static str) -> PassReport {
    let report = PassReport {
        claimed,
        produced,
        sent,
        failed,
    };
    tracing::info!(
        rows = report.claimed,
        messages = report.produced,
        sent = report.sent,
        failed = report.failed,
        "{what}"
    );
    report
}

/// The span of a pass: the range of its event ids and its topic.
fn pass_span(ids: impl Iterator<Item = i64>, topic: &str) -> tracing::Span {
    tracing::info_span!("outbox.event", event.id = %id_range(ids), topic = %topic)
}

/// `first..last` of a pass's event ids, for its span.
fn id_range(ids: impl Iterator<Item = i64>) -> String {
    let (min, max) = ids.fold((i64::MAX, i64::MIN), |(lo, hi), id| {
        (lo.min(id), hi.max(id))
    });
    if min == max {
        min.to_string()
    } else {
        format!("{min}..{max}")
    }
}

/// The claimed rows by flight, each flight's rows in event order (the claim
/// returns them by FLID, then event id).
fn group_by_flight(rows: &[ClaimedStateEvent]) -> Vec<(i64, Vec<&ClaimedStateEvent>)> {
    let mut groups: Vec<(i64, Vec<&ClaimedStateEvent>)> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some((flid, group)) if *flid == row.flid => group.push(row),
            _ => groups.push((row.flid, vec![row])),
        }
    }
    for (_, group) in &mut groups {
        group.sort_by_key(|r| r.event_id);
    }
    groups
}

/// The messages that bring a consumer from whatever it saw last to the
/// flight's current state: the latest pending tombstone (if the flight was
/// deleted since), then the current state (if it exists now). Nothing when
/// the flight is gone and no tombstone is pending: the state rows are
/// redundant (a tombstone of theirs was already sent).
fn flight_messages(
    topic: &str,
    flid: i64,
    rows: &[&ClaimedStateEvent],
    current: Option<StateDocument>,
) -> Vec<Outgoing> {
    let mut messages = Vec::with_capacity(2);
    let tombstone = rows.iter().rev().find(|r| r.kind == EventKind::Tombstone);
    let last_event = rows.iter().map(|r| r.event_id).max().unwrap_or_default();
    if let Some(t) = tombstone {
        let stale = current
            .as_ref()
            .is_some_and(|d| d.state_version <= t.state_version);
        if stale {
            // Only for flights recreated before version floors existed: the
            // state cannot sort after its tombstone, so the tombstone (an
            // older fact) is left out.
            tracing::warn!(
                flid = t.flid,
                tombstone_version = t.state_version,
                "flight recreated below its tombstone; sending its state only"
            );
        } else {
            messages.push(Outgoing {
                topic: topic.to_owned(),
                key: Some(t.flid.to_string()),
                value: tombstone_value(t.flid, t.state_version, t.created_at),
                headers: headers(t.event_id, EventKind::Tombstone.code()),
            });
        }
    }
    if let Some(document) = current {
        messages.push(Outgoing {
            topic: topic.to_owned(),
            key: Some(flid.to_string()),
            value: document.json.into_bytes(),
            headers: headers(last_event, EventKind::State.code()),
        });
    }
    messages
}

fn notice_message(topic: &str, row: &ClaimedNotice) -> Outgoing {
    Outgoing {
        topic: topic.to_owned(),
        key: row.flid.map(|f| f.to_string()),
        value: notice_value(
            row.event_id,
            row.flid,
            &row.change_kind,
            row.message_id,
            row.created_at,
            &row.payload,
        ),
        headers: headers(row.event_id, &row.change_kind),
    }
}

/// The headers every message carries: its outbox row, its kind and the
/// version of the topics' JSON Schema its value follows.
fn headers(event_id: i64, kind: &str) -> Vec<(&'static str, String)> {
    vec![
        (EVENT_ID_HEADER, event_id.to_string()),
        (EVENT_KIND_HEADER, kind.to_owned()),
        (SCHEMA_VERSION_HEADER, SCHEMA_VERSION.to_owned()),
    ]
}

/// The retriable failures of a pass, logged as one line: they are the
/// same fault (the link, the broker) for every flight of the pass.
#[derive(Default)]
struct Retried {
    flights: usize,
    first: Option<(i64, String)>,
}

impl Retried {
    fn note(&mut self, flid: i64, failure: &Failure) {
        if failure.retriable() {
            self.flights += 1;
            self.first
                .get_or_insert_with(|| (flid, failure.text.clone()));
        }
    }

    /// At `warn` when the fault is news to the producer's link (deliveries
    /// succeeded until the batch was sent), else at `debug`: an outage is
    /// logged once, not per pass.
    fn log(self, producer: &Producer, what: &'static str) {
        let Some((flid, error)) = self.first else {
            return;
        };
        if producer.link().failed(&error, producer.batch_sent()) {
            tracing::warn!(
                flights = self.flights,
                first_flid = flid,
                error,
                "{what} failed; kept pending, will retry"
            );
        } else {
            tracing::debug!(
                flights = self.flights,
                first_flid = flid,
                error,
                "{what} failed again; kept pending, will retry"
            );
        }
    }
}

/// One flight's failure: at `debug` when it will be retried (the pass's
/// line says so), at `error` when someone must fix its cause.
fn log_failure(flid: i64, event_ids: impl Iterator<Item = i64>, failure: &Failure) {
    let events = id_range(event_ids);
    if failure.retriable() {
        tracing::debug!(
            flid,
            event.id = %events,
            error = %failure.text,
            "state delivery failed; kept pending, will retry"
        );
    } else {
        tracing::error!(
            flid,
            event.id = %events,
            error = %failure.text,
            "state delivery refused; kept pending until someone fixes the cause"
        );
    }
}

fn log_notice_failure(row: &ClaimedNotice, failure: &Failure) {
    if failure.retriable() {
        tracing::debug!(
            flid = row.flid,
            event.id = row.event_id,
            error = %failure.text,
            "notice delivery failed; kept pending, will retry"
        );
    } else {
        tracing::error!(
            flid = row.flid,
            event.id = row.event_id,
            error = %failure.text,
            "notice delivery refused; kept pending until someone fixes the cause"
        );
    }
}
