//! The `flightstate` binary: parses the command line, loads the
//! configuration, starts logging and hands over to one subcommand.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
