//! In-process pumps over a PostgreSQL state database: pools, and a state
//! store a test can stop inside a transaction (the pump is then inside it,
//! or past its fence check) and that counts the transactions begun through
//! it, so that what a pump did after a takeover is counted, not guessed
//! from the state.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use flightstate::mailbox::Mailbox;
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, PumpSettings, Step};
use flightstate::store::pg::{PgStore, PgTx};
use flightstate::store::{Store, StoreError};

use super::{MailboxDatabase, mailbox_settings, pump_settings};

/// A pool on the test's state database.
pub fn pg_store(url: &str) -> PgStore {
    PgStore::connect(url, 4, Duration::from_secs(2)).expect("pool on the test database")
}

/// A pool on the mailbox at `url` (a test's `MailboxDatabase`, perhaps
/// through a proxy).
pub fn mailbox(url: String) -> Arc<Mailbox> {
    Arc::new(Mailbox::connect(mailbox_settings(url)).expect("mailbox pool"))
}

/// Runs a pump (as `holder`, applying by `pipeline`) on the state database
/// at `db_url` until the mailbox `mb` has nothing left for it, then
/// releases its lease.
///
/// # Panics
///
/// When the pump stops, or is not idle within a minute.
pub fn pump_until_idle(db_url: &str, mb: &MailboxDatabase, pipeline: Rules, holder: &str) {
    let store = PgStore::connect(db_url, 2, Duration::from_secs(2)).expect("pool");
    let mailbox = mailbox(mb.url());
    let mut pump = Pump::new(store, mailbox, pipeline, pump_settings(holder));
    drain(&mut pump);
    pump.release();
}

/// Steps `pump` until it is idle, sleeping while it is blocked.
///
/// # Panics
///
/// When the pump stops (its lease lost, a failure), or is not idle within
/// a minute.
#[track_caller]
pub fn drain<S: Store + Clone>(pump: &mut Pump<S>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match pump.step().expect("no failpoint armed") {
            Step::Idle => return,
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            Step::Progress { .. } => {}
            other => panic!("the pump stopped: {other:?}"),
        }
        assert!(Instant::now() < deadline, "the pump never became idle");
    }
}

/// Two pumps on one state database and mailbox: A, over a
/// [`PausingStore`], holds the lease and leaves its write-backs to whoever
/// holds it next; B waits for it.
pub struct TwoPumps {
    pub a: Pump<PausingStore>,
    pub b: Pump<PgStore>,
    pub gate: Arc<Gate>,
    pub control: GateControl,
    /// A's lease.
    pub epoch_a: i64,
}

/// [`TwoPumps`] applying with `pipeline` (A with `pipeline_a`), A's gate
/// stopping after BEGIN or (`at_commit`) before COMMIT.
#[track_caller]
pub fn two_pumps(
    db_url: &str,
    mailbox_url: String,
    at_commit: bool,
    pipeline: Rules,
    pipeline_a: Rules,
) -> TwoPumps {
    let (gate, control) = Gate::new(at_commit);
    let store_a = PausingStore {
        inner: pg_store(db_url),
        gate: Arc::clone(&gate),
    };
    let mut a = Pump::new(
        store_a,
        mailbox(mailbox_url.clone()),
        pipeline_a,
        PumpSettings {
            inline_effects: false,
            ..pump_settings("pump-a")
        },
    );
    let mut b = Pump::new(
        pg_store(db_url),
        mailbox(mailbox_url),
        pipeline,
        pump_settings("pump-b"),
    );
    assert_eq!(a.step().expect("step"), Step::Idle, "A takes the lease");
    let epoch_a = a.epoch().expect("A holds the lease");
    assert_eq!(b.step().expect("step"), Step::Standby, "B waits");
    TwoPumps {
        a,
        b,
        gate,
        control,
        epoch_a,
    }
}

/// A store whose N-th next transaction stops until the test lets it go:
/// right after BEGIN (the pump is then inside a transaction, before its
/// lock), or with `at_commit` once the transaction's work succeeded, just
/// before COMMIT (a state transaction then holds `PIPELINE_LOCK`, past the
/// fence check and the write-back intent). Only transactions that reach the
/// pause point count towards N.
#[derive(Clone)]
pub struct PausingStore {
    pub inner: PgStore,
    pub gate: Arc<Gate>,
}

pub struct Gate {
    at_commit: bool,
    countdown: Mutex<Option<usize>>,
    paused: Mutex<Option<Sender<()>>>,
    resume: Mutex<Option<Receiver<()>>>,
    begun: AtomicUsize,
}

/// The test's side of a [`Gate`]: told when the store stopped, lets it go.
pub struct GateControl {
    pub paused: Receiver<()>,
    pub resume: Sender<()>,
}

impl Gate {
    /// A gate that stops once, after BEGIN or (`at_commit`) before COMMIT.
    pub fn new(at_commit: bool) -> (Arc<Gate>, GateControl) {
        let (paused_tx, paused) = channel();
        let (resume, resume_rx) = channel();
        let gate = Arc::new(Gate {
            at_commit,
            countdown: Mutex::new(None),
            paused: Mutex::new(Some(paused_tx)),
            resume: Mutex::new(Some(resume_rx)),
            begun: AtomicUsize::new(0),
        });
        (gate, GateControl { paused, resume })
    }

    /// Stops the `nth` next transaction, and counts the transactions begun
    /// from now on.
    pub fn stop_at(&self, nth: usize) {
        *self.countdown.lock().expect("gate") = Some(nth);
        self.begun.store(0, Ordering::SeqCst);
    }

    /// Transactions begun since [`Gate::stop_at`].
    pub fn begun(&self) -> usize {
        self.begun.load(Ordering::SeqCst)
    }

    fn pass(&self) {
        let pause = {
            let mut countdown = self.countdown.lock().expect("gate");
            match *countdown {
                Some(1) => {
                    *countdown = None;
                    true
                }
                Some(n) => {
                    *countdown = Some(n - 1);
                    false
                }
                None => false,
            }
        };
        if pause {
            if let Some(paused) = self.paused.lock().expect("gate").take() {
                let _ = paused.send(());
            }
            if let Some(resume) = self.resume.lock().expect("gate").take() {
                let _ = resume.recv_timeout(Duration::from_secs(30));
            }
        }
    }
}

impl Store for PausingStore {
    type Tx<'c> = PgTx<'c>;

    fn transaction<T, E, F>(&self, work: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnOnce(&mut PgTx<'_>) -> Result<T, E>,
    {
        self.gate.begun.fetch_add(1, Ordering::SeqCst);
        self.inner.transaction(|tx| {
            if !self.gate.at_commit {
                self.gate.pass();
            }
            let value = work(tx)?;
            if self.gate.at_commit {
                self.gate.pass();
            }
            Ok(value)
        })
    }
}
