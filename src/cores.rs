//! Work spread over the machine's cores, for the few pure computations that
//! are a good part of a full day's write: a snapshot's states and digests
//! (read whole) and its state documents. The threads are scoped: at most
//! four per call, all joined before it returns.

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

#[cfg(test)]
mod tests {
    use super::*;

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
