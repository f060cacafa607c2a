//! The `flightstate` binary: parses the command line, loads the
//! configuration, starts logging and hands over to one subcommand.

mod cli;

use std::process::ExitCode;

/// mimalloc rather than glibc's malloc: reading a day's snapshot allocates
/// and frees millions of small strings, on several threads at once, where
/// glibc's allocator costs a quarter of the process's CPU; with mimalloc an
/// unchanged day re-applies about a third faster (`docs/snapshot-ledger.md`,
/// "Throughput"). The benches declare the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    flightstate::memory::refuse_huge_pages();
    cli::main()
}
