//! The pipeline's rules as the configuration gives them: every section that
//! decides how a message is applied (`[protocol]`, `[station]`, `[merge]`,
//! `[snapshot]`) meets here, once, for the command that runs.

use super::Config;
use crate::pipeline::{Rules, STREAM_FROM_BYTES, STREAM_PART_FLIGHTS};

impl Config {
    /// The rules this configuration gives the pipeline.
    pub fn pipeline_rules(&self) -> Rules {
        Rules {
            parse: self.protocol.parse_options(),
            day_boundary: self.day_boundary(),
            merge: self.merge.rules(),
            day_moves: self.station.day_moves,
            delete_guard: self.snapshot.delete_guard(),
            stream_from_bytes: STREAM_FROM_BYTES,
            stream_part_flights: STREAM_PART_FLIGHTS,
        }
    }
}

impl Default for Rules {
    /// The rules of the default configuration: one set of defaults.
    fn default() -> Self {
        Config::default().pipeline_rules()
    }
}
