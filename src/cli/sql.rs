//! `flightstate sql`: the catalogue of every statement the binary can run,
//! for DBA review, grouped by database and by where a statement comes from:
//! the handwritten files of `sql/<dialect>/`, the `COPY`s diesel's query
//! builder makes for a snapshot's rows (PostgreSQL), and the mailbox's
//! `sql/mailbox/`. Nothing else reaches a database.

use std::borrow::Cow;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Which database's statements to print; every database this build
    /// can reach when not given.
    #[arg(long, value_enum)]
    dialect: Option<SqlDatabase>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SqlDatabase {
    /// The state database on PostgreSQL (`sql/pg/` and diesel's `COPY`s).
    Pg,
    /// The state database on Oracle 11g (`sql/oracle/`).
    Oracle,
    /// AODB's MySQL/MariaDB mailbox (`sql/mailbox/`).
    Mailbox,
}

/// The statements of one database from one source, as a DBA is shown them.
struct Section {
    /// The database and the source, e.g. "PostgreSQL state database:
    /// handwritten, sql/pg/".
    title: &'static str,
    /// What the reader should know about where these statements come from,
    /// a comment line each.
    note: &'static str,
    /// Each statement: the line that names it, then its text.
    statements: Vec<(String, Cow<'static, str>)>,
}

/// Handwritten statements, each named by its file.
fn files(
    dir: &str,
    all: &'static [(&'static str, &'static str)],
) -> Vec<(String, Cow<'static, str>)> {
    all.iter()
        .map(|(name, text)| (format!("-- file: {dir}/{name}.sql"), Cow::Borrowed(*text)))
        .collect()
}

#[cfg(feature = "postgres")]
fn pg_sections() -> anyhow::Result<Vec<Section>> {
    use flightstate::store::pg;
    Ok(vec![
        Section {
            title: "PostgreSQL state database: handwritten, sql/pg/",
            note: "every read and write but the COPYs below; each file names its binds,\n\
                   result and locks",
            statements: files("sql/pg", pg::statements()),
        },
        Section {
            title: "PostgreSQL state database: built by diesel's query builder",
            note: "the COPY … FROM STDIN of a snapshot's rows (the default write path):\n\
                   the text of the query diesel builds over src/store/pg/schema.rs",
            statements: pg::copy_statements()
                .into_iter()
                .map(|(op, text)| (format!("-- built: {op}"), Cow::Owned(text)))
                .collect(),
        },
    ])
}

#[cfg(not(feature = "postgres"))]
fn pg_sections() -> anyhow::Result<Vec<Section>> {
    anyhow::bail!("this build has no PostgreSQL support (feature `postgres`)")
}

#[cfg(feature = "oracle")]
fn oracle_sections() -> anyhow::Result<Vec<Section>> {
    Ok(vec![Section {
        title: "Oracle state database: handwritten, sql/oracle/",
        note: "every statement; each file names its binds, result and locks",
        statements: files("sql/oracle", flightstate::store::oracle::statements()),
    }])
}

#[cfg(not(feature = "oracle"))]
fn oracle_sections() -> anyhow::Result<Vec<Section>> {
    anyhow::bail!("this build has no Oracle support (feature `oracle`)")
}

fn mailbox_sections() -> Vec<Section> {
    vec![Section {
        title: "AODB mailbox (MySQL/MariaDB): handwritten, sql/mailbox/",
        note: "every statement; each file names its binds, result and locks",
        statements: files("sql/mailbox", flightstate::mailbox::statements()),
    }]
}

/// The sections of `database`, or of every database this build reaches.
fn catalogue(database: Option<SqlDatabase>) -> anyhow::Result<Vec<Section>> {
    Ok(match database {
        Some(SqlDatabase::Pg) => pg_sections()?,
        Some(SqlDatabase::Oracle) => oracle_sections()?,
        Some(SqlDatabase::Mailbox) => mailbox_sections(),
        // A dialect the build lacks has no statements the binary can run.
        None => [
            pg_sections().ok(),
            oracle_sections().ok(),
            Some(mailbox_sections()),
        ]
        .into_iter()
        .flatten()
        .flatten()
        .collect(),
    })
}

fn write_section(out: &mut impl Write, section: &Section) -> std::io::Result<()> {
    let rule = "-- ".to_owned() + &"=".repeat(76);
    writeln!(out, "{rule}")?;
    writeln!(
        out,
        "-- {} ({} statements)",
        section.title,
        section.statements.len()
    )?;
    for line in section.note.lines() {
        writeln!(out, "-- {line}")?;
    }
    writeln!(out, "{rule}\n")?;
    for (label, text) in &section.statements {
        writeln!(out, "{label}\n{}\n", text.trim_end())?;
    }
    Ok(())
}

pub fn run(opts: Opts, _config: &Config) -> anyhow::Result<ExitCode> {
    let sections = catalogue(opts.dialect)?;
    let mut out = std::io::stdout().lock();
    for section in &sections {
        match write_section(&mut out, section) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
            Err(e) => return Err(e).context("cannot write to stdout"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
