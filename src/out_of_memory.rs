//! Running out of memory ends like any other error: exit status 2, and on standard output the
//! error report of the format the user asked for (a JSON object for `--format json`), prepared
//! before the work starts, because nothing can be allocated once memory is gone. Rust's own
//! handling would abort the process with a message on standard error only.
//!
//! The allocator is mimalloc: planning allocates many small values that live briefly, and
//! mimalloc serves them in a fraction of the instructions the C library's allocator takes.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static REPORT: OnceLock<String> = OnceLock::new();

/// Sets what is printed on standard output when memory runs out.
pub fn prepare(report: String) {
    let _ = REPORT.set(report);
}

/// mimalloc, ending the process with the prepared report when an allocation fails.
pub struct ReportingAllocator;

/// The alignment every `mi_malloc` block has (`MI_MAX_ALIGN_SIZE`).
const MALLOC_ALIGN: usize = 16;

/// `mi_option_arena_reserve` in the pinned mimalloc's `mimalloc.h`.
const ARENA_RESERVE: mi::mi_option_t = 23;

/// `mi_option_purge_delay` and `mi_option_allow_thp` in the pinned mimalloc's `mimalloc.h`.
const PURGE_DELAY: mi::mi_option_t = 15;
const ALLOW_THP: mi::mi_option_t = 43;

/// The address space mimalloc reserves at a time, in KiB. Its default (1 GiB) would take the
/// room of the planner's stack under a limit of the address space (`ulimit -v`), which is then
/// refused as a resource error before any SQL is read; 64 MiB reservations grow as needed.
const ARENA_RESERVE_KIB: std::ffi::c_long = 64 * 1024;

static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// Sets mimalloc's options before its first allocation reserves memory (an environment
/// variable, `MIMALLOC_ARENA_RESERVE`, `MIMALLOC_PURGE_DELAY` or `MIMALLOC_ALLOW_THP`, still
/// wins).
#[inline]
fn configure() {
    if !CONFIGURED.load(Ordering::Relaxed) {
        CONFIGURED.store(true, Ordering::Relaxed);
        // SAFETY: sets values in mimalloc's option table; nothing is allocated.
        unsafe {
            mi::mi_option_set_default(ARENA_RESERVE, ARENA_RESERVE_KIB);
            // A check is one short process: memory it frees is used again, never given back
            // to the system (a purge costs a system call, and a page fault when the memory is
            // used again), and no transparent huge pages are asked for (a fault on one zeroes
            // 2 MiB, and under memory pressure compacts memory first). Together they took
            // three quarters of the system time off parsing 100,000 queries.
            mi::mi_option_set_default(PURGE_DELAY, -1);
            mi::mi_option_set_default(ALLOW_THP, 0);
        }
    }
}

/// Whether a plain `mi_malloc` block is aligned enough for `layout` (as the standard library
/// decides for `malloc`).
#[inline]
fn plain(layout: Layout) -> bool {
    layout.align() <= MALLOC_ALIGN && layout.align() <= layout.size()
}

// SAFETY: every call is forwarded to mimalloc with the layout's size and alignment (a plain
// `mi_malloc` only where its blocks are aligned enough); a failed allocation ends the process
// instead of returning.
unsafe impl GlobalAlloc for ReportingAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        configure();
        let ptr = if plain(layout) {
            unsafe { mi::mi_malloc(layout.size()) }
        } else {
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) }
        };
        checked(ptr.cast())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        configure();
        let ptr = if plain(layout) {
            unsafe { mi::mi_zalloc(layout.size()) }
        } else {
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) }
        };
        checked(ptr.cast())
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let ptr: *mut c_void = ptr.cast();
        let moved = if layout.align() <= MALLOC_ALIGN && layout.align() <= new_size {
            unsafe { mi::mi_realloc(ptr, new_size) }
        } else {
            unsafe { mi::mi_realloc_aligned(ptr, new_size, layout.align()) }
        };
        checked(moved.cast())
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi::mi_free(ptr.cast()) }
    }
}

fn checked(ptr: *mut u8) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory();
    }
    ptr
}

/// Writes the prepared report straight to the file descriptors (the buffered `stdout()` may
/// need memory) and exits with status 2.
fn out_of_memory() -> ! {
    // SAFETY: descriptors 1 and 2 are the process's standard output and error; they are
    // written to, never closed (`ManuallyDrop`).
    let (mut out, mut err) = unsafe {
        (
            ManuallyDrop::new(std::fs::File::from_raw_fd(1)),
            ManuallyDrop::new(std::fs::File::from_raw_fd(2)),
        )
    };
    if let Some(report) = REPORT.get() {
        let _ = out.write_all(report.as_bytes());
    }
    let _ = err.write_all(b"error: out of memory (raise the memory limit of the process)\n");
    std::process::exit(2)
}
