//! `flightstate resync`: brings the state topic and a state database
//! restored from a backup back into agreement (`docs/operations.md`, "After
//! a restore").
//!
//! A restore sets every flight's `STATE_VERSION` back to what it was at the
//! backup, below what consumers have already seen; consumers keep the
//! highest version per FLID (`docs/kafka.md`), so they would ignore the
//! flight's next states until it passed its old version. And the state
//! events that were pending at the backup come back pending, to be sent
//! again at versions lower than the topic holds. So, in this order:
//!
//! 1. the resync takes the pump lease (`lease.rs`): no pump applies, no
//!    dispatcher sends, until it is done;
//! 2. it settles every pending state event (done without being sent): each
//!    is superseded by step 4's, and none may put a lower version on the
//!    topic;
//! 3. it reads the state topic from the beginning (`topic.rs`): what
//!    consumers hold of each FLID and at which version; and the highest
//!    `event-id` of both topics, above which it numbers the outbox rows
//!    registered from now on (the restore set the outboxes' sequences back,
//!    and consumers dedupe change notices on that header);
//! 4. it walks the stored flights in batches: a flight whose version the
//!    topic has reached or passed is raised to the topic's + 1 (with its
//!    state document), and every stored flight's current state is queued in
//!    the outbox at its version;
//! 5. for each FLID the topic holds that the database does not, it records
//!    a version floor (`FLIGHT_VERSION_FLOOR`: a flight created again under
//!    that FLID continues above it) and, where consumers hold it as a
//!    state, queues a tombstone at the topic's version + 1.
//!
//! Every batch is one transaction under `PIPELINE_LOCK`, fenced by the
//! lease's epoch. The dispatcher sends what was queued once it runs again.
//! A dry run takes no lease and no lock, reads the same, and changes
//! nothing. Talks to the database through the store traits only; owns no
//! SQL.

mod gate;
mod lease;
mod topic;

use std::collections::HashMap;
use std::time::Duration;

use chrono::NaiveDateTime;
use serde::Serialize;

pub use gate::NotDuringResync;
pub use lease::{RESYNC_HOLDER_PREFIX, held_by_resync};
pub use topic::{TopicFlight, TopicView, read_highest_event_id, read_state_topic};

use lease::Tenure;

use crate::FailureKind;
use crate::kafka::{KafkaClient, LinkError};
use crate::state::state_document;
use crate::station::utc_now;
use crate::store::{
    EventKind, FlightVersion, OutboxOps, RaisedVersion, ResyncOps, StateEvent, StateTx, Store,
    StoreError,
};

/// How a resync runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResyncSettings {
    /// The state topic (`kafka.state_topic`).
    pub state_topic: String,
    /// The change topic (`kafka.change_topic`): only its event ids are read.
    pub change_topic: String,
    /// Flights (and FLIDs) per batch transaction.
    pub batch: i64,
    /// The pump lease's length (`pump.lease_secs`); renewed after a third.
    pub lease_ttl: Duration,
    /// The lease holder's name; starts with [`RESYNC_HOLDER_PREFIX`].
    pub holder: String,
    /// How long the topic read waits for a record that is due before it
    /// gives up.
    pub topic_stall: Duration,
}

impl ResyncSettings {
    /// Settings for the topics `(state, change)`, with the lease of
    /// `lease_ttl`, held as `resync:<host>:<pid>:…`.
    pub fn new(
        (state_topic, change_topic): (impl Into<String>, impl Into<String>),
        lease_ttl: Duration,
    ) -> ResyncSettings {
        ResyncSettings {
            state_topic: state_topic.into(),
            change_topic: change_topic.into(),
            batch: 1_000,
            lease_ttl,
            holder: format!(
                "{RESYNC_HOLDER_PREFIX}{}",
                crate::lease_holder::default_holder()
            ),
            topic_stall: Duration::from_secs(60),
        }
    }
}

/// What a resync did, or with `dry_run` would do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ResyncReport {
    /// Nothing was changed.
    pub dry_run: bool,
    /// Records read from the state topic.
    pub topic_records: u64,
    /// FLIDs on the state topic.
    pub topic_flights: usize,
    /// Of them, those whose latest record is a state.
    pub topic_live: usize,
    /// Records skipped because their FLID and version could not be read.
    pub topic_unreadable: u64,
    /// Stored flights.
    pub stored_flights: usize,
    /// Stored flights whose version was raised above the topic's.
    pub flights_raised: usize,
    /// State events queued: one per stored flight, at its (new) version.
    pub states_republished: usize,
    /// Tombstones queued: FLIDs consumers hold as a state that the
    /// database does not hold.
    pub tombstones: usize,
    /// Version floors recorded: FLIDs on the topic the database does not
    /// hold.
    pub version_floors: usize,
    /// Pending state events settled without being sent.
    pub stale_state_events: usize,
    /// The highest `event-id` on the state topic: new state events are
    /// numbered above it.
    pub state_topic_event_id: Option<i64>,
    /// The highest `event-id` on the change topic: new change notices are
    /// numbered above it.
    pub change_topic_event_id: Option<i64>,
}

/// Why a resync stopped. What it committed before stays; running it again
/// redoes the whole (versions only ever rise).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResyncError {
    /// The state database failed. Run the resync again.
    #[error("state database")]
    Store(#[from] StoreError),
    /// Another process holds the pump lease: a pump (`run`, `pump`) or
    /// another resync is at work. Stop it first.
    #[error(
        "the pump lease is held by `{holder}` until {until} UTC; stop every `flightstate run` \
         and `flightstate pump` (a stopped one lets it go; a killed one's runs out) and run \
         resync again"
    )]
    PipelineBusy {
        /// Who holds it.
        holder: String,
        /// When it runs out unless renewed (UTC).
        until: NaiveDateTime,
    },
    /// The lease moved to another process while the resync ran (it could
    /// not renew it in time). Stop every pump and run the resync again.
    #[error(
        "resync lost the pump lease to another process; stop every `flightstate run` and \
         `flightstate pump`, then run resync again"
    )]
    LeaseLost,
    /// The brokers did not answer, or refused the client.
    #[error("cannot read the topics")]
    Link(#[from] LinkError),
    /// The consumer failed.
    #[error("cannot {what}")]
    Kafka {
        /// What it was doing.
        what: &'static str,
        /// librdkafka's error.
        #[source]
        source: rdkafka::error::KafkaError,
    },
    /// No record came for a while although some were still due.
    #[error(
        "reading a topic stalled: {remaining} records still due, none received for {} s",
        .waited.as_secs()
    )]
    TopicStalled {
        /// Records still due.
        remaining: i64,
        /// How long it waited.
        waited: Duration,
    },
    /// A topic kept growing while it was read: something still sends to
    /// it. Stop every dispatcher first.
    #[error(
        "the topic `{topic}` kept growing while resync read it: something still sends to it; \
         stop every `flightstate dispatch` and `flightstate run`, and any other producer of the \
         topic, then run resync again"
    )]
    TopicGrowing {
        /// The topic.
        topic: String,
    },
}

impl ResyncError {
    /// What went wrong, for a caller deciding whether to try again.
    pub fn kind(&self) -> FailureKind {
        match self {
            ResyncError::Store(e) => e.kind(),
            ResyncError::PipelineBusy { .. } | ResyncError::TopicGrowing { .. } => {
                FailureKind::Conflict
            }
            ResyncError::LeaseLost => FailureKind::Fenced,
            ResyncError::Link(_) | ResyncError::Kafka { .. } => FailureKind::ConnectionLost,
            ResyncError::TopicStalled { .. } => FailureKind::Timeout,
        }
    }
}

/// The version a stored flight at `stored` goes on at, given what the topic
/// holds of it: the topic's + 1 once the topic has reached or passed it
/// (consumers would ignore anything lower or equal), else its own.
pub fn resynced_version(stored: i64, topic: Option<&TopicFlight>) -> i64 {
    match topic {
        Some(seen) if seen.version >= stored => seen.version + 1,
        _ => stored,
    }
}

/// What the resync records of a FLID the topic holds and the database
/// does not: its version floor, and the version of the tombstone to send
/// when consumers hold it as a state (a tombstone they hold already needs
/// none).
pub fn missing_flight(topic: &TopicFlight) -> (i64, Option<i64>) {
    if topic.deleted {
        (topic.version, None)
    } else {
        (topic.version + 1, Some(topic.version + 1))
    }
}

/// Runs a resync of `store` against the state topic `client` reaches, or
/// with `dry_run` counts what it would do and changes nothing.
///
/// # Errors
///
/// A [`ResyncError`]; the batches committed before it stay, and a second
/// resync redoes the whole.
pub fn resync<S: Store>(
    store: &S,
    client: &KafkaClient,
    settings: &ResyncSettings,
    dry_run: bool,
) -> Result<ResyncReport, ResyncError> {
    if dry_run {
        let pending = store.transaction(|tx| tx.count_pending_events())?;
        let view = read_state_topic(
            client,
            &settings.state_topic,
            settings.topic_stall,
            &mut || Ok(()),
        )?;
        let mut report = topic_report(&view, true);
        report.stale_state_events = usize::try_from(pending.state_events).unwrap_or(usize::MAX);
        report.change_topic_event_id = read_highest_event_id(
            client,
            &settings.change_topic,
            settings.topic_stall,
            &mut || Ok(()),
        )?;
        apply(store, None, settings, view, &mut report)?;
        return Ok(report);
    }
    let mut tenure = Tenure::acquire(store, &settings.holder, settings.lease_ttl)?;
    let outcome = resync_under(store, client, settings, &mut tenure);
    tenure.release();
    outcome
}

/// Runs a resync under the pump lease the caller holds as
/// `settings.holder` at `epoch` (the catch-up of a lost tail,
/// `crate::lost_tail`, which re-applies the tail under it first): the lease
/// passes from one to the other without ever being free, so that no pump
/// takes it and no dispatcher sends in between. Released at the end.
///
/// # Errors
///
/// As [`resync`]'s.
pub fn resync_held<S: Store>(
    store: &S,
    client: &KafkaClient,
    settings: &ResyncSettings,
    epoch: i64,
) -> Result<ResyncReport, ResyncError> {
    let mut tenure = Tenure::adopt(store, &settings.holder, epoch, settings.lease_ttl);
    let outcome = resync_under(store, client, settings, &mut tenure);
    tenure.release();
    outcome
}

/// The resync's steps while it holds the lease.
fn resync_under<S: Store>(
    store: &S,
    client: &KafkaClient,
    settings: &ResyncSettings,
    tenure: &mut Tenure<'_, S>,
) -> Result<ResyncReport, ResyncError> {
    let mut settled = 0;
    loop {
        let fence = &*tenure;
        let done = store.transaction(|tx| {
            fence.fence(tx)?;
            Ok::<_, ResyncError>(tx.delete_superseded_state_events(settings.batch.max(1))?)
        })?;
        settled += done;
        tenure.keep()?;
        if done == 0 {
            break;
        }
    }
    tracing::info!(
        state_events = settled,
        "settled the state events pending from before the restore"
    );
    let view = read_state_topic(
        client,
        &settings.state_topic,
        settings.topic_stall,
        &mut || tenure.keep(),
    )?;
    tracing::info!(
        topic = settings.state_topic,
        records = view.records,
        flights = view.flights.len(),
        live = view.live(),
        unreadable = view.unreadable,
        missing = view.missing,
        "read the state topic"
    );
    let mut report = topic_report(&view, false);
    report.stale_state_events = settled;
    report.change_topic_event_id = read_highest_event_id(
        client,
        &settings.change_topic,
        settings.topic_stall,
        &mut || tenure.keep(),
    )?;
    let fence = &*tenure;
    store.transaction(|tx| {
        fence.fence(tx)?;
        tx.raise_event_ids(
            report.state_topic_event_id.unwrap_or_default(),
            report.change_topic_event_id.unwrap_or_default(),
        )?;
        Ok::<_, ResyncError>(())
    })?;
    tracing::info!(
        state_events_above = report.state_topic_event_id,
        change_notices_above = report.change_topic_event_id,
        "new outbox rows are numbered above the topics' event ids"
    );
    apply(store, Some(tenure), settings, view, &mut report)?;
    tracing::info!(
        flights_raised = report.flights_raised,
        states_republished = report.states_republished,
        tombstones = report.tombstones,
        version_floors = report.version_floors,
        "resync done; the dispatcher sends what it queued"
    );
    Ok(report)
}

fn topic_report(view: &TopicView, dry_run: bool) -> ResyncReport {
    ResyncReport {
        dry_run,
        topic_records: view.records,
        topic_flights: view.flights.len(),
        topic_live: view.live(),
        topic_unreadable: view.unreadable,
        state_topic_event_id: view.max_event_id,
        ..ResyncReport::default()
    }
}

/// Steps 4 and 5: the stored flights, then the FLIDs only the topic holds,
/// batch by batch; with `tenure` (the lease held) each batch is fenced and
/// committed, without it (a dry run) only counted.
fn apply<S: Store>(
    store: &S,
    mut tenure: Option<&mut Tenure<'_, S>>,
    settings: &ResyncSettings,
    mut view: TopicView,
    report: &mut ResyncReport,
) -> Result<(), ResyncError> {
    let batch = settings.batch.max(1);
    walk_stored(store, tenure.as_deref_mut(), batch, &mut view, report)?;
    let mut missing: Vec<(i64, TopicFlight)> = view.flights.into_iter().collect();
    missing.sort_unstable_by_key(|(flid, _)| *flid);
    for chunk in missing.chunks(usize::try_from(batch).unwrap_or(1_000)) {
        let floors: Vec<(i64, i64)> = chunk
            .iter()
            .map(|(flid, seen)| (*flid, missing_flight(seen).0))
            .collect();
        let tombstones: Vec<StateEvent> = chunk
            .iter()
            .filter_map(|(flid, seen)| {
                missing_flight(seen).1.map(|version| StateEvent {
                    // The message of the state consumers hold: the
                    // tombstone is that flight's end.
                    message_id: seen.last_message_id.unwrap_or_default(),
                    flid: *flid,
                    state_version: version,
                    kind: EventKind::Tombstone,
                })
            })
            .collect();
        report.version_floors += floors.len();
        report.tombstones += tombstones.len();
        let Some(tenure) = tenure.as_deref_mut() else {
            continue;
        };
        let fence = &*tenure;
        store.transaction(|tx| {
            fence.fence(tx)?;
            let now = utc_now();
            tx.upsert_version_floors(&floors, now)?;
            tx.append_state_events(&tombstones, now)?;
            Ok::<_, ResyncError>(())
        })?;
        tenure.keep()?;
    }
    Ok(())
}

/// Step 4: the stored flights a page at a time (each page one transaction),
/// taking each out of `view` so that what is left there is what only the
/// topic holds.
fn walk_stored<S: Store>(
    store: &S,
    mut tenure: Option<&mut Tenure<'_, S>>,
    batch: i64,
    view: &mut TopicView,
    report: &mut ResyncReport,
) -> Result<(), ResyncError> {
    // FLIDs are never negative: every one is above this.
    let mut after = -1;
    loop {
        let topic = &view.flights;
        let fence = tenure.as_deref();
        let (page, (raised, republished)) = store.transaction(|tx| {
            let page = match fence {
                Some(fence) => {
                    fence.fence(tx)?;
                    let page = tx.select_flight_versions(after, batch)?;
                    let counts = republish(tx, &page, topic)?;
                    (page, counts)
                }
                None => {
                    let page = tx.select_flight_versions(after, batch)?;
                    let raised = page
                        .iter()
                        .filter(|f| {
                            resynced_version(f.state_version, topic.get(&f.flid)) != f.state_version
                        })
                        .count();
                    let queued = page.len();
                    (page, (raised, queued))
                }
            };
            Ok::<_, ResyncError>(page)
        })?;
        let Some(last) = page.last() else {
            return Ok(());
        };
        after = last.flid;
        report.stored_flights += page.len();
        report.flights_raised += raised;
        report.states_republished += republished;
        for flight in &page {
            view.flights.remove(&flight.flid);
        }
        if let Some(tenure) = tenure.as_deref_mut() {
            tenure.keep()?;
        }
    }
}

/// One page of stored flights in the resync's transaction: raises those the
/// topic has reached (with their documents at the new version) and queues
/// every one's state at its version. Returns (raised, queued).
fn republish(
    tx: &mut (impl StateTx + ResyncOps),
    page: &[FlightVersion],
    topic: &HashMap<i64, TopicFlight>,
) -> Result<(usize, usize), ResyncError> {
    let versions: Vec<(FlightVersion, i64)> = page
        .iter()
        .map(|f| (*f, resynced_version(f.state_version, topic.get(&f.flid))))
        .collect();
    let to_raise: Vec<i64> = versions
        .iter()
        .filter(|(f, version)| *version != f.state_version)
        .map(|(f, _)| f.flid)
        .collect();
    let mut flights = tx.load_flights(&to_raise)?;
    let mut raised = Vec::with_capacity(to_raise.len());
    for (read, version) in versions.iter().filter(|(f, v)| *v != f.state_version) {
        let flight = flights
            .get_mut(&read.flid)
            .filter(|f| f.state_version == read.state_version)
            .ok_or_else(|| {
                StoreError::new(
                    FailureKind::Conflict,
                    "raise_state_versions",
                    format!("flight {} changed under the resync", read.flid),
                )
            })?;
        flight.state_version = *version;
        raised.push(RaisedVersion {
            flid: read.flid,
            from_version: read.state_version,
            state_version: *version,
            state_document: state_document(flight),
        });
    }
    tx.raise_state_versions(&raised)?;
    let events: Vec<StateEvent> = versions
        .iter()
        .map(|(f, version)| StateEvent {
            message_id: f.last_message_id,
            flid: f.flid,
            state_version: *version,
            kind: EventKind::State,
        })
        .collect();
    tx.append_state_events(&events, utc_now())?;
    Ok((raised.len(), events.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(version: i64, deleted: bool) -> TopicFlight {
        TopicFlight {
            version,
            updated_at: None,
            deleted,
            last_message_id: (!deleted).then_some(4),
        }
    }

    #[test]
    fn a_flight_goes_on_above_what_the_topic_holds() {
        assert_eq!(resynced_version(3, None), 3);
        assert_eq!(resynced_version(5, Some(&seen(4, false))), 5);
        assert_eq!(resynced_version(4, Some(&seen(4, false))), 5);
        assert_eq!(resynced_version(3, Some(&seen(7, false))), 8);
        // Deleted for consumers: the restored flight comes back above its
        // tombstone.
        assert_eq!(resynced_version(3, Some(&seen(7, true))), 8);
    }

    #[test]
    fn a_flid_only_the_topic_holds_gets_a_floor_and_a_tombstone_when_live() {
        assert_eq!(missing_flight(&seen(6, false)), (7, Some(7)));
        assert_eq!(missing_flight(&seen(6, true)), (6, None));
    }
}
