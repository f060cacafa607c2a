//! `flightstate doctor`: checks, before the first message, everything a
//! site's set-up can get wrong — the state database (reachable, a supported
//! server, the schema of this binary, the privileges), the mailbox (its
//! tables, columns and statuses), the brokers, the topics and the state
//! topic's compaction, the station's
//! clock and the read API's port. One line per check, each failure with
//! what to do; exit 0 when all hold, 1 otherwise. Nothing is written.

use std::net::TcpListener;
use std::process::ExitCode;
use std::time::Duration;

use flightstate::config::{Config, redact_url};
use flightstate::dispatch::OutboxError;
use flightstate::failure::Causes;
use flightstate::kafka::{KafkaClient, LinkError, TopicAdmin, keeps_every_flight};
use flightstate::mailbox::Mailbox;

#[cfg(feature = "oracle")]
mod oracle;

#[derive(Debug, clap::Args)]
pub struct Opts {}

/// How long the brokers may take to answer a metadata request.
const BROKER_WAIT: Duration = Duration::from_secs(10);

/// The outcome of one check.
enum Verdict {
    Ok(String),
    /// Holds, but a person should know (the host's zone standing in).
    Warn(String),
    /// Does not hold: what is wrong, and what to do.
    Fail(String),
}

/// The report: one line per check, as they are made.
#[derive(Default)]
struct Report {
    failed: usize,
}

impl Report {
    fn line(&mut self, check: &str, verdict: Verdict) {
        let (mark, text) = match verdict {
            Verdict::Ok(text) => ("ok  ", text),
            Verdict::Warn(text) => ("warn", text),
            Verdict::Fail(text) => {
                self.failed += 1;
                ("FAIL", text)
            }
        };
        println!("{mark} {check}: {text}");
    }
}

pub fn run(_opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let mut report = Report::default();
    state_database(&mut report, config);
    mailbox(&mut report, config);
    lost_tail(&mut report, config);
    brokers(&mut report, config);
    station_clock(&mut report, config);
    api_port(&mut report, config);
    if report.failed == 0 {
        println!("all checks hold");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} check(s) failed", report.failed);
        Ok(ExitCode::from(1))
    }
}

fn state_database(report: &mut Report, config: &Config) {
    let check = "state database";
    let url = match config.database_url() {
        Ok(url) => url,
        Err(e) => return report.line(check, Verdict::Fail(e.to_string())),
    };
    let facts = match super::open_store::inspect(url, config) {
        Ok(facts) => facts,
        Err(e) => {
            return report.line(
                check,
                Verdict::Fail(format!(
                    "cannot reach {}: {e:#}; check `database.url` (host, port, user, password \
                     in FLIGHTSTATE_DATABASE_URL) and that the server accepts this host",
                    redact_url(url)
                )),
            );
        }
    };
    report.line(
        check,
        Verdict::Ok(format!("{} answers at {}", facts.server, redact_url(url))),
    );
    report.line(
        "server version",
        match &facts.server_too_old {
            None => Verdict::Ok(format!("{} is supported", facts.server)),
            Some(why) => Verdict::Fail(format!("{}: {why}", facts.server)),
        },
    );
    if let Some(client) = &facts.client {
        report.line("database client", Verdict::Ok(client.clone()));
    }
    if let Some((charset, problem)) = &facts.character_set {
        report.line(
            "character set",
            match problem {
                None => Verdict::Ok(charset.clone()),
                Some(why) => Verdict::Fail(format!("{charset}: {why}")),
            },
        );
    }
    let schema_behind = facts.schema.check().is_err();
    report.line(
        "schema",
        match facts.schema.check() {
            Ok(()) => Verdict::Ok(format!(
                "{} migrations applied, as this binary expects",
                facts.schema.binary.len()
            )),
            Err(e) => Verdict::Fail(e.to_string()),
        },
    );
    #[cfg(feature = "oracle")]
    if url.starts_with("oracle://") {
        oracle::session_checks(report, url);
    }
    report.line(
        "privileges",
        match &facts.missing_privileges {
            None => Verdict::Ok("not checked for this dialect (the schema owner's)".to_owned()),
            Some(missing) if missing.is_empty() => {
                Verdict::Ok("SELECT, INSERT, UPDATE, DELETE on every table".to_owned())
            }
            // Tables a pending migration creates are missing until it runs:
            // the schema line says so already, and its remedy is the same.
            Some(missing) if schema_behind => Verdict::Warn(format!(
                "not judged while the schema is behind: no SELECT, INSERT, UPDATE and DELETE on \
                 {} yet; look again after `flightstate migrate`",
                missing.join(", ")
            )),
            Some(missing) => Verdict::Fail(format!(
                "no SELECT, INSERT, UPDATE and DELETE on {} (or the table is missing): run \
                 `flightstate migrate`, or grant them to this user",
                missing.join(", ")
            )),
        },
    );
}

/// Whether the state database lost commits whose mailbox rows were written
/// back (docs/operations.md, "After a failover").
fn lost_tail(report: &mut Report, config: &Config) {
    report.line(
        "lost tail",
        match super::catch_up::look(config) {
            Ok(None) => Verdict::Ok(
                "the state database holds every message flightstate wrote back".to_owned(),
            ),
            Ok(Some(tail)) => Verdict::Fail(format!(
                "{}; the pump of `flightstate run` catches it up when it holds the lease, or run \
                 `flightstate catch-up` (docs/operations.md, \"After a failover\")",
                tail.describe()
            )),
            Err(e) => Verdict::Warn(format!("cannot look for one: {e:#}")),
        },
    );
}

fn mailbox(report: &mut Report, config: &Config) {
    let check = "mailbox";
    let facts = config
        .mailbox_settings()
        .map_err(anyhow::Error::from)
        .and_then(|settings| {
            let shown = redact_url(&settings.url);
            let facts = Mailbox::connect(settings)
                .and_then(|mailbox| mailbox.inspect())
                .map_err(|e| anyhow::anyhow!("cannot reach {shown}: {e:#}"))?;
            Ok((shown, facts))
        });
    let (shown, facts) = match facts {
        Ok(found) => found,
        Err(e) => {
            return report.line(
                check,
                Verdict::Fail(format!(
                    "{e:#}; check `mailbox.url` (FLIGHTSTATE_MAILBOX_URL) and the account's \
                     password and grants"
                )),
            );
        }
    };
    report.line(check, Verdict::Ok(format!("answers at {shown}")));
    let problems = facts.column_problems();
    report.line(
        "mailbox tables",
        if problems.is_empty() {
            Verdict::Ok("CMINMSGS and COUTMSGS have every column flightstate uses".to_owned())
        } else {
            Verdict::Fail(format!(
                "{}: the mailbox database is not AODB's (check the database name in \
                 `mailbox.url`) or its tables differ",
                problems.join("; ")
            ))
        },
    );
    let m = &config.mailbox;
    report.line(
        "mailbox statuses",
        if !facts.any_row || facts.known_status {
            Verdict::Ok(format!(
                "pending {:?}, succeeded {:?}, dead {:?}",
                m.pending_status, m.succeeded_status, m.dead_status
            ))
        } else {
            Verdict::Fail(format!(
                "CMINMSGS holds rows but none with status {:?}, {:?} or {:?}: set \
                 `mailbox.pending_status` (and the written-back statuses) to the site's values",
                m.pending_status, m.succeeded_status, m.dead_status
            ))
        },
    );
}

fn brokers(report: &mut Report, config: &Config) {
    let check = "brokers";
    let client = match config.kafka_client() {
        Ok(client) => client,
        Err(e) => return report.line(check, Verdict::Fail(e.to_string())),
    };
    let brokers = client.brokers();
    let metadata = match client.metadata(None, BROKER_WAIT) {
        Ok(metadata) => metadata,
        Err(LinkError::Refused(refusal)) => {
            return report.line(check, Verdict::Fail(refusal.to_string()));
        }
        Err(e) => {
            return report.line(
                check,
                Verdict::Fail(format!(
                    "{}; check `kafka.brokers`, `security.protocol` in [kafka.client] and that \
                     this host may reach them",
                    Causes(&e)
                )),
            );
        }
    };
    report.line(
        check,
        Verdict::Ok(format!(
            "{} broker(s) answer at {brokers} ({})",
            metadata.brokers().len(),
            client.security()
        )),
    );
    for topic in [&config.kafka.state_topic, &config.kafka.change_topic] {
        let found = metadata.topics().iter().find(|t| t.name() == topic);
        let verdict = match found {
            Some(t) if t.error().is_none() => {
                Verdict::Ok(format!("{topic}: {} partition(s)", t.partitions().len()))
            }
            _ if config.kafka.create_topics => Verdict::Ok(format!(
                "{topic}: absent; the dispatcher creates it ({} partition(s), \
                 `kafka.create_topics`)",
                config.kafka.topic_partitions
            )),
            _ => Verdict::Fail(format!(
                "{topic} does not exist and `kafka.create_topics` is off: create it, or turn \
                 the setting on"
            )),
        };
        report.line("topic", verdict);
    }
    let state_topic = &config.kafka.state_topic;
    if metadata
        .topics()
        .iter()
        .any(|t| t.name() == state_topic && t.error().is_none())
    {
        report.line("state topic policy", state_topic_policy(config, &client));
    }
}

/// Whether the state topic is compacted, as the dispatcher requires.
fn state_topic_policy(config: &Config, client: &KafkaClient) -> Verdict {
    let topic = &config.kafka.state_topic;
    let policy = TopicAdmin::new(client, BROKER_WAIT)
        .map_err(|e| e.to_string())
        .and_then(|admin| {
            admin
                .cleanup_policy(topic)
                .map_err(|e| Causes(&e).to_string())
        });
    match policy {
        Err(e) => Verdict::Fail(format!("cannot read the configuration of {topic}: {e}")),
        Ok(Some(policy)) if keeps_every_flight(&policy) => {
            Verdict::Ok(format!("{topic}: cleanup.policy={policy}"))
        }
        Ok(policy) => {
            let refused = OutboxError::UncompactedStateTopic {
                topic: topic.clone(),
                policy: policy.unwrap_or_else(|| "(not reported by the broker)".to_owned()),
            };
            if config.kafka.allow_uncompacted_state_topic {
                Verdict::Warn(format!(
                    "{refused} (accepted: `kafka.allow_uncompacted_state_topic` is set)"
                ))
            } else {
                Verdict::Fail(refused.to_string())
            }
        }
    }
}

fn station_clock(report: &mut Report, config: &Config) {
    let clock = config.station_clock();
    let now = clock.now().format("%Y-%m-%d %H:%M");
    report.line(
        "station time zone",
        if clock.is_configured() {
            Verdict::Ok(format!("{}, now {now}", clock.zone_name()))
        } else {
            Verdict::Warn(format!(
                "`station.time_zone` is not set: the host's zone stands in (now {now}); set \
                 the station's IANA zone, e.g. \"Asia/Shanghai\""
            ))
        },
    );
}

fn api_port(report: &mut Report, config: &Config) {
    let bind = &config.api.bind;
    if bind.is_empty() {
        return report.line(
            "read API",
            Verdict::Ok("off (`api.bind` is empty)".to_owned()),
        );
    }
    report.line(
        "read API",
        match TcpListener::bind(bind.as_str()) {
            Ok(_) => Verdict::Ok(format!("{bind} is free")),
            Err(e) => Verdict::Fail(format!(
                "cannot listen on {bind}: {e}; another process holds it (a `run` already \
                 running?) or set `api.bind`"
            )),
        },
    );
}
