//! Long commands report progress on stderr; when stderr is not a terminal
//! (here a pipe) that is one plain `N of M` line per tenth of the work,
//! without escape sequences or carriage returns.

use std::process::Command;

#[test]
fn generate_into_a_pipe_says_n_of_m_once_per_tenth() {
    let dir = std::env::temp_dir().join(format!("flightstate-progress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args(["--config", "/nonexistent/flightstate.toml", "generate"])
        .args([
            "--day",
            "2025-03-14",
            "--flights",
            "40",
            "--seed",
            "3",
            "--out",
        ])
        .arg(&dir)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate generate");
    let files = std::fs::read_dir(&dir).map(Iterator::count).unwrap_or(0) as u64;
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(
        files > 10,
        "a day of 40 flights is more than 10 files: {files}"
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("written "))
        .collect();
    assert_eq!(lines.len(), 10, "{stderr}");
    assert_eq!(lines[9], format!("written {files} of {files}"));
    for (i, line) in lines.iter().enumerate() {
        let done: u64 = line
            .trim_start_matches("written ")
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not `written N of M`: {line}"));
        assert_eq!(
            done * 10 / files,
            i as u64 + 1,
            "line {i} is the first of its tenth: {line}"
        );
    }
    assert!(
        !stderr.contains('\r') && !stderr.contains('\u{1b}'),
        "no bar and no colour into a pipe: {stderr:?}"
    );
}

/// Under a terminal (a pseudo-terminal from util-linux `script`), the same
/// command redraws one bar in place and ends it full.
#[test]
fn generate_on_a_terminal_draws_a_bar() {
    let dir = std::env::temp_dir().join(format!("flightstate-bar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let command = format!(
        "{} --config /nonexistent/flightstate.toml generate --day 2025-03-14 --flights 40 --seed 3 --out {}",
        env!("CARGO_BIN_EXE_flightstate"),
        dir.display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("RUST_LOG", "warn")
        .output()
        .expect("run `script` (util-linux)");
    let files = std::fs::read_dir(&dir).map(Iterator::count).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}");
    assert!(shown.starts_with("\rwritten ["), "{shown:?}");
    let full = format!("\rwritten [{}] {files} of {files}\r\n", "#".repeat(30));
    assert!(shown.contains(&full), "no full bar {full:?} in {shown:?}");
    assert!(
        !shown.contains(&format!("\nwritten {files} of {files}")),
        "no plain lines on a terminal"
    );
}
