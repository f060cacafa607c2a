//! The pipeline's rules as the configuration gives them: every section that
//! decides how a message is applied (`[protocol]`, `[station]`, `[merge]`,
//! `[snapshot]`) meets here, once, for the command that runs.

use super::Config;
use crate::pipeline::{Rules, STREAM_PART_FLIGHTS};

impl Config {
    /// The rules this configuration gives the pipeline.
    pub fn pipeline_rules(&self) -> Rules {
        Rules {
            parse: self.protocol.parse_options(),
            day_boundary: self.day_boundary(),
            merge: self.merge.rules(),
            day_moves: self.station.day_moves,
            delete_guard: self.snapshot.delete_guard(),
            stream_from_bytes: usize::try_from(self.snapshot.stream_from_bytes)
                .unwrap_or(usize::MAX),
            stream_part_flights: STREAM_PART_FLIGHTS,
            history: self
                .cleanup
                .history(self.station_clock(), self.day_boundary()),
        }
    }
}

impl Default for Rules {
    /// The rules of the default configuration: one set of defaults.
    fn default() -> Self {
        Config::default().pipeline_rules()
    }
}

#[cfg(test)]
mod tests {
    use figment::Figment;
    use figment::providers::{Format, Serialized, Toml};

    use super::*;
    use crate::pipeline::STREAM_FROM_BYTES;

    #[test]
    fn the_stream_threshold_is_the_sites() {
        assert_eq!(Rules::default().stream_from_bytes, STREAM_FROM_BYTES);
        let site = Figment::from(Serialized::defaults(Config::default()))
            .merge(Toml::string("[snapshot]\nstream_from_bytes = 5000000\n"));
        let config = Config::from_figment(site).expect("valid");
        assert_eq!(config.pipeline_rules().stream_from_bytes, 5_000_000);
    }
}
