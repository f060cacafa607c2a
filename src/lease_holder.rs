//! Who holds the pipeline's lease (`PIPELINE_LOCK.LEASE_HOLDER`): the name
//! a process takes when the site names none (`pump.holder`). The pump and
//! a resync (as `resync:<name>`) hold the same lease, so they share it.

/// `host:pid:random`, unique enough that two processes never share a name.
pub fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}:{}:{:04x}", std::process::id(), fastrand::u16(..))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holder_names_host_and_process() {
        let holder = default_holder();
        assert!(
            holder.contains(&format!(":{}:", std::process::id())),
            "{holder}"
        );
    }
}
