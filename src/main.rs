//! The `flightstate` binary.

fn main() {}
