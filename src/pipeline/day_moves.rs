//! The operation-day moves step of a snapshot (`station.day_moves`, seed
//! ACM2-31#9): under `forward_only`, a snapshot of an older day leaves the
//! flights that now belong to a later day where they are, state and day,
//! and says so — each gets a notice with the reason, and the snapshot's
//! outcome counts them. The day's list still records every flight the
//! message carried, and the set-difference delete never reaches them
//! (it is guarded by the day).

use std::collections::HashMap;

use chrono::NaiveDate;

use super::PipelineError;
use super::message_ref::json;
use crate::state::DayMoves;
use crate::store::{ChangeNotice, FlightDigest};

/// The `KAFKA_MSG.CHANGE_KIND` of a flight a snapshot left on its later
/// day.
pub(super) const KEPT_ON_LATER_DAY: &str = "KEPT_ON_LATER_DAY";

/// The flights a snapshot leaves on their later day, with their notices.
#[derive(Default)]
pub(super) struct Kept {
    /// Their FLIDs, in input order.
    pub(super) flids: Vec<i64>,
    /// One notice each.
    pub(super) notices: Vec<ChangeNotice>,
}

/// The flights among `flids` (stored as `stored` says) that a snapshot of
/// `day` must not write under `rule`.
pub(super) fn keep_later_days(
    rule: DayMoves,
    day: NaiveDate,
    message_id: i64,
    flids: &[i64],
    stored: &HashMap<i64, FlightDigest>,
) -> Result<Kept, PipelineError> {
    let mut kept = Kept::default();
    for &flid in flids {
        let Some(later) = stored.get(&flid).and_then(|s| s.operation_day) else {
            continue;
        };
        if rule.allows(day, Some(later)) {
            continue;
        }
        kept.flids.push(flid);
        kept.notices.push(ChangeNotice {
            message_id,
            flid: Some(flid),
            change_kind: KEPT_ON_LATER_DAY,
            payload: json(&serde_json::json!({
                "operation_day": later,
                "snapshot_day": day,
                "reason": format!(
                    "the flight belongs to the later operation day {later}; a snapshot of {day} neither moves it back nor overwrites it (station.day_moves = {})",
                    rule.code()
                ),
            }))?,
        });
    }
    Ok(kept)
}
