//! Record → state on any accepted message (`checks::record_to_state`).
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target uses one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::record_to_state(data));
