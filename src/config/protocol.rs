//! The `[protocol]` section: how inbound SIS messages are read.

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// How inbound SIS messages are read.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ProtocolConfig {
    /// Larger messages are rejected before parsing (default
    /// [`DEFAULT_MAX_BYTES`](crate::protocol::DEFAULT_MAX_BYTES): room for a
    /// full day of 9,999 flights).
    pub max_message_bytes: usize,
    /// The element inside `<SCHD>` that names a snapshot's operation day, at
    /// sites whose AODB sends one.
    pub operation_day_element: Option<String>,
    /// Whether a large snapshot is read on two cores
    /// ([`ParseOptions::second_reader_from_bytes`](crate::protocol::ParseOptions)); off, every
    /// message is read on one.
    pub second_reader: bool,
}

impl Default for ProtocolConfig {
    fn default() -> Self {
        ProtocolConfig {
            max_message_bytes: crate::protocol::DEFAULT_MAX_BYTES,
            operation_day_element: None,
            second_reader: true,
        }
    }
}

impl ProtocolConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.max_message_bytes < 1024 {
            return Err(ConfigError::BadValue {
                setting: "protocol.max_message_bytes",
                value: self.max_message_bytes.to_string(),
                reason: "must be at least 1024",
            });
        }
        Ok(())
    }

    /// How the parser reads this site's messages.
    pub fn parse_options(&self) -> crate::protocol::ParseOptions {
        crate::protocol::ParseOptions {
            max_bytes: self.max_message_bytes,
            operation_day_element: self.operation_day_element.clone(),
            second_reader_from_bytes: self
                .second_reader
                .then_some(crate::protocol::DEFAULT_SECOND_READER_FROM_BYTES),
        }
    }
}
