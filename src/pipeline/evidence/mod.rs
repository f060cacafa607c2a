//! Evidence of how the upstream sends (docs/open-questions.md): the order
//! of arrivals against the senders' clocks (`order`, rule M) and each
//! sender's SEQN steps (`seqn`), counted in the transaction that applies
//! or records the message. Evidence never decides anything: it shows
//! whether the rules' assumptions hold at a site.

pub(super) mod order;
pub(super) mod seqn;
