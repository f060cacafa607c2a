//! A message's identity key: the digest of its id and its exact bytes, so
//! that a message seen again is recognised, and a different body under an id
//! already processed is caught rather than applied.

use sha2::{Digest, Sha256};

/// Lower-case hex SHA-256 of the message id (8 bytes, big-endian) followed
/// by the body.
pub fn identity_key(message_id: i64, body: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(message_id.to_be_bytes());
    hasher.update(body);
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
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
