//! The sample configuration the packages install as
//! `/etc/flightstate/flightstate.toml` (`packaging/flightstate.toml`) lists
//! every key with its default, commented out: with its key lines
//! uncommented it loads through `Config::load` as the defaults, and a key
//! of `Config` without a line there fails here until the sample gets one.
//!
//! The sample's convention: `#key = value` is a key at its default,
//! `#key =` a key without a default, `# text` a description.

use std::collections::BTreeSet;
use std::path::Path;

use flightstate::config::Config;

const SAMPLE: &str = include_str!("../packaging/flightstate.toml");

/// What the sample says, key by key.
struct Sample {
    /// The sample with every `#key = value` line uncommented.
    uncommented: String,
    /// `section.key` of every `#key = value` line.
    with_default: BTreeSet<String>,
    /// `section.key` of every `#key =` line.
    without_default: BTreeSet<String>,
}

fn read_sample(text: &str) -> Sample {
    let mut sample = Sample {
        uncommented: String::new(),
        with_default: BTreeSet::new(),
        without_default: BTreeSet::new(),
    };
    let mut section = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            sample.uncommented.push_str(line);
            sample.uncommented.push('\n');
            continue;
        }
        // A description is "# text"; a key line has its key right after '#'.
        let Some(rest) = line
            .strip_prefix('#')
            .filter(|rest| rest.starts_with(|c: char| c.is_ascii_lowercase()))
        else {
            continue;
        };
        let (key, value) = rest
            .split_once('=')
            .unwrap_or_else(|| panic!("a key line without `=`: {line:?}"));
        let path = format!("{section}.{}", key.trim());
        if value.trim().is_empty() {
            sample.without_default.insert(path);
        } else {
            sample.with_default.insert(path);
            sample.uncommented.push_str(rest);
            sample.uncommented.push('\n');
        }
    }
    sample
}

/// `section.key` of every setting of `value`, split into those with a
/// default and those without (`None`, serialised as null).
fn default_keys(
    prefix: &str,
    value: &serde_json::Value,
    with: &mut BTreeSet<String>,
    without: &mut BTreeSet<String>,
) {
    match value {
        serde_json::Value::Object(fields) => {
            for (name, field) in fields {
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}.{name}")
                };
                default_keys(&path, field, with, without);
            }
        }
        serde_json::Value::Null => {
            without.insert(prefix.to_owned());
        }
        _ => {
            with.insert(prefix.to_owned());
        }
    }
}

/// Every difference between the keys of `Config::default()` and the lines
/// of `sample`, one per line; empty when they agree.
fn missing_or_extra_lines(sample: &Sample) -> String {
    let defaults = serde_json::to_value(Config::default()).expect("the configuration serialises");
    let (mut with, mut without) = (BTreeSet::new(), BTreeSet::new());
    default_keys("", &defaults, &mut with, &mut without);
    let mut problems = String::new();
    for key in with.difference(&sample.with_default) {
        problems.push_str(&format!(
            "`{key}` has a default but no `#key = value` line\n"
        ));
    }
    for key in without.difference(&sample.without_default) {
        problems.push_str(&format!("`{key}` has no default but no `#key =` line\n"));
    }
    for key in sample.with_default.difference(&with) {
        problems.push_str(&format!(
            "`{key}` has a value line but is no key with a default\n"
        ));
    }
    for key in sample.without_default.difference(&without) {
        problems.push_str(&format!(
            "`{key}` has an empty line but is no key without a default\n"
        ));
    }
    problems
}

#[test]
// The closure's error type is figment's own (`figment::Error`), not ours.
#[allow(clippy::result_large_err)]
fn the_sample_uncommented_loads_as_the_defaults() {
    let sample = read_sample(SAMPLE);
    figment::Jail::expect_with(|jail| {
        // No FLIGHTSTATE_* variable of the machine running the tests may
        // stand in for a line of the file.
        jail.clear_env();
        jail.create_file("flightstate.toml", &sample.uncommented)?;
        let config = Config::load(Path::new("flightstate.toml")).map_err(|e| format!("{e:?}"))?;
        assert_eq!(config, Config::default());
        Ok(())
    });
}

#[test]
fn every_key_of_the_configuration_has_a_line_in_the_sample() {
    let problems = missing_or_extra_lines(&read_sample(SAMPLE));
    assert!(
        problems.is_empty(),
        "packaging/flightstate.toml and Config disagree:\n{problems}"
    );
}

#[test]
fn a_key_without_a_line_is_caught() {
    let without_pool_size: String = SAMPLE
        .lines()
        .filter(|line| *line != "#pool_size = 8")
        .map(|line| format!("{line}\n"))
        .collect();
    let problems = missing_or_extra_lines(&read_sample(&without_pool_size));
    assert!(
        problems.contains("`database.pool_size` has a default but no `#key = value` line\n"),
        "{problems}"
    );
    let without_url = SAMPLE.replacen("#url =\n", "", 1);
    let problems = missing_or_extra_lines(&read_sample(&without_url));
    assert!(
        problems.contains("`database.url` has no default but no `#key =` line\n"),
        "{problems}"
    );
}
