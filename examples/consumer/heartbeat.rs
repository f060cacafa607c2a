//! flightstate's heartbeat (topic `kafka.heartbeat_topic`, default
//! `flight.heartbeat`), and what a consumer reads from it: whether the view
//! it built is up to date, or why not.
//!
//! The state topic alone cannot say so: a quiet topic looks the same
//! whether nothing happened at the airport or flightstate stopped. The
//! dispatcher sends a heartbeat every `kafka.heartbeat_secs` while it
//! dispatches, with the facts it read from the state database in one
//! snapshot. Since an outbox row is deleted only once the broker confirmed
//! it, every state the heartbeat counts as published was on the state topic
//! before the heartbeat was produced; so a consumer that reads the
//! heartbeat *first* and then the state topic to its end holds every change
//! up to the heartbeat's `PUBLISHED_THROUGH_MESSAGE_ID`.

use std::collections::BTreeMap;
use std::fmt;

use chrono::NaiveDateTime;
use serde::Deserialize;

use crate::record::{ContractError, Record, check_schema_version, json};

/// How many intervals a heartbeat stays fresh: one late or lost heartbeat
/// (a slow pass, a broker hiccup) is not yet a stall; three are.
pub const FRESH_INTERVALS: i64 = 3;

/// One heartbeat record's value (`schema/flight-heartbeat.schema.json`). An
/// absent key means unknown or none, never null; keys this consumer does
/// not know are ignored (a minor version may add some).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Heartbeat {
    /// The station (`station.home_airport`, else `flightstate`); the key.
    pub station: String,
    /// When it was sent, UTC, by flightstate's clock.
    pub sent_at: NaiveDateTime,
    /// The configured interval (`kafka.heartbeat_secs`).
    pub interval_secs: i64,
    /// The highest mailbox id the state database holds with a final status.
    pub last_message_id: Option<i64>,
    /// When that message got its status, UTC.
    pub last_applied_at: Option<NaiveDateTime>,
    /// Every change of every message up to this id is on the topics.
    pub published_through_message_id: Option<i64>,
    /// State and change rows still to send.
    pub outbox_pending: Option<i64>,
    pub outbox_oldest_age_secs: Option<i64>,
    /// Messages in the mailbox not yet applied; absent when the mailbox
    /// could not be read.
    pub mailbox_pending: Option<i64>,
    pub mailbox_oldest_age_secs: Option<i64>,
    /// Whether a pump holds the lease: something is applying the mailbox.
    pub lease_held: Option<bool>,
}

impl Heartbeat {
    /// Reads a heartbeat record (its `schema-version` checked first).
    pub fn parse(record: &Record) -> Result<Heartbeat, ContractError> {
        check_schema_version(record)?;
        serde_json::from_value(json(record)?).map_err(|e| ContractError::Malformed {
            at: record.at.clone(),
            why: format!("not a heartbeat: {e}"),
        })
    }
}

/// The latest heartbeat of each station.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Heartbeats {
    by_station: BTreeMap<String, Heartbeat>,
}

impl Heartbeats {
    /// Keeps `record`'s heartbeat if it is its station's latest. "Latest"
    /// is by `SENT_AT`, not by offset: during a takeover the old and the
    /// new process may both send one, in either order.
    pub fn apply(&mut self, record: &Record) -> Result<(), ContractError> {
        let heartbeat = Heartbeat::parse(record)?;
        let newer = self
            .by_station
            .get(&heartbeat.station)
            .is_none_or(|have| heartbeat.sent_at >= have.sent_at);
        if newer {
            self.by_station.insert(heartbeat.station.clone(), heartbeat);
        }
        Ok(())
    }

    /// The latest heartbeat of every station, by station.
    pub fn latest(&self) -> &BTreeMap<String, Heartbeat> {
        &self.by_station
    }
}

/// One reason the view may not be up to date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stall {
    /// No heartbeat at all: heartbeats off (`kafka.heartbeat_secs = 0`),
    /// a flightstate without them, or the wrong topic.
    NoHeartbeat,
    /// The latest heartbeat is older than [`FRESH_INTERVALS`] intervals:
    /// the dispatcher is not running, or cannot reach the broker.
    Stale { age_secs: i64, limit_secs: i64 },
    /// No pump holds the lease: nothing applies the mailbox.
    LeaseNotHeld,
    /// Messages wait in the mailbox (how many, the oldest's age).
    MailboxPending {
        count: i64,
        oldest_secs: Option<i64>,
    },
    /// flightstate could not read the mailbox.
    MailboxUnknown,
    /// Changes wait in the outbox, not yet on the topics.
    OutboxPending {
        count: i64,
        oldest_secs: Option<i64>,
    },
    /// The heartbeat does not say (a key absent).
    Unknown(&'static str),
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let oldest = |secs: &Option<i64>| secs.map(|s| format!(", the oldest {s} s old"));
        match self {
            Stall::NoHeartbeat => write!(f, "no heartbeat on the topic"),
            Stall::Stale {
                age_secs,
                limit_secs,
            } => write!(
                f,
                "the last heartbeat is {age_secs} s old, more than {limit_secs} s"
            ),
            Stall::LeaseNotHeld => write!(f, "no pump holds the lease"),
            Stall::MailboxPending { count, oldest_secs } => write!(
                f,
                "{count} messages wait in the mailbox{}",
                oldest(oldest_secs).unwrap_or_default()
            ),
            Stall::MailboxUnknown => write!(f, "flightstate could not read the mailbox"),
            Stall::OutboxPending { count, oldest_secs } => write!(
                f,
                "{count} changes wait in the outbox{}",
                oldest(oldest_secs).unwrap_or_default()
            ),
            Stall::Unknown(key) => write!(f, "the heartbeat has no {key}"),
        }
    }
}

/// What a consumer reads from a station's latest heartbeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Fresh, a pump holds the lease, the mailbox and the outbox are empty:
    /// the state topic holds every change through `published_through`.
    UpToDate { published_through: Option<i64> },
    /// Any of those failed; each failed condition named.
    Stalled(Vec<Stall>),
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::UpToDate {
                published_through: Some(id),
            } => write!(f, "up to date (every change through message {id})"),
            Status::UpToDate {
                published_through: None,
            } => write!(f, "up to date"),
            Status::Stalled(why) => {
                let why: Vec<String> = why.iter().map(Stall::to_string).collect();
                write!(f, "stalled ({})", why.join("; "))
            }
        }
    }
}

/// The heartbeat contract's reading: "up to date" when the latest heartbeat
/// is fresh (`now - SENT_AT <= 3 × INTERVAL_SECS`), `LEASE_HELD`, and
/// `MAILBOX_PENDING` and `OUTBOX_PENDING` are 0; "stalled" otherwise.
///
/// `now` is the consumer's clock (UTC) and `SENT_AT` flightstate's: keep
/// both hosts on NTP. A heartbeat from a clock ahead of ours counts as
/// fresh, not as a stall.
pub fn status(latest: Option<&Heartbeat>, now: NaiveDateTime) -> Status {
    let Some(beat) = latest else {
        return Status::Stalled(vec![Stall::NoHeartbeat]);
    };
    let mut why = Vec::new();
    let age_secs = (now - beat.sent_at).num_seconds();
    let limit_secs = FRESH_INTERVALS.saturating_mul(beat.interval_secs);
    if age_secs > limit_secs {
        why.push(Stall::Stale {
            age_secs,
            limit_secs,
        });
    }
    match beat.lease_held {
        Some(true) => {}
        Some(false) => why.push(Stall::LeaseNotHeld),
        None => why.push(Stall::Unknown("LEASE_HELD")),
    }
    match beat.mailbox_pending {
        Some(0) => {}
        Some(count) => why.push(Stall::MailboxPending {
            count,
            oldest_secs: beat.mailbox_oldest_age_secs,
        }),
        None => why.push(Stall::MailboxUnknown),
    }
    match beat.outbox_pending {
        Some(0) => {}
        Some(count) => why.push(Stall::OutboxPending {
            count,
            oldest_secs: beat.outbox_oldest_age_secs,
        }),
        None => why.push(Stall::Unknown("OUTBOX_PENDING")),
    }
    if why.is_empty() {
        Status::UpToDate {
            published_through: beat.published_through_message_id,
        }
    } else {
        Status::Stalled(why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").expect("a test time")
    }

    /// A heartbeat of station CTU sent at 12:00:00 every 30 s, with
    /// `changes` applied to its JSON.
    fn beat(changes: &[(&str, serde_json::Value)]) -> Record {
        let mut value = serde_json::json!({
            "STATION": "CTU",
            "SENT_AT": "2026-09-09T12:00:00",
            "INTERVAL_SECS": 30,
            "LAST_MESSAGE_ID": 120,
            "LAST_APPLIED_AT": "2026-09-09T11:59:58",
            "PUBLISHED_THROUGH_MESSAGE_ID": 120,
            "OUTBOX_PENDING": 0,
            "MAILBOX_PENDING": 0,
            "MAILBOX_OLDEST_AGE_SECS": 0,
            "LEASE_HELD": true,
        });
        for (key, new) in changes {
            if new.is_null() {
                value.as_object_mut().map(|o| o.remove(*key));
            } else {
                value[*key] = new.clone();
            }
        }
        Record {
            at: "flight.heartbeat/0@0".to_owned(),
            key: Some(b"CTU".to_vec()),
            value: Some(value.to_string().into_bytes()),
            schema_version: Some("1.0".to_owned()),
        }
    }

    fn status_of(record: &Record, now: &str) -> Status {
        let heartbeat = Heartbeat::parse(record).expect("a heartbeat");
        status(Some(&heartbeat), time(now))
    }

    #[test]
    fn a_fresh_heartbeat_with_nothing_pending_and_the_lease_held_is_up_to_date() {
        let fresh = status_of(&beat(&[]), "2026-09-09T12:01:30");
        assert_eq!(
            fresh,
            Status::UpToDate {
                published_through: Some(120)
            }
        );
        assert_eq!(
            fresh.to_string(),
            "up to date (every change through message 120)"
        );
        // A clock ahead of the consumer's is not a stall.
        assert!(matches!(
            status_of(&beat(&[]), "2026-09-09T11:59:00"),
            Status::UpToDate { .. }
        ));
    }

    #[test]
    fn a_heartbeat_older_than_three_intervals_is_stale() {
        let stale = status_of(&beat(&[]), "2026-09-09T12:01:31");
        assert_eq!(
            stale,
            Status::Stalled(vec![Stall::Stale {
                age_secs: 91,
                limit_secs: 90
            }])
        );
        assert_eq!(
            stale.to_string(),
            "stalled (the last heartbeat is 91 s old, more than 90 s)"
        );
    }

    #[test]
    fn pending_mailbox_or_outbox_rows_stall_and_are_counted() {
        let pending = beat(&[
            ("MAILBOX_PENDING", 4.into()),
            ("MAILBOX_OLDEST_AGE_SECS", 12.into()),
            ("OUTBOX_PENDING", 9.into()),
            ("OUTBOX_OLDEST_AGE_SECS", 2.into()),
            ("PUBLISHED_THROUGH_MESSAGE_ID", 117.into()),
        ]);
        let stalled = status_of(&pending, "2026-09-09T12:00:05");
        assert_eq!(
            stalled.to_string(),
            "stalled (4 messages wait in the mailbox, the oldest 12 s old; \
             9 changes wait in the outbox, the oldest 2 s old)"
        );
        let unread = beat(&[
            ("MAILBOX_PENDING", serde_json::Value::Null),
            ("MAILBOX_OLDEST_AGE_SECS", serde_json::Value::Null),
        ]);
        assert_eq!(
            status_of(&unread, "2026-09-09T12:00:05"),
            Status::Stalled(vec![Stall::MailboxUnknown])
        );
    }

    #[test]
    fn without_the_lease_nothing_applies_the_mailbox() {
        let standby = beat(&[("LEASE_HELD", false.into())]);
        assert_eq!(
            status_of(&standby, "2026-09-09T12:00:05"),
            Status::Stalled(vec![Stall::LeaseNotHeld])
        );
        let unsaid = beat(&[("LEASE_HELD", serde_json::Value::Null)]);
        assert_eq!(
            status_of(&unsaid, "2026-09-09T12:00:05").to_string(),
            "stalled (the heartbeat has no LEASE_HELD)"
        );
    }

    #[test]
    fn every_failed_condition_is_named_and_no_heartbeat_is_a_stall() {
        let everything = beat(&[
            ("LEASE_HELD", false.into()),
            ("MAILBOX_PENDING", 1.into()),
            ("OUTBOX_PENDING", 1.into()),
        ]);
        let Status::Stalled(why) = status_of(&everything, "2026-09-09T13:00:00") else {
            panic!("stalled");
        };
        assert_eq!(why.len(), 4, "{why:?}");
        assert_eq!(
            status(None, time("2026-09-09T12:00:00")).to_string(),
            "stalled (no heartbeat on the topic)"
        );
    }

    #[test]
    fn the_latest_heartbeat_is_the_last_sent_and_unknown_keys_are_ignored() {
        let mut heartbeats = Heartbeats::default();
        let later = beat(&[
            ("SENT_AT", "2026-09-09T12:00:30".into()),
            ("A_KEY_OF_VERSION_1_1", 1.into()),
        ]);
        let mut later = later;
        later.schema_version = Some("1.1".to_owned());
        heartbeats.apply(&later).expect("read");
        heartbeats.apply(&beat(&[])).expect("read");
        assert_eq!(
            heartbeats.latest()["CTU"].sent_at,
            time("2026-09-09T12:00:30")
        );
        let mut major = beat(&[]);
        major.schema_version = Some("2.0".to_owned());
        assert!(matches!(
            heartbeats.apply(&major),
            Err(ContractError::UnsupportedMajor { .. })
        ));
    }
}
