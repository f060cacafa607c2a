//! An operator's request for an operation day (`flightstate request --day`,
//! and the page): an RQFD request registered (`request::register_day_request`,
//! docs/requests.md) and recorded in one state transaction. The message is
//! written into `COUTMSGS` by the effect worker, never here.

use chrono::NaiveDate;

use crate::request::{Registered, RequestError, RequestSettings, register_day_request};
use crate::station::StationClock;
use crate::store::Store;

use super::{ActionKind, Actor, Record};

/// Registers an RQFD request for `day`, as `actor`, and records it in the
/// same transaction (REGISTERED). A request refused because its call key is
/// journaled already with another message rolls back; its refusal is then
/// recorded on its own (REFUSED), since nothing else changed.
///
/// # Errors
///
/// [`RequestError`]: nothing was registered.
pub fn request_day<S: Store>(
    store: &S,
    settings: &RequestSettings,
    clock: &StationClock,
    day: NaiveDate,
    actor: &Actor,
) -> Result<Registered, RequestError> {
    let now = crate::station::utc_now();
    let local_now = clock.local_at(now);
    let record = |result: &'static str, detail: String| {
        move |tx: &mut S::Tx<'_>| {
            Record {
                actor,
                taken_at: now,
                action: ActionKind::RequestDay,
                message_id: None,
                operation_day: Some(day),
                result,
                detail: &detail,
            }
            .write(tx)
        }
    };
    let registered = store.transaction(|tx| {
        let registered = register_day_request(tx, settings, day, now, local_now)?;
        let detail = format!(
            "request {} (SEQN {}) for {day}{}",
            registered.req_id,
            registered.seqn,
            expired_text(&registered.expired)
        );
        record("REGISTERED", detail)(tx)?;
        Ok::<_, RequestError>(registered)
    });
    if let Err(e @ RequestError::DigestMismatch { .. }) = &registered {
        store.transaction(record("REFUSED", e.to_string()))?;
    }
    if let Ok(r) = &registered {
        tracing::info!(
            request.id = r.req_id,
            %day,
            requested_by = %actor.recorded_name(),
            via = actor.via.code(),
            "operation day requested"
        );
    }
    registered
}

fn expired_text(expired: &[i64]) -> String {
    if expired.is_empty() {
        return String::new();
    }
    let ids: Vec<String> = expired.iter().map(ToString::to_string).collect();
    format!("; expired request {}", ids.join(", "))
}
