//! A message's identity key: the digest of its id and its exact bytes, so
//! that a message seen again is recognised, and a different body under an id
//! already processed is caught rather than applied.

/// Lower-case hex SHA-256 of the message id (8 bytes, big-endian) followed
/// by the body.
pub fn identity_key(message_id: i64, body: &[u8]) -> String {
    crate::digest::sha256_hex([&message_id.to_be_bytes()[..], body])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_on_id_and_body() {
        let key = identity_key(1, b"<MSG/>");
        assert_eq!(key.len(), 64);
        assert!(
            key.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_ne!(key, identity_key(2, b"<MSG/>"));
        assert_ne!(key, identity_key(1, b"<MSG />"));
        assert_eq!(key, identity_key(1, b"<MSG/>"));
    }
}
