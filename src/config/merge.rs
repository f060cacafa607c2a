//! The `[merge]` section: how flight events (FLOP) and ad-hoc flights
//! (SCHD ADFT) merge into stored state, as the domain's own rules.

use serde::{Deserialize, Serialize};

use crate::state::{AbsentFields, CollectionRules, MergeRules};

/// How flight events (FLOP) and ad-hoc flights (SCHD ADFT) merge into
/// stored state. The upstream collection semantics are not settled
/// (PROTOCOL §5.2), so each collection kind is a setting: `replace` (the
/// FLOP carries the complete new list) or `merge-by-key` (entries add or
/// overwrite by their key, the others stay). Env:
/// `FLIGHTSTATE_MERGE_GTDT=merge-by-key`, `FLIGHTSTATE_MERGE_ADFT_ABSENT=keep`.
/// See `docs/events.md`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MergeConfig {
    /// One key per collection kind (`gtdt`, `ckdt`, `cldt`, `psdt`,
    /// `chdt`, `chot`, `abtm`: default `replace`; `dely`, `erut`: default
    /// `merge-by-key`), written at the section's top level.
    #[serde(flatten)]
    pub collections: CollectionRules,
    /// What an element an SCHD ADFT record leaves out means: `clear`
    /// (default: an FLTR is a full record) or `keep`.
    pub adft_absent: AbsentFields,
}

impl Default for MergeConfig {
    fn default() -> Self {
        let rules = MergeRules::default();
        MergeConfig {
            collections: rules.collections,
            adft_absent: rules.adft_absent,
        }
    }
}

impl MergeConfig {
    /// The merge rules these settings give.
    pub fn rules(&self) -> MergeRules {
        MergeRules {
            collections: self.collections,
            adft_absent: self.adft_absent,
        }
    }
}
