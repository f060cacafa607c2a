//! The stand rows' reports (PSHT pushes, TIPT tractors): a FLOP or ADFT
//! lays them onto the stand rows they report on, or clears them.

use super::super::flight::Stand;
use super::super::from_record::RecordError;
use crate::protocol::FlightRecord;

/// The PSHT entries as stand reports: no PSTM means the push is undone, so
/// its number and indicator go too.
pub(super) fn push_reports(record: &FlightRecord) -> Result<Vec<Stand>, RecordError> {
    record
        .psht
        .items()
        .iter()
        .map(|push| {
            let pstm = push.pstm.value().copied();
            let pshn = match push.pshn.value() {
                Some(n) => Some(i32::try_from(*n).map_err(|_| RecordError::OutOfRange {
                    flid: record.flid,
                    element: "PSHN",
                    value: n.to_string(),
                    max: i32::MAX.to_string(),
                })?),
                None => None,
            };
            Ok(Stand {
                psst: push.pust.value().cloned(),
                pshn: pstm.and(pshn),
                pstm,
                psid: pstm.and_then(|_| push.psid.value().cloned()),
                ..Stand::default()
            })
        })
        .collect()
}

/// The TIPT entries as stand reports.
pub(super) fn tractor_reports(record: &FlightRecord) -> Vec<Stand> {
    record
        .tipt
        .items()
        .iter()
        .map(|tractor| Stand {
            psst: tractor.trst.value().cloned(),
            trtm: tractor.trtm.value().copied(),
            ..Stand::default()
        })
        .collect()
}

/// Which reported data of a stand row.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Report {
    Push,
    Tractor,
    Both,
}

pub(super) fn has_push(stand: &Stand) -> bool {
    stand.pshn.is_some() || stand.pstm.is_some() || stand.psid.is_some()
}

pub(super) fn has_report(stand: &Stand) -> bool {
    has_push(stand) || stand.trtm.is_some()
}

/// A row that exists only for a push or tractor report: no PSDT planned
/// it.
pub(super) fn report_only(stand: &Stand) -> bool {
    stand.source_seq.is_none() && stand.stst.is_none() && stand.stet.is_none() && has_report(stand)
}

/// Splits stand rows into the planned stands (without reports) and the
/// reports (stand code + reported data).
pub(super) fn split_reports(stands: Vec<Stand>) -> (Vec<Stand>, Vec<Stand>) {
    let mut planned = Vec::with_capacity(stands.len());
    let mut reports = Vec::new();
    for stand in stands {
        if has_report(&stand) {
            reports.push(Stand {
                psst: stand.psst.clone(),
                pshn: stand.pshn,
                pstm: stand.pstm,
                psid: stand.psid.clone(),
                trtm: stand.trtm,
                ..Stand::default()
            });
        }
        if !report_only(&stand) {
            planned.push(Stand {
                pshn: None,
                pstm: None,
                psid: None,
                trtm: None,
                ..stand
            });
        }
    }
    (planned, reports)
}

/// Lays `report`'s data (of the `which` kind) onto the first row of its
/// stand; a report for a stand without a row gets a row of its own, unless
/// it only undoes something.
pub(super) fn lay_report(stands: &mut Vec<Stand>, report: &Stand, which: Report) {
    let push = matches!(which, Report::Push | Report::Both);
    let tractor = matches!(which, Report::Tractor | Report::Both);
    match stands.iter().position(|s| s.psst == report.psst) {
        Some(i) => {
            let was_report_only = report_only(&stands[i]);
            let row = &mut stands[i];
            if push && (which == Report::Push || has_push(report)) {
                row.pshn = report.pshn;
                row.pstm = report.pstm;
                row.psid.clone_from(&report.psid);
            }
            if tractor && (which == Report::Tractor || report.trtm.is_some()) {
                row.trtm = report.trtm;
            }
            if was_report_only && !has_report(&stands[i]) {
                stands.remove(i);
            }
        }
        None => {
            let mut row = Stand {
                psst: report.psst.clone(),
                ..Stand::default()
            };
            if push {
                row.pshn = report.pshn;
                row.pstm = report.pstm;
                row.psid.clone_from(&report.psid);
            }
            if tractor {
                row.trtm = report.trtm;
            }
            if has_report(&row) {
                stands.push(row);
            }
        }
    }
}

/// Clears every push (or tractor) report; rows that held nothing else go.
pub(super) fn clear_reports(stands: &mut Vec<Stand>, which: Report) {
    stands.retain_mut(|row| {
        let was_report_only = report_only(row);
        if which == Report::Push {
            row.pshn = None;
            row.pstm = None;
            row.psid = None;
        } else {
            row.trtm = None;
        }
        !was_report_only || has_report(row)
    });
}
