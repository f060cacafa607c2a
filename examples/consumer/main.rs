//! A reference consumer of flightstate's topics: it rebuilds the current
//! state of every flight from the state topic and says, from the heartbeat
//! topic, whether that state is up to date.
//!
//! ```text
//! cargo run --example consumer -- --brokers 127.0.0.1:9092 [--print]
//! ```
//!
//! Written for a team starting its own consumer: the rule is in `view.rs`,
//! the contract check in `record.rs`, the heartbeat's reading in
//! `heartbeat.rs`, the reading of the topics in `read.rs`; this file only
//! wires them. `tests/consumer.rs` runs the same modules against a real
//! flightstate and checks the view against its database.

mod heartbeat;
mod read;
mod record;
mod view;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use read::{Topics, read_to_end};

#[derive(Parser)]
#[command(about = "Rebuilds every flight's current state from flightstate's state topic")]
struct Args {
    /// The brokers (`bootstrap.servers`).
    #[arg(long, default_value = "127.0.0.1:9092")]
    brokers: String,
    /// flightstate's `kafka.state_topic`.
    #[arg(long, default_value = "flight.state")]
    state_topic: String,
    /// flightstate's `kafka.heartbeat_topic`; empty: not read.
    #[arg(long, default_value = "flight.heartbeat")]
    heartbeat_topic: String,
    /// Print the view as JSON (`{"FLID": state, …}`) on stdout.
    #[arg(long)]
    print: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let topics = Topics {
        state: args.state_topic,
        heartbeat: Some(args.heartbeat_topic).filter(|t| !t.is_empty()),
    };
    let view = match read_to_end(&args.brokers, &topics) {
        Ok(view) => view,
        Err(e) => {
            // The whole chain: "cannot read a topic: <the broker's words>".
            let mut message = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                message.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            eprintln!("consumer: {message}");
            return ExitCode::FAILURE;
        }
    };
    if args.print {
        // Into a pipe that closed early (`| head`): stop, without a panic.
        if writeln!(std::io::stdout().lock(), "{}", view.to_json()).is_err() {
            return ExitCode::FAILURE;
        }
    }
    eprintln!(
        "{} flights, {} deleted",
        view.flights().len(),
        view.deleted().len()
    );
    let now = chrono::Utc::now().naive_utc();
    if topics.heartbeat.is_some() {
        let latest = view.heartbeats.latest();
        if latest.is_empty() {
            eprintln!("{}", heartbeat::status(None, now));
        }
        for (station, beat) in latest {
            eprintln!("{station}: {}", heartbeat::status(Some(beat), now));
        }
    }
    ExitCode::SUCCESS
}
