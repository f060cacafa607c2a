//! The entries of the flight record's repeating groups (PROTOCOL §4.3): resource
//! allocations (gates, counters, belts, stands, chutes), ground events (chocks, bridges,
//! push, tractor, doors), delays and route points.
//!
//! Each entry keeps every child tri-state; which entries replace or merge is the state
//! layer's business, not this module's. SRVT and VIPF are out of scope and not here.

use chrono::NaiveDateTime;
use serde::Serialize;

use super::fields::{GroupItem, Notes, Path, attribute, leaf_text, no_text, put};
use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::Element;
use crate::protocol::values::{ChockState, Field, Minutes, PortAction};
use crate::protocol::xml_text::{XmlOut, attribute_text};

/// Declares a group entry made of an optional sequence attribute and child elements; the
/// parser and the writer come from the same table so they cannot drift apart.
macro_rules! group_entry {
    (
        $(#[$doc:meta])*
        $name:ident $(, sequence $seq:ident = $seq_attr:literal)? {
            $( $(#[$fdoc:meta])* $field:ident : $ty:ty = $child:literal ),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize)]
        #[serde(rename_all = "UPPERCASE")]
        pub struct $name {
            $(
                #[doc = concat!("`@", $seq_attr, "`: the upstream sequence number; stored, never a table key.")]
                #[serde(skip_serializing_if = "Field::is_absent")]
                pub $seq: Field<u32>,
            )?
            $(
                $(#[$fdoc])*
                #[serde(skip_serializing_if = "Field::is_absent")]
                pub $field: Field<$ty>,
            )+
        }

        impl GroupItem for $name {
            fn parse(
                element: &Element,
                name: &str,
                path: &Path,
                notes: &mut Notes,
            ) -> Result<Self, ProtocolError> {
                no_text(element, path)?;
                let mut entry = Self::default();
                $( entry.$seq = attribute(element, $seq_attr, path)?; )?
                notes.unknown_attributes(element, &[$($seq_attr)?], Some(name));
                for child in &element.children {
                    let path = path.child(child);
                    match &*child.name {
                        $( $child => put(&mut entry.$field, child, &path)?, )+
                        other => notes.unknown(format!("{name}/{other}")),
                    }
                }
                Ok(entry)
            }

            fn write(&self, name: &str, out: &mut XmlOut) {
                out.open(name, &[$( ($seq_attr, attribute_text(&self.$seq)) )?]);
                $( out.leaf($child, &self.$field); )+
                out.close(name);
            }
        }
    };
}

group_entry! {
    /// GTDT: a boarding gate allocated to the flight.
    GateAllocation, sequence gtno = "GTNO" {
        /// Gate code (GLST).
        gate: String = "GATE",
        /// Planned gate open.
        pgot: NaiveDateTime = "PGOT",
        /// Planned gate close.
        pgct: NaiveDateTime = "PGCT",
        /// Actual gate open.
        gotm: NaiveDateTime = "GOTM",
        /// Actual gate close.
        gctm: NaiveDateTime = "GCTM",
        /// Gate type (D/I, not enforced).
        gtyp: char = "GTYP",
    }
}

group_entry! {
    /// CKDT: a check-in counter allocated to the flight.
    CounterAllocation, sequence ckno = "CKNO" {
        /// Counter code (CLST).
        chkc: String = "CHKC",
        /// Class served (F/C/Y/X, not enforced).
        ccls: char = "CCLS",
        /// Planned open.
        pcot: NaiveDateTime = "PCOT",
        /// Planned close.
        pcct: NaiveDateTime = "PCCT",
        /// Actual open.
        cotm: NaiveDateTime = "COTM",
        /// Actual close.
        cctm: NaiveDateTime = "CCTM",
        /// Counter type (D/I, not enforced).
        ctyp: char = "CTYP",
    }
}

group_entry! {
    /// CLDT: a baggage reclaim carousel allocated to the flight.
    CarouselAllocation, sequence clno = "CLNO" {
        /// Belt code (BLST).
        belt: String = "BELT",
        /// Class served.
        bcls: char = "BCLS",
        /// Planned start.
        pcot: NaiveDateTime = "PCOT",
        /// Planned end.
        pcct: NaiveDateTime = "PCCT",
        /// First bag on the belt.
        fbag: NaiveDateTime = "FBAG",
        /// Last bag on the belt.
        lbag: NaiveDateTime = "LBAG",
        /// Belt type (D/I, not enforced).
        btyp: char = "BTYP",
    }
}

group_entry! {
    /// PSDT: a planned stand allocation.
    StandAllocation, sequence psno = "PSNO" {
        /// Stand code (SLST).
        psst: String = "PSST",
        /// Start of the allocation.
        stst: NaiveDateTime = "STST",
        /// End of the allocation.
        stet: NaiveDateTime = "STET",
    }
}

group_entry! {
    /// CHDT: a baggage make-up chute allocated to the flight.
    ChuteAllocation, sequence chno = "CHNO" {
        /// Chute code (CHLT).
        chut: String = "CHUT",
        /// Class served.
        ccls: char = "CCLS",
        /// Planned begin.
        pcbt: NaiveDateTime = "PCBT",
        /// Planned end.
        pcet: NaiveDateTime = "PCET",
        /// Actual begin.
        cbtm: NaiveDateTime = "CBTM",
        /// Actual end.
        cetm: NaiveDateTime = "CETM",
        /// Chute type (not enforced; the peer's sample sends `E`).
        ctyp: char = "CTYP",
    }
}

group_entry! {
    /// CHOT: chocks put on or taken off.
    ChockEvent, sequence csno = "CSNO" {
        /// When.
        chtm: NaiveDateTime = "CHTM",
        /// On or off.
        chid: ChockState = "CHID",
        /// On which stand.
        chst: String = "CHST",
    }
}

group_entry! {
    /// ABTM: an airbridge docked or undocked.
    BridgeEvent, sequence asno = "ASNO" {
        /// Airbridge code (ABDG).
        abdg: String = "ABDG",
        /// Operation (attach/detach; the sample sends `D`).
        abop: char = "ABOP",
        /// When.
        aotm: NaiveDateTime = "AOTM",
    }
}

group_entry! {
    /// ROUT or ERUT: one stop of the route (ROUT: the other end seen from here; ERUT: the
    /// entire itinerary including this airport).
    RoutePoint, sequence rtno = "RTNO" {
        /// Airport code (ARPT).
        apcd: String = "APCD",
        /// Scheduled arrival there.
        scat: NaiveDateTime = "SCAT",
        /// Scheduled departure from there.
        scdt: NaiveDateTime = "SCDT",
    }
}

group_entry! {
    /// PSHT: a pushback, to be matched to a planned stand by PUST.
    PushEvent, sequence pshn = "PSHN" {
        /// When.
        pstm: NaiveDateTime = "PSTM",
        /// Push indicator (the sample sends `IN`).
        psid: String = "PSID",
        /// The stand pushed from (a PSDT PSST).
        pust: String = "PUST",
    }
}

group_entry! {
    /// TIPT: a tractor in place, to be matched to a planned stand by TRST.
    TractorEvent {
        /// When.
        trtm: NaiveDateTime = "TRTM",
        /// The stand (a PSDT PSST).
        trst: String = "TRST",
    }
}

group_entry! {
    /// PORT: the aircraft door opened or closed.
    PortEvent {
        /// When.
        potm: NaiveDateTime = "POTM",
        /// Open or close.
        poid: PortAction = "POID",
    }
}

/// DELY: one delay, coded and timed in attributes, with a free comment as text.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub struct Delay {
    /// `@CODE`: the delay code (DLYL); FLOP merges delays by it.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub code: Field<String>,
    /// `@STRT`: when the delay starts.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub strt: Field<NaiveDateTime>,
    /// `@DURA`: how long, in minutes (sent as HHMM).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub dura: Field<Minutes>,
    /// The element's text: a free comment, possibly empty.
    #[serde(rename = "text")]
    pub text: String,
}

impl GroupItem for Delay {
    fn parse(
        element: &Element,
        name: &str,
        path: &Path,
        notes: &mut Notes,
    ) -> Result<Self, ProtocolError> {
        notes.unknown_attributes(element, &["CODE", "STRT", "DURA"], Some(name));
        Ok(Delay {
            code: attribute(element, "CODE", path)?,
            strt: attribute(element, "STRT", path)?,
            dura: attribute(element, "DURA", path)?,
            text: leaf_text(element, path)?.to_owned(),
        })
    }

    fn write(&self, name: &str, out: &mut XmlOut) {
        out.text_element(
            name,
            &[
                ("CODE", attribute_text(&self.code)),
                ("STRT", attribute_text(&self.strt)),
                ("DURA", attribute_text(&self.dura)),
            ],
            &self.text,
        );
    }
}
