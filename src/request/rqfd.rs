//! The RQFD message (PROTOCOL §1.2): asks AODB for the flights of an
//! operation day, answered by an SCHD RESP.
//!
//! Written the way AODB's peers write it: one line, no indentation,
//! `TYPE=RQFD`, `STYP=NONE`, the body `<RQFD><STDB>…</STDB><STDE>…</STDE></RQFD>`.
//! The protocol leaves the format of STDB/STDE open; flightstate writes them
//! as every other SIS date-time (`ddMMMyyHHmm`, station-local), the bounds
//! of the day under `station.day_boundary`, both inclusive (docs/requests.md).

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime, Timelike};

use super::Seqn;
use crate::protocol::{format_date_time, format_message_time};

/// The SIS type of a flight-data request, and `REQ_TRACK.REQ_KIND`.
pub const RQFD: &str = "RQFD";

/// An RQFD message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rqfd {
    /// `META/SNDR`: who asks (`requests.sender`).
    pub sender: String,
    /// `META/SEQN`.
    pub seqn: Seqn,
    /// `META/DTTM`: when the request was made, station-local.
    pub dttm: NaiveDateTime,
    /// `RQFD/STDB`: the first minute asked for, station-local.
    pub stdb: NaiveDateTime,
    /// `RQFD/STDE`: the last minute asked for, station-local.
    pub stde: NaiveDateTime,
}

/// The first and the last minute of operation day `day` when days begin at
/// `boundary` (local time): from `day` at the boundary to one minute before
/// the next day's boundary.
pub fn day_bounds(day: NaiveDate, boundary: NaiveTime) -> (NaiveDateTime, NaiveDateTime) {
    let start = day.and_time(boundary);
    (start, start + Duration::days(1) - Duration::minutes(1))
}

impl Rqfd {
    /// The request for operation day `day`.
    pub fn for_day(
        sender: &str,
        seqn: Seqn,
        dttm: NaiveDateTime,
        day: NaiveDate,
        boundary: NaiveTime,
    ) -> Rqfd {
        let (stdb, stde) = day_bounds(day, boundary);
        Rqfd {
            sender: sender.to_owned(),
            seqn,
            // DTTM has whole seconds.
            dttm: dttm.with_nanosecond(0).unwrap_or(dttm),
            stdb,
            stde,
        }
    }

    /// The message as the text written to `COUTMSGS_CLOB_MSG`. The sender is
    /// checked to be plain letters and digits when the configuration is
    /// read, and every other value is digits or a month name: nothing needs
    /// escaping.
    pub fn to_xml(&self) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
             <MSG xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xsi:noNamespaceSchemaLocation=\"unisysaodbsis.xsd\">\
             <META><SNDR>{sndr}</SNDR><SEQN>{seqn}</SEQN><DTTM>{dttm}</DTTM>\
             <TYPE>{RQFD}</TYPE><STYP>NONE</STYP></META>\
             <RQFD><STDB>{stdb}</STDB><STDE>{stde}</STDE></RQFD></MSG>",
            sndr = self.sender,
            seqn = self.seqn,
            dttm = format_message_time(&self.dttm),
            stdb = format_date_time(&self.stdb),
            stde = format_date_time(&self.stde),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").expect("test time")
    }

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test day")
    }

    #[test]
    fn a_day_runs_from_its_boundary_to_the_minute_before_the_next() {
        let (b, e) = day_bounds(day("2026-09-10"), NaiveTime::MIN);
        assert_eq!(
            (b, e),
            (at("2026-09-10 00:00:00"), at("2026-09-10 23:59:00"))
        );
        let four = NaiveTime::from_hms_opt(4, 0, 0).expect("04:00");
        let (b, e) = day_bounds(day("2026-12-31"), four);
        assert_eq!(
            (b, e),
            (at("2026-12-31 04:00:00"), at("2027-01-01 03:59:00"))
        );
    }

    #[test]
    fn the_message_has_the_peers_shape_on_one_line() {
        let message = Rqfd::for_day(
            "VIEW",
            Seqn::of_counter(42),
            at("2021-01-18 10:15:00"),
            day("2021-01-23"),
            NaiveTime::MIN,
        );
        assert_eq!(
            message.to_xml(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><MSG xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xsi:noNamespaceSchemaLocation=\"unisysaodbsis.xsd\"><META><SNDR>VIEW</SNDR><SEQN>000042</SEQN>\
             <DTTM>20210118101500</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP></META><RQFD>\
             <STDB>23JAN210000</STDB><STDE>23JAN212359</STDE></RQFD></MSG>"
        );
    }

    #[test]
    fn the_projects_reader_reads_its_envelope() {
        let message = Rqfd::for_day(
            "VIEW",
            Seqn::of_counter(1_000_000),
            at("2026-09-09 23:59:58"),
            day("2026-09-10"),
            NaiveTime::MIN,
        );
        let parsed = crate::protocol::parse_slice(
            message.to_xml().as_bytes(),
            &crate::protocol::ParseOptions::default(),
        )
        .expect("our own message parses");
        assert_eq!(parsed.meta.sndr, "VIEW");
        assert_eq!(parsed.meta.seqn, "000000");
        assert_eq!(parsed.meta.dttm, at("2026-09-09 23:59:58"));
        assert_eq!(
            parsed.body,
            crate::protocol::Body::Unsupported {
                msg_type: "RQFD".into(),
                subtype: "NONE".into()
            }
        );
    }
}
