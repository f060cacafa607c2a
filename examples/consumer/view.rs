//! The current state of every flight, rebuilt from flightstate's state
//! topic: the one rule a consumer needs (docs/kafka.md, "What a consumer
//! does").
//!
//! The state topic is compacted and keyed by FLID, and each record carries
//! a flight's *whole* state (or its tombstone), never a difference. So a
//! consumer needs no history and no order across flights: per FLID it keeps
//! the record with the highest `(STATE_VERSION, UPDATED_AT)` and ignores
//! anything lower or equal. Duplicates (the producer sends at least once),
//! a retry that arrives late, and the states flightstate sends again after
//! a restore of its database (`flightstate resync`, always above what the
//! topic held) all fall out of that one comparison.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::heartbeat::Heartbeats;
use crate::record::{ContractError, Record, check_schema_version, json};

/// The order of a flight's records: the version first, the time of the
/// change second (flightstate never sends two different records of one
/// version, but a consumer need not rely on it).
///
/// `UPDATED_AT` is compared as text: it is always `YYYY-MM-DDTHH:MM:SS`,
/// UTC, so text order is time order.
pub type Order = (i64, String);

/// What the view holds of one FLID.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub order: Order,
    /// The flight's whole state; `None` once its last record is a
    /// tombstone.
    pub state: Option<Value>,
}

/// What [`View::apply`] did with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// A state above what the view held: the flight is (now) this.
    State,
    /// A tombstone above what the view held: the flight is gone.
    Tombstone,
    /// Lower than or equal to what the view holds: a duplicate, a late
    /// retry, or a record compaction has not removed yet.
    Ignored,
}

/// Every flight's current state, the version of every flight deleted, and
/// the latest heartbeat of each station.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct View {
    by_flid: BTreeMap<i64, Entry>,
    /// From the heartbeat topic: whether the view is up to date.
    pub heartbeats: Heartbeats,
}

impl View {
    /// An empty view: what a consumer starts from at offset 0.
    pub fn new() -> View {
        View::default()
    }

    /// Applies one record of the state topic.
    ///
    /// A tombstone is *remembered*, not dropped: a record of the flight
    /// with a lower version read after it (from another partition after a
    /// repartitioning, or a consumer that reads a slice again) must not
    /// bring the flight back. flightstate creates a flight anew above its
    /// tombstone, so a real comeback passes the same comparison.
    pub fn apply(&mut self, record: &Record) -> Result<Applied, ContractError> {
        check_schema_version(record)?;
        let value = json(record)?;
        let malformed = |why: String| ContractError::Malformed {
            at: record.at.clone(),
            why,
        };
        let flid = value
            .get("FLID")
            .and_then(Value::as_i64)
            .ok_or_else(|| malformed("no integer FLID".into()))?;
        // The key is the FLID as decimal text: it is what keeps a flight's
        // records in one partition, in order, and what compaction keeps the
        // last record of.
        let key = record.key.as_deref().map(String::from_utf8_lossy);
        if key.as_deref() != Some(flid.to_string().as_str()) {
            return Err(malformed(format!(
                "key {key:?} is not the value's FLID {flid}"
            )));
        }
        let version = value
            .get("STATE_VERSION")
            .and_then(Value::as_i64)
            .ok_or_else(|| malformed(format!("FLID {flid}: no integer STATE_VERSION")))?;
        let updated_at = value
            .get("UPDATED_AT")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(format!("FLID {flid}: no UPDATED_AT")))?
            .to_owned();
        let order = (version, updated_at);
        if self.by_flid.get(&flid).is_some_and(|e| e.order >= order) {
            return Ok(Applied::Ignored);
        }
        // `DELETED` is present (and true) on a tombstone only; any other
        // key this consumer does not know is simply kept with the state.
        let deleted = value.get("DELETED") == Some(&Value::Bool(true));
        let (state, applied) = if deleted {
            (None, Applied::Tombstone)
        } else {
            (Some(value), Applied::State)
        };
        self.by_flid.insert(flid, Entry { order, state });
        Ok(applied)
    }

    /// The flights that exist: FLID → whole state, by FLID.
    pub fn flights(&self) -> BTreeMap<i64, &Value> {
        self.by_flid
            .iter()
            .filter_map(|(flid, e)| e.state.as_ref().map(|s| (*flid, s)))
            .collect()
    }

    /// The FLIDs whose last record is a tombstone, with its version.
    pub fn deleted(&self) -> BTreeMap<i64, i64> {
        self.by_flid
            .iter()
            .filter(|(_, e)| e.state.is_none())
            .map(|(flid, e)| (*flid, e.order.0))
            .collect()
    }

    /// The view as JSON: `{"FLID": state, …}` of the flights that exist.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.flights()
                .into_iter()
                .map(|(flid, state)| (flid.to_string(), state.clone()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(value: &str, version: &str) -> Record {
        let flid = serde_json::from_str::<Value>(value)
            .ok()
            .and_then(|v| v["FLID"].as_i64())
            .map(|f| f.to_string());
        Record {
            at: "flight.state/0@0".into(),
            key: flid.map(String::into_bytes),
            value: Some(value.as_bytes().to_vec()),
            schema_version: Some(version.into()),
        }
    }

    const V2: &str = r#"{"FLID":7,"RENO":"B2","STATE_VERSION":2,"LAST_MESSAGE_ID":5,"UPDATED_AT":"2026-09-09T12:00:00"}"#;
    const V3: &str = r#"{"FLID":7,"RENO":"B3","STATE_VERSION":3,"LAST_MESSAGE_ID":6,"UPDATED_AT":"2026-09-09T12:01:00"}"#;
    const GONE: &str =
        r#"{"FLID":7,"DELETED":true,"STATE_VERSION":4,"UPDATED_AT":"2026-09-09T12:02:00"}"#;

    #[test]
    fn the_highest_version_wins_whatever_the_order() {
        let mut view = View::new();
        assert_eq!(view.apply(&record(V3, "1.0")), Ok(Applied::State));
        assert_eq!(view.apply(&record(V2, "1.0")), Ok(Applied::Ignored));
        assert_eq!(view.apply(&record(V3, "1.0")), Ok(Applied::Ignored));
        assert_eq!(
            view.flights().get(&7).map(|s| &s["RENO"]),
            Some(&"B3".into())
        );
    }

    #[test]
    fn a_tombstone_deletes_and_is_remembered() {
        let mut view = View::new();
        view.apply(&record(V2, "1.0")).expect("a state");
        assert_eq!(view.apply(&record(GONE, "1.0")), Ok(Applied::Tombstone));
        // A lower state read after the tombstone does not bring it back.
        assert_eq!(view.apply(&record(V3, "1.0")), Ok(Applied::Ignored));
        assert!(view.flights().is_empty());
        assert_eq!(view.deleted(), BTreeMap::from([(7, 4)]));
        // A flight created anew continues above its tombstone.
        let again = r#"{"FLID":7,"STATE_VERSION":5,"LAST_MESSAGE_ID":9,"UPDATED_AT":"2026-09-09T13:00:00"}"#;
        assert_eq!(view.apply(&record(again, "1.0")), Ok(Applied::State));
        assert_eq!(view.flights()[&7]["STATE_VERSION"], 5);
    }

    #[test]
    fn the_same_version_later_in_time_wins() {
        let mut view = View::new();
        let later = V2.replace("12:00:00", "12:00:01").replace("B2", "B2b");
        view.apply(&record(V2, "1.0")).expect("a state");
        assert_eq!(view.apply(&record(&later, "1.0")), Ok(Applied::State));
        assert_eq!(
            view.flights().get(&7).map(|s| &s["RENO"]),
            Some(&"B2b".into())
        );
    }

    #[test]
    fn a_minor_version_and_unknown_keys_are_read_a_major_version_stops() {
        let mut view = View::new();
        let newer = V2.replace("\"RENO\"", "\"NEW_ELEMENT\":1,\"RENO\"");
        assert_eq!(view.apply(&record(&newer, "1.7")), Ok(Applied::State));
        let refused = view.apply(&record(V3, "2.0")).expect_err("major 2");
        assert!(matches!(refused, ContractError::UnsupportedMajor { .. }));
        assert!(
            refused.to_string().contains("schema-version 2.0"),
            "{refused}"
        );
        let mut bare = record(V3, "1.0");
        bare.schema_version = None;
        assert!(matches!(
            view.apply(&bare),
            Err(ContractError::NoSchemaVersion { .. })
        ));
        assert_eq!(
            view.flights()[&7]["STATE_VERSION"],
            2,
            "nothing refused was applied"
        );
    }

    #[test]
    fn a_key_that_is_not_the_flid_is_refused() {
        let mut wrong = record(V2, "1.0");
        wrong.key = Some(b"8".to_vec());
        assert!(matches!(
            View::new().apply(&wrong),
            Err(ContractError::Malformed { .. })
        ));
    }
}
