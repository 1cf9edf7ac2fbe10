//! Running out of memory ends like any other error: exit status 2, and on standard output the
//! error report of the format the user asked for (a JSON object for `--format json`), prepared
//! before the work starts, because nothing can be allocated once memory is gone. Rust's own
//! handling would abort the process with a message on standard error only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::OnceLock;

static REPORT: OnceLock<String> = OnceLock::new();

/// Sets what is printed on standard output when memory runs out.
pub fn prepare(report: String) {
    let _ = REPORT.set(report);
}

/// The system allocator, ending the process with the prepared report when it fails.
pub struct ReportingAllocator;

// SAFETY: every call is forwarded unchanged to the system allocator; a failed allocation ends
// the process instead of returning.
unsafe impl GlobalAlloc for ReportingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(unsafe { System.realloc(ptr, layout, new_size) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
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
