//! The outbound `SEQN` (PROTOCOL §1.2): six digits, zero-padded, running
//! 000001 … 999999, then 000000 once, then again from 000001.
//!
//! The state database keeps a counter that only grows (a sequence, so that
//! two registrations never take the same number and a rolled-back one only
//! leaves a gap); the wrap is this module's: the SEQN of counter value `n` is
//! `n` modulo 1,000,000, which gives exactly the protocol's order when the
//! counter starts at 1.

use std::fmt;

/// The number of distinct SEQN values.
const MODULUS: i64 = 1_000_000;

/// An outbound `SEQN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seqn(u32);

impl Seqn {
    /// The SEQN of the outbound counter's value `counter`.
    pub fn of_counter(counter: i64) -> Seqn {
        // rem_euclid of a positive modulus is in 0..MODULUS, which fits.
        Seqn(u32::try_from(counter.rem_euclid(MODULUS)).unwrap_or(0))
    }

    /// The number it shows.
    pub fn value(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Seqn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:06}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn runs_to_999999_then_000000_once_then_again_from_000001() {
        let shown: Vec<String> = (999_998..=1_000_002)
            .map(|n| Seqn::of_counter(n).to_string())
            .collect();
        assert_eq!(shown, ["999998", "999999", "000000", "000001", "000002"]);
        assert_eq!(Seqn::of_counter(1).to_string(), "000001");
        assert_eq!(Seqn::of_counter(42).to_string(), "000042");
    }

    proptest! {
        #[test]
        fn always_six_digits_and_consecutive_counters_step_by_one(n in 1i64..i64::MAX - 1) {
            let here = Seqn::of_counter(n);
            let next = Seqn::of_counter(n + 1);
            let text = here.to_string();
            prop_assert_eq!(text.len(), 6);
            prop_assert!(text.bytes().all(|b| b.is_ascii_digit()));
            prop_assert_eq!((here.value() + 1) % 1_000_000, next.value());
        }
    }
}
