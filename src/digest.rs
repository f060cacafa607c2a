//! SHA-256 as lower-case hex: the one digest format of the project (message
//! identity keys, flight state digests, effect-call keys).

use sha2::{Digest, Sha256};

/// Lower-case hex SHA-256 of `parts`, fed in order.
pub fn sha256_hex<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hash = hasher.finalize();
    let mut hex = String::with_capacity(hash.len() * 2);
    for byte in hash.iter() {
        hex.push(char::from(HEX[usize::from(byte >> 4)]));
        hex.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_published_digest_of_abc() {
        assert_eq!(
            super::sha256_hex([&b"abc"[..]]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
