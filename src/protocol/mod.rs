//! Placeholder, replaced by the parser.
