//! What a clean-up keeps: the retentions and the batch size, from the
//! `[cleanup]` section of the configuration (`docs/configuration.md`).

use chrono::NaiveTime;

use crate::station::HistoryRule;

/// The retentions of a clean-up and the size of its batches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CleanupSettings {
    /// A flight without an operation day is removed once unchanged for
    /// this many days.
    pub flight_days: u32,
    /// A day's snapshot ledger is removed once the day is this many days
    /// old and has no flight left.
    pub ledger_days: u32,
    /// A settled journaled call is purged once unchanged for this many days.
    pub effect_call_days: u32,
    /// A SUCCEEDED message's processing record is purged once unchanged for
    /// this many days (and its calls are purged).
    pub proc_state_days: u32,
    /// A recorded operator action is removed once this many days old.
    pub action_days: u32,
    /// Rows per transaction: `PIPELINE_LOCK` is held for one batch at most.
    pub batch: u32,
    /// The station's day boundary: which day a flight's SODT falls in, to
    /// tell whether a live request of that day may still answer for it.
    pub day_boundary: NaiveTime,
    /// Which past operation days are retired (`cleanup.history_days`);
    /// `None` keeps every day.
    pub history: Option<HistoryRule>,
}

impl Default for CleanupSettings {
    fn default() -> Self {
        CleanupSettings {
            flight_days: 7,
            ledger_days: 30,
            effect_call_days: 30,
            proc_state_days: 30,
            action_days: 400,
            batch: 500,
            day_boundary: NaiveTime::MIN,
            history: None,
        }
    }
}
