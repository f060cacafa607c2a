//! The flights a run of flight-level messages works on — one message, or a
//! group the pump commits together — from their stored state to their new
//! one.
//!
//! Everything between the load and the flush happens in memory: each
//! message merges into the state the messages before it left, and is
//! settled there (its versions, events, notices and report), exactly as if
//! it had committed alone. The flush then writes each flight once, at the
//! state the last message left it in, with only the detail tables that
//! differ from what is stored.

use std::collections::{HashMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};

use crate::pipeline::PipelineError;
use crate::pipeline::attempt::Attempt;
use crate::pipeline::outcome::{EventReport, json};
use crate::state::{FlightState, StoredFlight, changed_parts};
use crate::store::{
    ChangeNotice, DetailTable, DetailTables, EventKind, FlightRows, FlightWrite, StateEvent,
    StateTx, first_version,
};

/// A flight's state while a message is being applied: `None` once deleted.
type Draft = Option<(FlightState, Option<NaiveDate>)>;

/// What one message changed, settled in memory: its outbox rows and report.
pub(super) struct SettledMessage {
    pub(super) report: EventReport,
    pub(super) events: Vec<StateEvent>,
    pub(super) notices: Vec<ChangeNotice>,
}

/// The flights of a run of messages.
pub(super) struct Working {
    /// What was stored before the run.
    stored: HashMap<i64, StoredFlight>,
    /// Each named flight as the messages settled so far left it (`None`:
    /// absent or deleted).
    latest: HashMap<i64, Option<StoredFlight>>,
    /// Version floors: of flights absent at the load, and every tombstone
    /// of the run, so a flight created again continues above it.
    floors: HashMap<i64, i64>,
    /// Tombstone versions the run wrote, to become version floors.
    tombstones: HashMap<i64, i64>,
    /// The FLIDs the current message names, first mention first.
    order: Vec<i64>,
    /// The current message's new state of each.
    drafts: HashMap<i64, Draft>,
}

impl Working {
    /// Reads the full stored state of `flids` (repeats allowed): every
    /// flight any message of the run names.
    pub(super) fn load<T: StateTx>(tx: &mut T, flids: &[i64]) -> Result<Working, PipelineError> {
        let order = first_mentions(flids);
        let stored = tx.load_flights(&order)?;
        let absent: Vec<i64> = order
            .iter()
            .copied()
            .filter(|flid| !stored.contains_key(flid))
            .collect();
        let floors = tx.select_version_floors(&absent)?;
        let latest = order
            .iter()
            .map(|flid| (*flid, stored.get(flid).cloned()))
            .collect();
        Ok(Working {
            stored,
            latest,
            floors,
            tombstones: HashMap::new(),
            order: Vec::new(),
            drafts: HashMap::new(),
        })
    }

    /// The operation days of the flights among `flids` as the messages
    /// settled so far left them (flights absent or without a day have
    /// none), each once, in order.
    pub(super) fn days_of(&self, flids: &[i64]) -> Vec<NaiveDate> {
        let mut days: Vec<NaiveDate> = flids
            .iter()
            .filter_map(|flid| self.latest.get(flid))
            .filter_map(|f| f.as_ref().and_then(|f| f.operation_day))
            .collect();
        days.sort_unstable();
        days.dedup();
        days
    }

    /// Starts a message that names `flids`: its drafts begin where the
    /// messages before it left each flight.
    pub(super) fn begin(&mut self, flids: &[i64]) {
        self.order = first_mentions(flids);
        self.drafts = self
            .order
            .iter()
            .map(|flid| {
                let draft = self
                    .latest
                    .get(flid)
                    .and_then(Option::as_ref)
                    .map(|f| (f.state.clone(), f.operation_day));
                (*flid, draft)
            })
            .collect();
    }

    /// The flight's current state in this message, if it exists.
    pub(super) fn current(&self, flid: i64) -> Option<&FlightState> {
        self.drafts
            .get(&flid)
            .and_then(|d| d.as_ref())
            .map(|(state, _)| state)
    }

    /// Sets the flight's new state (`None`: deleted). A flight that exists
    /// keeps its operation day; one that does not yet has none.
    pub(super) fn set(&mut self, flid: i64, state: Option<FlightState>) {
        let day = self
            .drafts
            .get(&flid)
            .and_then(|d| d.as_ref())
            .and_then(|(_, day)| *day);
        self.drafts.insert(flid, state.map(|s| (s, day)));
    }

    /// Settles the current message in memory: per flight it names,
    /// unchanged (state and day) → nothing; changed → `STATE_VERSION + 1`;
    /// new → its first version (above any tombstone); deleted → a tombstone
    /// at the last version plus one.
    ///
    /// # Errors
    ///
    /// A notice that cannot be written as JSON (`outcome::json`).
    pub(super) fn settle(
        &mut self,
        message: &Attempt<'_>,
    ) -> Result<SettledMessage, PipelineError> {
        let meta = message.read_meta()?;
        let mut settled = SettledMessage {
            report: EventReport {
                event: format!("{}/{}", meta.msg_type, meta.styp),
                ..EventReport::default()
            },
            events: Vec::new(),
            notices: Vec::new(),
        };
        for flid in std::mem::take(&mut self.order) {
            let draft = self.drafts.remove(&flid).flatten();
            let old = self.latest.get(&flid).and_then(Option::as_ref);
            match (old, draft) {
                (None, None) => settled.report.unchanged.push(flid),
                (Some(old), None) => {
                    let tombstone = old.state_version + 1;
                    self.settle_deleted(&mut settled, message, flid, tombstone)?;
                }
                (Some(old), Some((state, day)))
                    if old.state == state && old.operation_day == day =>
                {
                    settled.report.unchanged.push(flid);
                }
                (_, Some(draft)) => self.settle_written(&mut settled, message, flid, draft)?,
            }
        }
        Ok(settled)
    }

    /// A flight the message deleted: its tombstone at `tombstone`, which
    /// later messages of the run continue above.
    fn settle_deleted(
        &mut self,
        settled: &mut SettledMessage,
        message: &Attempt<'_>,
        flid: i64,
        tombstone: i64,
    ) -> Result<(), PipelineError> {
        settled.report.deleted.push(flid);
        settled.events.push(StateEvent {
            message_id: message.message_id,
            flid,
            state_version: tombstone,
            kind: EventKind::Tombstone,
        });
        settled.notices.push(ChangeNotice {
            message_id: message.message_id,
            flid: Some(flid),
            change_kind: "DELETED",
            payload: json(&serde_json::json!({
                "event": settled.report.event,
                "state_version": tombstone,
            }))?,
        });
        self.floors.insert(flid, tombstone);
        self.tombstones.insert(flid, tombstone);
        self.latest.insert(flid, None);
        Ok(())
    }

    /// A flight the message created or changed to `(state, day)`: its next
    /// version, above its tombstone if it had one.
    fn settle_written(
        &mut self,
        settled: &mut SettledMessage,
        message: &Attempt<'_>,
        flid: i64,
        (state, day): (FlightState, Option<NaiveDate>),
    ) -> Result<(), PipelineError> {
        let old = self.latest.get(&flid).and_then(Option::as_ref);
        let version = old.map_or_else(
            || first_version(self.floors.get(&flid).copied()),
            |o| o.state_version + 1,
        );
        let empty = FlightState::new(flid);
        let before = old.map_or(&empty, |o| &o.state);
        settled.notices.push(ChangeNotice {
            message_id: message.message_id,
            flid: Some(flid),
            change_kind: if old.is_some() { "UPDATED" } else { "CREATED" },
            payload: json(&serde_json::json!({
                "event": settled.report.event,
                "operation_day": day,
                "state_version": version,
                "changed": changed_parts(before, &state),
            }))?,
        });
        settled.events.push(StateEvent {
            message_id: message.message_id,
            flid,
            state_version: version,
            kind: EventKind::State,
        });
        if old.is_some() {
            settled.report.updated.push(flid);
        } else {
            settled.report.created.push(flid);
        }
        let flight = StoredFlight {
            state,
            operation_day: day,
            state_version: version,
            last_message_id: message.message_id,
            updated_at: message.now,
        };
        self.latest.insert(flid, Some(flight));
        Ok(())
    }

    /// Writes every flight the run changed, once, at its latest state:
    /// the main row and the detail tables that differ from what was
    /// stored; deletes the flights the run left deleted; records the run's
    /// tombstones as version floors.
    pub(super) fn flush<T: StateTx>(
        self,
        tx: &mut T,
        now: NaiveDateTime,
    ) -> Result<(), PipelineError> {
        let Working {
            stored,
            latest,
            tombstones,
            ..
        } = self;
        let mut changes = Vec::new();
        let mut deletes = Vec::new();
        for (flid, flight) in latest {
            let old = stored.get(&flid);
            match (old, flight) {
                (Some(_), None) => deletes.push(flid),
                (None, None) => {}
                (Some(old), Some(new)) if *old == new => {}
                (old, Some(new)) => {
                    let tables = match old {
                        Some(old) => DetailTable::changed(&old.state, &new.state),
                        None => DetailTable::changed(&FlightState::new(flid), &new.state),
                    };
                    changes.push(FlightWrite {
                        digest: new.state.digest(),
                        flight: new,
                        tables: DetailTables::Only(tables),
                    });
                }
            }
        }
        // A stable order: statements bind the same arrays for the same run.
        changes.sort_by_key(|c| c.flight.state.flid);
        deletes.sort_unstable();
        tx.write_flights(&changes, FlightRows::MayExist)?;
        if !deletes.is_empty() {
            tx.delete_flights(&deletes)?;
        }
        if !tombstones.is_empty() {
            let mut floors: Vec<(i64, i64)> = tombstones.into_iter().collect();
            floors.sort_unstable();
            tx.upsert_version_floors(&floors, now)?;
        }
        Ok(())
    }
}

/// `flids` without repeats, first mention first.
fn first_mentions(flids: &[i64]) -> Vec<i64> {
    let mut seen = HashSet::with_capacity(flids.len());
    flids
        .iter()
        .copied()
        .filter(|flid| seen.insert(*flid))
        .collect()
}
