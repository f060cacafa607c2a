//! The operator's credential and the form token (docs/api.md, "Actions").
//!
//! A browser presents HTTP Basic credentials by itself, with no proxy and
//! no script: the first request to `/operator` is answered 401 with a
//! `Basic` challenge, the browser asks the person once and sends the
//! credentials with every later request to the same place. They travel in
//! every request, so the API serves them over TLS (`api.tls_cert_file`) or
//! on a loopback address only (the configuration refuses anything else).
//! The file holds each password's SHA-256, never the password.
//!
//! A browser also sends those credentials with a request another site's
//! page makes it send, so every action carries a form token tied to the
//! account and to this process, and is refused when the browser says the
//! request comes from another origin (`Origin`, `Sec-Fetch-Site`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// One operator as `api.operators` names them.
#[derive(Clone, PartialEq, Eq)]
pub struct Credential {
    /// The account's name, recorded with each action.
    pub name: String,
    password_sha256: [u8; 32],
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Credential {
    /// Reads `name:<64 hex digits>`; `None` when it is not that.
    pub fn parse(entry: &str) -> Option<Credential> {
        let (name, hex) = entry.split_once(':')?;
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 128 || hex.len() != 64 {
            return None;
        }
        let mut password_sha256 = [0_u8; 32];
        for (byte, pair) in password_sha256.iter_mut().zip(hex.as_bytes().chunks(2)) {
            *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
        }
        Some(Credential {
            name: name.to_owned(),
            password_sha256,
        })
    }
}

/// Compares two digests in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0_u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The operators who may act, and the secret their form tokens are made
/// with.
#[derive(Clone)]
pub struct Operators {
    accounts: Vec<Credential>,
    secret: [u8; 32],
}

impl std::fmt::Debug for Operators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.accounts.iter().map(|a| &a.name))
            .finish()
    }
}

impl Operators {
    /// The accounts, with a secret of this process's own: a form token
    /// lives as long as the process.
    pub fn new(accounts: Vec<Credential>) -> Operators {
        Operators {
            accounts,
            secret: process_secret(),
        }
    }

    /// The account an `Authorization: Basic …` header's value names, when
    /// its password is that account's.
    pub fn account(&self, authorization: Option<&str>) -> Option<&str> {
        let encoded = authorization?.strip_prefix("Basic ")?.trim();
        let decoded = STANDARD.decode(encoded).ok()?;
        let decoded = String::from_utf8(decoded).ok()?;
        let (name, password) = decoded.split_once(':')?;
        let given = Sha256::digest(password.as_bytes());
        let mut found = None;
        // Every account is compared, found or not.
        for account in &self.accounts {
            if same(&given, &account.password_sha256) && account.name == name {
                found = Some(account.name.as_str());
            }
        }
        found
    }

    /// The form token of `account`: what every action's form carries.
    pub fn form_token(&self, account: &str) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.secret);
        hasher.update(account.as_bytes());
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `token` is `account`'s form token.
    pub fn token_matches(&self, account: &str, token: &str) -> bool {
        same(self.form_token(account).as_bytes(), token.as_bytes())
    }
}

/// 32 bytes from the system's random source; a process that cannot read
/// it falls back to the time and its id, which still differ per process.
fn process_secret() -> [u8; 32] {
    let mut secret = [0_u8; 32];
    let read = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut secret));
    if read.is_err() {
        let mut hasher = Sha256::new();
        hasher.update(format!(
            "{:?}{}",
            std::time::SystemTime::now(),
            std::process::id()
        ));
        secret.copy_from_slice(&hasher.finalize());
    }
    secret
}

/// Whether the browser's own headers say the request comes from this
/// origin: `Sec-Fetch-Site` is `same-origin`, and `Origin`, when sent,
/// names `host`. A client that sends neither (a script, `curl`) is judged
/// by the form token alone.
pub fn same_origin(host: Option<&str>, origin: Option<&str>, fetch_site: Option<&str>) -> bool {
    if fetch_site.is_some_and(|site| site != "same-origin") {
        return false;
    }
    match origin {
        None => true,
        Some(origin) => host.is_some_and(|host| {
            origin == format!("http://{host}") || origin == format!("https://{host}")
        }),
    }
}

/// Whether `bind` (`host:port`) listens on the loopback interface only:
/// credentials sent there never cross a network.
pub fn loopback(bind: &str) -> bool {
    let host = bind.rsplit_once(':').map_or(bind, |(host, _)| host);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> String {
        Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn only_the_right_password_names_the_account() {
        let ops = Operators::new(vec![
            Credential::parse(&format!("ana:{}", hex("correct horse"))).expect("valid"),
        ]);
        // "ana:correct horse" in base64.
        assert_eq!(
            ops.account(Some("Basic YW5hOmNvcnJlY3QgaG9yc2U=")),
            Some("ana")
        );
        // "ana:wrong".
        assert_eq!(ops.account(Some("Basic YW5hOndyb25n")), None);
        // "bob:correct horse".
        assert_eq!(ops.account(Some("Basic Ym9iOmNvcnJlY3QgaG9yc2U=")), None);
        assert_eq!(ops.account(Some("Bearer x")), None);
        assert_eq!(ops.account(None), None);
    }

    #[test]
    fn entries_must_carry_a_whole_digest() {
        assert!(Credential::parse(&format!("ana:{}", hex("x"))).is_some());
        assert!(Credential::parse("ana:secret").is_none());
        assert!(Credential::parse(&format!(":{}", hex("x"))).is_none());
        assert!(Credential::parse(&format!("ana:{}", &hex("x")[..63])).is_none());
        assert!(Credential::parse(&format!("ana:{}zz", &hex("x")[..62])).is_none());
    }

    #[test]
    fn a_form_token_is_the_account_s_own() {
        let ops = Operators::new(Vec::new());
        let token = ops.form_token("ana");
        assert!(ops.token_matches("ana", &token));
        assert!(!ops.token_matches("bob", &token));
        assert!(!Operators::new(Vec::new()).token_matches("ana", &token));
    }

    #[test]
    fn only_loopback_binds_are_loopback() {
        assert!(loopback("127.0.0.1:8080"));
        assert!(loopback("[::1]:8080"));
        assert!(loopback("localhost:8080"));
        assert!(!loopback("0.0.0.0:8080"));
        assert!(!loopback("10.1.2.3:8080"));
    }

    #[test]
    fn another_origin_is_refused() {
        let host = Some("127.0.0.1:8080");
        assert!(same_origin(
            host,
            Some("http://127.0.0.1:8080"),
            Some("same-origin")
        ));
        assert!(same_origin(host, None, None));
        assert!(!same_origin(host, Some("http://evil.example"), None));
        assert!(!same_origin(host, None, Some("cross-site")));
        assert!(!same_origin(host, None, Some("same-site")));
        assert!(!same_origin(None, Some("http://127.0.0.1:8080"), None));
    }
}
