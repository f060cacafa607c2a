//! The `flightstate` binary: parses the command line, loads the
//! configuration, starts logging and hands over to one subcommand.

mod cli;

use std::process::ExitCode;

/// mimalloc rather than glibc's malloc: reading a day's snapshot allocates
/// and frees a great many small strings, on several threads at once, and
/// glibc's allocator took a large share of the process's CPU doing it; the
/// measurements are in `docs/benchmarks.md` ("`snapshot_apply`", "What each
/// step bought", mimalloc). The benches declare the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    flightstate::memory::refuse_huge_pages();
    cli::main()
}
