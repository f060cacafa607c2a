//! The generator's only source of chance: SplitMix64, small enough to live here so that a
//! day generated today is byte-identical to one generated after any dependency update.

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, full period, good enough spread
/// for test data. Not for anything secret.
#[derive(Clone, Debug)]
pub(crate) struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose whole output is decided by `seed`.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// An independent stream for one part of the day, so that adding a draw in one part
    /// does not shift every value of the others.
    pub(crate) fn fork(&mut self, salt: u64) -> Rng {
        Rng::new(self.next_u64() ^ salt.wrapping_mul(0xA076_1D64_78BD_642F))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (`lo` when the range is empty). The modulo bias is below
    /// 2^-40 for the small ranges used here.
    pub(crate) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    /// An index into a slice of `len` elements; `len` must not be zero.
    pub(crate) fn index(&mut self, len: usize) -> usize {
        (self.next_u64() % len as u64) as usize
    }

    /// True with probability `p` (0.0–1.0).
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        // 53 random bits make an exactly representable fraction in [0, 1).
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// One element of a non-empty slice of `(item, weight)`, chosen by weight.
    pub(crate) fn weighted<'a, T>(&mut self, items: &'a [(T, u32)]) -> &'a T {
        let total: u64 = items.iter().map(|(_, w)| u64::from(*w)).sum();
        let mut ticket = self.next_u64() % total.max(1);
        for (item, weight) in items {
            if ticket < u64::from(*weight) {
                return item;
            }
            ticket -= u64::from(*weight);
        }
        &items[items.len() - 1].0
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_gives_the_same_stream() {
        let a: Vec<u64> = {
            let mut r = Rng::new(42);
            (0..100).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::new(42);
            (0..100).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        let mut c = Rng::new(43);
        assert_ne!(a[0], c.next_u64());
    }

    #[test]
    fn output_is_pinned_across_builds() {
        // SplitMix64's published first output for seed 0: a change here changes every
        // generated day, so it must be deliberate.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn ranges_stay_inside_their_bounds() {
        let mut r = Rng::new(7);
        for _ in 0..10_000 {
            let v = r.range(-3, 5);
            assert!((-3..=5).contains(&v));
            assert!(r.index(3) < 3);
        }
        assert_eq!(r.range(4, 4), 4);
        assert_eq!(r.range(9, 1), 9);
    }

    #[test]
    fn chance_follows_its_probability() {
        let mut r = Rng::new(11);
        let hits = (0..100_000).filter(|_| r.chance(0.25)).count();
        assert!((23_000..27_000).contains(&hits), "{hits}");
        assert!(!Rng::new(1).chance(0.0));
        assert!(Rng::new(1).chance(1.0));
    }

    #[test]
    fn weighted_respects_zero_weights() {
        let mut r = Rng::new(5);
        let items = [("never", 0), ("always", 3)];
        for _ in 0..1000 {
            assert_eq!(*r.weighted(&items), "always");
        }
    }
}
