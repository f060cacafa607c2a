//! A record as the consumer reads it from flightstate's topics, and the
//! check every record passes first: its `schema-version` header
//! (docs/kafka.md, "The contract").

/// The header naming the contract a value follows (`MAJOR.MINOR`).
pub const SCHEMA_VERSION_HEADER: &str = "schema-version";
/// The major version of the topics' contract this consumer was written
/// for. A minor version only adds (keys, change kinds), and this consumer
/// ignores what it does not know; a new major version is published on new
/// topics, beside these (docs/kafka.md, "The contract").
pub const SUPPORTED_MAJOR: u32 = 1;

/// A record as read from a topic: what the view needs of it, and where it
/// was, to name it in an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// `topic/partition@offset`.
    pub at: String,
    pub key: Option<Vec<u8>>,
    /// None for a null value: flightstate never sends one (its tombstone is
    /// a JSON object), but a consumer must not trip on one either.
    pub value: Option<Vec<u8>>,
    /// The `schema-version` header.
    pub schema_version: Option<String>,
}

/// Why a record cannot be read under the contract this consumer knows.
/// Each one means "stop": guessing would build a wrong view, silently.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContractError {
    /// Every record flightstate sends carries the header.
    #[error("{at}: a record without the `schema-version` header; is this a flightstate topic?")]
    NoSchemaVersion { at: String },
    /// A major version this consumer was not written for: the producer
    /// writes a new contract to these topics, or this consumer reads the
    /// wrong ones.
    #[error(
        "{at}: schema-version {version}, but this consumer reads major version {major} only: \
         a new major version is published on new topics (docs/kafka.md, \"The contract\"); \
         point this consumer at the topics of its version, or update it",
        major = SUPPORTED_MAJOR
    )]
    UnsupportedMajor { at: String, version: String },
    /// The value is not what the contract says: not JSON, a key missing or
    /// of the wrong type, a key that is not the value's FLID.
    #[error("{at}: {why}")]
    Malformed { at: String, why: String },
}

/// Checks a record's `schema-version`: major [`SUPPORTED_MAJOR`], any minor.
pub fn check_schema_version(record: &Record) -> Result<(), ContractError> {
    let Some(version) = &record.schema_version else {
        return Err(ContractError::NoSchemaVersion {
            at: record.at.clone(),
        });
    };
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    if major == Some(SUPPORTED_MAJOR) {
        Ok(())
    } else {
        Err(ContractError::UnsupportedMajor {
            at: record.at.clone(),
            version: version.clone(),
        })
    }
}

/// The value as JSON.
pub fn json(record: &Record) -> Result<serde_json::Value, ContractError> {
    let malformed = |why: String| ContractError::Malformed {
        at: record.at.clone(),
        why,
    };
    match &record.value {
        Some(bytes) => serde_json::from_slice(bytes)
            .map_err(|e| malformed(format!("the value is not JSON: {e}"))),
        None => Err(malformed(
            "a null value (flightstate sends none)".to_owned(),
        )),
    }
}
