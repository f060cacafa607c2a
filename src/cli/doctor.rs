//! `flightstate doctor`: checks, before the first message, everything a
//! site's set-up can get wrong — the state database (reachable, a supported
//! server, the schema of this binary, the privileges), the mailbox (its
//! tables, columns and statuses), the brokers and topics, the station's
//! clock and the read API's port. One line per check, each failure with
//! what to do; exit 0 when all hold, 1 otherwise. Nothing is written.

use std::net::TcpListener;
use std::process::ExitCode;
use std::time::Duration;

use flightstate::config::{Config, redact_url};
use flightstate::mailbox::Mailbox;
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

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
    let facts = match super::state_db::inspect(url, config) {
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
    report.line(
        "privileges",
        match &facts.missing_privileges {
            None => Verdict::Ok("not checked for this dialect (the schema owner's)".to_owned()),
            Some(missing) if missing.is_empty() => {
                Verdict::Ok("SELECT, INSERT, UPDATE, DELETE on every table".to_owned())
            }
            Some(missing) => Verdict::Fail(format!(
                "no SELECT, INSERT, UPDATE and DELETE on {} (or the table is missing): run \
                 `flightstate migrate`, or grant them to this user",
                missing.join(", ")
            )),
        },
    );
}

fn mailbox(report: &mut Report, config: &Config) {
    let check = "mailbox";
    let facts = super::pump::mailbox_settings(config).and_then(|settings| {
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
    let brokers = match config.kafka_brokers() {
        Ok(brokers) => brokers,
        Err(e) => return report.line(check, Verdict::Fail(e.to_string())),
    };
    let metadata = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .create::<BaseConsumer>()
        .and_then(|consumer| consumer.fetch_metadata(None, BROKER_WAIT));
    let metadata = match metadata {
        Ok(metadata) => metadata,
        Err(e) => {
            return report.line(
                check,
                Verdict::Fail(format!(
                    "no answer from {brokers} within {} s: {e}; check `kafka.brokers` and that \
                     this host may reach them",
                    BROKER_WAIT.as_secs()
                )),
            );
        }
    };
    report.line(
        check,
        Verdict::Ok(format!(
            "{} broker(s) answer at {brokers}",
            metadata.brokers().len()
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
