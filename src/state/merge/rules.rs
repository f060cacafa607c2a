//! The merge table: what each FLOP subtype changes in a flight's full state
//! and how a collection's entries meet the stored ones, declared once as
//! [`MERGE_TABLE`] and overridable per site ([`CollectionRules`]).

use serde::{Deserialize, Serialize};

use crate::protocol::FlopSubtype;

/// How a FLOP's entries of one collection meet the stored ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Semantics {
    /// The entries are the complete new collection.
    Replace,
    /// Each entry adds or overwrites the stored entry with the same key
    /// ([`CollectionKind::key`]); entries not sent are kept. An entry without
    /// its key is refused.
    MergeByKey,
}

/// The collections a FLOP subtype carries, each with its own semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectionKind {
    /// Gate allocations.
    Gtdt,
    /// Check-in counter allocations.
    Ckdt,
    /// Carousel allocations.
    Cldt,
    /// Planned stands (their push and tractor data survive a change of plan).
    Psdt,
    /// Chute allocations.
    Chdt,
    /// Chocks on/off.
    Chot,
    /// Airbridge dock/undock.
    Abtm,
    /// Delays.
    Dely,
    /// Entire route.
    Erut,
}

impl CollectionKind {
    /// Every kind, in the order of the configuration section.
    pub const ALL: [CollectionKind; 9] = [
        CollectionKind::Gtdt,
        CollectionKind::Ckdt,
        CollectionKind::Cldt,
        CollectionKind::Psdt,
        CollectionKind::Chdt,
        CollectionKind::Chot,
        CollectionKind::Abtm,
        CollectionKind::Dely,
        CollectionKind::Erut,
    ];

    /// The SIS group element.
    pub fn code(self) -> &'static str {
        match self {
            CollectionKind::Gtdt => "GTDT",
            CollectionKind::Ckdt => "CKDT",
            CollectionKind::Cldt => "CLDT",
            CollectionKind::Psdt => "PSDT",
            CollectionKind::Chdt => "CHDT",
            CollectionKind::Chot => "CHOT",
            CollectionKind::Abtm => "ABTM",
            CollectionKind::Dely => "DELY",
            CollectionKind::Erut => "ERUT",
        }
    }

    /// The attribute entries are matched by under [`Semantics::MergeByKey`].
    pub fn key(self) -> &'static str {
        match self {
            CollectionKind::Gtdt => "GTNO",
            CollectionKind::Ckdt => "CKNO",
            CollectionKind::Cldt => "CLNO",
            CollectionKind::Psdt => "PSNO",
            CollectionKind::Chdt => "CHNO",
            CollectionKind::Chot => "CSNO",
            CollectionKind::Abtm => "ASNO",
            CollectionKind::Dely => "CODE",
            CollectionKind::Erut => "RTNO",
        }
    }
}

/// The site's semantics per collection kind (configuration `[merge]`). The
/// upstream semantics are not settled (PROTOCOL §5.2), so they are a
/// setting; the defaults are DESIGN §4's. Its fields are the section's
/// keys, so the configuration reads them as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CollectionRules {
    /// GTDT (default replace).
    pub gtdt: Semantics,
    /// CKDT (default replace).
    pub ckdt: Semantics,
    /// CLDT (default replace).
    pub cldt: Semantics,
    /// PSDT (default replace).
    pub psdt: Semantics,
    /// CHDT (default replace).
    pub chdt: Semantics,
    /// CHOT (default replace).
    pub chot: Semantics,
    /// ABTM (default replace).
    pub abtm: Semantics,
    /// DELY (default merge by CODE).
    pub dely: Semantics,
    /// ERUT (default merge by RTNO).
    pub erut: Semantics,
}

impl Default for CollectionRules {
    fn default() -> Self {
        CollectionRules {
            gtdt: Semantics::Replace,
            ckdt: Semantics::Replace,
            cldt: Semantics::Replace,
            psdt: Semantics::Replace,
            chdt: Semantics::Replace,
            chot: Semantics::Replace,
            abtm: Semantics::Replace,
            dely: Semantics::MergeByKey,
            erut: Semantics::MergeByKey,
        }
    }
}

impl CollectionRules {
    /// The semantics of `kind` at this site.
    pub fn of(&self, kind: CollectionKind) -> Semantics {
        match kind {
            CollectionKind::Gtdt => self.gtdt,
            CollectionKind::Ckdt => self.ckdt,
            CollectionKind::Cldt => self.cldt,
            CollectionKind::Psdt => self.psdt,
            CollectionKind::Chdt => self.chdt,
            CollectionKind::Chot => self.chot,
            CollectionKind::Abtm => self.abtm,
            CollectionKind::Dely => self.dely,
            CollectionKind::Erut => self.erut,
        }
    }
}

/// What an element that an SCHD ADFT record leaves out means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AbsentFields {
    /// No such data: the stored value is cleared (an FLTR is a full record).
    #[default]
    Clear,
    /// Unchanged: the stored value is kept.
    Keep,
}

/// The site's merge settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeRules {
    /// FLOP collection semantics.
    pub collections: CollectionRules,
    /// SCHD ADFT's absent elements.
    pub adft_absent: AbsentFields,
}

/// What a FLOP subtype does with the elements of its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// value: set the column(s); empty: clear them.
    SetOrClear,
    /// value: set; empty: refused — an FLTR cannot lack this element, so an
    /// event cannot take it away.
    SetNotClear,
    /// Each element on its own: value sets, empty or absent clears (HNAG,
    /// VIPP).
    EachSetOrClear,
    /// All set when every element carries a value, else all cleared (TAOP).
    AllOrNone,
    /// EXSS: EXSC must be sent; EXSC sets the code and EXSR the remark (an
    /// absent or empty EXSR clears it); an empty EXSC clears both.
    CodeWithRemark,
    /// PORT: POID O/C picks the open or close time, POTM sets it (absent or
    /// empty clears it); POID is required; an empty `<PORT>` clears both.
    DoorTimes,
    /// A collection with the site's [`Semantics`]; an empty group element
    /// clears the collection.
    Collection(CollectionKind),
    /// PSHT: push data (PSHN, PSTM, PSID) on the stand row whose PSST is
    /// PUST; no PSTM undoes the push; an unplanned stand gets a row of its
    /// own; an empty `<PSHT>` clears every push.
    PushOnStand,
    /// TIPT: tractor time (TRTM) on the stand row whose PSST is TRST,
    /// likewise.
    TractorOnStand,
    /// FDEL: the flight and its details are deleted.
    DeleteFlight,
}

/// One row of [`MERGE_TABLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeRule {
    /// The FLOP subtype.
    pub subtype: FlopSubtype,
    /// The elements of the body it reads; every other element is ignored.
    pub elements: &'static [&'static str],
    /// What it does with them.
    pub effect: Effect,
}

const fn rule(
    subtype: FlopSubtype,
    elements: &'static [&'static str],
    effect: Effect,
) -> MergeRule {
    MergeRule {
        subtype,
        elements,
        effect,
    }
}

use CollectionKind as C;
use Effect::*;
use FlopSubtype as S;

/// Every FLOP subtype flightstate applies: the elements it reads and what
/// value / empty mean for them. For every row, a body that carries none of
/// its elements is refused (DEAD); a body for an unknown FLID creates the
/// flight from the empty state.
#[rustfmt::skip]
pub const MERGE_TABLE: &[MergeRule] = &[
    //    subtype  elements read                effect
    rule(S::Abtm, &["ABTM"],                  Collection(C::Abtm)),
    rule(S::Acft, &["ACFT"],                  SetNotClear),
    rule(S::Appt, &["APPT"],                  SetOrClear),
    rule(S::Botm, &["BOTM"],                  SetOrClear),
    rule(S::Chdt, &["CHDT"],                  Collection(C::Chdt)),
    rule(S::Chot, &["CHOT"],                  Collection(C::Chot)),
    rule(S::Ckdt, &["CKDT"],                  Collection(C::Ckdt)),
    rule(S::Cldt, &["CLDT"],                  Collection(C::Cldt)),
    rule(S::Cncl, &["CNCL"],                  SetOrClear), // empty: cancellation undone
    rule(S::Cobt, &["COBT"],                  SetOrClear),
    rule(S::Ctot, &["CTOT"],                  SetOrClear),
    rule(S::Dely, &["DELY"],                  Collection(C::Dely)),
    rule(S::Egsr, &["EGSR"],                  SetOrClear),
    rule(S::Egst, &["EGST"],                  SetOrClear),
    rule(S::Eobt, &["EOBT"],                  SetOrClear),
    rule(S::Erut, &["ERUT"],                  Collection(C::Erut)),
    rule(S::Exss, &["EXSC", "EXSR"],          CodeWithRemark),
    rule(S::Fdel, &["FDEL"],                  DeleteFlight),
    rule(S::Fdiv, &["FDIV"],                  SetOrClear), // DDES, DDIR, reason together
    rule(S::Fint, &["FINT"],                  SetOrClear),
    rule(S::Flab, &["FLAB"],                  SetOrClear), // ARES, reason together
    rule(S::Flin, &["FLIN"],                  SetNotClear),
    rule(S::Flty, &["FLTY"],                  SetNotClear),
    rule(S::Fret, &["FRET"],                  SetOrClear), // REID, reason together
    rule(S::Ftss, &["FTSS"],                  SetOrClear),
    rule(S::Gtdt, &["GTDT"],                  Collection(C::Gtdt)),
    rule(S::Hnag, &["PHAG", "FHAG", "MHAG"],  EachSetOrClear),
    rule(S::Iest, &["IEST"],                  SetOrClear),
    rule(S::Lacl, &["LACL"],                  SetOrClear),
    rule(S::Maxp, &["MAXP"],                  SetOrClear),
    rule(S::Naat, &["NAAT"],                  SetOrClear),
    rule(S::Neat, &["NEAT"],                  SetOrClear),
    rule(S::Padt, &["PADT"],                  SetOrClear),
    rule(S::Pedt, &["PEDT"],                  SetOrClear),
    rule(S::Port, &["PORT"],                  DoorTimes),
    rule(S::Psdt, &["PSDT"],                  Collection(C::Psdt)),
    rule(S::Psht, &["PSHT"],                  PushOnStand),
    rule(S::Remc, &["REMC"],                  SetOrClear),
    rule(S::Reno, &["RENO"],                  SetOrClear),
    rule(S::Runw, &["RUNW"],                  SetOrClear),
    rule(S::Stnd, &["STND"],                  SetOrClear),
    rule(S::Taop, &["TAOP", "TAFL", "TAID"],  AllOrNone),
    rule(S::Tipt, &["TIPT"],                  TractorOnStand),
    rule(S::Tobt, &["TOBT"],                  SetOrClear),
    rule(S::Trml, &["TRML"],                  SetOrClear),
    rule(S::Vipp, &["VIPP", "VIPR"],          EachSetOrClear),
];

/// The row of `subtype`, if it has one (every supported subtype does; a
/// test holds the table to [`FlopSubtype::ALL`]).
pub fn merge_rule(subtype: FlopSubtype) -> Option<&'static MergeRule> {
    MERGE_TABLE.iter().find(|r| r.subtype == subtype)
}
