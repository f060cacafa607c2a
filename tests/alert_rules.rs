//! The Prometheus alert rules and the Grafana dashboard that the packages
//! install (`packaging/prometheus/`, `packaging/grafana/`;
//! `docs/operations.md`, "Monitoring"): promtool checks the rules and runs
//! their unit tests, every series they name is one a live `/metrics`
//! exports (a read API of the test's own against real PostgreSQL and
//! MariaDB), and every runbook link lands on a section of the operations
//! guide.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use flightstate::mailbox::Mailbox;

use reading::{TestApi, applied_day, get, parse_prometheus, settings};

const RULES: &str = "packaging/prometheus/flightstate-rules.yml";
const RULE_TESTS: &str = "packaging/prometheus/flightstate-rules.test.yml";
const DASHBOARD: &str = "packaging/grafana/flightstate-dashboard.json";

fn source(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[track_caller]
fn read(path: &str) -> String {
    std::fs::read_to_string(source(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// Runs `promtool ARGS`, failing with its output unless it succeeds. A
/// missing promtool fails too: a check that cannot run must not pass.
#[track_caller]
fn promtool(args: &[&str]) -> String {
    let output = match Command::new("promtool").args(args).output() {
        Ok(output) => output,
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => panic!(
            "promtool does not run ({e}): scripts/services installs it (Debian's prometheus \
             package) before CI's tests"
        ),
        Err(e) => panic!(
            "promtool does not run ({e}): install Debian's prometheus package \
             (apt-get install prometheus) or run scripts/services"
        ),
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "promtool {} failed ({}):\n{text}",
        args.join(" "),
        output.status
    );
    text
}

/// The `expr:` values of a rules file: one line, or a `|` block of the
/// lines indented deeper than the key.
fn rule_expressions(yaml: &str) -> Vec<String> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut exprs = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(value) = line.trim_start().strip_prefix("expr:") else {
            continue;
        };
        let value = value.trim();
        if value != "|" {
            exprs.push(value.to_owned());
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let block: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .map(|l| l.trim())
            .collect();
        exprs.push(block.join(" "));
    }
    exprs
}

/// Every panel target's `expr` in the dashboard, rows' nested panels too.
fn dashboard_expressions(dashboard: &serde_json::Value) -> Vec<String> {
    fn walk(panels: &serde_json::Value, out: &mut Vec<String>) {
        for panel in panels.as_array().into_iter().flatten() {
            for target in panel["targets"].as_array().into_iter().flatten() {
                if let Some(expr) = target["expr"].as_str() {
                    out.push(expr.to_owned());
                }
            }
            walk(&panel["panels"], out);
        }
    }
    let mut out = Vec::new();
    walk(&dashboard["panels"], &mut out);
    out
}

fn dashboard() -> serde_json::Value {
    serde_json::from_str(&read(DASHBOARD)).unwrap_or_else(|e| panic!("{DASHBOARD}: {e}"))
}

/// The `flightstate_…` names an expression uses.
fn series_names(expr: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let bytes = expr.as_bytes();
    let mut at = 0;
    while let Some(found) = expr[at..].find("flightstate_") {
        let start = at + found;
        let mut end = start + "flightstate_".len();
        while end < bytes.len() && (bytes[end].is_ascii_lowercase() || bytes[end] == b'_') {
            end += 1;
        }
        let glued =
            start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        if !glued {
            names.insert(expr[start..end].to_owned());
        }
        at = end;
    }
    names
}

#[test]
fn promtool_checks_the_rules_and_runs_their_unit_tests() {
    let checked = promtool(&["check", "rules", &source(RULES).to_string_lossy()]);
    assert!(checked.contains("SUCCESS"), "{checked}");
    let tested = promtool(&["test", "rules", &source(RULE_TESTS).to_string_lossy()]);
    assert!(tested.contains("SUCCESS"), "{tested}");

    // Every alert has a case in the unit tests.
    let tests = read(RULE_TESTS);
    let rules = read(RULES);
    let alerts: Vec<&str> = rules
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- alert:"))
        .map(str::trim)
        .collect();
    assert!(alerts.len() >= 7, "{alerts:?}");
    for alert in &alerts {
        assert!(
            tests.contains(&format!("alertname: {alert}\n")),
            "{alert} has no case in {RULE_TESTS}"
        );
    }

    // The dashboard's queries parse as PromQL: promtool checks them as
    // recording rules of a file of the test's own.
    let exprs = dashboard_expressions(&dashboard());
    assert!(exprs.len() >= 10, "{exprs:?}");
    let mut recorded = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (i, expr) in exprs.iter().enumerate() {
        let quoted = serde_json::to_string(expr).expect("a string");
        recorded.push_str(&format!(
            "      - record: panel_{i}\n        expr: {quoted}\n"
        ));
    }
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("flightstate-dashboard-rules.yml");
    std::fs::write(&path, recorded).expect("write the dashboard's queries");
    promtool(&["check", "rules", &path.to_string_lossy()]);
}

#[test]
fn every_series_the_rules_and_the_dashboard_use_is_exported() {
    let (_db, store) = applied_day(3);
    let mailbox_db = pumping::MailboxDatabase::create("alert_rules");
    mailbox_db.insert(b"<MSG/>");
    let mailbox =
        Mailbox::connect(pumping::mailbox_settings(mailbox_db.url())).expect("mailbox pool");
    let api = TestApi::start(store, Some(Arc::new(mailbox)), settings(None, None));
    let text = get(api.addr, "/metrics").text();
    parse_prometheus(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    // Families, by their `# TYPE` lines: a family with no sample this
    // scrape (no lease holder yet) is still one /metrics exports.
    let families: BTreeMap<&str, &str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_once(' '))
        .collect();
    assert_eq!(
        families.get("flightstate_apply_seconds"),
        Some(&"histogram")
    );
    let exported = |name: &str| {
        families.contains_key(name)
            || ["_bucket", "_sum", "_count"].iter().any(|suffix| {
                name.strip_suffix(suffix)
                    .is_some_and(|base| families.get(base) == Some(&"histogram"))
            })
    };

    let rule_exprs = rule_expressions(&read(RULES));
    let dashboard_exprs = dashboard_expressions(&dashboard());
    for (file, exprs) in [(RULES, rule_exprs), (DASHBOARD, dashboard_exprs)] {
        let used: BTreeSet<String> = exprs.iter().flat_map(|e| series_names(e)).collect();
        assert!(used.len() >= 5, "{file} uses {used:?}");
        let missing: Vec<&String> = used.iter().filter(|n| !exported(n)).collect();
        assert!(
            missing.is_empty(),
            "{file} uses series /metrics does not export: {missing:?}\nexported: {:?}",
            families.keys().collect::<Vec<_>>()
        );
    }
}

/// GitHub's anchor of a Markdown heading: lower case, punctuation but
/// hyphens dropped, spaces made hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn every_runbook_link_lands_on_a_section_of_the_operations_guide() {
    let guide = read("docs/operations.md");
    let anchors: BTreeSet<String> = guide
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect();
    let rules = read(RULES);
    let runbooks: Vec<&str> = rules
        .lines()
        .filter_map(|l| l.trim().strip_prefix("runbook:"))
        .map(|v| v.trim().trim_matches('"'))
        .collect();
    let alerts = rules
        .lines()
        .filter(|l| l.trim().starts_with("- alert:"))
        .count();
    assert_eq!(runbooks.len(), alerts, "one runbook per alert");
    for runbook in runbooks {
        let section = runbook
            .strip_prefix("docs/operations.md#")
            .unwrap_or_else(|| panic!("{runbook} is not a section of docs/operations.md"));
        assert!(
            anchors.contains(section),
            "{runbook}: no such heading in docs/operations.md"
        );
    }
}

#[test]
fn series_names_are_read_out_of_expressions() {
    assert_eq!(
        series_names(
            "histogram_quantile(0.5, sum by (le) (rate(flightstate_apply_seconds_bucket[5m]))) \
             or my_flightstate_x or flightstate_up{part=\"state_db\"}"
        ),
        BTreeSet::from([
            "flightstate_apply_seconds_bucket".to_owned(),
            "flightstate_up".to_owned()
        ])
    );
    assert_eq!(
        rule_expressions(
            "        expr: |\n          a\n          or b\n        for: 2m\n        expr: c > 1\n"
        ),
        vec!["a or b".to_owned(), "c > 1".to_owned()]
    );
}
