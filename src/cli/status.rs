//! `flightstate status [--json]`: the facts of the status page — backlog,
//! lease, outbox, dead letters, days, the latest operator actions — printed
//! once, from the same code.
//! Exit 0 when every part could be read, 1 when one could not.

use std::process::ExitCode;

use flightstate::api;
use flightstate::config::Config;
use flightstate::store::{ActionRecord, Store};

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::with_store_at(
        config.api_database_url()?,
        config,
        1,
        Print { config, opts },
    )
}

struct Print<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for Print<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let mailbox = super::serve::optional_mailbox(self.config)?;
        let status = api::collect(&store, mailbox.as_deref(), self.config.status_limits());
        if self.opts.json {
            println!("{}", serde_json::to_string_pretty(&status)?);
        } else {
            print!("{}", status.to_text());
            if let Some(state) = &status.state {
                print!("{}", actions_text(&state.actions));
            }
        }
        let whole = status.state.is_some() && (status.mailbox.is_some() || mailbox.is_none());
        Ok(if whole {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
}

/// The latest operator actions, one line each: when, who, through which,
/// what, on which message or day, and what became of it.
fn actions_text(actions: &[ActionRecord]) -> String {
    let mut text = String::from("latest operator actions:\n");
    for a in actions {
        let about = match (a.message_id, a.operation_day) {
            (Some(id), _) => format!("message {id}"),
            (None, Some(day)) => format!("day {day}"),
            (None, None) => "-".to_owned(),
        };
        text.push_str(&format!(
            "  {}  {} ({})  {} {}  {}: {}\n",
            a.taken_at.format("%Y-%m-%d %H:%M:%S"),
            a.taken_by,
            a.via,
            a.action,
            about,
            a.result,
            a.detail.as_deref().unwrap_or("-"),
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_line_names_who_what_and_the_result() {
        let taken_at = chrono::NaiveDate::from_ymd_opt(2026, 12, 6)
            .and_then(|d| d.and_hms_opt(9, 30, 0))
            .expect("a time");
        let action = ActionRecord {
            action_id: 1,
            taken_at,
            taken_by: "alice".to_owned(),
            via: "CLI".to_owned(),
            action: "REQUEUE".to_owned(),
            message_id: Some(42),
            operation_day: None,
            flid: None,
            result: "NOT_DEAD".to_owned(),
            detail: Some("not requeued: it is SUCCEEDED, not DEAD".to_owned()),
        };
        assert_eq!(
            actions_text(&[action]),
            "latest operator actions:\n  2026-12-06 09:30:00  alice (CLI)  REQUEUE message 42  \
             NOT_DEAD: not requeued: it is SUCCEEDED, not DEAD\n"
        );
    }
}
