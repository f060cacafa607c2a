//! An answer of the read API, as the routes make it and the server sends it.

use super::flights;

/// An answer to send.
pub enum Reply {
    /// A whole body.
    Full {
        /// HTTP status.
        status: u16,
        /// `Content-Type`.
        content_type: &'static str,
        /// The body.
        body: Vec<u8>,
    },
    /// A JSON body streamed in pieces (chunked).
    Stream {
        /// The body.
        body: flights::Body,
        /// The operation days it holds (header `Operation-Days`).
        operation_days: String,
    },
    /// 401: the credentials of `challenge` (a `WWW-Authenticate` value)
    /// are needed.
    Challenge {
        /// `WWW-Authenticate`.
        challenge: &'static str,
        /// What is needed, for people (JSON `{"error": …}`).
        why: &'static str,
    },
}
