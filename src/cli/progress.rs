//! Progress of a long command on stderr: a bar redrawn in place on a
//! terminal, and otherwise one plain `N of M` line per tenth of the work,
//! so that a log file or a pipe gets a few readable lines and no escape
//! sequences or carriage returns.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often the bar is redrawn at most: faster is invisible and costs
/// writes to the terminal.
const REDRAW: Duration = Duration::from_millis(100);
const BAR_WIDTH: u64 = 30;

pub struct Progress {
    what: &'static str,
    total: u64,
    done: u64,
    terminal: bool,
    drawn: Option<Instant>,
}

impl Progress {
    /// Progress of `total` units of `what` ("queued", "written").
    pub fn new(what: &'static str, total: u64) -> Progress {
        Progress {
            what,
            total,
            done: 0,
            terminal: std::io::stderr().is_terminal(),
            drawn: None,
        }
    }

    /// One more unit done.
    pub fn inc(&mut self) {
        self.done += 1;
        if self.terminal {
            if self.done == self.total || self.drawn.is_none_or(|t| t.elapsed() >= REDRAW) {
                self.drawn = Some(Instant::now());
                let mut err = std::io::stderr().lock();
                // Progress is a courtesy: a closed stderr must not stop the work.
                let _ = write!(err, "\r{}", bar(self.what, self.done, self.total));
                if self.done == self.total {
                    let _ = writeln!(err);
                }
                let _ = err.flush();
            }
        } else if let Some(line) = plain_line(self.what, self.done, self.total) {
            eprintln!("{line}");
        }
    }
}

/// The plain line to print after unit `done` of `total`: when `done` is the
/// first unit of a new tenth (10 %, 20 %, …, 100 %).
fn plain_line(what: &str, done: u64, total: u64) -> Option<String> {
    let tenth = |n: u64| n * 10 / total.max(1);
    (done > 0 && tenth(done) > tenth(done - 1)).then(|| format!("{what} {done} of {total}"))
}

fn bar(what: &str, done: u64, total: u64) -> String {
    let filled = (done * BAR_WIDTH / total.max(1)).min(BAR_WIDTH);
    format!(
        "{what} [{}{}] {done} of {total}",
        "#".repeat(filled as usize),
        " ".repeat((BAR_WIDTH - filled) as usize)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(total: u64) -> Vec<String> {
        (1..=total)
            .filter_map(|done| plain_line("queued", done, total))
            .collect()
    }

    #[test]
    fn a_plain_line_per_tenth_and_one_at_the_end() {
        let hundred = lines(100);
        assert_eq!(hundred.len(), 10);
        assert_eq!(hundred[0], "queued 10 of 100");
        assert_eq!(hundred[9], "queued 100 of 100");
        assert_eq!(
            lines(3),
            ["queued 1 of 3", "queued 2 of 3", "queued 3 of 3"]
        );
        let many = lines(12_345);
        assert_eq!(many.len(), 10);
        assert_eq!(
            many.last().map(String::as_str),
            Some("queued 12345 of 12345")
        );
    }

    #[test]
    fn the_bar_fills_with_the_work() {
        assert_eq!(
            bar("written", 0, 10),
            format!("written [{}] 0 of 10", " ".repeat(30))
        );
        assert_eq!(
            bar("written", 5, 10),
            format!("written [{}{}] 5 of 10", "#".repeat(15), " ".repeat(15))
        );
        assert_eq!(
            bar("written", 10, 10),
            format!("written [{}] 10 of 10", "#".repeat(30))
        );
    }
}
