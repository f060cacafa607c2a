//! The process's memory policy, set once at start by the binary (and by the
//! benches, which measure what the binary does).

/// Keeps the process off transparent huge pages. mimalloc asks the kernel
/// for them on its arenas, and a huge page counts whole in RSS however
/// little of it is in use: a day's snapshot peaked higher with them, and
/// ran no faster (the measurements: `docs/benchmarks.md`, "2026-12-02",
/// "Transparent huge pages"). On a kernel without the flag nothing changes.
pub fn refuse_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE sets one flag of this process; no pointer
    // is passed, and a failure (an old kernel) leaves the process as it was.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}
