//! Work spread over the machine's cores, for the few pure computations that
//! are a good part of a full day's write: a snapshot's states and digests,
//! its state documents, and freeing them afterwards; and the order in which
//! a streamed snapshot's threads get the cores.

/// From how many items a piece of work is worth another thread: a full
/// day's flights are; one event's are not.
const WORTH_A_THREAD: usize = 512;

/// `f` of every item, in order, computed on up to four threads when there
/// are enough items to be worth a thread.
pub(crate) fn map_in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 || items.len() < WORTH_A_THREAD {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| {
                part.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// Frees `value`, which holds `items` records, on a thread of its own when
/// they are many: a full day's parsed snapshot is hundreds of thousands of
/// small allocations, ~20 ms to free, that the next message need not wait
/// for. Freed here when they are few, or when no thread can be started
/// (the refused closure is dropped, and `value` with it).
pub(crate) fn free<T: Send + 'static>(value: T, items: usize) {
    if items < WORTH_A_THREAD {
        drop(value);
        return;
    }
    let freeing = std::thread::Builder::new()
        .name("free".to_owned())
        .spawn(move || drop(value));
    drop(freeing);
}

/// How much lower than its own the reading ahead of a streamed snapshot
/// runs: at nice 10 a thread gets about a tenth of a core that a thread at
/// nice 0 also wants.
const BEHIND: i32 = 10;

/// Lowers the calling thread's priority so that it works ahead only with
/// what the writer leaves: the writer (and the database it waits on) is what
/// a streamed snapshot's time is made of, and on two cores the reader and
/// the second half's reader would otherwise take most of the CPU from it at
/// the start. Threads this one starts inherit the priority.
/// Does nothing where it cannot (another OS, a refused call): the work is
/// the same, only its order on the cores changes.
pub(crate) fn work_behind_the_writer() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid, getpriority and setpriority take plain integers and
        // touch no memory of ours; on Linux they act on one thread.
        unsafe {
            let thread = libc::gettid() as libc::id_t;
            let now = libc::getpriority(libc::PRIO_PROCESS, thread);
            libc::setpriority(libc::PRIO_PROCESS, thread, (now + BEHIND).min(19));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's nice value, as the kernel reports it.
    #[cfg(target_os = "linux")]
    fn nice() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("stat");
        // `pid (comm) state …`: nice is the 19th field, the 17th after comm.
        let (_, rest) = stat.rsplit_once(')').expect("comm");
        rest.split_whitespace()
            .nth(16)
            .and_then(|n| n.parse().ok())
            .expect("nice")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_behind_the_writer_runs_at_a_lower_priority_and_no_other_does() {
        let caller = nice();
        let (behind, started) = std::thread::spawn(|| {
            let before = nice();
            work_behind_the_writer();
            let after = nice();
            let started = std::thread::spawn(nice).join().expect("thread");
            ((before, after), started)
        })
        .join()
        .expect("thread");
        assert_eq!(behind, (caller, (caller + BEHIND).min(19)));
        assert_eq!(started, behind.1, "threads it starts inherit it");
        assert_eq!(nice(), caller, "the calling thread keeps its own");
    }

    #[test]
    fn results_keep_the_order_of_the_items() {
        for n in [0, 1, 511, 512, 513, 4_099] {
            let items: Vec<u64> = (0..n).collect();
            assert_eq!(
                map_in_parallel(&items, |i| i * 3),
                items.iter().map(|i| i * 3).collect::<Vec<_>>()
            );
        }
    }
}
