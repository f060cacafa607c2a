//! The SIS reader on any bytes (`checks::sis_reader`).
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target uses one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::sis_reader(data));
