//! Where a secret may come from. Passwords and tokens reach flightstate
//! through the environment (the packages' `/etc/flightstate/env`, mode
//! 0600) or a file of their own that only its owner (and group) can read —
//! never from a file every user of the host can read: the settings file is
//! installed world-readable (mode 0644), so a password written there is
//! refused at start, naming the setting and the file.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::Source;

use super::{Config, ConfigError};

/// The permission bit that lets every user read a file.
const OTHERS_READ: u32 = 0o004;

/// The mode of `path` when every user of the host can read it.
fn world_readable(path: &Path) -> Option<u32> {
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o7777;
    (mode & OTHERS_READ != 0).then_some(mode)
}

/// The secret in `file`, given by `setting`: its first line.
///
/// # Errors
///
/// [`ConfigError::ReadableSecret`] when every user can read the file,
/// [`ConfigError::SecretFile`] when it cannot be read.
pub(super) fn read_secret_file(setting: &'static str, file: &Path) -> Result<String, ConfigError> {
    let text = std::fs::read_to_string(file).map_err(|source| ConfigError::SecretFile {
        setting,
        file: file.to_owned(),
        source,
    })?;
    if let Some(mode) = world_readable(file) {
        return Err(ConfigError::ReadableSecret {
            setting,
            file: file.to_owned(),
            mode,
        });
    }
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

/// Whether a connection URL carries a password: `user:password@` or a
/// `password=` parameter.
pub(super) fn url_has_password(url: &str) -> bool {
    super::dialect::redact_url(url) != url
}

/// The settings of `config` that hold a secret now.
fn secret_settings(config: &Config) -> Vec<&'static str> {
    let url = |setting, url: &Option<String>| {
        url.as_deref()
            .filter(|u| url_has_password(u))
            .map(|_| setting)
    };
    let mut settings: Vec<&'static str> = [
        url("database.url", &config.database.url),
        url("mailbox.url", &config.mailbox.url),
        url("api.database_url", &config.api.database_url),
        config.api.token.as_ref().map(|_| "api.token"),
    ]
    .into_iter()
    .flatten()
    .collect();
    settings.extend(config.kafka.secret_settings());
    settings
}

/// Refuses a secret of `config` that came from a file every user can read.
///
/// # Errors
///
/// [`ConfigError::ReadableSecret`] naming the first such setting.
pub(super) fn check_sources(figment: &Figment, config: &Config) -> Result<(), ConfigError> {
    for setting in secret_settings(config) {
        let file: Option<PathBuf> =
            figment
                .find_metadata(setting)
                .and_then(|metadata| match &metadata.source {
                    Some(Source::File(path)) => Some(path.clone()),
                    _ => None,
                });
        if let Some(file) = file
            && let Some(mode) = world_readable(&file)
        {
            return Err(ConfigError::ReadableSecret {
                setting,
                file,
                mode,
            });
        }
    }
    Ok(())
}
