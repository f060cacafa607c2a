//! A certificate authority of the test's own, made with the `openssl`
//! command: the servers a test starts itself (PostgreSQL, MariaDB, a TLS
//! listener in front of the broker) present certificates it signed, and
//! flightstate is told to trust it (or, to be refused, another one).
//!
//! Everything lives in a folder under `CARGO_TARGET_TMPDIR`, removed when
//! the [`TestCa`] is dropped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A CA and the folder holding its files.
pub struct TestCa {
    dir: PathBuf,
}

/// A certificate the CA signed and its unencrypted key (PEM files).
#[derive(Clone, Debug)]
pub struct Issued {
    /// The certificate.
    pub cert: PathBuf,
    /// Its private key, mode 0600.
    pub key: PathBuf,
}

#[track_caller]
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl (Debian package openssl)");
    assert!(
        out.status.success(),
        "openssl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl TestCa {
    /// A new CA named `name` (its subject's CN), in a folder of its own.
    #[track_caller]
    pub fn new(name: &str) -> TestCa {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "ca_{name}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder for the CA");
        openssl(
            &dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                &format!("/CN={name}"),
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
            ],
        );
        TestCa { dir }
    }

    /// The CA's certificate: what a client is told to trust.
    pub fn ca_pem(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// The folder the CA's files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A server certificate for `127.0.0.1` and `localhost`, signed by
    /// this CA, its files named after `name`.
    #[track_caller]
    pub fn server_cert(&self, name: &str) -> Issued {
        self.issue(
            name,
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        )
    }

    /// A client certificate for the user `name`, signed by this CA.
    #[track_caller]
    pub fn client_cert(&self, name: &str) -> Issued {
        self.issue(name, "extendedKeyUsage=clientAuth\n")
    }

    #[track_caller]
    fn issue(&self, name: &str, extensions: &str) -> Issued {
        let ext = format!("{name}.ext");
        std::fs::write(self.dir.join(&ext), extensions).expect("write the extensions");
        let (key, csr, cert) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
        );
        openssl(
            &self.dir,
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                &format!("/CN={name}"),
                "-keyout",
                &key,
                "-out",
                &csr,
            ],
        );
        openssl(
            &self.dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                &ext,
                "-out",
                &cert,
            ],
        );
        let issued = Issued {
            cert: self.dir.join(cert),
            key: self.dir.join(key),
        };
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&issued.key, std::fs::Permissions::from_mode(0o600))
            .expect("key mode 0600");
        issued
    }
}

impl Drop for TestCa {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
