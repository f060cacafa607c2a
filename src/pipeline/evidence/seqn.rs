//! Inbound SEQN evidence (docs/open-questions.md, "Inbound SEQN"): per
//! sender, what its sequence numbers did in mailbox order — repeats, gaps,
//! resets — counted in the transaction that records the message's outcome.
//!
//! SEQN never orders anything: the order of application is the mailbox
//! id. PROTOCOL §1.2 says a sender's SEQN runs 000001 … 999999, then
//! 000000 once, then again from 000001; the step 999999 → 000000 is that
//! wrap, not a reset. A message is counted once: one at or below the
//! sender's last counted id is a retry or a redelivery and changes nothing.

use chrono::NaiveDateTime;

use crate::pipeline::attempt::Attempt;
use crate::store::{SenderSeqn, StateTx, StoreError};

/// The last SEQN before the wrap.
const WRAP_LAST: u64 = 999_999;

/// The widest `SEQN_EVIDENCE.SENDER` and `LAST_SEQN` (characters): longer
/// values are counted under their first characters rather than refused, so
/// that evidence never fails a message.
const SENDER_CHARS: usize = 128;
const SEQN_CHARS: usize = 64;

/// A message's envelope, as far as SEQN evidence needs it.
#[derive(Clone, Copy, Debug)]
pub(in crate::pipeline) struct Sent<'a> {
    pub(in crate::pipeline) message_id: i64,
    /// META SNDR.
    pub(in crate::pipeline) sender: &'a str,
    /// META SEQN, as sent.
    pub(in crate::pipeline) seqn: &'a str,
}

impl<'a> Sent<'a> {
    /// What the message of `attempt` counts, once its META was read.
    pub(in crate::pipeline) fn of(attempt: &'a Attempt<'_>) -> Option<Sent<'a>> {
        attempt.meta().map(|meta| Sent {
            message_id: attempt.message_id,
            sender: &meta.sndr,
            seqn: &meta.seqn,
        })
    }
}

/// What a SEQN says after the sender's previous one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SeqnStep {
    /// Nothing to compare with: the sender's first message, or one after
    /// an unreadable SEQN.
    First,
    /// The next number (999999 → 000000 included).
    InOrder,
    /// The same number again.
    Repeat,
    /// Ahead of the next number; this many numbers were skipped.
    Gap(i64),
    /// Back below the previous number (not the wrap).
    Reset,
    /// Not a number.
    Unreadable,
}

impl SeqnStep {
    /// The `LAST_ANOMALY` code, for an anomaly.
    fn anomaly(self) -> Option<&'static str> {
        match self {
            SeqnStep::First | SeqnStep::InOrder => None,
            SeqnStep::Repeat => Some("REPEAT"),
            SeqnStep::Gap(_) => Some("GAP"),
            SeqnStep::Reset => Some("RESET"),
            SeqnStep::Unreadable => Some("UNREADABLE"),
        }
    }
}

/// The number a SEQN shows: digits only (the inbound samples are not
/// always zero-padded), surrounding blanks ignored.
fn number(seqn: &str) -> Option<u64> {
    let digits = seqn.trim();
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What `seqn` says after `previous` (the sender's last SEQN, if any).
pub(super) fn classify(previous: Option<&str>, seqn: &str) -> SeqnStep {
    let Some(n) = number(seqn) else {
        return SeqnStep::Unreadable;
    };
    let Some(p) = previous.and_then(number) else {
        return SeqnStep::First;
    };
    let expected = if p == WRAP_LAST { 0 } else { p + 1 };
    if n == expected {
        SeqnStep::InOrder
    } else if n == p {
        SeqnStep::Repeat
    } else if n > p {
        SeqnStep::Gap(i64::try_from(n - p - 1).unwrap_or(i64::MAX))
    } else {
        SeqnStep::Reset
    }
}

/// Counts `sent` into its sender's evidence (`None`: a sender not seen
/// before). Returns the new evidence, or `None` when the message was
/// counted already.
pub(super) fn count_one(evidence: Option<SenderSeqn>, sent: &Sent<'_>) -> Option<SenderSeqn> {
    if evidence
        .as_ref()
        .is_some_and(|e| e.last_message_id >= sent.message_id)
    {
        return None;
    }
    let step = classify(evidence.as_ref().map(|e| e.last_seqn.as_str()), sent.seqn);
    let mut e = evidence.unwrap_or_else(|| SenderSeqn {
        sender: clip(sent.sender, SENDER_CHARS).to_owned(),
        ..SenderSeqn::default()
    });
    e.messages += 1;
    match step {
        SeqnStep::Repeat => e.repeats += 1,
        SeqnStep::Gap(missing) => {
            e.gaps += 1;
            e.missing = e.missing.saturating_add(missing);
        }
        SeqnStep::Reset => e.resets += 1,
        SeqnStep::Unreadable => e.unreadable += 1,
        SeqnStep::First | SeqnStep::InOrder => {}
    }
    if let Some(anomaly) = step.anomaly() {
        e.last_anomaly = Some(anomaly.to_owned());
        e.last_anomaly_id = Some(sent.message_id);
    }
    e.last_seqn = clip(sent.seqn, SEQN_CHARS).to_owned();
    e.last_message_id = sent.message_id;
    Some(e)
}

/// Counts each of `messages`, in order, into its sender's evidence, inside
/// the caller's transaction.
///
/// # Errors
///
/// A [`StoreError`] reading or writing `SEQN_EVIDENCE`.
pub(in crate::pipeline) fn count<T: StateTx + ?Sized>(
    tx: &mut T,
    messages: &[Sent<'_>],
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let mut senders: Vec<(String, Option<SenderSeqn>, bool)> = Vec::new();
    for sent in messages {
        let sender = clip(sent.sender, SENDER_CHARS);
        let index = match senders.iter().position(|(s, _, _)| s == sender) {
            Some(i) => i,
            None => {
                senders.push((sender.to_owned(), tx.select_seqn_evidence(sender)?, false));
                senders.len() - 1
            }
        };
        let (_, evidence, changed) = &mut senders[index];
        if let Some(next) = count_one(evidence.clone(), sent) {
            *evidence = Some(next);
            *changed = true;
        }
    }
    for (_, evidence, changed) in &senders {
        if let (Some(e), true) = (evidence, changed) {
            tx.upsert_seqn_evidence(e, now)?;
        }
    }
    Ok(())
}

fn clip(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(end, _)| &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrap_is_in_order_and_a_decrease_is_a_reset() {
        assert_eq!(classify(None, "000001"), SeqnStep::First);
        assert_eq!(classify(Some("000041"), "000042"), SeqnStep::InOrder);
        assert_eq!(classify(Some("999999"), "000000"), SeqnStep::InOrder);
        assert_eq!(classify(Some("000000"), "000001"), SeqnStep::InOrder);
        assert_eq!(classify(Some("1243"), "1243"), SeqnStep::Repeat);
        assert_eq!(classify(Some("000010"), "000013"), SeqnStep::Gap(2));
        assert_eq!(classify(Some("000500"), "000001"), SeqnStep::Reset);
        assert_eq!(classify(Some("999999"), "000001"), SeqnStep::Reset);
        assert_eq!(classify(Some("000001"), "x1"), SeqnStep::Unreadable);
        assert_eq!(classify(Some("x1"), "000007"), SeqnStep::First);
    }

    #[test]
    fn a_message_is_counted_once() {
        let first = Sent {
            message_id: 10,
            sender: "AODB",
            seqn: "000005",
        };
        let e = count_one(None, &first).expect("a new sender is counted");
        assert_eq!((e.messages, e.last_message_id), (1, 10));
        assert!(count_one(Some(e.clone()), &first).is_none());
        let repeat = Sent {
            message_id: 11,
            ..first
        };
        let e = count_one(Some(e), &repeat).expect("a later message is counted");
        assert_eq!((e.messages, e.repeats), (2, 1));
        assert_eq!(e.last_anomaly.as_deref(), Some("REPEAT"));
        assert_eq!(e.last_anomaly_id, Some(11));
    }
}
