//! The mass-delete guard (snapshot integrity): a snapshot that would delete
//! a large share of its day is more likely truncated upstream than a true
//! picture of the day, so it is held for an operator instead of applied.

/// When a snapshot deletes too much of its day (`[snapshot]`
/// `max_delete_fraction`, `max_delete_min`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeleteGuard {
    /// The share of the day's listed flights a snapshot may delete.
    pub max_fraction: f64,
    /// However large the share, a snapshot may always delete this many: a
    /// small day's normal churn is a large share of it.
    pub max_flights: usize,
}

impl Default for DeleteGuard {
    /// 30 % and 20 flights: a day's cancellations and retimings remove a
    /// few flights per snapshot, far below either; a truncated or empty
    /// snapshot of a day of a hundred flights or more is above both.
    fn default() -> Self {
        DeleteGuard {
            max_fraction: 0.30,
            max_flights: 20,
        }
    }
}

/// Why a snapshot is held: it would delete more than the guard allows.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error(
    "the snapshot would delete {deleting} of the {listed} flights its day lists ({percent:.0} %), more than snapshot.max_delete_fraction = {max_fraction} and snapshot.max_delete_min = {max_flights}; held until an operator releases it (`flightstate release`) or rejects it (`flightstate reject`)",
    percent = share(*.deleting, *.listed) * 100.0
)]
pub struct MassDelete {
    /// Flights the snapshot would delete.
    pub deleting: usize,
    /// Flights the day's list held before the snapshot.
    pub listed: usize,
    /// The guard's share.
    pub max_fraction: f64,
    /// The guard's count.
    pub max_flights: usize,
}

fn share(deleting: usize, listed: usize) -> f64 {
    if listed == 0 {
        return 1.0;
    }
    deleting as f64 / listed as f64
}

impl DeleteGuard {
    /// Whether deleting `deleting` of the `listed` flights of a day's list
    /// is too much: more than `max_fraction` of them *and* more than
    /// `max_flights`.
    ///
    /// # Errors
    ///
    /// [`MassDelete`] saying how much, when it is.
    pub fn check(&self, deleting: usize, listed: usize) -> Result<(), MassDelete> {
        if deleting > self.max_flights && share(deleting, listed) > self.max_fraction {
            return Err(MassDelete {
                deleting,
                listed,
                max_fraction: self.max_fraction,
                max_flights: self.max_flights,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_day_is_held_and_normal_churn_passes() {
        let guard = DeleteGuard::default();
        // 200 flights, a snapshot of 20: 180 deleted.
        let held = guard.check(180, 200).expect_err("truncated day");
        assert_eq!(held.deleting, 180);
        assert!(
            held.to_string().contains("180 of the 200 flights"),
            "{held}"
        );
        assert!(held.to_string().contains("(90 %)"), "{held}");
        // An empty snapshot of a full day.
        assert!(guard.check(200, 200).is_err());
        // A busy day's churn: a dozen cancellations.
        assert!(guard.check(12, 200).is_ok());
        // More than 30 % of a small day, but no more than 20 flights.
        assert!(guard.check(20, 40).is_ok());
        assert!(guard.check(21, 40).is_err());
        // More than 20 flights, but no more than 30 % of a large day.
        assert!(guard.check(300, 1000).is_ok());
        assert!(guard.check(301, 1000).is_err());
    }
}
