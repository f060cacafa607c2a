//! Why a FLOP or an ad-hoc record cannot be merged into a flight.

use super::super::from_record::RecordError;

/// Why an event or ad-hoc record cannot be applied; the message is bad
/// input (DEAD).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// The body carries none of the elements its subtype reads.
    #[error(
        "FLID {flid}: FLOP {subtype} carries none of its elements ({elements}); \
         absent is not a clear: send the element empty to clear it"
    )]
    NothingToApply {
        /// The flight.
        flid: i64,
        /// The subtype.
        subtype: &'static str,
        /// What it should carry.
        elements: String,
    },
    /// An element that a flight cannot lack is sent empty.
    #[error("FLID {flid}: FLOP {subtype} cannot clear {element}: every flight record carries it")]
    CannotClear {
        /// The flight.
        flid: i64,
        /// The subtype.
        subtype: &'static str,
        /// The element.
        element: &'static str,
    },
    /// An element or child the rule needs is missing or empty.
    #[error("FLID {flid}: FLOP {subtype}: {element} {position}has no {needed}")]
    Missing {
        /// The flight.
        flid: i64,
        /// The subtype.
        subtype: &'static str,
        /// The element (group) concerned.
        element: &'static str,
        /// `"entry 2 "` for a group entry, else empty.
        position: String,
        /// What it lacks.
        needed: &'static str,
    },
    /// A value does not fit its column.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A subtype without a row in [`MERGE_TABLE`] (a programming error).
    #[error("FLOP {0} has no merge rule")]
    NoRule(&'static str),
}
