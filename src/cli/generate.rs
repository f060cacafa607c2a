//! `flightstate generate --day D --out DIR`: writes a synthetic airport day
//! (`flightstate::synth`) as numbered SIS message files, in the order AODB
//! would send them, for the demo and for trying the pipeline by hand.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use chrono::NaiveDate;
use flightstate::config::Config;
use flightstate::protocol::to_xml;
use flightstate::synth::{self, DayOptions};

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Operation day, YYYY-MM-DD: every flight's scheduled time falls in it.
    #[arg(long)]
    day: NaiveDate,
    /// Flights in the day's snapshot (two ad-hoc flights come on top).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u16).range(0..=9999))]
    flights: u16,
    /// Decides every choice of the generator: the same seed gives the same files.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory to write into; created if missing, refused if not empty.
    #[arg(long)]
    out: PathBuf,
}

/// Writes `0001-SCHD-DNLD.xml`, `0002-FLOP-STND.xml`, … (the number padded
/// to the width of the file count, at least four digits) and prints one
/// summary line. The home airport is `station.home_airport` (default CTU).
pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let options = DayOptions {
        seed: opts.seed,
        day: opts.day,
        flights: usize::from(opts.flights),
        home_airport: config
            .station
            .home_airport
            .clone()
            .unwrap_or_else(|| DayOptions::default().home_airport),
        ..DayOptions::default()
    };
    prepare(&opts.out)?;
    let day = synth::airport_day(&options);
    let total = 1 + day.events.len();
    let width = total.to_string().len().max(4);
    let mut progress = super::progress::Progress::new("written", total as u64);
    for (i, message) in std::iter::once(&day.snapshot)
        .chain(&day.events)
        .enumerate()
    {
        let name = format!(
            "{:0width$}-{}-{}.xml",
            i + 1,
            message.meta.msg_type,
            message.meta.styp
        );
        let path = opts.out.join(name);
        std::fs::write(&path, to_xml(message))
            .with_context(|| format!("cannot write {}", path.display()))?;
        progress.inc();
    }
    let rows = synth::detail_rows(&day.snapshot);
    println!(
        "generated {total} files ({} flights, {rows} detail rows in the snapshot, {} events) for {} into {}",
        options.flights,
        day.events.len(),
        options.day,
        opts.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Makes sure `dir` exists and holds nothing: files of two days mixed in one
/// numbered sequence would be applied as one day.
fn prepare(dir: &std::path::Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    if entries.next().is_some() {
        anyhow::bail!(
            "{} is not empty; choose an empty or new directory",
            dir.display()
        );
    }
    Ok(())
}
