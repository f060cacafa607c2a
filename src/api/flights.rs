//! Flight states over HTTP: one flight, or a streamed array of many.
//!
//! A full read runs on a thread of its own, in one read-only snapshot, a
//! page of flights at a time; each page becomes one piece of the response
//! body and goes through a channel that holds one page, so a slow client
//! slows the read instead of filling memory, and a client that goes away
//! ends it (the send fails, the read rolls back). Documents are built from
//! the tables ([`StateDocument::of`]), the same JSON the state topic carries.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::state::{StateDocument, StoredFlight};
use crate::store::{Selection, Store, StoreError, read_flights, read_states};

/// The stream's end was not reached: the read failed, or the client left.
#[derive(Debug)]
enum Stop {
    Store(StoreError),
    ClientGone,
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Self {
        Stop::Store(e)
    }
}

/// A piece of the body, or why the body cannot go on.
type Piece = Result<Vec<u8>, String>;

fn page_bytes(flights: &[StoredFlight], first: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(flights.len() * 2048);
    out.push(if first { b'[' } else { b',' });
    for (i, flight) in flights.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(StateDocument::of(flight).json.as_bytes());
    }
    out
}

fn produce<S: Store>(store: &S, selection: Selection, page_size: usize, tx: &SyncSender<Piece>) {
    let mut first = true;
    let outcome = read_states(store, selection, page_size, |flights| {
        let piece = page_bytes(&flights, first);
        first = false;
        tx.send(Ok(piece)).map_err(|_| Stop::ClientGone)
    });
    let last = match outcome {
        Ok(_) if first => Ok(b"[]".to_vec()),
        Ok(_) => Ok(b"]".to_vec()),
        Err(Stop::ClientGone) => return,
        Err(Stop::Store(e)) => {
            tracing::warn!(error = format!("{e:#}"), "a full read failed");
            Err(format!("{e:#}"))
        }
    };
    let _ = tx.send(last);
}

/// The body of a full read, as the HTTP server pulls it.
pub struct Body {
    current: Vec<u8>,
    at: usize,
    rest: Receiver<Piece>,
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            match self.rest.recv() {
                Ok(Ok(piece)) => {
                    self.current = piece;
                    self.at = 0;
                }
                // Headers are gone already: failing the body is the only
                // way left to tell the client the array is not whole.
                Ok(Err(why)) => return Err(io::Error::other(why)),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Starts a full read of `selection` and waits for its first piece, so
/// that a database that cannot be read is an error status, not a broken
/// body.
///
/// # Errors
///
/// Why the read could not start (the database's error, printed).
pub fn stream<S: Store + Clone>(
    store: &S,
    selection: Selection,
    page_size: usize,
) -> Result<Body, String> {
    let (tx, rx) = sync_channel::<Piece>(1);
    let store = store.clone();
    std::thread::Builder::new()
        .name("api-read".to_owned())
        .spawn(move || produce(&store, selection, page_size, &tx))
        .map_err(|e| format!("cannot start the read: {e}"))?;
    match rx.recv() {
        Ok(Ok(first)) => Ok(Body {
            current: first,
            at: 0,
            rest: rx,
        }),
        Ok(Err(why)) => Err(why),
        Err(_) => Err("the read ended without an answer".to_owned()),
    }
}

/// The document of flight `flid`, if it is stored.
///
/// # Errors
///
/// A [`StoreError`] of the read.
pub fn one<S: Store>(store: &S, flid: i64) -> Result<Option<String>, StoreError> {
    Ok(read_flights(store, &[flid])?
        .first()
        .map(|f| StateDocument::of(f).json))
}
