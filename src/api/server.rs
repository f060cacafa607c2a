//! The HTTP server: `tiny_http` (blocking, no async runtime) with a fixed
//! number of threads taking requests from one listener, over TLS when
//! `api.tls_cert_file` is set. Only `GET` is answered, except an
//! operator's `POST`s under `/operator` when `api.actions` is on.

use std::io;
use std::io::Read as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

use super::actions::{self, Head};
use super::history::{self, History};
use super::reply::Reply;
use super::routes;
use super::{Api, TlsFiles};
use crate::store::Store;

/// How often an idle thread looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(200);

/// A running server.
pub struct Running {
    addr: SocketAddr,
    threads: Vec<JoinHandle<()>>,
}

impl Running {
    /// Where it listens (the port the system chose, for `:0`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits for every thread to end (after the stop flag is set).
    pub fn join(self) {
        for thread in self.threads {
            if thread.join().is_err() {
                tracing::error!("an API thread panicked");
            }
        }
    }
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn respond(request: Request, reply: Reply) {
    let outcome = match reply {
        Reply::Full {
            status,
            content_type,
            body,
        } => {
            let mut response = Response::from_data(body).with_status_code(StatusCode(status));
            if let Some(h) = header("Content-Type", content_type) {
                response.add_header(h);
            }
            if let Some(h) = header("Cache-Control", "no-store") {
                response.add_header(h);
            }
            request.respond(response)
        }
        Reply::Stream {
            body,
            operation_days,
        } => {
            let headers = [
                header("Content-Type", "application/json"),
                header("Cache-Control", "no-store"),
                header("Operation-Days", &operation_days),
            ]
            .into_iter()
            .flatten()
            .collect();
            // No length: tiny_http sends the body chunked.
            request.respond(Response::new(StatusCode(200), headers, body, None, None))
        }
        Reply::Challenge { challenge, why } => {
            let mut response =
                Response::from_string(serde_json::json!({ "error": why }).to_string())
                    .with_status_code(StatusCode(401));
            for h in [
                header("WWW-Authenticate", challenge),
                header("Content-Type", "application/json"),
                header("Cache-Control", "no-store"),
            ]
            .into_iter()
            .flatten()
            {
                response.add_header(h);
            }
            request.respond(response)
        }
    };
    if let Err(e) = outcome {
        tracing::debug!(error = %e, "response not sent whole");
    }
}

/// The largest form body an action takes: a few fields.
const MAX_FORM_BYTES: u64 = 16 * 1024;

/// The request's headers the answer depends on.
fn head_of(request: &Request) -> Head {
    let find = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_owned())
    };
    Head {
        authorization: find("Authorization"),
        host: find("Host"),
        origin: find("Origin"),
        fetch_site: find("Sec-Fetch-Site"),
    }
}

/// A form's body, read whole up to [`MAX_FORM_BYTES`]; `None` when it is
/// longer or not UTF-8.
fn form_body(request: &mut Request) -> Option<String> {
    let mut body = String::new();
    let read = std::io::Read::take(request.as_reader(), MAX_FORM_BYTES + 1)
        .read_to_string(&mut body)
        .ok()?;
    (read as u64 <= MAX_FORM_BYTES).then_some(body)
}

fn answer<S: Store + Clone>(api: &Api<S>, history: &History, mut request: Request) {
    let url = request.url().to_owned();
    let span = tracing::debug_span!("api.request", url = %url);
    let _enter = span.enter();
    let head = head_of(&request);
    let reply = if api.settings.actions.is_some() && actions::is_operator_path(&url) {
        let form = match request.method() {
            Method::Post => Some(form_body(&mut request)),
            _ => None,
        };
        actions::answer(api, history, &head, &url, form)
    } else if !routes::authorised(api.settings.token.as_deref(), head.authorization.as_deref()) {
        Reply::Challenge {
            challenge: "Bearer",
            why: "a bearer token is needed (Authorization: Bearer …)",
        }
    } else if *request.method() != Method::Get {
        routes::error(405, "only GET is answered")
    } else {
        routes::get(api, history, &url)
    };
    respond(request, reply);
}

/// The history's sampler: a sample at start, then one every
/// [`history::EVERY`], until `stop` is set (looked at every [`STOP_POLL`]).
fn spawn_sampler<S: Store + Clone>(
    api: Arc<Api<S>>,
    history: Arc<History>,
    stop: Arc<AtomicBool>,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("api-history".to_owned())
        .spawn(move || {
            let span = tracing::info_span!("worker", worker.name = "api-history");
            let _enter = span.enter();
            while !stop.load(Ordering::SeqCst) {
                history::sample(&api.store, api.mailbox.as_deref(), &history);
                let next = std::time::Instant::now() + history::EVERY;
                while !stop.load(Ordering::SeqCst) && std::time::Instant::now() < next {
                    std::thread::sleep(STOP_POLL);
                }
            }
        })
}

/// The PEM files of `tls`, read.
fn ssl_config(tls: &TlsFiles) -> io::Result<tiny_http::SslConfig> {
    let read = |path: &std::path::Path, what: &str| {
        std::fs::read(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{what} {}: {e}", path.display())))
    };
    Ok(tiny_http::SslConfig {
        certificate: read(&tls.certificate, "api.tls_cert_file")?,
        private_key: read(&tls.private_key, "api.tls_key_file")?,
    })
}

/// Listens on `bind` and answers with `threads` threads until `stop` is
/// set.
///
/// # Errors
///
/// An I/O error when the address cannot be bound.
pub fn start<S: Store + Clone>(
    api: Api<S>,
    bind: &str,
    threads: usize,
    stop: Arc<AtomicBool>,
) -> io::Result<Running> {
    if api.settings.actions.is_some() && api.settings.tls.is_none() && !super::loopback(bind) {
        return Err(io::Error::other(format!(
            "{bind} is not a loopback address and the API has no TLS: operators' passwords \
             would cross the network in clear (set api.tls_cert_file and api.tls_key_file)"
        )));
    }
    let server = match &api.settings.tls {
        None => Server::http(bind),
        Some(tls) => Server::https(bind, ssl_config(tls)?),
    }
    .map_err(|e| io::Error::other(format!("bind {bind}: {e}")))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| io::Error::other(format!("{bind} is not an IP address")))?;
    let server = Arc::new(server);
    let api = Arc::new(api);
    let history = Arc::new(History::new());
    let mut handles = Vec::with_capacity(threads + 1);
    handles.push(spawn_sampler(
        Arc::clone(&api),
        Arc::clone(&history),
        Arc::clone(&stop),
    )?);
    for n in 0..threads.max(1) {
        let server = Arc::clone(&server);
        let api = Arc::clone(&api);
        let history = Arc::clone(&history);
        let stop = Arc::clone(&stop);
        handles.push(
            std::thread::Builder::new()
                .name(format!("api-{n}"))
                .spawn(move || {
                    let span = tracing::info_span!("worker", worker.name = "api");
                    let _enter = span.enter();
                    while !stop.load(Ordering::SeqCst) {
                        match server.recv_timeout(STOP_POLL) {
                            Ok(Some(request)) => answer(&api, &history, request),
                            Ok(None) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "the API listener failed");
                                std::thread::sleep(STOP_POLL);
                            }
                        }
                    }
                })?,
        );
    }
    tracing::info!(
        %addr,
        threads,
        tls = api.settings.tls.is_some(),
        actions = api.settings.actions.is_some(),
        "read API listening"
    );
    Ok(Running {
        addr,
        threads: handles,
    })
}
