//! The topics' contract (`schema/`, `docs/kafka.md`) held against what the
//! dispatchers really send: every record a test reads back from a topic is
//! checked here — its `schema-version` header, and its value against the
//! JSON Schema of its kind (a state or a tombstone against the state
//! topic's schema, a heartbeat against the heartbeat topic's, anything else
//! against the change topic's).

use std::sync::OnceLock;

use flightstate::dispatch::SCHEMA_VERSION;

/// The state topic's schema as checked in.
pub const STATE_SCHEMA: &str = include_str!("../../schema/flight-state.schema.json");
/// The change topic's schema as checked in.
pub const CHANGE_SCHEMA: &str = include_str!("../../schema/flight-change.schema.json");
/// The heartbeat topic's schema as checked in.
pub const HEARTBEAT_SCHEMA: &str = include_str!("../../schema/flight-heartbeat.schema.json");

/// A schema's JSON.
#[track_caller]
pub fn schema_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("a schema of schema/ is JSON")
}

#[track_caller]
fn validator(text: &str) -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema_json(text)).expect("a valid 2020-12 schema")
}

fn state_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| validator(STATE_SCHEMA))
}

fn change_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| validator(CHANGE_SCHEMA))
}

fn heartbeat_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| validator(HEARTBEAT_SCHEMA))
}

/// The validator for a record whose `event-kind` header is `kind`.
pub fn validator_for_kind(kind: &str) -> &'static jsonschema::Validator {
    match kind {
        "STATE" | "TOMBSTONE" => state_validator(),
        "HEARTBEAT" => heartbeat_validator(),
        _ => change_validator(),
    }
}

/// The schema errors of `value` for a record of `kind`; empty when it
/// follows the contract.
pub fn violations(kind: &str, value: &str) -> Vec<String> {
    let instance: serde_json::Value = match serde_json::from_str(value) {
        Ok(instance) => instance,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    validator_for_kind(kind)
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Panics unless a record read from a topic follows the contract.
#[track_caller]
pub fn assert_follows_contract(
    topic: &str,
    kind: Option<&str>,
    schema_version: Option<&str>,
    value: &str,
) {
    assert_eq!(
        schema_version,
        Some(SCHEMA_VERSION),
        "{topic}: a record without the schema-version header of this build: {value}"
    );
    let kind = kind.unwrap_or_else(|| panic!("{topic}: a record without event-kind: {value}"));
    let errors = violations(kind, value);
    assert!(
        errors.is_empty(),
        "{topic}: a {kind} record breaks the topics' JSON Schema: {errors:?}\n{value}"
    );
}
